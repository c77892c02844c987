"""A hook's JSON answers under the real CLIs: pre_tool and post_tool context, a rewrite, an ask.

A spec of two hooks (written here, beside its script) is installed for one vendor into a scratch
home, and one turn of the real CLI runs against the mock (the `shared` fixture), with three calls:
a write of `note.txt`, a write of `draft.txt` and `echo ask-me > asked.txt` in the shell tool.
The `pre` hook (pre_tool, `rewrite = true`) answers `{"context": ...}` to the first call,
`{"input": ...}` to the second (the same input with `draft.txt` made `final.txt` and `DRAFT`
made `FINAL`: a whole new input in the tool's own shape, whatever the vendor's is) and
`{"decision": "ask", ...}` to the third; the `post` hook (post_tool) answers `{"context": ...}`.

What is expected of each CLI is what its profile says, so each test proves a profile fact, and
a failure names the fact a live run contradicts:
  * context reaches the next model request where the profile has the event in
    `output.context_roles`, and no request elsewhere (the gate drops it, as CAPABILITIES says);
  * a rewrite changes what the tool does (`final.txt` is written, `draft.txt` is not) where the
    profile has `[output.rewrite]`; elsewhere the call is refused with contract.rewrite_message
    and neither file is written (never the input as it was asked);
  * an ask reaches the permission layer where the profile has `[output.ask]`: in their headless
    modes the CLIs cannot ask, and each does what its profile's "ask headless" fact records
    (ASKED below); elsewhere contract.ask_fallback (deny) applies, with contract.ask_message.
    The command never runs.
The ask is the last call: Gemini CLI ends the turn there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from hookshape.spec.profiles import load_profiles
from hookshape.verify.mock.server import Script, ToolCall

from . import harness, pinned
from .harness import Setup
from .test_live_harness import BLOCK_PREFIX

pytestmark = pytest.mark.live

VENDORS = pinned.VENDORS
PROFILES = load_profiles()

SPEC = """[harness]
name = "answers"
prefix = "ans"
home_default = "~/.answers"

[gate]
readiness = false
armed_roots = false

[halt]
enabled = false

[[hooks]]
name = "pre"
event = "pre_tool"
match = ["edit", "shell"]
rewrite = true
deadline_ms = 3000
run = ["python3", "-B", "{dir}/answer.py"]
files = ["answer.py"]

