"""The core contract in degraded environments: a busybox-only PATH (every applet a symlink to
busybox, nothing else) and two other awks (mawk, the one-true-awk) in front of the PATH. Both
dial forms must work with every parser.

The awk is what changes here, not the shell: these run under dash (tests/conformance runs the
busybox-only PATH under every shell of the matrix). A PATH without jq, or without jq and python,
changes nothing for a script that calls neither: tests/conformance/test_static.py proves that no
rendered script does (and tests/conformance runs those PATHs too)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from tests.farms import farm
from tests.scratch import short_root
from tests.shells import AWK_PREFER, CORE, InTurn, tentacle_awk
from tests.tentaclekit import (
    DASH,
    ISO_RE,
    MSG,
    NAMES,
    ON_CORE,
    SITREP_CONTRACT,
    SPEC_PATH,
    VENDORS,
    Pd,
    Shell,
    assert_silent,
    assert_warn,
    block_msg,
    context,
    halt_msg,
    p_edit,
    p_prompt,
    p_shell,
    p_stop,
    p_tool,
    patch_body,
    render,
    stop_block,
    stop_suggest,
    suffix,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms


@pytest.fixture
def sh() -> Shell:
    """The awk and the PATH change here, not the shell: dash only (see tests.tentaclekit.DASH)."""
    return DASH

FARMS = ["busybox-only", "awk=mawk", "awk=original-awk"]
# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
# where the vendor changes what is asserted, every vendor in every mode
EVERY_VENDOR = pytest.mark.parametrize("vendor", VENDORS)


FARM_IN_TURN = InTurn("dpd", FARMS)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test on a degraded PATH runs on each farm; in fast mode on one, the farms in turn
    over the file (FARM_IN_TURN), so each farm still meets the tests."""
    if "dpd" in metafunc.fixturenames:
        metafunc.parametrize("dpd", FARM_IN_TURN.take(), indirect=True)


@pytest.fixture
def dpd(request: pytest.FixtureRequest, pd: Pd, farms: dict[str, str]) -> Pd:
    name = request.param
    if name not in farms:
        pytest.fail(f"the {name} PATH could not be built (tool missing)")
    pd.env["PATH"] = farms[name]
    return pd


def test_farms_are_what_they_claim(farms: dict[str, str]) -> None:
    from pathlib import Path

    bb = Path(farms["busybox-only"])
    assert all(p.resolve().name == "busybox" for p in bb.iterdir())
    assert not (bb / "jq").exists() and not (bb / "python3").exists()
    for name in ("awk", "head", "mkdir", "sleep", "rm"):
        assert (bb / name).exists(), name


@VEND
def test_block_warn_advisory_own(dpd: Pd, vendor: str) -> None:
    target = dpd.proj / "src" / "a.ts"
    dpd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}
    payload = p_edit(vendor, "src/./a.ts", dpd.proj)
    assert dpd.run("pre_tool", payload, env=env).json == tool_block(vendor, block_msg(target, "bob"))
    assert_warn(vendor, dpd.run("pre_tool", payload, env={**env, "PD_SUGGESTIBILITY": " WARN "}),
                warn_msg(target, "bob"))
    assert_silent(dpd.run("pre_tool", payload, env={**env, "PD_SUGGESTIBILITY": "advisory"}))
    assert_silent(dpd.run("pre_tool", payload, env={**env, "PD_ACTOR": "bob"}))
    assert_silent(dpd.run("pre_tool", p_edit(vendor, "src/b.ts", dpd.proj), env=env))


@VEND
@pytest.mark.parametrize("form", ["object", "bare"])
def test_dial_files_both_forms(dpd: Pd, vendor: str, form: str) -> None:
    target = dpd.proj / "a.ts"
    dpd.lock(target, "bob")
    deep = dpd.proj / "x" / "y"
    deep.mkdir(parents=True)
    (dpd.proj / ".portdaddy").mkdir()
    sug = {"level": "Warn"} if form == "object" else " warn"
    sit = {"endOfTurn": "SUGGEST"} if form == "object" else "suggest"
    (dpd.proj / ".portdaddy" / "project.json").write_text(json.dumps({"suggestibility": sug, "sitrep": sit}, indent=2))
    (deep / "agent.config.json").write_text("{not json")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}
    assert_warn(vendor, dpd.run("pre_tool", p_edit(vendor, str(target), deep), env=env), warn_msg(target, "bob"))
    assert dpd.run("stop", p_stop(vendor, "no table", deep), env=env).json == stop_suggest(vendor)
    (dpd.proj / "agent.config.json").write_text(json.dumps({"sitrep": "off", "suggestibility": {"level": "advisory"}}))
    assert_silent(dpd.run("pre_tool", p_edit(vendor, str(target), deep), env=env))  # project.json is nearer
    (deep / "agent.config.json").write_text(json.dumps({"sitrep": {"endOfTurn": "off"}, "suggestibility": "advisory"}))
    assert_silent(dpd.run("pre_tool", p_edit(vendor, str(target), deep), env=env))
    assert_silent(dpd.run("prompt", p_prompt(vendor, deep), env=env))


