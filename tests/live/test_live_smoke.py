"""Smoke tests of the live tier: the real CLIs, our mock, our runner, a hand-written hook.

They prove the infrastructure (mock server + runner), not hookshape's
rendered hooks. Each test wires a tiny POSIX-sh hook into the vendor's config
itself, the way `hookshape install` will later, and checks what happened on
disk, in the hook's log, and in what the mock model was sent next.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from tests.shells import wait_gone

from hookshape.verify import runner
from hookshape.verify.mock.server import MockServer, Script
from hookshape.verify.trusting import trust_all

from . import pinned

pytestmark = pytest.mark.live

# The hand-written hook below speaks the dialects of these three; Copilot CLI, Qwen Code and
# Kimi Code run the rendered harness only (test_live_harness.py), which covers the same channels.
VENDORS = ("codex", "gemini", "claude")

# Per vendor: event names, the matcher for file writes, the hook timeout unit.
EVENTS = {
    "claude": {"pre_tool": "PreToolUse", "prompt": "UserPromptSubmit", "stop": "Stop"},
    "codex": {"pre_tool": "PreToolUse", "prompt": "UserPromptSubmit", "stop": "Stop"},
    "gemini": {"pre_tool": "BeforeTool", "prompt": "BeforeAgent", "stop": "AfterAgent"},
}
WRITE_MATCHER = {"claude": "Write|Edit", "codex": "Edit|Write", "gemini": "write_file|replace"}
HOOK_TIMEOUT = {"claude": 10, "codex": 10, "gemini": 10000}  # Gemini counts in ms

BLOCK_REASON = "SMOKE_BLOCK: locked files must not be written"
CONTEXT = "SMOKE_CONTEXT: the hook adds this line"
STOP_REASON = "SMOKE_STOP: one more thing before you stop"
PROMPT = "MOCK_PROMPT please put a line of text into the file"
# a turn whose pre-tool hook hangs is given up this many seconds after the hook started ...
TURN_TIMEOUT = 3
# ... or after this many, if the hook never starts (Gemini alone needs 1-4 s to reach it, Codex
# took over 6 s to start under a loaded test run)
HOOK_START_LIMIT = 45
CONTENT = "edited by mock model\n"

# The hand-written hook: `sh smoke-hook.sh <vendor> <event> <log>`. Appends
# its stdin to the log; the pre-tool event blocks a write to a path that
# contains "locked" (JSON deny on each vendor's documented channel); the
# prompt event adds context; the stop event blocks once.
HOOK_SCRIPT = r"""#!/bin/sh
vendor=$1
event=$2
log=$3
payload=$(cat)
printf '%s\n' "$payload" >>"$log"
case $event in
PreToolUse | BeforeTool)
    target=$(printf '%s\n' "$payload" |
        grep -o -e '"file_path" *: *"[^"]*"' -e '\*\*\* [A-Za-z]* File: [^\\"]*' | head -n 1)
    case $target in
    *locked*)
        if [ "$vendor" = gemini ]; then
            printf '{"decision":"deny","reason":"%s"}\n' "@BLOCK@"
        else
            printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
            printf '"permissionDecision":"deny","permissionDecisionReason":"%s"}}\n' "@BLOCK@"
        fi
        ;;
    esac
    ;;
UserPromptSubmit | BeforeAgent)
    printf '{"hookSpecificOutput":{"hookEventName":"%s",' "$event"
    printf '"additionalContext":"%s"}}\n' "@CONTEXT@"
    ;;
Stop | AfterAgent)
    case $payload in
    *'"stop_hook_active":false'* | *'"stop_hook_active": false'*)
        printf '{"decision":"block","reason":"%s"}\n' "@STOP@"
        ;;
    esac
    ;;
