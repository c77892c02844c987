"""examples/minimal.toml under the real CLIs: its two user hooks, installed by `hookshape install`.

The example's `env-guard` hook (pre_tool, on edit and shell calls) blocks an edit of a `.env*`
file with a reason on stderr; its `reminder` hook (prompt) prints one line of context. Each test
installs the example for one vendor into a scratch home (`harness.Setup` with the example's
spec) and runs one turn of the real CLI against the mock, asserting on three witnesses as the
harness tests do: the file system, the next model request, the CLI's exit and final text.
The example wants no daemon ([gate] readiness and armed_roots are off): the setup gives the
gates no readiness lease and no armed work dir, only the debug switch (the gates' log).

Documented limitations of the pinned vendors (no bare skips): two CLIs refuse a write to `.env`
themselves, before their pre-tool hook runs, so the guard never sees that call (the file is safe
either way). Gemini CLI 0.61.0 refuses a path with a segment `.env` (also `.git`,
`node_modules`) as "not in workspace"; its block scenarios edit `.env.local`. Kimi Code 2.1.0
refuses `.env` and `.env.*` (but `.env.example`, `.env.sample`, `.env.template`) as a
"sensitive-file pattern"; its block scenarios edit `.envrc`. The guard blocks both names (`.env*`);
`test_vendor_refuses_dotenv_before_pre_tool` keeps the facts visible.
"""

from __future__ import annotations

import os
import shlex
import shutil

import pytest

from . import harness, runner
from .harness import Setup
from .mock.server import Script, ToolCall
from .test_live_harness import (
    BLOCK_PREFIX,
    CONTEXT_PREFIX,
    PROMPT_REFIRES_ON_TOOL_RESULT,
    RAN,
    READ_BEFORE_EDIT,
    context_items,
    edit_result,
)

pytestmark = pytest.mark.live

EXAMPLE = runner.REPO_ROOT / "examples" / "minimal.toml"
VENDORS = runner.VENDORS
# The secrets file each vendor's block scenarios edit (Gemini: see the module docstring).
DOTENV = {vendor: ".env" for vendor in VENDORS} | {"gemini": ".env.local", "kimi": ".envrc"}
# ... and what the vendors that refuse `.env` themselves show the model instead.
REFUSES_DOTENV = {
    "gemini": "Path not in workspace",
    "kimi": "matches a sensitive-file pattern (env / credential / SSH key)",
}

PRE_TOOL = "acme-guard-pre-tool"  # the gates of the example's two groups of hooks
PROMPT = "acme-guard-prompt"
REMINDER = "Reminder: never read, print or edit .env files; ask the user for a secret instead."
DONE = "MOCK_DONE_1"
SECRET = "API_KEY=from-the-model\n"
APP = "print('hello')\n"
RM_REASON = "BLOCKED: that command would remove the whole filesystem or home directory."


def guard_reason(s: Setup, rel: str) -> str:
    return f"BLOCKED: {s.target(rel)} is a secrets file; edit .env.example instead."


@pytest.fixture
def setup(request, live_clis):
    """The example installed for the test's vendor: no lease, no armed root (see above)."""
    vendor = request.node.callspec.params["vendor"]
    with harness.scratch_dir(vendor) as scratch:
        s = Setup(vendor, scratch, EXAMPLE).install()
        s.debug()
        yield s


def assert_reminded(vendor: str, turn: harness.Turn, why: str) -> None:
    """The reminder hook's line reached the first model request, through the vendor's channel."""
    first = turn.first_request()
    assert first is not None, why
    seen = context_items(first, REMINDER)
    assert len(seen) == 1, f"context items: {seen}\n{why}"
    assert (CONTEXT_PREFIX[vendor] + REMINDER) in seen[0], f"{seen[0]!r}\n{why}"


def assert_gate_ran(s: Setup, gate: str, why: str, count: int = 1) -> None:
    ends = s.gate_ends(gate)
    assert len(ends) == count and all(e.get("outcome") in RAN for e in ends), f"{ends}\n{why}"