def test_codex_patches(dpd: Pd) -> None:
    body = patch_body(("Add", "n.ts"), ("Update", "u.ts"), ("Move", "m.ts"))
    dpd.lock(dpd.proj / "m.ts", "bob")
    for cmd in (body, ["apply_patch", body]):
        r = dpd.run("pre_tool", p_tool("codex", "apply_patch", {"command": cmd}, dpd.proj),
                    env={"PD_HOOK_PROVIDER": "codex"})
        assert r.json == tool_block("codex", block_msg(dpd.proj / "m.ts", "bob"))


@VEND
def test_prompt(dpd: Pd, vendor: str) -> None:
    env = {"PD_HOOK_PROVIDER": vendor}
    assert dpd.run("prompt", p_prompt(vendor, dpd.proj), env=env).json == context(vendor, SITREP_CONTRACT)
    dpd.alert("OPS", "a\\cb %s é" + "€" * 20)
    ts = dpd.trail(dpd.proj / "t.ts", note="fresh", age=30, n=1)
    dpd.trail(dpd.proj / "s.ts", note="stale", age=7200, n=2)
    r = dpd.run("prompt", p_prompt(vendor, dpd.proj), env=env)
    alert = MSG["alert_line"].format(id="OPS", text="a\\cb %s é" + "€" * 20)
    trail = MSG["pheromone_line"].format(path=dpd.proj / "t.ts", note="fresh", actor="bob", ts=ts)
    block = MSG["coordination_header"] + "\n" + alert + "\n" + trail
    assert r.json == context(vendor, block + "\n\n" + SITREP_CONTRACT)
    assert_silent(dpd.run("prompt", p_prompt(vendor, dpd.root / "elsewhere"),
                          env={**env, "PD_SITREP": "off", "PD_MATRIX_FILE": str(dpd.root / "none")}))


@VEND
def test_prompt_byte_cap_multibyte(dpd: Pd, vendor: str) -> None:
    dpd.alert("U", "é" * 600)
    r = dpd.run("prompt", p_prompt(vendor, dpd.proj), env={"PD_HOOK_PROVIDER": vendor, "PD_SITREP": "off"})
    obj = r.json
    assert obj is not None
    text = json.dumps(obj, ensure_ascii=False)
    assert "ALERT U: éé" in text
    body = (obj.get("injectSteps") or [{}])[0].get("ephemeralMessage") or obj["hookSpecificOutput"]["additionalContext"]
    entry = body.split("\n", 1)[1]
    assert 508 <= len(entry.encode()) <= 512


@EVERY_VENDOR
def test_stop(dpd: Pd, vendor: str) -> None:
    env = {"PD_HOOK_PROVIDER": vendor}
    assert dpd.run("stop", p_stop(vendor, "no table", dpd.proj), env=env).json == stop_block(vendor)
    assert_silent(dpd.run("stop", p_stop(vendor, "no table", dpd.proj), env=env))
    if vendor != "agy":
        at = dpd.marker("sess-1") / "at"
        at.write_text(f"{int(time.time()) - 1000}\n")
        assert dpd.run("stop", p_stop(vendor, "no table", dpd.proj), env=env).json == stop_block(vendor)
    assert_silent(dpd.run("stop", p_stop(vendor, "SITREP\n| a | b |", dpd.proj, session="s2"), env=env))
    assert_silent(dpd.run("stop", p_stop(vendor, "no table", dpd.proj, session="s3", active=True), env=env))
    assert dpd.run("stop", p_stop(vendor, "x", dpd.proj, session="s4"), env={**env, "PD_SITREP": "suggest"}).json \
        == stop_suggest(vendor)


