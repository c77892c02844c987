"""The vendors' own validators on what `hookshape package --as` builds, offline: Claude Code's
`claude plugin validate` (with `--profile directory`, the checks of Anthropic's plugin directory)
on a plugin and on a marketplace, and Gemini CLI's `gemini extensions validate`, the pinned
versions from tools/live-clis (`make live-clis`).

Without a pinned CLI these tests are skipped with the reason; under CI=true they fail instead,
as the live tier does. Each CLI runs with a scratch HOME and config dir. Marked slow: `make
test` runs them, `make test-fast` does not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests import clikit
from tests.live.pinned import cli_path

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minimal.toml"
AUTHORED = """
[package]
author = "Acme Tools"
author_email = "tools@acme.example"
homepage = "https://acme.example/guard"
license = "MIT"
"""


def cli(name: str) -> Path:
    """The pinned CLI, or a skip (a failure under CI=true) saying why it cannot run."""
    path = cli_path(name)
    missing = "" if path.exists() else f"{path} is missing: run `make live-clis`"
    if not missing and name == "gemini" and shutil.which("node") is None:
        missing = "node is not on PATH: the Gemini CLI needs Node.js"
    if missing:
        if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
            pytest.fail(f"the vendor validators cannot run under CI=true: {missing}", pytrace=False)
        pytest.skip(missing)
    return path


def run(name: str, *args: str | Path, scratch: Path) -> subprocess.CompletedProcess[str]:
    home = scratch / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8",
           "CLAUDE_CONFIG_DIR": str(home / ".claude"), "NO_COLOR": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "GEMINI_TELEMETRY_ENABLED": "false", "GEMINI_CLI_NO_RELAUNCH": "true"}
    return subprocess.run([str(cli(name)), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=180, stdin=subprocess.DEVNULL, cwd=scratch, check=False)


def package(out: Path, fmt: str, spec: Path, *extra: str) -> Path:
    proc = clikit.hookshape("package", "--as", fmt, "--out", out, "--spec", spec, *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def authored(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "acme.toml"
    spec.write_text(EXAMPLE.read_text(encoding="utf-8") + AUTHORED, encoding="utf-8")
    return spec


def report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    start = proc.stdout.find("{")
    assert start >= 0, proc.stdout + proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout[start:])
    return data


def test_claude_validates_the_plugin_for_the_plugin_directory(tmp_path: Path) -> None:
    """`claude plugin validate --profile directory`: no error, no warning on the manifest (an
    author is set), no refusal of the plugin directory; it lists our hooks, each through
    ${CLAUDE_PLUGIN_ROOT}."""
    plugin = package(tmp_path / "acme-guard", "claude-plugin", authored(tmp_path / "spec"))
    proc = run("claude", "plugin", "validate", "--json", "--profile", "directory", plugin, scratch=tmp_path)
    found = report(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert found["success"] is True, found
    assert (found["manifest"]["errors"], found["manifest"]["warnings"]) == ([], []), found["manifest"]
    hooks = {(h["event"], h["command"]) for h in found["provides"]["hooks"]}
    line = 'ACME_HOOK_PROVIDER=claude "${{CLAUDE_PLUGIN_ROOT}}/scripts/acme-guard-{}"'
    assert hooks == {("UserPromptSubmit", line.format("prompt")), ("PreToolUse", line.format("pre-tool"))}


EVERY_KIND = """
[[hooks]]
name = "notes"
event = "notification"
async = true
run = ["true"]

[[hooks]]
name = "builds"
event = "permission_request"
match = ["shell"]
run = ["true"]

[[hooks]]
name = "failures"
event = "post_tool_failure"
run = ["true"]

[[hooks]]
name = "helpers"
event = "subagent_start"
vendors = ["claude"]
run = ["true"]

[[hooks]]
name = "compacted"
event = "claude:PostCompact"
run = ["true"]
"""


def test_claude_validates_the_new_events_its_own_event_and_an_async_gate(tmp_path: Path) -> None:
    """The four later events, a vendor's own event and a gate with `async: true`: the plugin
    validates with no error or warning on its hooks, and provides each of them."""
    spec = authored(tmp_path / "spec")
    spec.write_text(spec.read_text(encoding="utf-8") + EVERY_KIND, encoding="utf-8")
    plugin = package(tmp_path / "acme-guard", "claude-plugin", spec)
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks["Notification"][0]["hooks"][0]["async"] is True
    proc = run("claude", "plugin", "validate", "--json", "--profile", "directory", plugin, scratch=tmp_path)
    found = report(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert found["success"] is True, found
    assert (found["manifest"]["errors"], found["manifest"]["warnings"]) == ([], []), found["manifest"]
    events = {h["event"] for h in found["provides"]["hooks"]}
    assert events == {"UserPromptSubmit", "PreToolUse", "Notification", "PermissionRequest",
                      "PostToolUseFailure", "SubagentStart", "PostCompact"}, events


def test_claude_validates_the_marketplace(tmp_path: Path) -> None:
    market = package(tmp_path / "market", "claude-plugin", authored(tmp_path / "spec"), "--marketplace")
    proc = run("claude", "plugin", "validate", "--json", market, scratch=tmp_path)
    found = report(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert found["success"] is True and found["manifest"]["type"] == "marketplace", found
    assert (found["manifest"]["errors"], found["manifest"]["warnings"]) == ([], []), found["manifest"]


def test_gemini_validates_the_extension(tmp_path: Path) -> None:
    extension = package(tmp_path / "acme-guard", "gemini-extension", EXAMPLE)
    proc = run("gemini", "extensions", "validate", extension, scratch=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Extension {extension} has been successfully validated." in proc.stdout + proc.stderr
