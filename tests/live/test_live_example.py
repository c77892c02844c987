"""examples/minimal.toml under the real CLIs: its two user hooks, installed by `hookshape install`.

The example's `env-guard` hook (pre_tool, on edit and shell calls) blocks an edit of a `.env*`
file with a reason on stderr; its `reminder` hook (prompt) prints one line of context. The
example is installed for one vendor into a scratch home (`harness.Setup` with the example's
spec) and one turn of the real CLI runs against the mock, with four calls (the `shared`
fixture); the tests read that turn's record, asserting on three witnesses as the harness tests
do: the file system, the model requests, the CLI's exit and final text.
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
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookshape.verify.mock.server import Script, ToolCall

from . import harness, pinned
from .harness import Setup
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

EXAMPLE = pinned.REPO_ROOT / "examples" / "minimal.toml"
VENDORS = pinned.VENDORS
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


# -- one turn per CLI, four calls: the tests below read its record -------------------------

# The secrets file that already exists (the edit case); the write case creates DOTENV[vendor] at
# the top of the work dir. The guard matches the file name, in any directory.
EXISTING_DIR = "config"


@dataclass
class Shared(harness.SharedTurn):
    """One turn of the example under a CLI: a new secrets file written, an existing one edited,
    `app.py` written, `rm -rf /` run in the shell tool, in this order (Claude and Qwen read the
    existing file before they edit it, see READ_BEFORE_EDIT)."""

    canary: Path


def fake_rm(s: Setup) -> tuple[Path, str]:
    """A fake `rm` first on PATH: it leaves a canary if `rm -rf /` ever runs (GNU rm would refuse
    it anyway: --preserve-root is its default); anything else it hands to the real rm (the gates,
    which inherit the PATH, remove their temp files with it). Returns (canary, PATH)."""
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
    return canary, f"{fakebin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


@pytest.fixture(scope="module", params=VENDORS)
def shared(request, live_clis):
    """The example installed for one CLI (no lease, no armed root) and the one turn of `Shared`."""
    vendor = request.param
    with harness.scratch_dir(vendor) as scratch:
        s = Setup(vendor, scratch, EXAMPLE).install()
        s.debug()
        dotenv = DOTENV[vendor]
        existing = f"{EXISTING_DIR}/{dotenv}"
        s.work_file(existing, "API_KEY=old\n")
        named = [("write-new", ToolCall.write(dotenv, SECRET))]
        if vendor in READ_BEFORE_EDIT:
            named.append(("read", ToolCall.read(existing)))
        named += [
            ("edit-existing", ToolCall.edit(existing, "API_KEY=old", SECRET.strip())),
            ("app.py", ToolCall.write("app.py", APP)),
            ("rm", ToolCall.shell("rm -rf /")),
        ]
        canary, path_env = fake_rm(s)
        yield Shared(s, *harness.named_turn(s, named, (DONE,), env={"PATH": path_env}), canary)


def test_the_turn_ends_normally_and_each_gate_ran_per_call(shared):
    s, why = shared.setup, shared.why
    # the CLI: one normal turn
    assert shared.turn.result.exit_code == 0, why
    assert shared.turn.final_text() == DONE, why
    # the pre-tool gate ran its hook once per edit or shell call (a read is neither); the prompt
    # gate once (Qwen runs the prompt hook again before each model call after a tool result)
    assert_gate_ran(s, PRE_TOOL, why, count=4)
    refires = len(shared.calls) if shared.vendor in PROMPT_REFIRES_ON_TOOL_RESULT else 0
    assert_gate_ran(s, PROMPT, why, count=1 + refires)
    # the model: the reminder before the prompt
    assert_reminded(shared.vendor, shared.turn, why)


@pytest.mark.parametrize("case", ["write-new", "edit-existing"])
def test_env_guard_blocks_an_edit_of_dotenv(case, shared):
    s, why = shared.setup, shared.why
    dotenv = DOTENV[shared.vendor]
    # the file system: the file not created, or unchanged
    if case == "write-new":
        rel, tool = dotenv, "Write"
        assert not (s.work / rel).exists(), why
    else:
        rel, tool = f"{EXISTING_DIR}/{dotenv}", "Edit"
        assert (s.work / rel).read_text() == "API_KEY=old\n", why
    # the model: the guard's reason as the result of its call
    shown = shared.results[case]
    prefix = BLOCK_PREFIX[shared.vendor].format(tool=tool)
    assert (prefix + guard_reason(s, rel)) in shown, f"shown: {shown!r}\n{why}"


def test_app_py_is_written_and_the_prompt_carries_the_reminder(shared):
    s, why = shared.setup, shared.why
    # the file system: the write landed
    assert (s.work / "app.py").read_text() == APP, why
    # the model: the tool's own result, and the reminder before the prompt
    shown = shared.results["app.py"]
    assert shown and "BLOCKED" not in shown, f"shown: {shown!r}\n{why}"
    assert_reminded(shared.vendor, shared.turn, why)


def test_env_guard_blocks_rm_rf_root_in_the_shell_tool(shared):
    why = shared.why
    # the file system: the command never ran
    assert not shared.canary.exists(), f"`rm -rf /` ran: {shared.canary.read_text()!r}\n{why}"
    # the model: the guard's reason as the shell call's result
    shown = shared.results["rm"]
    assert RM_REASON in shown, f"shown: {shown!r}\n{why}"


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
