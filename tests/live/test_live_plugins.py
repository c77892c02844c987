"""examples/minimal.toml as each vendor's plugin or extension, installed by the vendor's own CLI
and fired in a turn against the mock.

Per CLI: `hookshape package --as <format>` builds the plugin (in a marketplace where the
vendor installs from one), the CLI installs it offline into the scratch home, and one turn with
two calls runs: a write of `.env.local` is blocked by the plugin's pre_tool hook (the file is not
created, the guard's reason is the call's result), a write of `app.py` lands, and the plugin's
prompt hook puts its reminder into the first model request. The gates log under the harness
home, and the installed plugin's files are byte for byte what they were before the turn.

    Claude Code 2.1.332   claude plugin marketplace add <dir>; claude plugin install <p>@<m>
    Gemini CLI 0.61.0     gemini extensions install <dir> --consent (GEMINI_CLI_TRUST_WORKSPACE)
    Codex 0.171.0         codex plugin marketplace add <dir>; codex plugin add <p>@<m>
    Copilot CLI 1.0.102   copilot plugin marketplace add <dir>; copilot plugin install <p>@<m>
                          (loaded from the marketplace directory itself: nothing is copied)

Codex installs and loads no plugin under `[features] plugins = false`, which the runner sets in
every turn's config (it keeps Codex from syncing plugins over the network). The Codex plugin is
installed into a Codex home of its own (CODEX_HOME), whose config gets the runner's settings
for the turn with plugins on; the turn runs offline all the same. Cursor has no CLI here: its
plugin is only checked against its schema (tests/test_plugins.py).
"""

from __future__ import annotations

import hashlib
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests import clikit

from hookshape.verify import runner
from hookshape.verify.mock.server import MockServer, Script, ToolCall
from hookshape.verify.settings import update_toml

from . import harness, pinned
from .harness import Setup, Turn
from .test_live_harness import BLOCK_PREFIX, CONTEXT_PREFIX, RAN, context_items

pytestmark = pytest.mark.live

EXAMPLE = pinned.REPO_ROOT / "examples" / "minimal.toml"
NAME = "acme-guard"  # the example's harness: its plugin and marketplace names by default
VERSION = "0.1.0"
PRE_TOOL, PROMPT = "acme-guard-pre-tool", "acme-guard-prompt"
REMINDER = "Reminder: never read, print or edit .env files; ask the user for a secret instead."
SECRETS = ".env.local"  # Gemini refuses `.env` itself before any hook (tests/live/test_live_example.py)
APP = "print('hello')\n"
DONE = "MOCK_DONE_1"


@dataclass(frozen=True)
class Way:
    """How a vendor's CLI installs the plugin: the format, whether it comes from a marketplace,
    the CLI's commands, and where the installed plugin is (relative to the scratch dir)."""

    fmt: str
    marketplace: bool
    commands: tuple[tuple[str, ...], ...]
    installed: str


FROM_MARKETPLACE = (("plugin", "marketplace", "add", "{pkg}"), ("plugin", "install", f"{NAME}@{NAME}"))
WAYS = {
    "claude": Way("claude-plugin", True, FROM_MARKETPLACE,
                  f"home/.claude/plugins/cache/{NAME}/{NAME}/{VERSION}"),
    "gemini": Way("gemini-extension", False, (("extensions", "install", "{pkg}", "--consent"),),
                  f"home/.gemini/extensions/{NAME}"),
    "codex": Way("codex-plugin", True, (("plugin", "marketplace", "add", "{pkg}"), ("plugin", "add", f"{NAME}@{NAME}")),
                 f"codex-home/plugins/cache/{NAME}/{NAME}/{VERSION}"),
    "copilot": Way("copilot-plugin", True, FROM_MARKETPLACE, f"pkg/plugins/{NAME}"),
}
OWN_CODEX_HOME = "codex-home"  # see the module docstring


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode)
            for p in sorted(root.rglob("*")) if p.is_file()}


def extra_env(vendor: str, scratch: Path) -> dict[str, str]:
    return {"CODEX_HOME": str(scratch / OWN_CODEX_HOME)} if vendor == "codex" else {}