@VEND
def test_post_tool(dpd: Pd, vendor: str) -> None:
    target = f"{dpd.proj}/q\"$(touch CANARY)`x`\\.ts"
    before = int(time.time())
    r = dpd.run("post_tool", p_edit(vendor, target, dpd.proj, post=True),
                env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}, cwd=dpd.root)
    assert_silent(r)
    (line,) = dpd.matrix.read_text().splitlines()
    m = re.fullmatch(rf'PD_PHEROMONE_{suffix(target)}_(\d+)_(\d+)_1="(.*) \| mutated via (\w+) \| '
                     rf'actor:alice \| ts:({ISO_RE})"', line)
    assert m, line
    assert before <= int(m.group(1)) <= int(time.time())
    assert m.group(3) == re.sub(r'[\\"$`]', "?", target)  # stored with no escape
    assert not list(dpd.root.rglob("CANARY"))
    assert not (dpd.state / "matrix.lock").exists()


@EVERY_VENDOR
def test_halt(dpd: Pd, vendor: str) -> None:
    dpd.halt("drill")
    env = {"PD_HOOK_PROVIDER": vendor}
    for cmd in ("pd start", "sudo -u x npx port-daddy start", "ls && /opt/bin/pd stop", "echo $(pd status)",
                "brew services start port-daddy"):
        r = dpd.run("pre_tool", p_shell(vendor, cmd, dpd.proj, session="h1"), env=env)
        assert r.json == tool_block(vendor, halt_msg("drill")), cmd
    for cmd in ("pd --version", "npm test", "launchctl list"):
        assert_silent(dpd.run("pre_tool", p_shell(vendor, cmd, dpd.proj, session="h1"), env=env))
    r = dpd.run("prompt", p_prompt(vendor, dpd.proj, session="h1"), env=env)
    assert r.json == context(vendor, MSG["halt_header"] + "\ndrill\n" + MSG["halt_body"])
    # seen once, by the first tentacle of the session (here pre-tool)
    assert re.fullmatch(rf"control SEEN session:h1 provider:{vendor} ts:{ISO_RE}\n", dpd.distress.read_text())
    if vendor != "agy":
        assert_silent(dpd.run("stop", p_stop(vendor, "no table", dpd.proj, session="h1"), env=env))
        assert dpd.distress.read_text().splitlines()[1] == f"control COMPLIED session:h1 provider:{vendor}"


@pytest.mark.parametrize("role", ["prompt", "pre_tool", "post_tool", "stop"])
@pytest.mark.parametrize("data", [b"", b"garbage", b"{", bytes(range(256)) * 64, b"[" * 3000])
def test_garbage(dpd: Pd, role: str, data: bytes) -> None:
    dpd.lock("/p/a", "bob")
    r = dpd.run(role, data, env={"PD_HOOK_PROVIDER": "claude"})
    assert r.code == 0


def test_oversize_receipt(dpd: Pd) -> None:
    payload = json.dumps(p_stop("claude", "x" * 300000, dpd.proj, session="big"))
    assert_silent(dpd.run("stop", payload, env={"PD_HOOK_PROVIDER": "claude"}))
    receipt = "PD CLOSE oversize event: failed open session:big provider:claude\n"
    assert (dpd.state / "receipts.log").read_text() == receipt
    target = dpd.proj / "big"
    dpd.lock(target, "bob")
    big = p_tool("claude", "Write", {"file_path": str(target), "content": "z" * (5 << 20)}, dpd.proj)
    r = dpd.run("pre_tool", big, env={"PD_HOOK_PROVIDER": "claude"})
    assert r.json == tool_block("claude", block_msg(target, "bob"))


# --- which awk runs ------------------------------------------------------------------------


def test_each_awk_farm_runs_the_awk_it_names(farms: dict[str, str]) -> None:
    """A farm that puts another awk in front must not leave a preferred awk (mawk) beside it:
    the tentacles would run that one and the farm would test nothing new."""
    import os

    for name in ("mawk", "original-awk"):
        if f"awk={name}" in farms:
            used = tentacle_awk(farms[f"awk={name}"])
            assert used and os.path.realpath(used) == os.path.realpath(shutil.which(name) or "")
    assert os.path.realpath(tentacle_awk(farms["busybox-only"]) or "").endswith("busybox")


