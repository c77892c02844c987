"""The suite catches breakage: deliberately broken copies of templates/ are rendered (the loader
pointed at the copy, hookshape.plan.plan.build + writer.write_plan, as `hookshape render --out` does)
and a probe set of conformance cells runs against each. A cell "caught" a breakage when it
fails on the broken render and passes on the pristine one. The table of catchers goes to the
summary (and build/conformance-summary.txt).

Probes: shellcheck of every script; `<shell> -n` under every shell; one fixture per tentacle
(one vendor each) under every shell in the normal and the busybox-only environment (direct);
for every vendor, decoy payloads (a nested "file_path"/"TargetFile" beside the true one) under
dash (which path the awk reads is the same under every shell); and one fixture per event of the
hooks spec (cells.hooks_spec, rendered from the same broken templates) through its user hooks'
adapter under every shell (normal, direct).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conformance import oracle as o
from tests.conformance.cells import HOOK_ROLES, hooks_spec, role_fixture, run_cell, run_hooks_cell, scenarios
from tests.conformance.conftest import tag
from tests.conformance.kit import (
    MATRIX,
    REFERENCE,
    ROLES,
    ROOT,
    VENDORS,
    Ctx,
    Rendered,
    absolute_argv,
    fixtures,
    new_home,
    parse_stdout,
    render,
)
from tests.conformance.test_static import lint

pytestmark = pytest.mark.slow

PROBE_ENVS = ("normal", "busybox")
# one vendor per tentacle in the matrix probe (all four vendors meet the decoy probe)
PROBE_VENDOR = {"pre_tool": "claude", "prompt": "gemini", "stop": "codex", "post_tool": "agy"}
# the hooks adapters' probe: (vendor, fixture) per event, each with a view worth checking (a
# patch's targets, a prompt, a stop's last message)
HOOK_PROBE = {"pre_tool": ("codex", "pre-tool-apply_patch"), "prompt": ("gemini", "prompt"),
              "stop": ("claude", "stop")}


@dataclass(frozen=True)
class Breakage:
    name: str
    edits: tuple[tuple[str, str, str], ...]  # (file under templates/, anchor regex (multiline), replacement)
    expect: str      # regex a catching cell name must match (the cell the breakage is aimed at)


GX = '''
# a greedy extractor (deliberate breakage): the last "<key>": "..." anywhere in the raw event
# text (GX_text, kept by j_parse on its first call: the event is parsed before anything else)
function gx(s, key,    t) {
  t = s
  if (!sub(".*\\"" key "\\"[ \\t]*:[ \\t]*\\"", "", t)) return ""
  sub(/".*/, "", t)
  return t
}
'''

BREAKAGES = [
    Breakage("bashism [[ ]] in the emit helper",
             (("fragments/answer.sh.jinja", r"""^  \[ -z "\$1" \] \|\| printf '%s\\n' "\$1"$""",
               """  if [[ -n "$1" ]]; then printf '%s\\n' "$1"; fi"""),),
             r"^matrix:dash/"),
    Breakage("`local` in the result reader",
             (("fragments/answer.sh.jinja", r"^(_\{\{ p \}\}_answer\(\) \{)$", r"\1\n  local _{{ p }}_lx"),),
             r"^matrix:ksh93/"),
    Breakage("GNU-only `sed -z` instead of `head -c`",
             (("fragments/outer.sh.jinja", r'"LC_ALL=C head -c " ~ h\.stdin_max_bytes ~ " 2>/dev/null"',
               '"sed -z \'\'"'),),
             r"^matrix:[^/]+/busybox/"),
    Breakage("greedy path extractor",
             (("fragments/paths.awk.jinja",
               r"else pa_add\(pa_abs\(j_str\(f\), cwd\)\)",
               "else pa_add(pa_abs(gx(GX_text, arr[i]), cwd))"),
              ("fragments/json.awk", r"^(function j_parse\(s,[^)]*\) \{)$", r'\1\n\tif (GX_text == "") GX_text = s')),
             r"^decoy:"),
    Breakage("stdin withheld from the user hooks (the gate spawns them on /dev/null)",
             (("hooks.sh.jinja", r'_\{\{ p \}\}_spawn "\$@" 3<"\$_\{\{ p \}\}_in"',
               '_{{ p }}_spawn "$@" 3</dev/null'),),
             r"^hooks:"),
    Breakage("swapped cwd and session in the user hooks' view",
             (("hooks.sh.jinja", r'(\{\{ view\("cwd"\) \}\})=\$5 (\{\{ view\("session"\) \}\})=\$6', r"\1=$6 \2=$5"),),
             r"^hooks:"),
]


def broken_templates(dest: Path, b: Breakage) -> Path:
    tpl = dest / "templates"
    shutil.copytree(ROOT / "templates", tpl)
    for file, anchor, replacement in b.edits:
        target = tpl / file
        new, n = re.subn(anchor, replacement, target.read_text(), count=1, flags=re.M)
        assert n == 1, f"templates/{file} changed: the anchor of {b.name!r} ({anchor}) no longer matches"
        if "gx(" in replacement:
            new += GX
        target.write_text(new)
    return tpl


# ------------------------------------------------------------------------------ probes --


def probe_fixture(role: str, vendor: str) -> str:
    """The first fixture of the tentacle's own event kind that makes it say something."""
    matched = []
    for path in fixtures(vendor):
        doc = json.loads(path.read_bytes())
        if not role_fixture(role, vendor, path, doc):
            continue
        matched.append(path.stem)
        sc = scenarios(role, vendor, path, full=False)[0]
        if any(e.out or e.trail for e in sc.expects):
            return path.stem
    assert matched, (role, vendor)
    return matched[0]


