"""`hookshape verify` proves examples/minimal.toml on each pinned CLI: the command itself (run in
this process, tests/clikit.py), with the pinned binary as --bin. Its `reminder` prompt hook's
context reaches the model; its `env-guard` pre-tool hook fires on the scripted write and shell
call (and lets both through: verify's calls are harmless); every registered event fired."""

from __future__ import annotations

import os

import pytest
from tests import clikit

from . import pinned
from .test_live_harness import PROMPT_REFIRES_ON_TOOL_RESULT

pytestmark = pytest.mark.live

EXAMPLE = pinned.REPO_ROOT / "examples" / "minimal.toml"
REMINDER = "Reminder: never read, print or edit .env files; ask the user for a secret instead."
# What each CLI names the scripted write and shell call in the payload its pre-tool hooks get.
TOOLS = {
    "claude": "Write, Bash",
    "codex": "apply_patch, Bash",
    "gemini": "write_file, run_shell_command",
    "copilot": "create, bash",
    "qwen": "write_file, run_shell_command",
    "kimi": "Write, Bash",
}


@pytest.mark.parametrize("vendor", pinned.VENDORS)
def test_verify_proves_the_minimal_example(vendor, live_clis, tmp_path):
    profile = pinned.profile(vendor)
    path = os.pathsep.join([*map(str, pinned.path_first(vendor)), os.environ.get("PATH", os.defpath)])
    done = clikit.hookshape("verify", "--vendor", vendor, "--spec", EXAMPLE, "--bin", pinned.cli_path(vendor),
                            "--timeout", "90", cwd=tmp_path, env={"PATH": path, "HOOKSHAPE_HOME": None})
    why = done.stdout + done.stderr
    assert done.returncode == 0 and done.stderr == "", why  # a pinned CLI is a proven one: no warning
    lines = done.stdout.splitlines()
    display, events = profile.vendor.display, profile.events
    calls = 1 + (3 if profile.tools.read else 2)  # the prompt, then a model call after each tool call
    prompts = calls if vendor in PROMPT_REFIRES_ON_TOOL_RESULT else 1
    cut = REMINDER[:57] + "..."
    assert lines[1] == (f"  prompt             {events.prompt:<20} reached the model: {prompts}x: its context "
                        f"({cut}) reached the model"), why
    assert lines[2] == f"  pre_tool           {events.pre_tool:<20} fired: 2x ({TOOLS[vendor]}): each call allowed", why
    assert lines[-1].startswith(f"ok: 2 of 2 registered events fired on {display} "), why
    assert len(lines) == 4, why
