"""The rendered harness, installed by `hookshape install`, under the real CLIs.

Each scenario installs the default spec's harness into a scratch home for one vendor
(`hookshape install --home <scratch>/home --vendor <v>`), gives the gates what they
check first (readiness lease, armed work dir, the debug switch; see harness.py),
writes the scenario's matrix, and runs one turn of the real CLI against the mock.
Scenarios that can share a turn do (the `shared` and `advised` fixtures: one turn per
CLI, several tests reading its record). Every scenario asserts on three witnesses:

  * the file system: did the edit land, did the fake harness CLI run, the stop
    marker, the gates' debug log and breaker state;
  * the model: what the hook changed in the next request the mock received;
  * the CLI: its exit status and the final text it reports.

On a failure the message holds the CLI's output, the mock's request log, the
last model request item by item, and the gates' debug log.

Documented limitations of the pinned vendors (no bare skips):

  * Claude Code validates an Edit/Write of an existing file that was not Read in
    this session BEFORE PreToolUse runs ("File has not been read yet"), so the
    pre-tool hook never sees such a call; the file is safe either way (Claude
    refuses the edit itself), but the lock's block reason never reaches the model.
    The edit scenarios therefore script a Read first on Claude: that is what a
    real Claude session does, and it is the only way the lock is exercised there.
  * Gemini CLI rewrites `<` and `>` in hook context to `&lt;` and `&gt;`
    (HookOutput.getAdditionalContext, 0.61.0), so a harness text holding angle
    brackets (an alert naming `<release>`) reaches the model escaped; `&` and
    everything else pass unchanged. Asserted in the alert scenario.
  * Gemini CLI fires BeforeAgent again for the continuation after a stop block,
    so the prompt hook's coordination block and SITREP contract are injected a
    second time in the same turn (asserted in the stop scenario). Qwen Code does
    the same (UserPromptSubmit), and also before the model call that follows a
    tool result: under HALT that re-fire opens a new prompt -> stop cycle after
    the blocked call, so the distress file records the session as COMPLIED in
    the same turn in which a call was blocked (asserted in the halt scenario).
  * Qwen Code refuses an `edit` of a file not read in the session (after
    PreToolUse ran); like Claude, its edit scenarios Read first. Qwen also escapes
    `<`/`>` in prompt-hook context, like Gemini.
  * Copilot CLI's agentStop and Kimi Code's Stop payloads carry no last
    assistant message (the profiles' `payload.stop_text` is empty): the SITREP
    check has nothing to read, so instead of the one-continuation scenario their
    turns assert that the stop gate lets the agent stop.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookshape.spec.profiles import load_profiles
from hookshape.verify.mock.server import Script, ToolCall

from . import harness, pinned
from .harness import SITREP_TEXT, Setup, alert_line, lock_line

pytestmark = pytest.mark.live

VENDORS = pinned.VENDORS

FILE = "src/app.txt"
BEFORE = "hello = 1\n"
AFTER = "hello = 2\n"

# How each CLI shows the model a pre-tool deny (the pinned versions), before our reason.
BLOCK_PREFIX = {
    "codex": "Command blocked by PreToolUse hook: ",
    "gemini": "Tool execution blocked: ",
    "claude": "PreToolUse:{tool} hook error: ",
    "copilot": "Denied by preToolUse hook: ",
    "qwen": "",  # the reason alone is the tool's result
    "kimi": "<system>ERROR: Tool execution failed.</system>\n",
}
# ... the prompt hook's context, around our text ...
CONTEXT_PREFIX = {
    "codex": "",  # a developer message of its own
    "gemini": "<hook_context>",
    "claude": "<system-reminder>\nUserPromptSubmit hook additional context: ",
    "copilot": "<system_reminder>\n",  # appended to the prompt's own user message
    "qwen": "<qwen:user-prompt-submit-context>\n",  # a user part of its own
    "kimi": '<hook_result hook_event="UserPromptSubmit">\n',  # a user message before the prompt
}
# ... and a stop block, as a user message.
STOP_PREFIX: dict[str, tuple[str, ...]] = {
    "codex": ('<hook_prompt hook_run_id="stop:',),
    "gemini": ("",),
    # up to 2.1.328 a user message of its own; from 2.1.332 a reminder naming the command
    "claude": ("Stop hook feedback:\n", "<system-reminder>\nStop hook blocking error from command: ",
               "<system-reminder>Stop hook blocking error from command: "),
    "qwen": ("",),
}
BLOCKED_TOOL = {
    "codex": "apply_patch",
    "gemini": "replace",
    "claude": "Edit",
    "copilot": "edit",
    "qwen": "edit",
    "kimi": "Edit",
}
# Vendors that refuse an edit of a file not read in the session (Claude before PreToolUse,
# Qwen after it): their edit scenarios read the file first, as a real session would.
READ_BEFORE_EDIT = ("claude", "qwen")
# Vendors whose CLI escapes < and > in prompt-hook context.
ESCAPES_CONTEXT = ("gemini", "qwen")
# Vendors that fire the prompt hook again before the model call after a stop continuation.
PROMPT_REFIRES_ON_CONTINUATION = ("gemini", "qwen")
# ... and again before the model call that follows a tool result.
PROMPT_REFIRES_ON_TOOL_RESULT = ("qwen",)

PROFILES = load_profiles()


def stop_has_text(vendor: str) -> bool:
    """Does the vendor's stop payload carry the agent's last message (the profile's stop_text)?"""
    return bool(PROFILES[vendor].payload.stop_text)
SHELL_TOOL = {"claude": "Bash"}

ALERT_TEXT = "deploy freeze until 12:00 \u2014 ask #ops & <release> first"
HALT_REASON = "db migration in progress (ticket OPS-7)"
SITREP_DIRECTIVE = "SITREP missing: end this turn with a SITREP section and a table with this header:"


# -- helpers -------------------------------------------------------------------


@pytest.fixture
def setup(request, live_clis):
    """The harness installed for the test's vendor, in a short scratch dir.

    Short, because a lock key is the path's SUFFIX cut to 80 characters: under
    pytest's tmp_path (/tmp/pytest-of-<user>/pytest-N/popen-gwN/<test name>/...)
    the cut falls inside the file name, and a lock would then match more than the
    one file the scenario means.
    """
    vendor = request.node.callspec.params["vendor"]
    with harness.scratch_dir(vendor) as scratch:
        yield harness.setup(vendor, scratch)


def edit_script(vendor: str, *texts: str) -> Script:
    """The model edits FILE (Claude: after reading it, see the module docstring)."""
    calls = [ToolCall.edit(FILE, BEFORE.strip(), AFTER.strip())]
    if vendor in READ_BEFORE_EDIT:
        calls.insert(0, ToolCall.read(FILE))
    return Script(calls, texts or (SITREP_TEXT,))


def edit_result(turn: harness.Turn) -> str:
    """What the model was shown as the result of the edit call ('' if it never got one)."""
    results = turn.tool_results()
    return results[-1] if results else ""


# Outcomes of a gate that ran its tentacle to the end: "verdict" when the tentacle's answer
# blocked or kept the agent working; "slow" (past the 250 ms slow line) still delivers the
# tentacle's answer, it shows up on a loaded machine.
RAN = ("healthy", "verdict", "slow")


def assert_gate_ran(s: Setup, tentacle: str, outcome, why: str, count: int | None = None):
    outcomes = (outcome,) if isinstance(outcome, str) else tuple(outcome)
    ends = s.gate_ends(tentacle)
    assert ends, f"the {tentacle} gate never logged an end line\n{why}"
    assert all(e.get("outcome") in outcomes for e in ends), f"{ends}\n{why}"
    if count is not None:
        assert len(ends) == count, f"{ends}\n{why}"
    return ends


def context_items(request, needle: str) -> list[str]:
    return [i.text for i in request.items if i.kind == "context" and needle in i.text]


def assert_no_stop_block(s: Setup, turn: harness.Turn, why: str) -> None:
    assert not turn.continuations(), f"the stop hook made the model continue\n{why}"
    markers = os.listdir(s.stop_blocks) if s.stop_blocks.is_dir() else []
    assert markers == [], why


# -- 1-3. one turn per CLI: a foreign lock blocks an edit, an own lock lets one through, ----
# --       and the prompt carries an alert; the tests read that turn's record ---------------

OWN_FILE = "src/own.txt"  # locked by the turn's own actor (bob); FILE is locked by alice


@dataclass
class Shared(harness.SharedTurn):
    """One turn of the installed harness under a CLI: actor bob edits FILE (locked by alice) and
    then OWN_FILE (locked by bob), with an alert in the matrix (Claude and Qwen read each file
    before they edit it, see READ_BEFORE_EDIT); the calls are "foreign", "own", and "read-..."
    for the reads."""

    files: dict[str, Path]


@pytest.fixture(scope="module", params=VENDORS)
def shared(request, live_clis):
    vendor = request.param
    with harness.scratch_dir(vendor) as scratch:
        s = harness.setup(vendor, scratch)
        files = {"foreign": s.work_file(FILE, BEFORE), "own": s.work_file(OWN_FILE, BEFORE)}
        s.matrix(
            lock_line(s.target(FILE), "alice"),
            lock_line(s.target(OWN_FILE), "bob"),
            alert_line("1", ALERT_TEXT),
        )
        named = []
        for name, rel in (("foreign", FILE), ("own", OWN_FILE)):
            if vendor in READ_BEFORE_EDIT:
                named.append((f"read-{name}", ToolCall.read(rel)))
            named.append((name, ToolCall.edit(rel, BEFORE.strip(), AFTER.strip())))
        yield Shared(s, *harness.named_turn(s, named, (SITREP_TEXT,), actor="bob"), files)


def test_the_turn_ends_normally_and_each_gate_ran_per_call(shared):
    s, turn, why = shared.setup, shared.turn, shared.why
    # the CLI: one normal turn
    assert turn.result.exit_code == 0, why
    assert turn.final_text() == SITREP_TEXT, why
    # the file system: the pre-tool gate ran its tentacle once per edit (this is not a silent
    # skip), the prompt gate once (Qwen runs the prompt hook again before each model call that
    # follows a tool result)
    assert_gate_ran(s, "pd-hook-pre-tool", RAN, why, count=2)
    refires = len(shared.calls) if shared.vendor in PROMPT_REFIRES_ON_TOOL_RESULT else 0
    assert_gate_ran(s, "pd-hook-prompt", RAN, why, count=1 + refires)
    # the SITREP table satisfies the stop hook
    assert_no_stop_block(s, turn, why)


# -- 1. a lock held by another actor blocks the edit


def test_edit_of_a_file_locked_by_another_actor_is_blocked(shared):
    s, why = shared.setup, shared.why
    # the file system: the edit did not happen
    assert shared.files["foreign"].read_text() == BEFORE, why
    # the model: the block reason, with holder and path, through the vendor's channel
    shown = shared.results["foreign"]
    reason = f"BLOCKED: {s.target(FILE)} is locked by alice. Ask alice to release the lock, or leave this file alone."
    prefix = BLOCK_PREFIX[shared.vendor].format(tool=BLOCKED_TOOL[shared.vendor])
    assert (prefix + reason) in shown, f"shown: {shown!r}\n{why}"


# -- 2. own lock, and the advisory dial, let the edit through


def test_edit_is_allowed_with_own_lock(shared):
    why = shared.why
    # the edit happened
    assert shared.files["own"].read_text() == AFTER, why
    # the model saw the tool's own result: no block, no warning
    assert_unremarked(shared.results["own"], why)


def assert_unremarked(shown: str, why: str) -> None:
    """A tool's own result: no block, no warning, no word of a hook."""
    assert shown, why
    for word in ("BLOCKED", "WARNING", "locked by", "hook"):
        assert word not in shown, f"shown: {shown!r}\n{why}"


# -- 3. the prompt hook's coordination context reaches the first request


def test_prompt_hook_alert_reaches_the_first_model_request(shared):
    vendor, turn, why = shared.vendor, shared.turn, shared.why
    first = turn.first_request()
    assert first is not None, why
    shown_alert = ALERT_TEXT
    if vendor in ESCAPES_CONTEXT:  # Gemini and Qwen escape < and > in hook context (documented above)
        shown_alert = ALERT_TEXT.replace("<", "&lt;").replace(">", "&gt;")
    block = f"PD COORDINATION\nALERT 1: {shown_alert}"
    seen = context_items(first, "PD COORDINATION")
    assert len(seen) == 1, f"context items: {seen}\n{why}"
    assert (CONTEXT_PREFIX[vendor] + block) in seen[0], f"{seen[0]!r}\n{why}"
    # the closeout contract travels in the same context object, after the alerts
    assert "PD SITREP CONTRACT" in seen[0] and harness.SITREP_HEADER in seen[0], why
    assert seen[0].index("ALERT 1") < seen[0].index("PD SITREP CONTRACT"), why


@pytest.mark.parametrize("vendor", ["claude"])
def test_claude_refuses_an_unread_edit_before_pre_tool(vendor, setup):
    """Documented limitation (Claude Code 2.1.328), kept as a test so a change shows up.

    An Edit (or Write) of an existing file the model has not Read is refused by Claude
    itself, before PreToolUse: the pre-tool hook never runs, the lock's reason never
    reaches the model; the file is unchanged all the same.
    """
    s = setup
    path = s.work_file(FILE, BEFORE)
    s.matrix(lock_line(s.target(FILE), "alice"))
    script = Script([ToolCall.edit(FILE, BEFORE.strip(), AFTER.strip())], (SITREP_TEXT,))
    turn = s.turn(script, actor="bob")
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert path.read_text() == BEFORE, why
    assert s.gate_ends("pd-hook-pre-tool") == [], why  # the hook never saw the call
    shown = edit_result(turn)
    assert "File has not been read yet" in shown and "BLOCKED" not in shown, f"{shown!r}\n{why}"


# -- 2 and 4. one turn per CLI under the advisory dial, ending without a SITREP table: the ---
# --          edit of a file locked by alice goes through, the stop gate reads the last text --

STOP_TEXTS = ("MOCK_DONE_1 all done", "MOCK_DONE_2 done, still no table")


@dataclass
class Advised:
    """One turn under PD_SUGGESTIBILITY=advisory: actor bob edits FILE (locked by alice; Claude and
    Qwen read it first) and ends with a text that has no SITREP table (the suggestibility dial is
    read by the pre-tool tentacle only, the stop tentacle does not look at it)."""

    setup: Setup
    turn: harness.Turn
    calls: int
    path: Path

    @property
    def vendor(self) -> str:
        return self.setup.vendor


@pytest.fixture(scope="module")
def advised(request, live_clis):
    vendor = request.param
    with harness.scratch_dir(vendor) as scratch:
        s = harness.setup(vendor, scratch)
        path = s.work_file(FILE, BEFORE)
        s.matrix(lock_line(s.target(FILE), "alice"))
        script = edit_script(vendor, *STOP_TEXTS)
        turn = s.turn(script, actor="bob", env={"PD_SUGGESTIBILITY": "advisory"})
        yield Advised(s, turn, len(script.tool_calls), path)


@pytest.mark.parametrize("advised", VENDORS, indirect=True)
def test_edit_is_allowed_with_the_advisory_dial(advised):
    s, turn = advised.setup, advised.turn
    why = turn.why
    assert turn.result.exit_code == 0, why
    # the edit happened, and the gate did run the tentacle (this is not a silent skip)
    assert advised.path.read_text() == AFTER, why
    assert_gate_ran(s, "pd-hook-pre-tool", RAN, why, count=1)
    # the model saw the tool's own result: no block, no warning
    assert_unremarked(edit_result(turn), why)


# -- 4. no SITREP table: the stop hook keeps the model working exactly once


@pytest.mark.parametrize("advised", [v for v in VENDORS if stop_has_text(v)], indirect=True)
def test_stop_without_sitrep_continues_exactly_once(advised):
    s, turn, vendor = advised.setup, advised.turn, advised.vendor
    why = turn.why
    # the CLI ends the run normally, with the second answer
    assert turn.result.exit_code == 0, why
    assert turn.final_text().endswith(STOP_TEXTS[1]), why
    # the model: exactly one continuation, carrying the directive
    conts = turn.continuations()
    assert len(conts) == 1, why
    # a user message, or (Claude 2.1.332) a system reminder the mock reads as context
    users = [i.text for i in conts[0].items if i.kind in ("user", "context") and SITREP_DIRECTIVE in i.text]
    # one item, or (Claude 2.1.332) the reminder twice in the one continuation
    assert users and (len(users) == 1 or vendor == "claude"), why
    assert any(u.startswith(STOP_PREFIX[vendor]) for u in users), f"{users!r}\n{why}"
    assert harness.SITREP_HEADER in users[0], why
    # the file system: one marker dir for the session; the stop gate ran twice (the second
    # call sees stop_hook_active and lets the agent stop)
    assert s.stop_blocks.is_dir(), why
    markers = os.listdir(s.stop_blocks)
    assert len(markers) == 1 and markers[0].endswith(".blocked"), f"{markers}\n{why}"
    assert (s.stop_blocks / markers[0]).is_dir(), why
    assert_gate_ran(s, "pd-hook-stop", RAN, why, count=2)
    # Gemini runs BeforeAgent, Qwen UserPromptSubmit, again for the continuation: the prompt
    # hook fires once more and the continuation carries the contract a second time; Qwen also
    # runs it before the model call after each tool result (documented above).
    prompts = 1 + (vendor in PROMPT_REFIRES_ON_CONTINUATION)
    prompts += advised.calls if vendor in PROMPT_REFIRES_ON_TOOL_RESULT else 0
    assert len(s.gate_ends("pd-hook-prompt")) == prompts, why


@pytest.mark.parametrize("advised", [v for v in VENDORS if not stop_has_text(v)], indirect=True)
def test_stop_without_the_last_message_does_not_hold_the_turn(advised):
    """A stop payload without the agent's last message (Copilot's agentStop: the profile's
    stop_text is empty) gives the stop gate no text to check for a SITREP table: it must let
    the agent stop, not hold every turn on a guess."""
    s, turn = advised.setup, advised.turn
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert turn.final_text() == STOP_TEXTS[0], why
    # one model request for the prompt and one after each tool result; none after the text
    assert len(turn.requests) == 1 + advised.calls, why
    assert_no_stop_block(s, turn, why)
    assert_gate_ran(s, "pd-hook-stop", RAN, why, count=1)
    assert len(s.gate_ends("pd-hook-prompt")) == 1, why


# -- 5. halt: the harness CLI is blocked through the shell tool ----------------------


@pytest.mark.parametrize("vendor", VENDORS)
def test_halt_blocks_the_harness_cli_in_the_shell_tool(vendor, setup):
    s = setup
    # A fake `pd` first on PATH: it would leave a canary if it ever ran.
    fakebin = s.scratch / "fakebin"
    fakebin.mkdir()
    canary = s.scratch / "pd-ran"
    fake = fakebin / "pd"
    fake.write_text(f'#!/bin/sh\necho "$@" >>{shlex.quote(str(canary))}\n')
    fake.chmod(0o755)
    path_env = f"{fakebin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    subprocess.run(["pd", "--probe"], env={"PATH": path_env}, check=True)  # the canary works
    assert canary.read_text() == "--probe\n"
    canary.unlink()

    s.halt(HALT_REASON)
    turn = s.turn(Script.shell("pd status", "MOCK_DONE_1 no table"), actor="bob", env={"PATH": path_env})
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert turn.final_text().endswith("MOCK_DONE_1 no table"), why
    # the file system: the command never ran
    assert not canary.exists(), f"`pd status` ran: {canary.read_text()!r}\n{why}"
    # the model: the halt reason as the shell call's result
    shown = edit_result(turn)
    assert f"SECURITE HALT: {HALT_REASON}" in shown, f"shown: {shown!r}\n{why}"
    # the prompt carried the halt notice (and no SITREP contract) ...
    first = turn.first_request()
    notice = context_items(first, "SECURITE HALT")
    assert notice and f"SECURITE HALT\n{HALT_REASON}" in notice[0], why
    assert not context_items(first, "PD SITREP CONTRACT"), why
    # ... and the stop hook never blocks while halted
    assert_no_stop_block(s, turn, why)
    # the distress file: the session saw the halt; it did not comply (a call was blocked)
    distress = (s.home / "DISTRESS").read_text() if (s.home / "DISTRESS").exists() else ""
    assert distress.count("control SEEN") == 1, f"{distress!r}\n{why}"
    if vendor in PROMPT_REFIRES_ON_TOOL_RESULT:
        # Qwen fires the prompt hook again for the tool-result continuation: that opens a
        # new prompt -> stop cycle after the blocked call, and the cycle (no further call
        # blocked) ends COMPLIED (documented above).
        assert distress.count("control COMPLIED") == 1, f"{distress!r}\n{why}"
        assert len(s.gate_ends("pd-hook-prompt")) == 2, why
    else:
        assert "control COMPLIED" not in distress, f"{distress!r}\n{why}"


# -- 6. the kill switch: nothing blocked, nothing injected ---------------------------


@pytest.mark.parametrize("vendor", VENDORS)
def test_kill_switch_disables_every_hook(vendor, setup):
    s = setup
    path = s.work_file(FILE, BEFORE)
    s.matrix(lock_line(s.target(FILE), "alice"), alert_line("1", ALERT_TEXT))
    s.disable()
    turn = s.turn(edit_script(vendor, "MOCK_DONE_1 no table"), actor="bob")
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert turn.final_text().endswith("MOCK_DONE_1 no table"), why
    # the edit happened; no gate got past the switch (not even to its debug log)
    assert path.read_text() == AFTER, why
    assert s.debug_lines() == [], why
    # nothing reached the model: no context, no block, no stop feedback
    for req in turn.requests:
        for needle in ("PD COORDINATION", "ALERT 1", "PD SITREP", "BLOCKED", "SITREP missing"):
            assert not req.contains(needle), f"{needle!r} reached the model\n{why}"
    assert "BLOCKED" not in edit_result(turn), why
    assert_no_stop_block(s, turn, why)


# -- 7. breaker: a hanging tentacle is cut at the deadline, the turn goes on ----------

# The tentacle made to hang: a shell waiting on a child sleep, both pids recorded (the
# gate's kill ladder must end the whole tree, not just the process it started).
HANG = """#!/bin/sh
echo $$ >>{pidfile}
sleep 30 &
echo $! >>{pidfile}
wait
echo finished >>{pidfile}
"""


@pytest.mark.parametrize("vendor", VENDORS)
def test_hanging_tentacle_is_cut_at_the_deadline_and_fails_open(vendor, setup):
    s = setup
    path = s.work_file(FILE, BEFORE)
    s.matrix(lock_line(s.target(FILE), "alice"))  # would block, if the tentacle answered
    pidfile = s.scratch / "hang.pids"
    tentacle = s.tentacle("pd-hook-pre-tool")
    tentacle.write_text(HANG.format(pidfile=shlex.quote(str(pidfile))))
    tentacle.chmod(0o755)
    start = time.monotonic()
    turn = s.turn(edit_script(vendor), actor="bob")
    why = turn.why + f"\nstragglers: {turn.result.stragglers}"
    assert turn.result.exit_code == 0, why
    assert not turn.result.timed_out, why
    assert turn.final_text() == SITREP_TEXT, why
    # fail-open: the edit happened and the model saw no block
    assert path.read_text() == AFTER, why
    assert "BLOCKED" not in edit_result(turn), why
    # the gate cut it at its deadline (1000 ms), well inside the vendor timeout (5 s)
    ends = assert_gate_ran(s, "pd-hook-pre-tool", "timeout", why, count=1)
    ms = int(ends[0]["ms"])
    assert harness.DEADLINE_MS <= ms < harness.VENDOR_TIMEOUT_MS - 1000, why
    # the breaker counted one timeout (closed: the threshold is 3)
    state = (s.state / "health" / "pd-hook-pre-tool.state").read_text().split()
    assert state[:4] == ["breaker/1", "closed", "1", "timeout"], f"{state}\n{why}"
    # the hung tentacle and its sleep were killed by the gate, not left to the runner
    pids = [int(p) for p in pidfile.read_text().split() if p.isdigit()]
    assert len(pids) == 2, why
    assert "finished" not in pidfile.read_text(), why
    # (a survivor carries the turn's token, so the runner would have found it: by token,
    # not by pid, which a busy machine may already have reused)
    assert not set(pids) & set(turn.result.stragglers), why
    assert time.monotonic() - start < 30, why