def decoy_docs(vendor: str) -> list[tuple[str, dict, list[tuple[str, str]]]]:
    """(name, payload, locks): the true path and a decoy at another depth; one probe locks only
    the decoy (must stay silent), the other only the true path (must block naming it)."""
    v = o.VENDOR[vendor]
    field = v.path_fields[0]
    tool = sorted(v.edit)[-1]
    true, decoy = "/w/src/true.txt", "/w/src/decoy.txt"
    tin = {field: true, "content": "x", "nested": {field: decoy, "tool_name": tool}}
    doc: dict = {}
    for path, value in ((v.tool, tool), (v.tool_input, tin), (v.session[0], "s1")):
        cur = doc
        for k in path[:-1]:
            cur = cur.setdefault(k, {})
        cur[path[-1]] = value
    o.place(doc, vendor, "pre_tool", "/w")
    return [("decoy-locked", doc, [(decoy, o.OTHER)]), ("true-locked", doc, [(true, o.OTHER)])]


def probe(rendered: Rendered, hooks: Rendered, base: Path, paths: dict, interps: dict) -> dict[str, str]:
    """cell name -> "" (passed) or the first problem; `hooks`: the hooks spec's render."""
    cells: dict[str, str] = {}
    for script in rendered.scripts():
        r = lint(script)
        cells[f"shellcheck:{script.name}{'' if script.parent.name == 'bin' else '@tentacle'}"] = (
            "" if r.returncode == 0 and not r.stdout else (re.findall(r"SC\d+", r.stdout) or [r.stdout[:80]])[0])
    for sh in MATRIX:
        if not sh.available:
            continue
        for script in rendered.scripts():
            r = subprocess.run([*absolute_argv(sh), "-n", str(script)], capture_output=True, check=False)
            cells[f"syntax:{sh.name}:{script.name}"] = "" if r.returncode == 0 else f"rc {r.returncode}"
        for env in PROBE_ENVS:
            if paths.get(env) is None:
                continue
            ctx = Ctx(rendered, sh, env, paths[env], "direct", interps[sh.name])
            for role in ROLES:
                vendor = PROBE_VENDOR[role]
                res = run_cell(ctx, role, vendor, base, full=False, only=[probe_fixture(role, vendor)])
                cells[f"matrix:{sh.name}/{env}/{role}/{vendor}"] = res.failures[0] if res.failures else ""
        ctx = Ctx(rendered, sh, "normal", paths["normal"], "direct", interps[sh.name])
        for vendor in VENDORS if sh.name == REFERENCE else ():
            for name, doc, pairs in decoy_docs(vendor):
                matrix = "".join(f'{o.LOCK}{o.suffix(p)}="{h}"\n' for p, h in pairs)
                exp = o.pre_tool(vendor, doc, {o.suffix(p): h for p, h in pairs})
                r = ctx.invoke("pre_tool", json.dumps(doc).encode(), new_home(base, matrix), vendor)
                obj, _s, bad = parse_stdout(vendor, "pre_tool", r.out)
                ok = r.code == 0 and not bad and obj == exp.out
                cells[f"decoy:{sh.name}/{vendor}/{name}"] = "" if ok else f"got {r.out[:120]!r}"
        # (a gate of user hooks runs them itself: it is run as the vendor runs it, in an armed
        # root with the readiness lease held)
        ctx = Ctx(hooks, sh, "normal", paths["normal"], "gate", interps[sh.name])
        for role in HOOK_ROLES:
            vendor, fixture = HOOK_PROBE[role]
            res = run_hooks_cell(ctx, role, vendor, base, "all", only=[fixture])
            assert res.checks == 1, f"no fixture {vendor}/{fixture}"
            cells[f"hooks:{sh.name}/normal/{role}/{vendor}"] = res.failures[0] if res.failures else ""
    return cells


