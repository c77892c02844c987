"""Rendering: dist/ is the golden, renders are deterministic and machine-independent, MANIFEST and
CAPABILITIES tell the truth, every generated file carries its header, and a made-up vendor is a
data file away (rendered and blocking end to end with no code change)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests import clikit
from tests.shells import FAST, sh_scripts
from tests.tentaclekit import suffix

from hookshape import __version__
from hookshape.spec.load import load
from hookshape.spec.profiles import builtin_dir

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
DIST = ROOT / "dist"
LEVELS = {"enforced", "best-effort", "observe-only", "unsupported"}
UPDATE = "run `make render` (or `.venv/bin/hookshape render`) and commit dist/"

Tree = dict[str, tuple[bytes, bool]]


def hookshape(*args: str | Path, cwd: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in this process, with HOOKSHAPE_HOME unset; a run that sets PYTHONHASHSEED gets a
    fresh interpreter (the seed only counts at its start)."""
    if env and "PYTHONHASHSEED" in env:
        full = dict(os.environ)
        full.pop("HOOKSHAPE_HOME", None)
        full.update(env)
        return subprocess.run([sys.executable, "-m", "hookshape", *map(str, args)], cwd=cwd or ROOT,
                              capture_output=True, text=True, timeout=300, env=full, check=False)
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None, **(env or {})})


def tree(folder: Path) -> Tree:
    """Every file under folder: relative path -> (bytes, executable bit)."""
    return {p.relative_to(folder).as_posix():
            (p.read_bytes(), bool(p.stat().st_mode & stat.S_IXUSR))
            for p in sorted(folder.rglob("*")) if p.is_file()}


def render_to(out: Path, *args: str | Path, cwd: Path | None = None,
              env: dict[str, str] | None = None) -> Tree:
    proc = hookshape("render", *args, "--out", out, cwd=cwd, env=env)
    assert proc.returncode == 0, f"render failed:\n{proc.stdout}\n{proc.stderr}"
    return tree(out if out.is_absolute() else (cwd or ROOT) / out)


def tree_diff(a: Tree, b: Tree) -> list[str]:
    out = [f"only in first: {p}" for p in sorted(set(a) - set(b))]
    out += [f"only in second: {p}" for p in sorted(set(b) - set(a))]
    for p in sorted(set(a) & set(b)):
        if a[p][0] != b[p][0]:
            out.append(f"bytes differ: {p}")
        elif a[p][1] != b[p][1]:
            out.append(f"executable bit differs: {p}")
    return out


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fresh") / "dist"
    render_to(out)
    return out


@pytest.fixture(params=["dist", "fresh"])
def rendered(request: pytest.FixtureRequest, fresh: Path) -> Path:
    if request.param == "dist":
        assert (DIST / "MANIFEST").is_file(), f"dist/ is not rendered: {UPDATE}"
        return DIST
    return fresh


# --- 1. golden -----------------------------------------------------------------------------------


def test_golden_render_check_exits_0() -> None:
    proc = hookshape("render", "--check")
    assert proc.returncode == 0, (f"dist/ differs from a fresh render: {UPDATE}\n"
                                  f"{proc.stdout[-6000:]}\n{proc.stderr}")


def test_golden_fresh_render_equals_dist_byte_for_byte(fresh: Path) -> None:
    assert DIST.is_dir(), f"dist/ is missing: {UPDATE}"
    problems = tree_diff(tree(DIST), tree(fresh))
    assert not problems, f"dist/ differs from a fresh render: {UPDATE}\n" + "\n".join(problems)


# --- 2. determinism ------------------------------------------------------------------------------