def install(s: Setup, way: Way) -> str:
    """Package the example, install it with the vendor's CLI; returns the transcript."""
    pkg = s.scratch / "pkg"
    argv = ["package", "--as", way.fmt, "--out", str(pkg), "--spec", str(EXAMPLE)]
    proc = clikit.hookshape(*argv, *(["--marketplace"] if way.marketplace else []), cwd=pinned.REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    s.work.mkdir(parents=True)
    cli = pinned.cli(s.vendor)
    runner.prepare_home(cli, s.scratch, "http://127.0.0.1:9")  # no turn: nothing listens there
    env = runner.turn_env(cli, s.scratch, "http://127.0.0.1:9", extra_env(s.vendor, s.scratch))
    if s.vendor == "codex":
        (s.scratch / OWN_CODEX_HOME).mkdir()
        codex_plugins_on(s.scratch)
    log = [proc.stdout]
    for args in way.commands:
        argv = [str(cli.binary), *(a.replace("{pkg}", str(pkg)) for a in args)]
        done = subprocess.run(argv, env=env, cwd=s.work, capture_output=True, text=True, timeout=180,
                              stdin=subprocess.DEVNULL, check=False)
        log.append(f"$ {' '.join(args)}\nexit {done.returncode}\n{done.stdout}{done.stderr}")
        assert done.returncode == 0, "\n".join(log)
    return "\n".join(log)


def codex_plugins_on(scratch: Path) -> None:
    """The runner's Codex settings (its config in the scratch home) into the plugin's own Codex
    home, with [features] plugins = true; the tables the plugin's install wrote stay."""
    settings = runner.settings_path(pinned.profile("codex"), scratch)
    assert settings is not None
    data = tomllib.loads(settings.read_text())
    own = {**data, "features": {**data.get("features", {}), "plugins": True}}
    update_toml(scratch / OWN_CODEX_HOME / "config.toml", own)


def codex_trusting_plugins() -> runner.Cli:
    """The pinned Codex with --dangerously-bypass-hook-trust: a plugin hook's trust record hashes
    the whole plugin bundle too, which hookshape does not compute (its user-config entries are
    trusted as a review would trust them, tests/live/harness.py)."""
    cli = pinned.cli("codex")
    drive = cli.profile.drive
    argv = [drive.argv[0], "--dangerously-bypass-hook-trust", *drive.argv[1:]]
    profile = cli.profile.model_copy(update={"drive": drive.model_copy(update={"argv": argv})})
    return runner.Cli(profile, cli.binary, cli.path)


def turn(s: Setup, script: Script) -> Turn:
    """One turn as Setup.turn runs it; for Codex in the plugin's own Codex home (the runner's
    settings for this turn's mock, plugins on)."""
    if s.vendor != "codex":
        return s.turn(script)
    env = s.env("bob", extra_env(s.vendor, s.scratch))
    with MockServer(script) as mock:
        runner.prepare_home(pinned.cli(s.vendor), s.scratch, mock.url)
        codex_plugins_on(s.scratch)
        result = runner.run_turn(codex_trusting_plugins(), "MOCK_PROMPT change the file as asked", scratch=s.scratch,
                                 mock=mock, env_extra=env, timeout=45)
    return Turn(s, result, mock, env)


@dataclass
class Installed:
    setup: Setup
    turn: Turn
    results: list[str]
    before: dict[str, str]
    after: dict[str, str]
    plugin_dir: Path

    @property
    def why(self) -> str:
        return self.turn.why


@pytest.fixture(scope="module", params=sorted(WAYS))
def installed(request, live_clis):
    vendor = request.param
    way = WAYS[vendor]
    with harness.scratch_dir(vendor) as scratch:
        s = Setup(vendor, scratch, EXAMPLE)
        s.install_output = install(s, way)
        s.debug()
        plugin_dir = scratch / way.installed
        assert plugin_dir.is_dir(), f"{plugin_dir} missing\n{s.install_output}"
        before = digest(plugin_dir)
        done = turn(s, Script([ToolCall.write(SECRETS, "API_KEY=from-the-model\n"), ToolCall.write("app.py", APP)],
                              (DONE,)))
        yield Installed(s, done, done.tool_results(), before, digest(plugin_dir), plugin_dir)


def test_the_cli_installed_the_plugin_with_its_hooks_through_the_root_variable(installed):
    plugin = installed.plugin_dir
    hooks = next(p for p in (plugin / "hooks" / "hooks.json", plugin / "hooks.json") if p.is_file())
    text = hooks.read_text()
    assert "scripts/acme-guard-pre-tool" in text and "${" in text, text
    assert (plugin / "scripts" / PRE_TOOL).stat().st_mode & 0o111, "the gate lost its executable bit"


def test_the_plugin_s_pre_tool_hook_blocks_the_secrets_write(installed):
    s, why = installed.setup, installed.why
    assert installed.turn.result.exit_code == 0, why
    assert installed.turn.final_text() == DONE, why
    assert not (s.work / SECRETS).exists(), why
    reason = f"BLOCKED: {s.target(SECRETS)} is a secrets file; edit .env.example instead."
    assert len(installed.results) == 2, why
    shown = installed.results[0]
    assert BLOCK_PREFIX[s.vendor].format(tool="Write") + reason in shown, f"shown: {shown!r}\n{why}"
    # the other write lands, through the same gate
    assert (s.work / "app.py").read_text() == APP, why
    ends = s.gate_ends(PRE_TOOL)
    assert [e.get("outcome") for e in ends] == ["verdict", ends[-1].get("outcome")], f"{ends}\n{why}"
    assert ends[-1].get("outcome") in RAN, f"{ends}\n{why}"


def test_the_plugin_s_prompt_hook_adds_its_context(installed):
    s, why = installed.setup, installed.why
    first = installed.turn.first_request()
    assert first is not None, why
    seen = context_items(first, REMINDER)
    assert len(seen) == 1 and CONTEXT_PREFIX[s.vendor] + REMINDER in seen[0], f"{seen}\n{why}"
    ends = s.gate_ends(PROMPT)
    assert ends and all(e.get("outcome") in RAN for e in ends), f"{ends}\n{why}"


def test_the_turn_left_the_plugin_directory_as_it_was(installed):
    """The gates keep their state in the harness home (its debug log is there); nothing in the
    plugin's directory was written."""
    assert installed.after == installed.before, installed.why
    assert installed.setup.debug_log.is_file(), installed.why
    assert str(installed.setup.debug_log).startswith(str(installed.setup.user_home / ".acme-guard"))