esac
exit 0
"""


# -- helpers -------------------------------------------------------------------


def write_hook(scratch: Path) -> Path:
    path = scratch / "hooks" / "smoke-hook.sh"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (
        HOOK_SCRIPT.replace("@BLOCK@", BLOCK_REASON)
        .replace("@CONTEXT@", CONTEXT)
        .replace("@STOP@", STOP_REASON)
    )
    path.write_text(text)
    path.chmod(0o755)
    return path


def hook_log(scratch: Path) -> Path:
    return scratch / "hook-log.jsonl"


def read_hook_log(scratch: Path) -> list:
    """Payloads the hook logged, in order (tolerates pretty-printed JSON)."""
    path = hook_log(scratch)
    if not path.exists():
        return []
    text, out, pos = path.read_text(), [], 0
    decoder = json.JSONDecoder()
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        obj, pos = decoder.raw_decode(text, pos)
        out.append(obj)


def wire_hooks(vendor: str, scratch: Path, kinds: list) -> None:
    """Merge the smoke hook for the given event kinds into the vendor's config.

    kinds: "pre_tool", "prompt", "stop". The runner's own settings are
    already in the file; only the hooks section is added here.
    """
    script = write_hook(scratch)
    config = hook_config(vendor, scratch)
    entries = []
    for kind in kinds:
        event = EVENTS[vendor][kind]
        command = " ".join(
            shlex.quote(a) for a in ("sh", str(script), vendor, event, str(hook_log(scratch)))
        )
        matcher = WRITE_MATCHER[vendor] if kind == "pre_tool" else None
        entries.append((event, matcher, command))
    data = json.loads(config.read_text()) if config.exists() else {}
    hooks = data.setdefault("hooks", {})
    for event, matcher, command in entries:
        group = {
            "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT[vendor]}]
        }
        if matcher:
            group["matcher"] = matcher
        hooks.setdefault(event, []).append(group)
    if vendor == "gemini":
        data.setdefault("hooksConfig", {})["enabled"] = True
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(data, indent=2) + "\n")
    trust(vendor, config, scratch)


def trust(vendor: str, config: Path, scratch: Path) -> None:
    """Codex runs only hooks a user trusted: its review's records, in its config.toml."""
    profile = pinned.profile(vendor)
    trust_all(profile, config, runner.records_file(profile, scratch))


def hook_config(vendor: str, scratch: Path) -> Path:
    """The vendor's user config, where the smoke hooks go."""
    return runner.hook_config(pinned.profile(vendor), scratch, "smoke")


def turn(
    vendor: str, scratch: Path, mock: MockServer, kinds: list, prompt: str = PROMPT
) -> runner.TurnResult:
    runner.prepare_home(pinned.cli(vendor), scratch, mock.url)
    wire_hooks(vendor, scratch, kinds)
    result = runner.run_turn(pinned.cli(vendor), prompt, scratch=scratch, mock=mock, timeout=60)
    # The runner refreshed its own keys; the hooks must still be there.
    assert EVENTS[vendor][kinds[0]] in hook_config(vendor, scratch).read_text()
    return result


def explain(result: runner.TurnResult, mock: MockServer, scratch: Path) -> str:
    hooks = read_hook_log(scratch)
    return f"{result.describe()}\n--- mock ---\n{mock.log()}\n--- hook log ---\n{hooks}"


def final_text(vendor: str, result: runner.TurnResult) -> str:
    """The agent's last message as the CLI reports it on stdout."""
    if vendor == "codex":
        texts = [
            json.loads(line)["item"].get("text", "")
            for line in result.stdout.splitlines()
            if line.startswith("{") and '"agent_message"' in line
        ]
        return texts[-1] if texts else ""
    data = json.loads(result.stdout[result.stdout.index("{") :])
    return data.get("result" if vendor == "claude" else "response", "")


# -- tests ---------------------------------------------------------------------