_baseline: dict[str, dict[str, str]] = {}


def baseline(rendered: Rendered, hooks: Rendered, base: Path, paths: dict, interps: dict) -> dict[str, str]:
    if "cells" not in _baseline:
        _baseline["cells"] = probe(rendered, hooks, base, paths, interps)
    return _baseline["cells"]


def describe(caught: dict[str, str]) -> str:
    """Compact: kinds of cells, the shells/envs they ran under."""
    groups: dict[str, set[str]] = defaultdict(set)
    for cell in caught:
        kind, rest = cell.split(":", 1)
        if kind in ("matrix", "hooks"):
            sh, env, role, _v = rest.split("/")
            groups[f"{kind} {env}"].add(f"{sh}[{role}]")
        elif kind == "decoy":
            sh, vendor, name = rest.split("/")
            groups["decoy payloads"].add(f"{sh}/{vendor}/{name}")
        elif kind == "syntax":
            sh, _script = rest.split(":")
            groups["sh -n"].add(sh)
        else:
            groups["shellcheck"].add(f"{rest} {caught[cell]}")
    parts = []
    for g in sorted(groups):
        items = sorted(groups[g])
        cells = g.startswith(("matrix", "hooks"))
        shown = ", ".join(_squash(items) if cells else items[:6])
        more = len(items) - 6 if not cells and len(items) > 6 else 0
        parts.append(f"{g}: {shown}" + (f" (+{more})" if more else ""))
    return "; ".join(parts) if parts else "NOTHING"


def _squash(items: list[str]) -> list[str]:
    """dash[prompt], dash[stop] -> dash[prompt,stop]"""
    by: dict[str, list[str]] = defaultdict(list)
    for it in items:
        sh, role = it.rstrip("]").split("[")
        if role not in by[sh]:
            by[sh].append(role)
    return [f"{sh}[{','.join(sorted(r))}]" for sh, r in sorted(by.items())]


@pytest.mark.parametrize("b", BREAKAGES, ids=lambda b: b.name.split()[0].strip("`"))
def test_breakage_is_caught(rendered, rendered_hooks, paths, interps, tmp_path, request, b):
    tag(request, kind="breakage")
    if rendered.gate_error:
        pytest.skip(rendered.gate_error)
    before = baseline(rendered, rendered_hooks, tmp_path / "base", paths, interps)
    pristine = {c: why for c, why in before.items() if c.startswith("hooks:") and why}
    assert not pristine, f"the pristine hooks render fails its probe: {pristine}"
    tpl = broken_templates(tmp_path, b)
    broken = render(tmp_path / "dist", tpl)
    broken_hooks = render(tmp_path / "hooks-dist", tpl, spec=hooks_spec(tmp_path / "hooks-spec"))
    after = probe(broken, broken_hooks, tmp_path / "run", paths, interps)
    caught = {c: why for c, why in after.items() if why and not before.get(c)}
    aimed = [c for c in caught if re.search(b.expect, c)]
    tag(request, breakage=f"{b.name} -> {describe(caught)}")
    assert caught, f"{b.name}: no probe cell noticed"
    assert aimed, f"{b.name}: caught only by {sorted(caught)[:10]}, not by a cell matching {b.expect}"
