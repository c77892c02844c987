"""The parts of the harness a spec may switch off: the readiness lease ([gate] readiness), the
armed roots ([gate] armed_roots) and the halt model ([halt] enabled); and the halt's lists
(mcp_servers, daemon_managers). Each variant spec is rendered from the current templates and
run through its gates with real payloads."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests.gatekit import GATE, OK, SPEC, Rig
from tests.installkit import hs
from tests.shells import ROOT, sh_scripts
from tests.tentaclekit import halt_msg, p_edit, p_prompt, p_shell, p_stop, p_tool, render, tool_block

from hookshape.commands import status
from hookshape.plan import matchers
from hookshape.spec.load import load

SPEC_FILE = ROOT / "hookshape.toml"
REASON = "maintenance window"
NO_LEASE = {"readiness": False, "armed_roots": False}


def variant(where: Path, **tables: dict[str, Any]) -> Path:
    """The default spec with some keys of its tables replaced."""
    doc = tomlkit.parse(SPEC_FILE.read_text())
    for table, keys in tables.items():
        for key, value in keys.items():
            doc[table][key] = value  # type: ignore[index]
    where.mkdir(parents=True, exist_ok=True)
    path = where / "hookshape.toml"
    path.write_text(tomlkit.dumps(doc))
    return path


def rig_of(tmp_path: Path, **tables: dict[str, Any]) -> Rig:
    spec = variant(tmp_path / "spec", **tables)
    render(tmp_path / "render", spec)
    return Rig(tmp_path / "rig", source=tmp_path / "render")


def bare(rig: Rig) -> None:
    """No lease files, no roots file: a harness with no daemon."""
    for rel in (GATE.ready_file, GATE.pid_file, GATE.heartbeat_file, GATE.armed_roots_file):
        rig.path(rel).unlink(missing_ok=True)


def scripts(rig: Rig) -> str:
    return "".join(p.read_text() for p in sh_scripts(rig.dist / "bin"))


def answer(out: str) -> Any:
    return json.loads(out) if out else None


# --- the readiness lease and the armed roots ----------------------------------------------


def test_without_lease_and_roots_the_gate_runs_its_tentacle_anywhere(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, gate=NO_LEASE)
    bare(rig)
    elsewhere = tmp_path / "not-armed"
    elsewhere.mkdir()
    for role in ("prompt", "pre_tool", "post_tool", "stop"):
        rig.stub(role, OK)
        res = rig.run(role, "{}", cwd=elsewhere)
        assert (res.code, res.out) == (0, "out\n"), role
    assert rig.runs() == 4
    text = scripts(rig)
    assert "_pd_ready" not in text and "_pd_armed" not in text
    assert GATE.ready_file not in text and GATE.armed_roots_file not in text


def test_readiness_off_still_needs_an_armed_root(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, gate={"readiness": False})
    bare(rig)
    rig.stub("stop", OK)
    assert (rig.run("stop").code, rig.runs()) == (0, 0)
    rig.arm(rig.project)
    assert rig.run("stop").out == "out\n"
    assert "_pd_ready" not in scripts(rig)


def test_readiness_off_a_halt_still_blocks_the_cli(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, gate=NO_LEASE)
    bare(rig)
    block = tool_block("claude", halt_msg(REASON))
    assert _halted(rig, "pre_tool", p_shell("claude", "pd start", rig.project)) == (0, block)
    assert _halted(rig, "pre_tool", p_shell("claude", "ls", rig.project)) == (0, None)


def test_armed_roots_off_still_needs_the_lease(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, gate={"armed_roots": False})
    bare(rig)
    rig.stub("stop", OK)
    assert (rig.run("stop").code, rig.runs()) == (0, 0)
    rig.lease()
    assert rig.run("stop").out == "out\n"
    assert "_pd_armed" not in scripts(rig)


def test_real_tentacles_run_with_no_lease_files(tmp_path: Path) -> None:
    """The protect rule of the real pre-tool tentacle answers with no daemon at all."""
    rig = rig_of(tmp_path, gate=NO_LEASE)
    bare(rig)
    target = rig.path(GATE.kill_switch_file)
    res = rig.run("pre_tool", json.dumps(p_edit("claude", str(target), rig.project)), vendor="claude")
    assert res.out and "PROTECTED" in res.out


# --- the halt model off -------------------------------------------------------------------


@pytest.fixture
def no_halt(tmp_path: Path) -> Rig:
    return rig_of(tmp_path, halt={"enabled": False})


def _turn(rig: Rig, session: str) -> list[tuple[int, str, str]]:
    cwd = rig.project
    events = [("prompt", p_prompt("claude", cwd)), ("pre_tool", p_shell("claude", "pd start", cwd)),
              ("pre_tool", p_tool("claude", "mcp__port-daddy__lock", {}, cwd)),
              ("pre_tool", p_shell("claude", "launchctl start com.portdaddy.daemon", cwd)),
              ("stop", p_stop("claude", "done", cwd, session=session))]
    out = []
    for role, payload in events:
        res = rig.run(role, json.dumps(payload), vendor="claude")
        out.append((res.code, res.out, res.err))
    return out


def test_halt_off_a_halt_file_changes_nothing(no_halt: Rig) -> None:
    before = _turn(no_halt, "s-1")
    no_halt.write(SPEC.halt.sentinel_default, REASON + "\n")
    after = _turn(no_halt, "s-2")
    assert after == before
    assert before[1] == (0, "", "") and before[2] == (0, "", "")
    assert SPEC.messages.halt_header not in before[0][1]
    assert not no_halt.path(SPEC.halt.distress_default).exists()
    assert not (no_halt.home / SPEC.harness.state_dir / "halt").exists()


def test_halt_off_renders_no_halt_code_and_protect_still_works(no_halt: Rig) -> None:
    text = scripts(no_halt)
    for word in (SPEC.halt.sentinel_env, SPEC.halt.distress_env, SPEC.messages.halt_header,
                 "h_blocks", "_pd_seen", "_pd_complied", "_pd_cycle"):
        assert word not in text, word
    res = no_halt.run("pre_tool", json.dumps(p_edit("claude", str(no_halt.path(GATE.kill_switch_file)),
                                                    no_halt.project)), vendor="claude")
    assert "PROTECTED" in res.out


def test_halt_off_the_pre_tool_matcher_takes_no_mcp_tools(tmp_path: Path) -> None:
    loaded = load(variant(tmp_path, halt={"enabled": False}))
    claude = next(p for p in loaded.vendors if p.id == "claude")
    assert "mcp" not in (matchers.matcher(loaded.spec, claude, "pre_tool") or "")


def test_halt_off_and_no_daemon_need_no_protected_sentinel_or_lease(tmp_path: Path) -> None:
    home = [e for e in SPEC.protect.home if e not in ("HALT", "DISTRESS", "daemon.ready",
                                                       "daemon.pid", "heartbeat")]
    spec = variant(tmp_path, halt={"enabled": False}, gate={"readiness": False},
                   protect={"home": home})
    assert hs("validate", "--spec", str(spec)).code == 0
    spec = variant(tmp_path / "on", protect={"home": home})
    res = hs("validate", "--spec", str(spec))
    assert res.code == 1 and "halt.sentinel_default" in res.out + res.err


# --- the halt's lists -------------------------------------------------------------------


def _halted(rig: Rig, role: str, payload: dict[str, Any]) -> tuple[int, Any]:
    rig.write(SPEC.halt.sentinel_default, REASON + "\n")
    res = rig.run(role, json.dumps(payload), vendor="claude")
    return res.code, answer(res.out)


def test_two_mcp_servers_are_both_blocked_under_halt(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, halt={"mcp_servers": ["port-daddy", "pd-extra"]})
    block = tool_block("claude", halt_msg(REASON))
    for tool in ("mcp__port-daddy__lock", "mcp__pd-extra__anything"):
        assert _halted(rig, "pre_tool", p_tool("claude", tool, {}, rig.project)) == (0, block), tool
    assert _halted(rig, "pre_tool", p_tool("claude", "mcp__other__x", {}, rig.project)) == (0, None)
    loaded = load(tmp_path / "spec" / "hookshape.toml")
    claude = next(p for p in loaded.vendors if p.id == "claude")
    found = matchers.matcher(loaded.spec, claude, "pre_tool") or ""
    assert "|mcp__port-daddy__.*|mcp__pd-extra__.*)$" in found


def test_no_mcp_server_blocks_no_mcp_tool(tmp_path: Path) -> None:
    rig = rig_of(tmp_path, halt={"mcp_servers": []})
    assert _halted(rig, "pre_tool", p_tool("claude", "mcp__port-daddy__lock", {}, rig.project)) == (0, None)
    # the CLI is still blocked
    block = tool_block("claude", halt_msg(REASON))
    assert _halted(rig, "pre_tool", p_shell("claude", "pd start", rig.project)) == (0, block)
    loaded = load(tmp_path / "spec" / "hookshape.toml")
    claude = next(p for p in loaded.vendors if p.id == "claude")
    assert "mcp" not in (matchers.matcher(loaded.spec, claude, "pre_tool") or "")


@pytest.mark.parametrize(("managers", "blocked", "allowed"), [
    (["systemctl"], "systemctl start com.portdaddy.daemon", "launchctl start com.portdaddy.daemon"),
    ([], None, "brew services start com.portdaddy.daemon"),
    (["launchctl", "brew"], "brew services start com.portdaddy.daemon", "systemctl start com.portdaddy.daemon"),
])
def test_daemon_managers_are_the_spec_s(tmp_path: Path, managers: list[str], blocked: str | None,
                                        allowed: str) -> None:
    rig = rig_of(tmp_path, halt={"daemon_managers": managers})
    if blocked is not None:
        block = tool_block("claude", halt_msg(REASON))
        assert _halted(rig, "pre_tool", p_shell("claude", blocked, rig.project)) == (0, block)
    assert _halted(rig, "pre_tool", p_shell("claude", allowed, rig.project)) == (0, None)


def test_the_old_mcp_server_key_names_the_new_one(tmp_path: Path) -> None:
    text = SPEC_FILE.read_text().replace('mcp_servers = ["port-daddy"]', 'mcp_server = "port-daddy"')
    assert "mcp_server =" in text
    (tmp_path / "hookshape.toml").write_text(text)
    res = hs("validate", "--spec", str(tmp_path / "hookshape.toml"))
    lines = (res.out + res.err).strip().splitlines()
    assert res.code == 1 and len(lines) == 1
    assert "halt.mcp_server: renamed to mcp_servers" in lines[0]


# --- doctor and status say nothing of what is off -----------------------------------------


def _doctor(home: Path, spec: Path) -> dict[str, Any]:
    res = hs("doctor", "--spec", str(spec), "--home", str(home), "--json", "--project", str(home))
    data: dict[str, Any] = json.loads(res.out)
    return next(r for r in data["reports"] if r["vendor"] == "harness")


def test_doctor_and_status_say_nothing_of_what_is_off(tmp_path: Path) -> None:
    spec = variant(tmp_path / "off", halt={"enabled": False}, gate=NO_LEASE)
    loaded = load(spec)
    home = tmp_path / "user"
    harness = home / SPEC.harness.home_default.removeprefix("~/")
    harness.mkdir(parents=True)
    (harness / SPEC.halt.sentinel_default).write_text(REASON + "\n")
    words = json.dumps(_doctor(home, spec)).lower()
    for word in ("daemon", "lease", "armed", "heartbeat", "halt"):
        assert word not in words, word
    text = status.render_text(loaded.spec, harness, time.time())
    assert "halt" not in text and "lease" not in text
    assert "halted" not in json.loads(status.render_json(loaded.spec, harness, time.time()))
    # the default spec still reports them
    words = json.dumps(_doctor(home, SPEC_FILE))
    assert "start the harness daemon" in words and "halted" in words and "unarmed" in words
    assert "halt sentinel present" in status.render_text(SPEC, harness, time.time())


SHELLCHECK = ROOT / ".venv" / "bin" / "shellcheck"


@pytest.mark.slow  # a lint of four renders: make test runs it, the edit-run loop leaves it out
@pytest.mark.parametrize("tables", [
    {"halt": {"enabled": False}},
    {"gate": NO_LEASE},
    {"gate": {"readiness": False}, "halt": {"mcp_servers": [], "daemon_managers": []}},
    {"halt": {"enabled": False}, "gate": NO_LEASE},
], ids=["no-halt", "no-lease", "no-readiness", "nothing"])
def test_every_variant_is_shellcheck_clean(tmp_path: Path, tables: dict[str, dict[str, Any]]) -> None:
    if not SHELLCHECK.exists():
        pytest.skip("no shellcheck in the venv")
    out = tmp_path / "render"
    render(out, variant(tmp_path, **tables))
    scripts = [str(p) for p in sh_scripts(out / "bin")]
    proc = subprocess.run([str(SHELLCHECK), "-s", "sh", *scripts], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout[:3000]