@pytest.mark.parametrize("vendor", VENDORS)
def test_write_is_allowed_and_the_pre_tool_hook_sees_it(vendor, live_clis, tmp_path):
    with MockServer(Script.writing("target.txt", CONTENT, "MOCK_DONE_1")) as mock:
        result = turn(vendor, tmp_path, mock, ["pre_tool"])
    why = explain(result, mock, tmp_path)
    assert result.exit_code == 0, why
    target = runner.work_dir(tmp_path) / "target.txt"
    assert target.exists(), why
    assert target.read_text().strip() == CONTENT.strip(), why
    pre = [
        p for p in read_hook_log(tmp_path) if p.get("hook_event_name") == EVENTS[vendor]["pre_tool"]
    ]
    assert len(pre) == 1, why
    assert "target.txt" in json.dumps(pre[0]["tool_input"]), why
    assert (
        pre[0]["tool_name"]
        == {"claude": "Write", "codex": "apply_patch", "gemini": "write_file"}[vendor]
    ), why
    assert final_text(vendor, result) == "MOCK_DONE_1", why


# What each CLI shows the model (seen with the pinned versions):
# after a PreToolUse/BeforeTool JSON deny, as the tool result ...
BLOCK_SHAPE = {
    "codex": "Command blocked by PreToolUse hook: " + BLOCK_REASON + ". Command: *** Begin Patch",
    "gemini": "Tool execution blocked: " + BLOCK_REASON,
    "claude": "PreToolUse:Write hook error: " + BLOCK_REASON,
}
# ... prompt-hook context, as (item kind, text) ...
CONTEXT_SHAPE = {
    "codex": ("context", CONTEXT),  # a developer message of its own
    "gemini": (
        "context",
        f"<hook_context>{CONTEXT}</hook_context>",
    ),  # an extra part of the prompt's turn
    "claude": (
        "context",
        "<system-reminder>\nUserPromptSubmit hook additional context: "
        f"{CONTEXT}\n</system-reminder>",
    ),
}
# ... and a stop hook's block, as a new user message.
STOP_SHAPE = {
    # <hook_prompt hook_run_id="stop:0:<config path>">reason</hook_prompt>
    "codex": f"{STOP_REASON}</hook_prompt>",
    "gemini": STOP_REASON,
    "claude": STOP_REASON,  # 2.1.328: "Stop hook feedback:\n<reason>"; 2.1.332: a reminder naming the command
}


@pytest.mark.parametrize("vendor", VENDORS)
def test_write_to_locked_file_is_blocked_and_the_model_is_told(vendor, live_clis, tmp_path):
    with MockServer(Script.writing("locked.txt", CONTENT, "MOCK_DONE_1")) as mock:
        result = turn(vendor, tmp_path, mock, ["pre_tool"])
    why = explain(result, mock, tmp_path)
    assert result.exit_code == 0, why
    assert not (runner.work_dir(tmp_path) / "locked.txt").exists(), why
    pre = [
        p for p in read_hook_log(tmp_path) if p.get("hook_event_name") == EVENTS[vendor]["pre_tool"]
    ]
    assert len(pre) == 1 and "locked.txt" in json.dumps(pre[0]["tool_input"]), why
    after = mock.requests_after_tool_call()
    assert after, why
    nxt = after[0]
    assert nxt.contains(BLOCK_REASON), why
    results = [i.text for i in nxt.items if i.kind == "tool_result"]
    assert results and BLOCK_SHAPE[vendor] in results[-1], f"{results}\n{why}"
    assert final_text(vendor, result) == "MOCK_DONE_1", why


@pytest.mark.parametrize("vendor", VENDORS)
def test_prompt_hook_context_reaches_the_model(vendor, live_clis, tmp_path):
    with MockServer(Script(final_texts=("MOCK_DONE_1",))) as mock:
        result = turn(vendor, tmp_path, mock, ["prompt"])
    why = explain(result, mock, tmp_path)
    assert result.exit_code == 0, why
    first = mock.model_requests()[0]
    assert first.contains(CONTEXT), why
    seen = [(i.kind, i.text) for i in first.items if CONTEXT in i.text]
    kind, text = CONTEXT_SHAPE[vendor]
    assert seen and seen[0][0] == kind and text in seen[0][1], f"{seen}\n{why}"
    assert final_text(vendor, result) == "MOCK_DONE_1", why


