"""`hookshape status`: breaker state and recent debug events, read from what real gates wrote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests import clikit
from tests.gatekit import CRASH, GATE, NAMES, PHASES, SILENT, SPEC, Rig

from hookshape.diagnose import health

HOME_DIR = SPEC.harness.home_default.removeprefix("~/")


def status(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    unset: dict[str, str | None] = {k: None for k in (SPEC.harness.home_env, "HOOKSHAPE_HOME", SPEC.halt.sentinel_env,
                                                      GATE.kill_switch_env)}
    return clikit.hookshape("status", *args, env={**unset, **(env or {})})


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    """A rig whose harness home sits at the spec's default place under a user home."""
    r = Rig(tmp_path / "rig")
    user = tmp_path / "user"
    user.mkdir()
    (user / HOME_DIR).symlink_to(r.home)
    r.user = user  # type: ignore[attr-defined]
    return r


def trip(rig: Rig, role: str) -> None:
    rig.stub(role, CRASH)
    for _ in range(GATE.failure_threshold):
        assert rig.run(role).code == 0


def test_all_closed(rig: Rig) -> None:
    res = status("--home", str(rig.user))
    assert res.returncode == 0, res.stderr
    assert str(rig.user / HOME_DIR) in res.stdout
    for role, name in NAMES.items():
        assert f"{name} ({PHASES[role]}): closed, 0 failures in a row" in res.stdout
    assert "debug log is off" in res.stdout


def test_open_breaker_in_text_and_json(rig: Rig) -> None:
    trip(rig, "pre_tool")
    text = status("--home", str(rig.user)).stdout
    line = next(ln for ln in text.splitlines() if NAMES["pre_tool"] in ln)
    assert f"open, {GATE.failure_threshold} failures in a row" in line
    assert "last: crash at" in line and "retry at" in line
    doc = json.loads(status("--home", str(rig.user), "--json").stdout)
    by_name = {b["name"]: b for b in doc["breakers"]}
    b = by_name[NAMES["pre_tool"]]
    assert (b["state"], b["failures"]) == ("open", GATE.failure_threshold)
    assert b["last_failure"]["kind"] == "crash"
    assert b["retry_at"].endswith("Z") and 0 < b["retry_in_s"] <= GATE.cooldown_ms / 1000
    assert b["told"] is False
    assert by_name[NAMES["stop"]]["state"] == "closed"
    assert doc["kill_switch"] is False and doc["halted"] is False


def test_half_open_and_malformed(rig: Rig) -> None:
    rig.health.mkdir(parents=True, exist_ok=True)
    rig.state_file("stop").write_text("breaker/1 half 4 timeout 1795000000 4102444800 5 1\n")
    rig.state_file("prompt").write_text("breaker/1 open three crash 0 0 0 0\n")
    doc = json.loads(status("--home", str(rig.user), "--json").stdout)
    by_name = {b["name"]: b for b in doc["breakers"]}
    assert by_name[NAMES["stop"]]["state"] == "half-open"
    assert by_name[NAMES["stop"]]["last_failure"]["kind"] == "timeout"
    bad = by_name[NAMES["prompt"]]
    assert bad["state"] == "closed" and "malformed" in bad["problem"]
    text = status("--home", str(rig.user)).stdout
    assert "half-open" in text and "next probe at" in text


def test_reset_closes_every_breaker(rig: Rig) -> None:
    trip(rig, "pre_tool")
    trip(rig, "stop")
    (rig.health / f"{NAMES['stop']}{health.LOCK_EXT}").write_text("")
    state = rig.health / f"{NAMES['stop']}{health.STATE_EXT}"
    temp = state.with_name(f"{state.name}.4242")  # a state write killed before its rename
    temp.write_text("")
    kept = state.with_name(f"{state.name}.notes")  # not the gate's: left alone
    kept.write_text("")
    res = status("--home", str(rig.user), "--reset")
    assert res.returncode == 0, res.stderr
    assert "every breaker closed (4 file(s) removed)" in res.stdout
    assert rig.state("pre_tool") is None and rig.state("stop") is None
    assert not (rig.health / f"{NAMES['stop']}{health.LOCK_EXT}").exists()
    assert not temp.exists() and kept.exists()
    rig.stub("pre_tool", SILENT)
    before = rig.runs()
    assert rig.run("pre_tool").code == 0
    assert rig.runs() == before + 1, "after --reset the gate runs its tentacle again"
    doc = json.loads(status("--home", str(rig.user), "--reset", "--json").stdout)
    assert doc["removed"] == []


def test_recent_events_in_plain_words(rig: Rig) -> None:
    rig.write(GATE.debug_switch_file, "")
    rig.stub("prompt", SILENT)
    rig.run("prompt", vendor="claude")
    trip(rig, "prompt")
    rig.run("prompt", vendor="claude")
    text = status("--home", str(rig.user)).stdout
    events = text.split("recent events:", 1)[1].strip().splitlines()
    assert len(events) == 5
    assert "ran fine" in events[0] and "via claude" in events[0] and PHASES["prompt"] in events[0]
    assert "crashed" in events[1]
    assert "skipped: circuit open" in events[-1]
    doc = json.loads(status("--home", str(rig.user), "--json").stdout)
    outcomes = [e["outcome"] for e in doc["events"]]
    assert outcomes == ["healthy", "crash", "crash", "crash", "skipped-open"]
    assert doc["debug"] is True


def test_only_the_last_ten_events(rig: Rig) -> None:
    rig.write(GATE.debug_switch_file, "")
    rig.stub("stop", SILENT)
    for _ in range(12):
        rig.run("stop")
    doc = json.loads(status("--home", str(rig.user), "--json").stdout)
    assert len(doc["events"]) == 10


def test_home_env_and_harness_env(rig: Rig, tmp_path: Path) -> None:
    res = status(env={"HOOKSHAPE_HOME": str(rig.user)})
    assert res.returncode == 0 and str(rig.user / HOME_DIR) in res.stdout
    res = status("--home", str(tmp_path / "nowhere"), env={SPEC.harness.home_env: str(rig.home)})
    assert res.returncode == 0 and f"harness home {rig.home}" in res.stdout


def test_switches_are_shown(rig: Rig) -> None:
    rig.write(GATE.kill_switch_file, "")
    rig.write(SPEC.halt.sentinel_default, "x\n")
    text = status("--home", str(rig.user)).stdout
    assert "kill switch ON" in text and "halt sentinel present" in text


def test_missing_home_is_one_line_exit_1(tmp_path: Path) -> None:
    res = status("--home", str(tmp_path))
    assert res.returncode == 1
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("hookshape: error:")
    assert "no harness home" in res.stderr