@pytest.mark.parametrize("case", ["write-new", "edit-existing"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_env_guard_blocks_an_edit_of_dotenv(vendor, case, setup):
    s = setup
    dotenv = DOTENV[vendor]
    if case == "write-new":
        calls = [ToolCall.write(dotenv, SECRET)]
        tool = "Write"
    else:
        s.work_file(dotenv, "API_KEY=old\n")
        calls = [ToolCall.edit(dotenv, "API_KEY=old", SECRET.strip())]
        if vendor in READ_BEFORE_EDIT:
            calls.insert(0, ToolCall.read(dotenv))
        tool = "Edit"
    turn = s.turn(Script(calls, (DONE,)))
    why = turn.why
    # the CLI: one normal turn
    assert turn.result.exit_code == 0, why
    assert turn.final_text() == DONE, why
    # the file system: the file not created, or unchanged
    env_file = s.work / dotenv
    if case == "write-new":
        assert not env_file.exists(), why
    else:
        assert env_file.read_text() == "API_KEY=old\n", why
    assert_gate_ran(s, PRE_TOOL, why)
    # the model: the guard's reason as the result of its call
    shown = edit_result(turn)
    prefix = BLOCK_PREFIX[vendor].format(tool=tool)
    assert (prefix + guard_reason(s, dotenv)) in shown, f"shown: {shown!r}\n{why}"
    assert_reminded(vendor, turn, why)


@pytest.mark.parametrize("vendor", VENDORS)
def test_app_py_is_written_and_the_prompt_carries_the_reminder(vendor, setup):
    s = setup
    turn = s.turn(Script([ToolCall.write("app.py", APP)], (DONE,)))
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert turn.final_text() == DONE, why
    # the file system: the write landed; both gates ran their hooks
    assert (s.work / "app.py").read_text() == APP, why
    assert_gate_ran(s, PRE_TOOL, why)
    # (Qwen runs the prompt hook again before the model call after the tool result)
    assert_gate_ran(s, PROMPT, why, count=2 if vendor in PROMPT_REFIRES_ON_TOOL_RESULT else 1)
    # the model: the tool's own result, and the reminder before the prompt
    shown = edit_result(turn)
    assert shown and "BLOCKED" not in shown, f"shown: {shown!r}\n{why}"
    assert_reminded(vendor, turn, why)



@pytest.mark.parametrize("vendor", sorted(REFUSES_DOTENV))
def test_vendor_refuses_dotenv_before_pre_tool(vendor, setup):
    """Documented limitation (Gemini CLI 0.61.0, Kimi Code 2.1.0), kept as a test so a change
    shows up: a write to `.env` is refused by the CLI itself; the guard never runs, the file is
    not created."""
    s = setup
    turn = s.turn(Script([ToolCall.write(".env", SECRET)], (DONE,)))
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert not (s.work / ".env").exists(), why
    assert s.gate_ends(PRE_TOOL) == [], why  # the hook never saw the call
    shown = edit_result(turn)
    assert REFUSES_DOTENV[vendor] in shown and "BLOCKED" not in shown, f"{shown!r}\n{why}"


@pytest.mark.parametrize("vendor", VENDORS)
def test_env_guard_blocks_rm_rf_root_in_the_shell_tool(vendor, setup):
    s = setup
    # A fake `rm` first on PATH leaves a canary if `rm -rf /` ever runs (GNU rm would refuse it
    # anyway: --preserve-root is its default); anything else it hands to the real rm (the
    # gates, which inherit the PATH, remove their temp files with it).
    real_rm = shutil.which("rm")
    assert real_rm
    fakebin = s.scratch / "fakebin"
    fakebin.mkdir()
    canary = s.scratch / "rm-ran"
    fake = fakebin / "rm"
    fake.write_text(
        f'#!/bin/sh\ncase "$*" in "-rf /") echo "$@" >>{shlex.quote(str(canary))}; exit 0 ;; esac\n'
        f'exec {shlex.quote(real_rm)} "$@"\n'
    )
    fake.chmod(0o755)
    path_env = f"{fakebin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    turn = s.turn(Script.shell("rm -rf /", DONE), env={"PATH": path_env})
    why = turn.why
    assert turn.result.exit_code == 0, why
    assert turn.final_text() == DONE, why
    # the file system: the command never ran; the guard did
    assert not canary.exists(), f"`rm -rf /` ran: {canary.read_text()!r}\n{why}"
    assert_gate_ran(s, PRE_TOOL, why)
    # the model: the guard's reason as the shell call's result
    shown = edit_result(turn)
    assert RM_REASON in shown, f"shown: {shown!r}\n{why}"
