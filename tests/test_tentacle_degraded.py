"""The core contract in degraded environments: PATH without jq; without jq and python3; a
busybox-only PATH (every applet a symlink to busybox, nothing else); and two other awks
(mawk, the one-true-awk) in front of the PATH. Both dial forms must work with every parser."""

from __future__ import annotations

import json
import re
import sys
import time

import pytest

if "tests.tentaclekit" not in sys.modules:  # rewrite its asserts too (it is a plugin below)
    pytest.register_assert_rewrite("tests.tentaclekit")

from tests.tentaclekit import (
    ISO_RE,
    MSG,
    SITREP_CONTRACT,
    VENDORS,
    Pd,
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
    stop_block,
    stop_suggest,
    suffix,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

FARMS = ["no-jq", "no-jq-no-python", "busybox-only", "awk=mawk", "awk=original-awk"]
VEND = pytest.mark.parametrize("vendor", VENDORS)


@pytest.fixture(params=FARMS)
def dpd(request: pytest.FixtureRequest, pd: Pd, farms: dict[str, str]) -> Pd:
    name = request.param
    if name not in farms:
        pytest.fail(f"the {name} PATH could not be built (tool missing)")
    pd.env["PATH"] = farms[name]
    return pd


def test_farms_are_what_they_claim(farms: dict[str, str]) -> None:
    from pathlib import Path

    assert not (Path(farms["no-jq"]) / "jq").exists()
    assert (Path(farms["no-jq"]) / "awk").exists()
    nopy = Path(farms["no-jq-no-python"])
    assert not (nopy / "jq").exists() and not list(nopy.glob("python3*"))
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


@VEND
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
    assert m.group(3) == re.sub(r'([\\"$`])', r"\\\1", target)
    assert not list(dpd.root.rglob("CANARY"))
    assert not (dpd.state / "matrix.lock").exists()


@VEND
def test_halt(dpd: Pd, vendor: str) -> None:
    dpd.halt("drill")
    env = {"PD_HOOK_PROVIDER": vendor}
    for cmd in ("pd start", "sudo -u x npx port-daddy start", "ls && /opt/bin/pd stop", "echo $(pd status)",
                "brew services start port-daddy"):
        r = dpd.run("pre_tool", p_shell(vendor, cmd, dpd.proj), env=env)
        assert r.json == tool_block(vendor, halt_msg("drill")), cmd
    for cmd in ("pd --version", "npm test", "launchctl list"):
        assert_silent(dpd.run("pre_tool", p_shell(vendor, cmd, dpd.proj), env=env))
    r = dpd.run("prompt", p_prompt(vendor, dpd.proj, session="h1"), env=env)
    assert r.json == context(vendor, MSG["halt_header"] + "\ndrill\n" + MSG["halt_body"])
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