[[hooks]]
name = "post"
event = "post_tool"
match = ["edit", "shell"]
deadline_ms = 3000
run = ["python3", "-B", "{dir}/answer.py"]
files = ["answer.py"]
""" + "".join(f"[vendors.{v}]\n" for v in VENDORS)

ANSWER = '''import json, os
tool, given = os.environ["ANS_TOOL"], os.environ.get("ANS_TOOL_INPUT", "")
if os.environ["ANS_EVENT"] == "post_tool":
    print(json.dumps({"context": f"POST-CONTEXT after {tool}"}))
elif "draft.txt" in given:
    print(json.dumps({"input": json.loads(given.replace("draft.txt", "final.txt").replace("DRAFT", "FINAL"))}))
elif "ask-me" in os.environ.get("ANS_COMMAND", ""):
    print(json.dumps({"decision": "ask", "reason": "ASK: the user confirms ask-me"}))
else:
    print(json.dumps({"context": f"PRE-CONTEXT for {tool}"}))
'''
ASK_REASON = "ASK: the user confirms ask-me"
# What each CLI that has an ask does with one in its headless mode (the pinned versions; each
# profile's "ask headless" fact): the call's result the model is shown, or None when the turn
# ends at the ask (no result, no further request, no final answer).
ASKED: dict[str, str | None] = {
    "claude": ASK_REASON,
    "copilot": "Denied by preToolUse hook (unable to ask user for confirmation): " + ASK_REASON,
    "qwen": ASK_REASON,
    "gemini": None,
}
DONE = "MOCK_DONE_1"


def has_context(vendor: str, event: str) -> bool:
    return event in PROFILES[vendor].output.context_roles


def rewrites(vendor: str) -> bool:
    return PROFILES[vendor].output.rewrite.stdout is not None


def asks(vendor: str) -> bool:
    return PROFILES[vendor].output.ask.stdout is not None


@dataclass
class Shared:
    setup: Setup
    turn: harness.Turn
    shown: list[str]  # the results of the calls the model was shown, in order

    @property
    def vendor(self) -> str:
        return self.setup.vendor

    @property
    def why(self) -> str:
        return self.turn.why

    def said(self, needle: str) -> list[int]:
        """The indexes of the model requests that hold this text."""
        return [n for n, r in enumerate(self.turn.requests) if r.contains(needle)]

    def outcomes(self, hook: str) -> list[str]:
        return [d.get("outcome", "") for d in self.setup.debug_lines()
                if d.get("ev") == "hook" and d.get("hook") == hook]


@pytest.fixture(scope="module", params=VENDORS)
def shared(request, live_clis):
    vendor = request.param
    with harness.scratch_dir(vendor) as scratch:
        spec = Path(scratch) / "spec" / "answers.toml"
        spec.parent.mkdir()
        spec.write_text(SPEC)
        (spec.parent / "answer.py").write_text(ANSWER)
        s = Setup(vendor, scratch, spec).install()
        s.debug()
        calls = [ToolCall.write("note.txt", "hello\n"), ToolCall.write("draft.txt", "DRAFT\n"),
                 ToolCall.shell("echo ask-me > asked.txt")]
        turn = s.turn(Script(calls, (DONE,)))
        yield Shared(s, turn, turn.tool_results())


def test_pre_tool_context_reaches_the_next_request_where_the_profile_says(shared):
    vendor, why = shared.vendor, shared.why
    seen = shared.said("PRE-CONTEXT for ")
    assert shared.outcomes("pre")[0] == "context", why  # the hook said it, on every vendor
    if has_context(vendor, "pre_tool"):
        assert seen and seen[0] == 1, f"requests holding it: {seen}\n{why}"  # the one after the call
    else:
        assert seen == [], why


def test_post_tool_context_reaches_the_next_request_where_the_profile_says(shared):
    vendor, why = shared.vendor, shared.why
    seen = shared.said("POST-CONTEXT after ")
    assert shared.outcomes("post")[:1] == ["context"], why
    if has_context(vendor, "post_tool"):
        assert seen and seen[0] == 1, f"requests holding it: {seen}\n{why}"
    else:
        assert seen == [], why


def test_a_rewrite_changes_what_the_tool_does_or_the_call_is_refused(shared):
    s, vendor, why = shared.setup, shared.vendor, shared.why
    assert (s.work / "note.txt").read_text() == "hello\n", why
    assert not (s.work / "draft.txt").exists(), why  # never the input as it was asked
    assert shared.outcomes("pre")[1] == "rewrote", why
    if rewrites(vendor):
        assert (s.work / "final.txt").read_text() == "FINAL\n", why
        assert "BLOCKED" not in shared.shown[1], why
    else:
        assert not (s.work / "final.txt").exists(), why
        refusal = s.spec.contract.rewrite_message.format(hook="pre", vendor=vendor)
        assert shared.shown[1].startswith(BLOCK_PREFIX[vendor].format(tool="Write") + refusal), \
            f"{shared.shown[1]!r}\n{why}"


def test_an_ask_reaches_the_permission_layer_or_its_fallback(shared):
    s, vendor, why = shared.setup, shared.vendor, shared.why
    assert not (s.work / "asked.txt").exists(), why  # no one could confirm: the command never ran
    assert shared.outcomes("pre")[2] == "refused: ask", why
    if not asks(vendor):  # contract.ask_fallback: a deny that says why
        fallback = s.spec.contract.ask_message.format(hook="pre", vendor=vendor)
        assert s.spec.contract.ask_fallback == "deny"
        # (Kimi's shell tool puts its wall time first)
        assert BLOCK_PREFIX[vendor] + fallback in shared.shown[2], f"{shared.shown[2]!r}\n{why}"
        assert shared.turn.final_text() == DONE, why
        return
    if ASKED[vendor] is None:  # the turn ends at the ask
        assert len(shared.shown) == 2 and len(shared.turn.requests) == 3, why
        assert shared.turn.result.exit_code == 0 and shared.turn.final_text() == "", why
        return
    # (Claude Code appends a reminder of its own to a tool's result)
    assert shared.shown[2].startswith(str(ASKED[vendor])), f"{shared.shown[2]!r}\n{why}"
    assert shared.turn.final_text() == DONE, why