def test_renders_from_different_cwds_and_spec_copies_are_identical(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    shutil.copy(SPEC, elsewhere / "hookshape.toml")
    empty = tmp_path / "empty-cwd"
    empty.mkdir()
    # different hash seeds too: no output may depend on set or dict-of-set iteration order
    a = render_to(tmp_path / "a", env={"PYTHONHASHSEED": "1"})
    others = [("relative --spec", render_to(tmp_path / "d", "--spec", "hookshape.toml", cwd=elsewhere,
                                              env={"PYTHONHASHSEED": "random", "LC_ALL": "C", "TZ": "UTC"}))]
    if not FAST:  # fast mode: two processes (each is a fresh interpreter)
        others += [("copied spec from an empty cwd",
                    render_to(tmp_path / "b", "--spec", elsewhere / "hookshape.toml", cwd=empty,
                              env={"PYTHONHASHSEED": "2"})),
                   ("cwd next to a copied spec",
                    render_to(Path("../../c"), cwd=elsewhere, env={"PYTHONHASHSEED": "3", "TZ": "Asia/Tokyo"}))]
    assert a, "render produced nothing"
    for name, other in others:
        problems = tree_diff(a, other)
        assert not problems, f"{name}: not byte-identical:\n" + "\n".join(problems)
    assert sorted(p.name for p in empty.iterdir()) == [], "render wrote into its cwd"


def test_render_twice_in_process_is_identical() -> None:
    from hookshape.plan.plan import build
    from hookshape.spec.load import load

    first = [(a.path, a.mode, a.data) for a in build(load(SPEC)).artifacts]
    second = [(a.path, a.mode, a.data) for a in build(load(SPEC)).artifacts]
    assert first == second
    assert [p for p, _, _ in first] == sorted(p for p, _, _ in first)


def input_dates() -> set[str]:
    """Dates written in the inputs (spec, profiles) may be copied to outputs; no others may."""
    found: set[str] = set()
    for path in [SPEC, *builtin_dir().glob("*.toml")]:
        found |= set(re.findall(r"\d{4}-\d{2}-\d{2}", path.read_text(encoding="utf-8")))
    return found


def test_no_machine_path_and_no_timestamp(rendered: Path, tmp_path: Path) -> None:
    today = dt.date.today()
    dates = {d.strftime(fmt) for d in (today, today - dt.timedelta(days=1))
             for fmt in ("%Y-%m-%d", "%Y/%m/%d", "%Y%m%d")}
    dates -= input_dates()
    forbidden = ["/work", "/tmp", "/home/", str(ROOT), str(tmp_path.parent), *sorted(dates)]
    home = str(Path.home())
    if home not in ("/", ""):
        forbidden.append(home + "/")
    problems = []
    for rel, (data, _) in tree(rendered).items():
        text = data.decode("utf-8")  # every output is UTF-8 text
        for word in forbidden:
            if word in text:
                line = next(n for n, s in enumerate(text.splitlines(), 1) if word in s)
                problems.append(f"{rel}:{line}: holds {word!r}")
        if "\r" in text:
            problems.append(f"{rel}: CR line ending")
        if not text.endswith("\n") or text.endswith("\n\n"):
            problems.append(f"{rel}: must end with exactly one newline")
        if re.search(r"\b\d{2}:\d{2}:\d{2}\b", text):
            problems.append(f"{rel}: looks like it holds a time of day")
    assert not problems, "\n".join(problems)


# --- 6. MANIFEST, CAPABILITIES, headers -----------------------------------------------------------


def test_manifest_lists_every_artifact(rendered: Path) -> None:
    files = tree(rendered)
    lines = files["MANIFEST"][0].decode().splitlines()
    assert lines[0].startswith(f"# generated by hookshape {__version__} from hookshape.toml")
    entries = [line for line in lines if not line.startswith("#")]
    listed = {}
    for line in entries:
        m = re.fullmatch(r"(\S+) (0[0-7]{3}) ([0-9a-f]{64})", line)
        assert m, f"MANIFEST line {line!r} is not `path mode sha256`"
        assert m[1] not in listed, f"{m[1]} listed twice"
        listed[m[1]] = (int(m[2], 8), m[3])
    assert [e.split()[0] for e in entries] == sorted(listed), "MANIFEST is not sorted"
    assert set(listed) == set(files) - {"MANIFEST"}, "MANIFEST and the files on disk disagree"
    for rel, (mode, digest) in listed.items():
        data, executable = files[rel]
        assert hashlib.sha256(data).hexdigest() == digest, f"{rel}: sha256 differs from MANIFEST"
        assert bool(mode & 0o100) == executable, f"{rel}: mode {mode:04o} vs file"
        assert mode in (0o755, 0o644), f"{rel}: unexpected mode {mode:04o}"
        assert executable == (rel.startswith("bin/") and not rel.endswith(".awk")), \
            f"{rel}: only the scripts of bin/ are executable (not the awk programs beside them)"


def test_capabilities_json_has_one_cell_per_tentacle_and_vendor(rendered: Path) -> None:
    from hookshape.spec.load import load

    loaded = load(SPEC)
    data = json.loads((rendered / "CAPABILITIES.json").read_text())
    cells = data["capabilities"]
    tentacles = {t.name: t.role for t in loaded.spec.tentacles}
    vendors = loaded.spec.enabled_vendors()
    keys = [(c["tentacle"], c["vendor"]) for c in cells]
    assert len(keys) == len(set(keys)), "a tentacle x vendor cell appears twice"
    assert set(keys) == {(t, v) for t in tentacles for v in vendors}
    for c in cells:
        assert c["level"] in LEVELS, c
        assert c["role"] == tentacles[c["tentacle"]]
        assert isinstance(c["reason"], str) and c["reason"].strip(), c
    md = (rendered / "CAPABILITIES.md").read_text()
    for name in tentacles:
        row = next(line for line in md.splitlines() if line.startswith(f"| `{name}` |"))
        levels = [x.strip() for x in row.strip("|").split("|")[1:]]
        assert len([x for x in levels if x in LEVELS]) == len(vendors), row
    # what must hold for this harness: the edit gate is never merely observed, the trail
    # never blocks
    by = {(c["role"], c["vendor"]): c["level"] for c in cells}
    for v in vendors:
        assert by[("pre_tool", v)] in {"enforced", "best-effort"}
        assert by[("post_tool", v)] == "observe-only"


HEADER = re.compile(r"# generated by hookshape (\S+) from (\S+): "
                    r"edit the spec and re-render, not this file")


def check_header(rel: str, text: str, shebang: bool) -> None:
    lines = text.split("\n")
    head = lines[:3] if shebang else lines[:2]
    if shebang:
        assert head[0] == "#!/bin/sh", f"{rel}: first line {head[0]!r}"
        head = head[1:]
    m = HEADER.fullmatch(head[0])
    assert m, f"{rel}: no generator header line: {head[0]!r}"
    assert m[1] == __version__, f"{rel}: version {m[1]} != {__version__}"
    assert m[2] == "hookshape.toml", f"{rel}: spec name {m[2]!r}"
    h = re.fullmatch(r"# content sha256:([0-9a-f]{16,64})", head[1])
    assert h, f"{rel}: no content hash line: {head[1]!r}"
    body = "\n".join(lines[3 if shebang else 2:])
    actual = hashlib.sha256(body.encode()).hexdigest()
    assert actual.startswith(h[1]), \
        f"{rel}: content sha256 {h[1]} does not match the body ({actual})"


def test_every_generated_shell_file_has_the_header(rendered: Path) -> None:
    files = tree(rendered)
    shells = [rel for rel, (data, _) in files.items() if data.startswith(b"#!")]
    assert len(shells) == 8, f"expected 4 gates + 4 tentacles, got {shells}"
    for rel in shells:
        check_header(rel, files[rel][0].decode(), shebang=True)
    check_header("config/kimi/config.toml", files["config/kimi/config.toml"][0].decode(),
                 shebang=False)
    md = files["CAPABILITIES.md"][0].decode()
    version = re.escape(__version__)
    head = rf"<!-- (# )?generated by hookshape {version} from hookshape\.toml"
    assert re.match(head, md), md[:200]


def test_the_header_hash_detects_a_hand_edit(fresh: Path, tmp_path: Path) -> None:
    rel = "bin/squid/pd-hook-pre-tool"
    text = (fresh / rel).read_text()
    edited = text.replace("set -u", "set -u\n: hand edit", 1)
    assert edited != text
    with pytest.raises(AssertionError, match="does not match the body"):
        check_header(rel, edited, shebang=True)


def test_generated_shell_parses(rendered: Path) -> None:
    shells = sh_scripts(rendered / "bin")
    for interpreter in ("sh", "dash", "bash"):
        path = shutil.which(interpreter)
        if path is None:
            continue
        for script in shells:
            proc = subprocess.run([path, "-n", str(script)], capture_output=True, text=True,
                                  timeout=60, check=False)
            assert proc.returncode == 0, f"{interpreter} -n {script.name}: {proc.stderr}"


def test_layout_gates_and_tentacles(rendered: Path) -> None:
    from hookshape.spec.load import load

    spec = load(SPEC).spec
    files = tree(rendered)
    for t in spec.tentacles:
        assert f"bin/{t.name}" in files, f"gate of {t.name} missing"
        assert f"bin/{spec.harness.tentacle_dir}/{t.name}" in files, f"tentacle {t.name} missing"
    assert {f"config/{v}/" for v in spec.enabled_vendors()} == \
        {re.sub(r"[^/]+$", "", p) for p in files if p.startswith("config/")}


# --- 5. the made-up vendor ---------------------------------------------------------------------

ZETA_EVENTS = {"prompt": "TurnOpen", "pre_tool": "ToolGate", "post_tool": "ToolDone",
               "stop": "TurnClose"}


def zeta_profile(folder: Path, tool_block: str) -> Path:
    """A copy of the shipped Claude profile with every vendor-specific fact changed."""
    doc = tomlkit.parse((builtin_dir() / "claude.toml").read_text(encoding="utf-8"))
    doc["vendor"]["id"] = "zeta"
    doc["vendor"]["display"] = "Zeta Agent"
    doc["vendor"]["confidence"] = "medium"
    doc["vendor"]["sniff_keys"] = ["zetaSession"]
    doc["vendor"]["sniff_priority"] = 60
    for role, event in ZETA_EVENTS.items():
        doc["events"][role] = event
    doc["matcher"]["syntax"] = "regex"
    doc["tools"]["edit"] = ["put_file", "patch_file"]
    doc["tools"]["shell"] = ["exec"]
    doc["tools"]["mcp_format"] = "mcp.{server}.{tool}"
    # a config shape no real profile has: the events at the top level beside a schema key,
    # flat handlers whose command and timeout go under keys of their own
    doc["config"]["root"] = ""
    doc["config"]["layout"] = "flat"
    doc["config"]["extras"] = {"schema": 2}
    doc["config"]["handler"] = {"command": "run", "timeout": "limitMs"}
    doc["config"]["user_path"] = "~/.zeta/settings.json"
    doc["config"]["project_path"] = ".zeta/settings.json"
    doc["config"]["timeout_unit"] = "ms"
    out = doc["output"]
    out["context_roles"] = ["prompt"]
    out["stop_cap"] = 0
    # answers no real profile gives: a nested verdict object, or exit 2 with stderr
    out["deny"] = ({"stdout": {"verdict": {"kind": "refuse", "why": "{text}", "at": "{event}"}}}
                   if tool_block == "decision-deny" else {"stderr": True})
    out["warn"] = {"stderr": True}
    out["suggest"] = {}
    doc["payload"]["session"] = ["sessionId"]
    doc["payload"]["cwd"] = ["workDir"]
    doc["payload"]["event"] = "eventName"
    doc["payload"]["tool_name"] = "call.tool"
    doc["payload"]["tool_input"] = "call.input"
    doc["payload"]["path_fields"] = ["targetPath"]
    doc["payload"]["command_field"] = "cmd"
    doc["payload"]["stop_active"] = "stopActive"
    doc["payload"]["stop_text"] = ["finalText"]
    facts = tomlkit.aot()
    fact = tomlkit.table()
    fact.update({"topic": "test", "fact": "a made-up vendor for the extensibility test",
                 "source": "tests/test_render.py", "date": "2026-01"})
    facts.append(fact)
    doc["facts"] = facts
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "zeta.toml"
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return path


def zeta_spec(folder: Path) -> Path:
    doc = tomlkit.parse(SPEC.read_text(encoding="utf-8"))
    table = tomlkit.table()
    table["enabled"] = True
    table["timeout_ms"] = 5000
    doc["vendors"]["zeta"] = table
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hookshape.toml"
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return path


def run_hook(script: Path, payload: dict[str, Any], home: Path, provider: str,
             actor: str = "me", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a rendered script as the vendor would: `sh -c 'PROVIDER=<id> "<script>"'`, the event
    on stdin, a scratch home, a clean environment."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PD_HOME": str(home),
           "PD_ACTOR": actor, "PD_SUGGESTIBILITY": "enforce", "LC_ALL": "C"}
    line = f'PD_HOOK_PROVIDER={provider} "{script}"'
    return subprocess.run(["sh", "-c", line], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60, env=env, cwd=cwd, check=False)


def locked_home(tmp_path: Path, target: str) -> tuple[Path, Path]:
    """A ready harness home (see ready_home) and its project, with target locked by another
    agent; returns (home, project)."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    ready_home(home, project)
    (home / "matrix.env").write_text(f'PD_LOCK_{suffix(target)}="other-agent"\n')
    return home, project


def ready_home(home: Path, project: Path) -> None:
    """A harness home whose gates run: a live readiness lease and the project armed."""
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))["gate"]
    for name in (spec["ready_file"], spec["pid_file"]):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("4242\n")
    (home / spec["heartbeat_file"]).write_text("")
    roots = home / spec["armed_roots_file"]
    roots.parent.mkdir(parents=True, exist_ok=True)
    roots.write_text(f"{project.resolve()}\n")


@pytest.mark.parametrize("tool_block", ["decision-deny", "exit2-stderr"])
def test_made_up_vendor_end_to_end(tmp_path: Path, tool_block: str) -> None:
    profiles = tmp_path / "profiles"
    zeta_profile(profiles, tool_block)
    spec = zeta_spec(tmp_path / "spec")
    out = tmp_path / "out"
    proc = hookshape("validate", "--spec", spec, "--profiles", profiles)
    assert proc.returncode == 0, proc.stderr
    files = render_to(out, "--spec", spec, "--profiles", profiles)

    # its config: its events, its unit (ms), its matcher from its tool names
    settings = json.loads(files["config/zeta/settings.json"][0])
    assert list(settings) == ["schema", "TurnOpen", "ToolGate", "TurnClose"]
    assert settings["schema"] == 2
    hooks = settings
    cmd = 'PD_HOOK_PROVIDER=zeta "$HOME/.port-daddy/bin/{}"'
    assert hooks["TurnOpen"] == [{"type": "command", "run": cmd.format("pd-hook-prompt"), "limitMs": 5000}]
    assert hooks["TurnClose"] == [{"type": "command", "run": cmd.format("pd-hook-stop"), "limitMs": 5000}]
    group = hooks["ToolGate"][0]
    assert {k: v for k, v in group.items() if k != "matcher"} == \
        {"type": "command", "run": cmd.format("pd-hook-pre-tool"), "limitMs": 5000}
    rx = re.compile(group["matcher"])
    for tool in ("put_file", "patch_file", "exec", "mcp.port-daddy.begin_session"):
        assert rx.fullmatch(tool), f"{group['matcher']!r} misses {tool}"
    for tool in ("read_file", "mcpXport-daddyXbegin", "put_file_x"):
        assert not rx.search(tool), f"{group['matcher']!r} matches {tool}"

    # the other vendors' configs are untouched by the new one
    default = render_to(tmp_path / "default")
    for rel in ("config/claude/settings.json", "config/gemini/settings.json",
                "config/codex/hooks.json", "config/agy/hooks.json"):
        assert files[rel] == default[rel], f"{rel} changed when a vendor was added"

    # its id in the vendor tables (in the awk library), in every rendered tentacle, in CAPABILITIES
    # and MANIFEST
    for rel, (data, _) in files.items():
        if not rel.startswith("bin/squid/") or (rel.endswith(".awk") and not rel.endswith("/lib.awk")):
            continue
        text = data.decode()
        if rel.endswith(".awk"):
            assert 'V_ids["zeta"] = 1' in text, f"{rel}: zeta missing from the vendor tables"
            assert 'V_ev["zeta", "pre_tool"] = "ToolGate"' in text, rel
        else:
            assert re.search(r"^\s*zeta\) _pd_vendor=zeta ;;$", text, re.M), rel
    caps = json.loads(files["CAPABILITIES.json"][0])["capabilities"]
    zeta = {c["role"]: c for c in caps if c["vendor"] == "zeta"}
    assert set(zeta) == {"prompt", "pre_tool", "post_tool", "stop"}
    assert all(c["level"] in LEVELS for c in zeta.values())
    assert zeta["pre_tool"]["level"] == "enforced"
    assert "Zeta Agent" in files["CAPABILITIES.md"][0].decode()
    assert "config/zeta/settings.json 0644 " in files["MANIFEST"][0].decode()

    # the rendered pre-tool tentacle blocks a locked write for it, from its payload shape:
    # run directly and through its gate (the way the config wires it)
    target = "/srv/zeta-proj/src/retry file.ts"
    home, project = locked_home(tmp_path, target)
    payload = {"sessionId": "zeta-session-1", "workDir": "/srv/zeta-proj", "eventName": "ToolGate",
               "call": {"tool": "put_file",
                        "input": {"targetPath": "src/./retry file.ts", "content": "x\n"}}}
    reason = f"BLOCKED: {target} is locked by other-agent."
    for script in (out / "bin" / "squid" / "pd-hook-pre-tool", out / "bin" / "pd-hook-pre-tool"):
        where = script.relative_to(out).as_posix()
        proc = run_hook(script, payload, home, "zeta", cwd=project)
        if tool_block == "decision-deny":
            assert proc.returncode == 0, (where, proc)
            assert proc.stdout.count("\n") == 1, f"{where}: one JSON object on one line: {proc}"
            answer = json.loads(proc.stdout)["verdict"]
            assert answer["kind"] == "refuse" and answer["at"] == "ToolGate", answer
            assert answer["why"].startswith(reason), answer
        else:
            assert proc.returncode == 2, (where, proc)
            assert proc.stdout == "", where
            assert reason in proc.stderr, (where, proc)

        # controls: the holder itself, a file nobody locked, a read tool, and the same payload
        # under a vendor that does not know these tool names all pass silently
        free = {**payload, "call": {"tool": "put_file", "input": {"targetPath": "src/free.ts"}}}
        read = {**payload, "call": {**payload["call"], "tool": "read_file"}}
        quiet = [run_hook(script, payload, home, "zeta", actor="other-agent", cwd=project),
                 run_hook(script, free, home, "zeta", cwd=project),
                 run_hook(script, read, home, "zeta", cwd=project),
                 run_hook(script, payload, home, "claude", cwd=project)]
        for q in quiet:
            assert (q.returncode, q.stdout) == (0, ""), (where, q)


def test_made_up_vendor_with_a_shipped_id_overrides_it(tmp_path: Path) -> None:
    """A --profiles file named like a shipped vendor replaces it (here: Claude in ms)."""
    doc = tomlkit.parse((builtin_dir() / "claude.toml").read_text(encoding="utf-8"))
    doc["config"]["timeout_unit"] = "ms"
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "claude.toml").write_text(tomlkit.dumps(doc))
    files = render_to(tmp_path / "out", "--profiles", tmp_path / "p")
    hooks = json.loads(files["config/claude/settings.json"][0])["hooks"]
    assert {h["timeout"] for groups in hooks.values() for g in groups for h in g["hooks"]} == {5000}


def test_toml_config_parses_after_header(rendered: Path) -> None:
    data = tomllib.loads((rendered / "config" / "kimi" / "config.toml").read_text())
    assert set(data) == {"hooks"}


def test_codex_hooks_json_holds_only_the_top_level_keys_codex_reads(rendered: Path) -> None:
    """Codex drops a whole hooks.json over one other top-level key ($schema too)."""
    data = json.loads((rendered / "config" / "codex" / "hooks.json").read_text())
    assert set(data) == {"hooks"}


# --- spec text stays data ----------------------------------------------------------------------

HOSTILE = ("BLOCKED '{path}' \"by\" {holder}: $(touch {canary}) `touch {canary}` ${{HOME}} "
           "\\\\ \\n %s %d %% \\047 & | ; < > \t tab, ünïcödé, \u2603")


def test_hostile_message_text_renders_as_data(tmp_path: Path) -> None:
    """Quotes, backslashes, command substitutions, printf and awk escapes in a spec message come
    out verbatim in the vendor's JSON and never run."""
    canary = tmp_path / "canary"
    message = HOSTILE.replace("{canary}", str(canary)).replace("{{", "{").replace("}}", "}")
    doc = tomlkit.parse(SPEC.read_text(encoding="utf-8"))
    doc["messages"]["block"] = message
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    proc = hookshape("validate", "--spec", spec)
    if proc.returncode != 0:
        # {HOME} is not a placeholder: the spec may refuse it, but only with a located error
        assert proc.stderr.startswith(f"hookshape: error: {spec}: messages"), proc.stderr
        message = message.replace("${HOME}", "$HOME")
        doc["messages"]["block"] = message
        spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    render_to(out, "--spec", spec)
    target = "/home/dev/proj/src/retry.ts"
    home, project = locked_home(tmp_path, target)
    payload = json.loads((ROOT / "tests" / "fixtures" / "payloads" / "claude" /
                          "pre-tool-Write.json").read_text())
    assert payload["tool_input"]["file_path"] == target
    expected = message.replace("{path}", target).replace("{holder}", "other-agent")
    for script in (out / "bin" / "squid" / "pd-hook-pre-tool", out / "bin" / "pd-hook-pre-tool"):
        proc = run_hook(script, payload, home, "claude", cwd=project)
        assert proc.returncode == 0, proc
        answer = json.loads(proc.stdout)
        got = answer["hookSpecificOutput"]["permissionDecisionReason"]
        assert got == expected, f"{script.name}:\n{got!r}\n!=\n{expected!r}"
        assert not canary.exists(), "spec text was executed"


# --- what render may delete ---------------------------------------------------------------------


def test_render_never_deletes_files_it_did_not_write(tmp_path: Path) -> None:
    """`--out` pointed at a directory that holds other work (a typo, `--out .`) must not wipe it:
    only artifacts of an earlier render (listed in its MANIFEST) are stale."""
    out = tmp_path / "project"
    (out / "src").mkdir(parents=True)
    (out / "src" / "important.py").write_text("precious\n")
    (out / "README").write_text("notes\n")
    hookshape("render", "--out", out)  # refusing (exit 1) or writing alongside are both fine
    for rel, text in (("src/important.py", "precious\n"), ("README", "notes\n")):
        assert (out / rel).is_file(), f"render --out deleted {rel}, a file it never wrote"
        assert (out / rel).read_text() == text, f"render --out changed {rel}"


def test_render_removes_its_own_stale_artifacts(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    render_to(out)
    assert (out / "bin" / "pd-hook-stop").is_file()
    doc = tomlkit.parse(SPEC.read_text(encoding="utf-8"))
    stop = next(t for t in doc["tentacles"] if t["role"] == "stop")
    stop["name"] = "pd-hook-close"
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    files = render_to(out, "--spec", spec)
    assert "bin/pd-hook-close" in files and "bin/squid/pd-hook-close" in files
    assert "bin/pd-hook-stop" not in files and "bin/squid/pd-hook-stop" not in files
    assert "pd-hook-stop" not in files["MANIFEST"][0].decode()
    assert hookshape("render", "--check", "--spec", spec, "--out", out).returncode == 0


# --- CAPABILITIES follow the spec and the profiles ---------------------------------------------


@pytest.mark.parametrize("role", ["prompt", "pre_tool", "stop"])
def test_unregistered_tentacle_promises_nothing(tmp_path: Path, role: str) -> None:
    """A tentacle the spec stages but does not register is in no vendor config, so no vendor can
    enforce it: CAPABILITIES must not say enforced or best-effort."""
    doc = tomlkit.parse(SPEC.read_text(encoding="utf-8"))
    tentacle = next(t for t in doc["tentacles"] if t["role"] == role)
    tentacle["registered"] = False
    name = str(tentacle["name"])
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    files = render_to(tmp_path / "out", "--spec", spec)
    assert f"bin/{name}" in files, "an unregistered tentacle is still staged"
    for rel, (data, _) in files.items():
        if rel.startswith("config/"):
            assert f"/bin/{name}\\\"" not in data.decode(), f"{rel} registers {name}"
    cells = [c for c in json.loads(files["CAPABILITIES.json"][0])["capabilities"]
             if c["tentacle"] == name]
    assert len(cells) == len(load(spec).vendors)
    wrong = [f"{c['vendor']}: {c['level']}" for c in cells
             if c["level"] in ("enforced", "best-effort")]
    assert not wrong, \
        f"{name} is not registered anywhere, yet CAPABILITIES says " + ", ".join(wrong)


def test_vendor_without_an_event_is_unsupported_and_unconfigured(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    path = zeta_profile(profiles, "decision-deny")
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    doc["events"]["stop"] = ""
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    spec = zeta_spec(tmp_path / "spec")
    files = render_to(tmp_path / "out", "--spec", spec, "--profiles", profiles)
    hooks = json.loads(files["config/zeta/settings.json"][0])
    assert list(hooks) == ["schema", "TurnOpen", "ToolGate"]
    cell = next(c for c in json.loads(files["CAPABILITIES.json"][0])["capabilities"]
                if c["vendor"] == "zeta" and c["role"] == "stop")
    assert cell["level"] == "unsupported"
    assert "Zeta Agent" in cell["reason"]


def test_made_up_vendor_installs_diagnoses_and_uninstalls(tmp_path: Path) -> None:
    """The made-up vendor's config shape (events at the top level beside a schema key, flat
    handlers with keys of their own) goes through install, doctor and uninstall from its
    profile alone: its entries are written, recognised as the harness's, and taken out again to
    the bytes from before."""
    profiles = tmp_path / "profiles"
    zeta_profile(profiles, "decision-deny")
    spec = zeta_spec(tmp_path / "spec")
    home = tmp_path / "home"
    settings = home / ".zeta" / "settings.json"
    settings.parent.mkdir(parents=True)
    mine = '[{"type": "command", "run": "echo mine", "limitMs": 900}]'
    settings.write_text('{\n  "theme": "dark",\n  "TurnOpen": ' + mine + "\n}\n")
    before = settings.read_bytes()
    common = ("--spec", spec, "--profiles", profiles, "--home", home)
    proc = hookshape("install", *common, "--vendor", "zeta")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and data["schema"] == 2
    assert data["TurnOpen"][0] == {"type": "command", "run": "echo mine", "limitMs": 900}
    ours = [h for event in ZETA_EVENTS.values() for h in data.get(event, [])[1 if event == "TurnOpen" else 0:]]
    assert ours and all(h["run"].startswith('PD_HOOK_PROVIDER=zeta "') and h["limitMs"] == 5000 for h in ours)
    doctor = hookshape("doctor", *common, "--vendor", "zeta", "--json", "--project", tmp_path)
    report = next(r for r in json.loads(doctor.stdout)["reports"] if r["vendor"] == "zeta")
    codes = {f["code"] for f in report["findings"]}
    assert "not-wired" not in codes and "missing-entry" not in codes, report
    proc = hookshape("uninstall", *common, "--vendor", "zeta")
    assert proc.returncode == 0, proc.stderr
    assert settings.read_bytes() == before
