"""examples/divineos.toml under the real CLIs: its five Python hooks, installed by `hookshape install`.

The example is installed for one vendor into a scratch home (`harness.Setup` with the example's
spec; no readiness lease, no armed work dir, the debug switch on), with one lesson already on
file, and one turn of the real CLI runs against the mock (the `shared` fixture): a write of
`app.py`, a read of it where the CLI wants one before an edit, an edit of it, a subagent call of a
type agents.txt does not register, then a final answer that claims success ("should work") and,
asked to go on, a second that claims it again. The tests read that turn's record, on three
witnesses: the files (the logbook, the lessons), the model requests, the CLI's exit and final text.

What each CLI shows (pinned versions):
  * the briefing (session_start context) reaches the first request where the vendor's profile
    has a session_start channel (all but Kimi Code);
  * the recall (pre_tool context, the logbook's earlier work on app.py) reaches a later request
    where the profile has a pre_tool channel (Claude Code, Codex, Copilot CLI), and no request
    elsewhere (the gate drops it);
  * the subagent guard refuses the call, its reason as the call's result (Codex: `codex exec`
    offers the model no spawn_agent tool with its default features, so the turn has no subagent
    call there: `test_codex_offers_no_subagent_tool` keeps the fact visible); the type is
    `cli_help`, one of Gemini CLI's own agents, since Gemini refuses an agent it does not know
    before its hook runs;
  * the claims detector reads the transcript and keeps the agent working exactly once: its
    second answer claims again, the hook says block again, and the gate's loop guard lets the
    agent stop (Claude Code, Codex, Gemini CLI, Qwen Code). Copilot CLI writes its transcript
    (events.jsonl) after agentStop: the file the hook reads then holds no answer yet, and its
    agentStop carries no last message; Kimi Code sends neither a transcript path nor the
    message: on both the detector has nothing to read and the agent stops
    (`test_without_a_readable_answer_the_agent_stops`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookshape.spec.profiles import load_profiles
from hookshape.verify.mock.conversation import Call, Item, Reply, Script
from hookshape.verify.mock.server import ToolCall

from . import harness, pinned
from .harness import Setup
from .test_live_harness import BLOCK_PREFIX, READ_BEFORE_EDIT, STOP_PREFIX

pytestmark = pytest.mark.live

EXAMPLE = pinned.REPO_ROOT / "examples" / "divineos.toml"
VENDORS = pinned.VENDORS
PROFILES = load_profiles()

CLAIMS = ("Fixed the off-by-one; this should work now.", "It should work now, I think.")
UNKNOWN_AGENT = "cli_help"
OLD_LESSON = {"time": "2026-12-01T09:00:00Z", "session": "earlier", "vendor": "claude", "from": "transcript",
              "digest": "0", "findings": [{"code": "unverified-claim", "match": "probably fixed"}]}
GATES = {event: f"divineos-{event.replace('_', '-')}" for event in ("session_start", "pre_tool", "post_tool", "stop")}
REASON = ('DivineOS: your last answer says "should work" without showing it. Check it (run it, read the '
          "result) and say what you saw, or say plainly that it is unverified.")
# The CLIs whose transcript holds the agent's last answer when their stop hook runs.
TRANSCRIPT_AT_STOP = ("claude", "codex", "gemini", "qwen")
# The CLIs that offer the model a subagent tool in the live tier's turns.
SPAWNS = tuple(v for v in VENDORS if v != "codex")
# The CLIs that go on without waiting for their post_tool hooks (the profile's "post_tool not
# awaited" fact): Kimi Code fires PostToolUse and forgets it.
NOT_AWAITED = ("kimi",)


def has_context(vendor: str, event: str) -> bool:
    return event in PROFILES[vendor].output.context_roles


@dataclass
class Shared(harness.SharedTurn):
    """The turn of the example under one CLI, and the lessons on file before it."""

    lessons_before: int


def paced(book: Path) -> type[Script]:
    """A model that answers each call after the first only once the logbook holds an entry for
    every call before it (10 s at most), as a model slower than the hook is: on a CLI that does
    not wait for its post_tool hooks, the recall of the write would otherwise race the logbook's
    write of it (a loaded machine lost that race)."""

    class Paced(Script):
        def decide(self, items: Sequence[Item]) -> Reply:
            reply = super().decide(items)
            if isinstance(reply, Call):
                end = time.monotonic() + 10
                while entries(book) < reply.index and time.monotonic() < end:
                    time.sleep(0.05)
            return reply

    return Paced


def entries(book: Path) -> int:
    return len(book.read_text().splitlines()) if book.exists() else 0


def lessons(s: Setup) -> list[dict]:
    path = s.home / "lessons.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def logbook(s: Setup) -> list[dict]:
    path = s.home / "logbook.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hook_lines(s: Setup, hook: str) -> list[dict]:
    return [d for d in s.debug_lines() if d.get("ev") == "hook" and d.get("hook") == hook]


@pytest.fixture(scope="module", params=VENDORS)
def shared(request, live_clis):
    vendor = request.param
    with harness.scratch_dir(vendor) as scratch:
        s = Setup(vendor, scratch, EXAMPLE).install()
        s.debug()
        s.home.mkdir(parents=True, exist_ok=True)
        (s.home / "lessons.jsonl").write_text(json.dumps(OLD_LESSON) + "\n")
        named = [("write", ToolCall.write("app.py", "print(1)\n"))]
        if vendor in READ_BEFORE_EDIT:
            named.append(("read", ToolCall.read("app.py")))
        named.append(("edit", ToolCall.edit("app.py", "print(1)", "print(2)")))
        if vendor in SPAWNS:
            named.append(("subagent", ToolCall.spawn(UNKNOWN_AGENT, "look around the repository")))
        script = paced(s.home / "logbook.jsonl") if vendor in NOT_AWAITED else Script
        yield Shared(s, *harness.named_turn(s, named, CLAIMS, text_limit=3, script=script),
                     lessons_before=1)


def test_the_turn_ends_and_each_gate_ran(shared):
    s, why = shared.setup, shared.why
    assert shared.turn.result.exit_code == 0, why
    assert (s.work / "app.py").read_text() == "print(2)\n", why
    assert len(s.gate_ends(GATES["session_start"])) == 1, why
    # every call reaches pre_tool; the subagent call is refused there, so post_tool sees the rest
    assert len(s.gate_ends(GATES["pre_tool"])) == len(shared.calls), why
    assert len(s.gate_ends(GATES["post_tool"])) == len([c for c in shared.calls if c != "subagent"]), why


def test_the_briefing_reaches_the_first_request(shared):
    vendor, why = shared.vendor, shared.why
    first = shared.turn.first_request()
    assert first is not None, why
    if not has_context(vendor, "session_start"):
        assert not any(r.contains("DivineOS briefing") for r in shared.turn.requests), why
        return
    assert first.contains("DivineOS briefing ("), why
    assert first.contains('unverified-claim "probably fixed"'), why  # the lesson on file


def test_the_logbook_keeps_each_calls_input_and_response(shared):
    s, vendor, why = shared.setup, shared.vendor, shared.why
    book = logbook(s)
    edits = [e for e in book if e["class"] == "edit"]
    assert len(edits) == 2 and all(e["paths"] == [s.target("app.py")] for e in edits), f"{book}\n{why}"
    assert "print(1)" in json.dumps(edits[0]["input"]) and "print(2)" in json.dumps(edits[1]["input"]), book
    assert all(e["session"] and e["vendor"] == vendor for e in book), book
    if PROFILES[vendor].payload.tool_response:
        assert all(e["response"] for e in edits), f"{book}\n{why}"


def test_recall_reaches_the_model_where_pre_tool_has_context(shared):
    """The edit of app.py (and the read before it) recall the write the logbook kept."""
    vendor, why = shared.vendor, shared.why
    said = "DivineOS recall, earlier work on the file(s) of this call:"
    seen = [r for r in shared.turn.requests if r.contains(said)]
    if has_context(vendor, "pre_tool"):
        assert seen and seen[0].contains("- app.py: "), why
    else:
        assert seen == [], why
        recalls = [d for d in hook_lines(shared.setup, "recall") if d.get("outcome") == "context"]
        assert recalls, why  # the hook said it; the gate had no channel for it


@pytest.mark.parametrize("shared", SPAWNS, indirect=True)
def test_the_subagent_guard_refuses_an_unregistered_type(shared):
    vendor, why = shared.vendor, shared.why
    shown = shared.results["subagent"]
    prefix = BLOCK_PREFIX[vendor].format(tool="Agent")
    assert f"{prefix}DivineOS: no subagent type '{UNKNOWN_AGENT}' is registered" in shown, f"{shown!r}\n{why}"
    [guard] = hook_lines(shared.setup, "subagent-guard")
    assert guard.get("outcome") == "refused: deny", why


@pytest.mark.parametrize("shared", ["codex"], indirect=True)
def test_codex_offers_no_subagent_tool(shared):
    """Documented limitation (codex 0.171.0): `codex exec` with its default features offers the
    model no spawn_agent tool, so no turn here can call one; the guard is proven on the rest."""
    first = shared.turn.first_request()
    assert first is not None and not first.contains('"spawn_agent"'), shared.why


@pytest.mark.parametrize("shared", TRANSCRIPT_AT_STOP, indirect=True)
def test_a_claim_keeps_the_agent_working_exactly_once(shared):
    s, vendor, why = shared.setup, shared.vendor, shared.why
    assert shared.turn.final_text().endswith(CLAIMS[1]), why
    conts = shared.turn.continuations()
    assert len(conts) == 1, why
    said = [i.text for i in conts[0].items if i.kind in ("user", "context") and REASON in i.text]
    assert said and any(t.startswith(STOP_PREFIX[vendor]) for t in said), f"{said!r}\n{why}"
    # both answers were read from the transcript; the second block is the gate's to drop
    new = lessons(s)[shared.lessons_before:]
    assert [(e["from"], e["findings"][0]["match"]) for e in new] == [("transcript", "should work")] * 2, new
    outcomes = [d.get("outcome") for d in hook_lines(s, "claims")]
    assert outcomes == ["refused: block", "refused: block", "not said: the stop loop guard let the agent stop"], \
        f"{outcomes}\n{why}"


@pytest.mark.parametrize("shared", [v for v in VENDORS if v not in TRANSCRIPT_AT_STOP], indirect=True)
def test_without_a_readable_answer_the_agent_stops(shared):
    """Copilot CLI: the transcript at agentStop holds no answer yet, and agentStop carries no
    message; Kimi Code: neither a transcript path nor the message. The detector has nothing to
    read: no block, no lesson, one model request per call and the first answer is the last."""
    s, why = shared.setup, shared.why
    assert shared.turn.final_text() == CLAIMS[0], why
    assert shared.turn.continuations() == [], why
    assert len(shared.turn.requests) == 1 + len(shared.calls), why
    assert len(lessons(s)) == shared.lessons_before, why
    [claims] = hook_lines(s, "claims")
    assert claims.get("outcome") == "allowed", why