@pytest.mark.parametrize("vendor", VENDORS)
def test_stop_hook_block_makes_the_model_continue(vendor, live_clis, tmp_path):
    with MockServer(Script(final_texts=("MOCK_DONE_1", "MOCK_DONE_2"))) as mock:
        result = turn(vendor, tmp_path, mock, ["stop"])
    why = explain(result, mock, tmp_path)
    assert result.exit_code == 0, why
    continuation = [r for r in mock.model_requests() if any(i.kind == "text" for i in r.items)]
    assert continuation and continuation[0].contains(STOP_REASON), why
    users = [i.text for i in continuation[0].items if i.kind in ("user", "context") and STOP_REASON in i.text]
    assert users and STOP_SHAPE[vendor] in users[-1], f"{users}\n{why}"
    stops = [
        p for p in read_hook_log(tmp_path) if p.get("hook_event_name") == EVENTS[vendor]["stop"]
    ]
    assert [p.get("stop_hook_active") for p in stops] == [False, True], why
    assert final_text(vendor, result).endswith("MOCK_DONE_2"), why


@pytest.mark.parametrize("vendor", VENDORS)
def test_timeout_ends_the_turn_and_its_hooks(vendor, live_clis, tmp_path):
    """A pre-tool hook that hangs: the runner gives up at its timeout and leaves nothing running."""
    pidfile = tmp_path / "hook.pid"
    hang = tmp_path / "hooks" / "hang.sh"
    hang.parent.mkdir(parents=True)
    hang.write_text(
        f"#!/bin/sh\ncat >/dev/null\necho $$ >>{shlex.quote(str(pidfile))}\nexec sleep 60\n"
    )
    command = f"sh {shlex.quote(str(hang))}"
    timeout = HOOK_TIMEOUT[vendor] * 12  # 120 s, far beyond the turn's timeout
    event = EVENTS[vendor]["pre_tool"]
    with MockServer(Script.writing("target.txt", CONTENT)) as mock:
        runner.prepare_home(pinned.cli(vendor), tmp_path, mock.url)
        config = hook_config(vendor, tmp_path)
        data = json.loads(config.read_text()) if config.exists() else {}
        data["hooks"] = {
            event: [
                {
                    "matcher": WRITE_MATCHER[vendor],
                    "hooks": [{"type": "command", "command": command, "timeout": timeout}],
                }
            ]
        }
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(data))
        trust(vendor, config, tmp_path)
        # The clock starts when the hook has recorded its pid (it then hangs for 60 s; the turn
        # itself would end in about 1 s), so a slow start on a busy machine costs no margin.
        result = runner.run_turn(
            pinned.cli(vendor),
            PROMPT,
            scratch=tmp_path,
            mock=mock,
            timeout=TURN_TIMEOUT,
            timeout_from=pidfile,
            start_limit=HOOK_START_LIMIT,
        )
    why = (
        explain(result, mock, tmp_path)
        + f"\nkilled exit code {result.killed_exit_code}, stragglers {result.stragglers}"
        + f", hook started {result.timeout_started} s after the CLI"
    )
    assert result.timed_out and result.exit_code == runner.TIMEOUT_EXIT, why
    assert pidfile.exists() and result.timeout_started is not None, f"the hook never started\n{why}"
    # given up at the timeout, counted from the hook's start; the kill takes up to 2 s of grace
    # plus the CLI's own shutdown
    assert TURN_TIMEOUT <= result.duration - result.timeout_started < TURN_TIMEOUT + 10, why
    hook_pid = int(pidfile.read_text().split()[0])
    assert wait_gone(hook_pid, 3), f"hook process {hook_pid} survived\n{why}"
    with pytest.raises(ProcessLookupError):
        os.killpg(result.pid, 0)
    assert not (runner.work_dir(tmp_path) / "target.txt").exists(), why
