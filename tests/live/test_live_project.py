"""A project setup a team commits, run by the real CLIs in a clone: `examples/minimal.toml`
installed with `hookshape install --scope project` by one user in one project, the project then
moved to another path (the CLI's work dir) and that user's home removed; another user's home,
with nothing installed, runs one turn. The CLI reads the project's own config, whose commands
name the project its way (Claude Code `${CLAUDE_PROJECT_DIR}`, Gemini CLI `${GEMINI_PROJECT_DIR}`,
Codex `$(git rev-parse --show-toplevel)`, Copilot CLI `${COPILOT_PROJECT_DIR}`, Qwen Code
`${QWEN_PROJECT_DIR}`), and runs the gates the project holds; their log lands in the other
user's harness home.

What each user does first, as the profiles' [project] needs say: Gemini CLI trusts the folder
(the runner's GEMINI_CLI_TRUST_WORKSPACE=true), Copilot CLI too (COPILOT_ALLOW_ALL=true in -p),
Codex trusts the project and reviews its hooks (the records its review writes, for the clone's
own .codex/hooks.json). Kimi Code reads no project file: no committed setup runs there.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from tests import clikit

from hookshape.verify import runner
from hookshape.verify.mock.server import Script, ToolCall
from hookshape.verify.settings import update
from hookshape.verify.trusting import trust_all

from . import harness, pinned
from .harness import Setup
from .test_live_example import APP, DONE, DOTENV, EXAMPLE, PRE_TOOL, SECRET, guard_reason
from .test_live_harness import BLOCK_PREFIX, RAN

pytestmark = pytest.mark.live

VENDORS = ("claude", "gemini", "codex", "copilot", "qwen")
TRUST_FOLDER = {"copilot": {"COPILOT_ALLOW_ALL": "true"}}


def trust_codex(s: Setup) -> None:
    """What a user's review in Codex writes: the project trusted, each of its hooks trusted by
    the hash of its definition, keyed by the clone's own .codex/hooks.json."""
    profile = pinned.profile("codex")
    records = runner.records_file(profile, s.scratch)
    update(records, {"projects": {str(s.work): {"trust_level": "trusted"}}})
    assert trust_all(profile, s.work / ".codex/hooks.json", records) == 2


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_committed_setup_runs_in_a_clone_elsewhere(vendor, live_clis):
    with harness.scratch_dir(vendor) as scratch:
        s = Setup(vendor, scratch, EXAMPLE)
        first_home, first = scratch / "alice", scratch / "alice-work" / "proj"
        first_home.mkdir()
        first.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(first)], check=True)
        home_env = s.spec.harness.home_env
        proc = clikit.hookshape("install", "--home", str(first_home), "--scope", "project",
                                "--project", str(first), "--vendor", vendor, "--spec", str(EXAMPLE),
                                cwd=pinned.REPO_ROOT, env={"HOOKSHAPE_HOME": None, home_env: None})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        shutil.move(first, s.work)
        shutil.rmtree(first_home)
        assert not s.home.exists()  # nothing installed for the second user
        s.debug()
        if vendor == "codex":
            trust_codex(s)
        dotenv = DOTENV[vendor]
        script = Script([ToolCall.write(dotenv, SECRET), ToolCall.write("app.py", APP)], (DONE,))
        # the gates find the second user's harness home from HOME alone
        turn = s.turn(script, env={home_env: None, **TRUST_FOLDER.get(vendor, {})})
        why = turn.why
        assert turn.result.exit_code == 0, why
        assert not (s.work / dotenv).exists(), why
        assert (s.work / "app.py").read_text() == APP, why
        blocked, written = turn.tool_results()
        assert BLOCK_PREFIX[vendor].format(tool="Write") + guard_reason(s, dotenv) in blocked, why
        assert "BLOCKED" not in written, why
        ends = s.gate_ends(PRE_TOOL)
        assert len(ends) == 2 and all(e.get("outcome") in RAN for e in ends), f"{ends}\n{why}"
        assert not first_home.exists()
