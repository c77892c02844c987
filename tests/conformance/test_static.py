"""Static checks of every rendered script: shellcheck -s sh with zero findings, `<shell> -n`
under every shell of the matrix, no call of jq or python anywhere; plus what each parser
environment really offers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conformance.conftest import need_shell, tag
from tests.conformance.kit import CI, MATRIX, NAMES, ROOT, TENTACLE_DIR, Rendered, absolute_argv, env_notes
from tests.shells import sh_scripts

SCRIPTS = [f"bin/{n}" for n in NAMES.values()] + [f"bin/{TENTACLE_DIR}/{n}" for n in NAMES.values()]
DIST = ROOT / "dist"


def shellcheck() -> str | None:
    for cand in (Path(sys.executable).parent / "shellcheck", ROOT / ".venv" / "bin" / "shellcheck"):
        if cand.is_file():
            return str(cand)
    return shutil.which("shellcheck")


def lint(script: Path) -> subprocess.CompletedProcess[str]:
    sc = shellcheck()
    if sc is None:
        if CI:
            pytest.fail("shellcheck is not installed (pip install -e '.[test]')")
        pytest.skip("shellcheck is not installed")
    return subprocess.run([sc, "-s", "sh", "-f", "gcc", str(script)], capture_output=True, text=True, check=False)


def script_of(rendered: Rendered, rel: str) -> Path:
    path = rendered.root / rel
    if not path.exists() and rendered.gate_error and "/" not in rel.removeprefix("bin/"):
        if CI:
            pytest.fail(f"no gate rendered: {rendered.gate_error}")
        pytest.skip(f"no gate rendered: {rendered.gate_error}")
    return path


@pytest.mark.parametrize("rel", SCRIPTS)
def test_shellcheck_render(rendered, request, rel):
    """The current templates render scripts with zero shellcheck findings."""
    tag(request, kind="static")
    r = lint(script_of(rendered, rel))
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr


def dist_scripts() -> list[str]:
    if not DIST.is_dir():
        return []
    return [str(p.relative_to(DIST)) for p in sh_scripts(DIST)]


# make test-fast leaves it to test_shellcheck_render: both targets check `render --check` first,
# so dist/ holds the same scripts
@pytest.mark.slow
@pytest.mark.parametrize("rel", dist_scripts() or ["(dist/ not rendered)"])
def test_shellcheck_dist(request, rel):
    """Every committed script in dist/ has zero shellcheck findings (`make check` runs the same)."""
    tag(request, kind="static")
    if rel.startswith("("):
        pytest.fail("dist/ holds no rendered script: run make render") if CI else pytest.skip("dist/ is empty")
    r = lint(DIST / rel)
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr


@pytest.mark.parametrize("rel", SCRIPTS)
@pytest.mark.parametrize("sh", MATRIX, ids=lambda s: s.name)
def test_syntax(rendered, request, sh, rel):
    """`<shell> -n` parses every rendered script (ksh93 prints style warnings; only errors fail)."""
    tag(request, shell=sh.name, kind="static")
    need_shell(sh)
    script = script_of(rendered, rel)
    r = subprocess.run([*absolute_argv(sh), "-n", str(script)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, f"{sh.name} -n {rel}: rc={r.returncode}\n{r.stderr[-2000:]}"
    noise = [ln for ln in r.stderr.splitlines() if ": warning: " not in ln]
    assert not noise, "\n".join(noise[:20])


def test_environments(paths, request):
    """The busybox-only PATH farm holds busybox applets only (and no jq, no python)."""
    tag(request, kind="static")
    for n in env_notes(paths):
        request.node.user_properties.append(("cf_note", n))
    if paths["busybox"] is None:
        if CI:
            pytest.fail("busybox is missing: no busybox-only PATH")
        pytest.skip("busybox is missing")
    bb = paths["busybox"]
    for tool in ("awk", "head", "date", "mkdir", "rm", "sed", "ps", "sleep"):
        found = shutil.which(tool, path=bb)
        assert found and os.path.realpath(found) == os.path.realpath(shutil.which("busybox") or ""), tool
    assert shutil.which("jq", path=bb) is None and shutil.which("python3", path=bb) is None


# a command word jq, python, python3, python3.12 ... (not part of a longer name or path segment)
JQ_PY = re.compile(r"(?<![\w.-])(jq|python[0-9.]*)(?![\w-])")


def jq_or_python(text: str, script: bool) -> list[str]:
    """The lines that name jq or python as a word (comment lines of a script do not count)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if script and line.lstrip().startswith("#"):
            continue
        if JQ_PY.search(line):
            out.append(f"{n}: {line.strip()[:160]}")
    return out


def test_no_script_calls_jq_or_python(rendered, rendered_hooks, request):
    """Nothing rendered calls jq or python: every script of dist/ and of the current templates
    (the built-in jobs, and the gates and adapters of user hooks), and every hook command of
    dist/config. A PATH without them therefore changes nothing, whatever the shell or the
    vendor, and the matrix crosses no such PATH."""
    tag(request, kind="static")
    files = [DIST / rel for rel in dist_scripts()] + [rendered.root / rel for rel in SCRIPTS]
    files += rendered_hooks.scripts()
    files += sorted(p for p in (DIST / "config").rglob("*") if p.is_file())
    assert len(dist_scripts()) >= 8, "dist/ holds no rendered scripts: run make render"
    found = {}
    for f in files:
        if not f.exists():  # a gate the current templates could not render: test_syntax reports it
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        hits = jq_or_python(text, text.startswith("#!"))
        if hits:
            found[str(f)] = hits
    assert not found, found
    assert jq_or_python("x=$(printf %s \"$1\" | jq -r .a)", True)  # the check sees a call
    assert jq_or_python("  python3 -c 'print(1)'", True) and not jq_or_python("# no jq here", True)