def _awk_shims(root: Path, names: tuple[str, ...], hide: tuple[str, ...] = ()) -> tuple[str, Path]:
    """A PATH whose awks are logging shims (each runs mawk) in front of a farm without awk, the
    preferred awks and `hide` (Debian has a nawk too); returns the PATH and the log file."""
    real = shutil.which("mawk") or shutil.which("awk")
    assert real
    shims = root / "shims"
    shims.mkdir()
    log = root / "awk.log"
    for name in names:
        shim = shims / name
        shim.write_text(f"#!/bin/sh\nprintf '%s\\n' {name} >> '{log}'\nexec '{real}' \"$@\"\n")
        shim.chmod(0o755)
    return f"{shims}:{farm(root / 'farm', drop=('awk', *AWK_PREFER, *hide))}", log


@ON_CORE  # `command -v` of each shell picks the awk
@pytest.mark.parametrize(("present", "used"), [(("mawk", "awk"), "mawk"), (("awk",), "awk")],
                         ids=["mawk-and-awk", "awk-only"])
@VEND
def test_the_tentacles_run_the_preferred_awk(pd: Pd, vendor: str, present: tuple[str, ...], used: str) -> None:
    """harness.awk_prefer: the first preferred awk on PATH runs every program (gawk as `awk`
    nearly doubles a tentacle's time); without one, plain awk does. Same answers either way."""
    assert AWK_PREFER[0] == "mawk"
    pd.env["PATH"], log = _awk_shims(pd.root, present)
    target = pd.proj / "src" / "a.ts"
    pd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}
    assert pd.run("pre_tool", p_edit(vendor, "src/a.ts", pd.proj), env=env).json == \
        tool_block(vendor, block_msg(target, "bob"))
    pd.alert("1", "deploy freeze")
    assert b"deploy freeze" in pd.run("prompt", p_prompt(vendor, pd.proj), env=env).out
    ran = log.read_text().split()
    assert ran and set(ran) == {used}


@pytest.mark.parametrize(("prefer", "present", "used"), [
    ([], ("mawk", "awk"), "awk"),
    (["nawk", "mawk"], ("nawk", "mawk", "awk"), "nawk"),
    (["nawk", "mawk"], ("mawk", "awk"), "mawk"),
], ids=["none-preferred", "first-of-two", "second-of-two"])
def test_awk_prefer_comes_from_the_spec(tmp_path: Path, prefer: list[str], present: tuple[str, ...],
                                        used: str) -> None:
    import tomlkit

    doc = tomlkit.parse(SPEC_PATH.read_text())
    doc["harness"]["awk_prefer"] = prefer
    spec = tmp_path / "hookshape.toml"
    spec.write_text(tomlkit.dumps(doc))
    squid = render(tmp_path / "out", spec)
    script = (squid / NAMES["pre_tool"]).read_text()
    assert script.count("command -v '") == len(prefer)
    with short_root() as root:
        pd = Pd(root, squid, CORE[0])
        pd.env["PATH"], log = _awk_shims(pd.root, present, hide=tuple(prefer))
        target = pd.proj / "src" / "a.ts"
        pd.lock(target, "bob")
        env = {"PD_HOOK_PROVIDER": "claude", "PD_ACTOR": "alice"}
        assert pd.run("pre_tool", p_edit("claude", "src/a.ts", pd.proj), env=env).json == \
            tool_block("claude", block_msg(target, "bob"))
        assert set(log.read_text().split()) == {used}


@pytest.mark.parametrize("program", ["lib.awk", f"{NAMES['pre_tool']}.awk"])
def test_without_its_awk_programs_a_tentacle_fails_open(squid: Path, tmp_path: Path, program: str) -> None:
    """The awk programs lie beside the tentacle (lib.awk, then its own); with one of them gone
    awk fails, and the tentacle says nothing and exits 0: a locked edit is allowed, no verdict,
    no crash (`hookshape doctor` names the missing file)."""
    copy = tmp_path / "squid"
    shutil.copytree(squid, copy)
    (tmp_path / "h").mkdir()
    whole = Pd(tmp_path / "h", copy, DASH)
    target = whole.proj / "src" / "a.ts"
    whole.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": "claude", "PD_ACTOR": "alice"}
    payload = p_edit("claude", "src/a.ts", whole.proj)
    assert whole.run("pre_tool", payload, env=env).json == tool_block("claude", block_msg(target, "bob"))
    (copy / program).unlink()
    r = whole.run("pre_tool", payload, env=env)
    assert (r.code, r.out, r.err) == (0, b"", b"")
