"""stop (closeout): loop guards (stop_hook_active, one block per session per TTL with a mkdir
marker), compliance, null texts, the suggest channel, agy observe-only, oversize stdin."""

from __future__ import annotations

import json
import re
import time

import pytest
from tests.shells import InTurn
from tests.tentaclekit import (
    BLOCK_TTL,
    CODES,
    FIXTURES,
    MISSING,
    SESSION_MAX,
    STDIN_MAX,
    VENDORS,
    Pd,
    assert_silent,
    p_stop,
    stop_block,
    stop_suggest,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
# where the vendor changes what is asserted, every vendor in every mode
EVERY_VENDOR = pytest.mark.parametrize("vendor", VENDORS)
BLOCKING = pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
NON_COMPLIANT = "I added a retry wrapper and updated the call sites."
COMPLIANT = "Done.\n\n## SITREP\n| Idea | Source | Status |\n|---|---|---|\n| retry | Agent | done |\n"


def close(pd: Pd, vendor: str, text=NON_COMPLIANT, session: str = "sess-1", env: dict | None = None, **kw):
    return pd.run("stop", p_stop(vendor, text, pd.proj, session=session, **kw),
                  env={"PD_HOOK_PROVIDER": vendor, **(env or {})})


def marker_at(pd: Pd, session: str) -> int:
    return int((pd.marker(session) / "at").read_text().strip())


@EVERY_VENDOR
def test_blocks_once(pd: Pd, vendor: str) -> None:
    before = int(time.time())
    r = close(pd, vendor)
    assert r.json == stop_block(vendor)
    assert r.err == b""
    if vendor != "agy":
        assert before <= marker_at(pd, "sess-1") <= int(time.time())
    else:
        assert not (pd.state / "stop-blocks").exists()
    assert_silent(close(pd, vendor))


@BLOCKING
def test_other_session_blocks_too(pd: Pd, vendor: str) -> None:
    assert close(pd, vendor, session="s-a").json == stop_block(vendor)
    assert close(pd, vendor, session="s-b").json == stop_block(vendor)
    assert_silent(close(pd, vendor, session="s-a"))
    assert_silent(close(pd, vendor, session="s-b"))


@BLOCKING
def test_marker_expires_after_ttl(pd: Pd, vendor: str) -> None:
    assert close(pd, vendor).json == stop_block(vendor)
    at = pd.marker("sess-1") / "at"
    at.write_text(f"{int(time.time()) - BLOCK_TTL + 30}\n")
    assert_silent(close(pd, vendor))  # still inside the TTL
    at.write_text(f"{int(time.time()) - BLOCK_TTL - 1}\n")
    before = int(time.time())
    assert close(pd, vendor).json == stop_block(vendor)
    assert marker_at(pd, "sess-1") >= before  # renewed
    assert_silent(close(pd, vendor))


@BLOCKING
@pytest.mark.parametrize("content", ["", "garbage\n", "-5\n", "12abc\n"])
def test_bad_marker_content_does_not_silence_forever(pd: Pd, vendor: str, content: str) -> None:
    pd.marker("sess-1").mkdir(parents=True)
    (pd.marker("sess-1") / "at").write_text(content)
    assert close(pd, vendor).json == stop_block(vendor)
    assert_silent(close(pd, vendor))


@BLOCKING
def test_marker_without_at_file(pd: Pd, vendor: str) -> None:
    pd.marker("sess-1").mkdir(parents=True)
    assert close(pd, vendor).json == stop_block(vendor)
    assert marker_at(pd, "sess-1") > 0


@VEND
@pytest.mark.parametrize("active", [True])
def test_stop_hook_active(pd: Pd, vendor: str, active: bool) -> None:
    assert_silent(close(pd, vendor, active=active))
    assert not (pd.state / "stop-blocks").exists()


@BLOCKING
@pytest.mark.parametrize("active", [False, MISSING, None, "true", 1])
def test_stop_hook_not_active(pd: Pd, vendor: str, active) -> None:
    assert close(pd, vendor, active=active).json == stop_block(vendor)


@BLOCKING
@pytest.mark.parametrize("text", [
    COMPLIANT,
    "sitrep: | a | b |",
    "SiTrEp\n|x|y|",
    "Summary\n\n### Sitrep\n| Idea / Suggestion / Remediation | Source (Agent/Operator) | Status |",
    "x" * 100000 + "\nSITREP\n| a | b | c |",
])
def test_compliant_text(pd: Pd, vendor: str, text: str) -> None:
    assert_silent(close(pd, vendor, text=text))
    assert not (pd.state / "stop-blocks").exists()


@BLOCKING
@pytest.mark.parametrize("text", [
    "SITREP: all good",
    "| a | b |\nno keyword here",
    "SIT REP\n| a | b |",
    "SITREP\n| only one pipe",
    "SITREP\na | b\nc | d",
    "MOCK_DONE_1",
])
def test_non_compliant_text(pd: Pd, vendor: str, text: str) -> None:
    assert close(pd, vendor, text=text).json == stop_block(vendor)


@BLOCKING
@pytest.mark.parametrize("text", [None, "", MISSING, 42, ["SITREP"], {"a": 1}])
def test_null_or_missing_text_allows(pd: Pd, vendor: str, text) -> None:
    assert_silent(close(pd, vendor, text=text))


def test_codex_null_message_fixture(pd: Pd) -> None:
    payload = json.loads((FIXTURES / "codex" / "stop-active.json").read_text())
    payload["stop_hook_active"] = False
    assert_silent(pd.run("stop", payload, env={"PD_HOOK_PROVIDER": "codex"}))


def test_gemini_reads_prompt_response_not_last_message(pd: Pd) -> None:
    payload = p_stop("gemini", COMPLIANT, pd.proj)
    payload["last_assistant_message"] = NON_COMPLIANT
    assert_silent(pd.run("stop", payload, env={"PD_HOOK_PROVIDER": "gemini"}))
    payload = p_stop("gemini", NON_COMPLIANT, pd.proj, session="s2")
    payload["last_assistant_message"] = COMPLIANT
    assert pd.run("stop", payload, env={"PD_HOOK_PROVIDER": "gemini"}).json == stop_block("gemini")


@VEND
def test_suggest(pd: Pd, vendor: str) -> None:
    r = close(pd, vendor, env={"PD_SITREP": "suggest"})
    assert r.json == stop_suggest(vendor)
    assert r.err == b""
    assert not (pd.state / "stop-blocks").exists()
    assert close(pd, vendor, env={"PD_SITREP": "suggest"}).json == stop_suggest(vendor)  # no one-shot


@VEND
def test_off(pd: Pd, vendor: str) -> None:
    assert_silent(close(pd, vendor, env={"PD_SITREP": "off"}))


def test_agy_is_observe_only(pd: Pd) -> None:
    payload = json.loads((FIXTURES / "agy" / "stop.json").read_text())
    for env in ({}, {"PD_SITREP": "enforce"}, {"PD_SITREP": "suggest"}):
        assert_silent(pd.run("stop", payload, env={"PD_HOOK_PROVIDER": "agy", **env}))
        assert_silent(pd.run("stop", payload, env=env))
    assert not (pd.state / "stop-blocks").exists()


@BLOCKING
def test_session_key_sanitised(pd: Pd, vendor: str) -> None:
    session = "../../$(touch CANARY)/a b\tc" + "z" * 100
    r = pd.run("stop", p_stop(vendor, NON_COMPLIANT, pd.proj, session=session),
               env={"PD_HOOK_PROVIDER": vendor}, cwd=pd.root)
    assert r.json == stop_block(vendor)
    key = re.sub(r"[^A-Za-z0-9._:-]", "_", session)[:SESSION_MAX]
    assert len(key) == SESSION_MAX
    marks = pd.state / "stop-blocks"
    assert [p.name for p in marks.iterdir()] == [f"{key}.blocked"]
    assert not (pd.root / "CANARY").exists()
    assert not list(pd.root.rglob("CANARY"))


@BLOCKING
def test_session_keys_equal_after_sanitising_share_a_marker(pd: Pd, vendor: str) -> None:
    assert close(pd, vendor, session="a/b").json == stop_block(vendor)
    assert_silent(close(pd, vendor, session="a b"))


@BLOCKING
def test_empty_session_still_blocks_without_a_marker(pd: Pd, vendor: str) -> None:
    r = close(pd, vendor, session="")
    assert r.json == stop_block(vendor)


@BLOCKING
def test_gc_removes_expired_markers_in_bounded_batches(pd: Pd, vendor: str) -> None:
    marks = pd.state / "stop-blocks"
    old = int(time.time()) - BLOCK_TTL - 100
    for i in range(40):
        (marks / f"old{i:02d}.blocked").mkdir(parents=True)
        (marks / f"old{i:02d}.blocked" / "at").write_text(f"{old}\n")
    (marks / "fresh.blocked").mkdir()
    (marks / "fresh.blocked" / "at").write_text(f"{int(time.time())}\n")
    assert close(pd, vendor, session="zz-new").json == stop_block(vendor)
    left = sorted(p.name for p in marks.iterdir())
    assert "fresh.blocked" in left and "zz-new.blocked" in left
    olds = [n for n in left if n.startswith("old")]
    assert 40 - 16 <= len(olds) < 40  # some collected, at most a batch


@BLOCKING
def test_state_dir_unwritable_fails_open(pd: Pd, vendor: str) -> None:
    """A marker that cannot be made: no block (a block without a guard could loop forever)."""
    pd.state.mkdir(parents=True)
    (pd.state / "stop-blocks").write_text("a file where the marker dir should be")
    assert_silent(close(pd, vendor))


@BLOCKING
def test_pd_home_missing_is_created(pd: Pd, vendor: str) -> None:
    home = pd.root / "fresh-home" / "deeper"
    r = pd.run("stop", p_stop(vendor, NON_COMPLIANT, pd.proj), env={"PD_HOOK_PROVIDER": vendor, "PD_HOME": str(home)})
    assert r.json == stop_block(vendor)
    assert (home / "squid" / "stop-blocks" / "sess-1.blocked" / "at").is_file()


@BLOCKING
def test_verdict_env_leaves_json_channels_alone(pd: Pd, vendor: str) -> None:
    """Under the gate the JSON is the same; the exit code says it was written (the gate exits
    0 for it)."""
    r = pd.run("stop", p_stop(vendor, NON_COMPLIANT, pd.proj, session="sess-1"), code=CODES["said"],
               env={"PD_HOOK_PROVIDER": vendor, "PD_GATE_VERDICT": str(CODES["verdict"])})
    assert r.json == stop_block(vendor)


@BLOCKING
def test_concurrent_stops_block_once(pd: Pd, vendor: str) -> None:
    import subprocess

    from tests.tentaclekit import NAMES, shell_path

    payload = json.dumps(p_stop(vendor, NON_COMPLIANT, pd.proj, session="race")).encode()
    env = {**pd.env, "PD_HOOK_PROVIDER": vendor}
    procs = [subprocess.Popen([*shell_path(pd.sh), str(pd.squid / NAMES["stop"])], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=pd.root)
             for _ in range(8)]
    outs = [p.communicate(payload, timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    blocks = [o for o, _ in outs if o]
    assert len(blocks) == 1, blocks
    assert json.loads(blocks[0]) == stop_block(vendor)


# -- oversize stdin -------------------------------------------------------------------------------


def receipts(pd: Pd) -> list[str]:
    f = pd.state / "receipts.log"
    return f.read_text().splitlines() if f.exists() else []


@BLOCKING
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_oversize_fails_open_with_a_receipt(pd: Pd, vendor: str, provider: str) -> None:
    payload = json.dumps(p_stop(vendor, "x" * (STDIN_MAX + 1000), pd.proj, session="big"))
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    r = pd.run("stop", payload, env=env)
    assert_silent(r)
    lines = receipts(pd)
    assert len(lines) == 1
    assert re.fullmatch(rf"PD CLOSE oversize event: failed open session:big provider:{vendor}", lines[0]), lines


@BLOCKING
def test_exactly_at_the_bound_is_not_oversize(pd: Pd, vendor: str) -> None:
    base = json.dumps(p_stop(vendor, "", pd.proj, session="edge"))
    pad = STDIN_MAX - len(base) - 1  # the newline of the payload is byte STDIN_MAX
    payload = json.dumps(p_stop(vendor, "y" * pad, pd.proj, session="edge")) + "\n"
    assert len(payload) == STDIN_MAX
    r = pd.run("stop", payload, env={"PD_HOOK_PROVIDER": vendor})
    assert r.json in (None, stop_block(vendor))
    assert receipts(pd) == []


@BLOCKING
def test_oversize_with_text_first_still_fails_open(pd: Pd, vendor: str) -> None:
    key = "prompt_response" if vendor == "gemini" else "last_assistant_message"
    payload = json.dumps({key: "z" * (5 << 20), "session_id": "s", "hook_event_name": "Stop"})
    r = pd.run("stop", payload, env={"PD_HOOK_PROVIDER": vendor})
    assert_silent(r)


# -- fixture corpus -------------------------------------------------------------------------------

STOP_FIXTURES = sorted((v, p.stem) for v in VENDORS for p in (FIXTURES / v).glob("*.json")
                       if p.stem.startswith("stop") or p.stem.startswith("live-Stop")
                       or p.stem.startswith("live-AfterAgent"))


def test_stop_fixture_corpus() -> None:
    assert {v for v, _ in STOP_FIXTURES} == set(VENDORS)
    assert len(STOP_FIXTURES) >= 13


@pytest.mark.parametrize(("vendor", "name"), STOP_FIXTURES)
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_fixture_payloads(pd: Pd, vendor: str, name: str, provider: str) -> None:
    payload = (FIXTURES / vendor / f"{name}.json").read_bytes()
    data = json.loads(payload)
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    r = pd.run("stop", payload, env=env)
    if vendor == "agy" or data.get("stop_hook_active") is True:
        assert_silent(r)
    else:
        assert r.json == stop_block(vendor)
        assert_silent(pd.run("stop", payload, env=env))
