"""`hookshape verify` without a real vendor CLI: the command's flow (the harness installed in a
scratch home, one scripted turn against the bundled mock, each event's gate runs recorded and
judged) with a stand-in for Claude Code's CLI (tests/fakecli.py), its errors, and its pieces
(the recorder in front of the gates, the versions). tests/live proves it on the real CLIs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tests import clikit
from tests.fakecli import fake_claude

from hookshape.spec.profiles import load_profiles
from hookshape.verify import probe, versions

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "examples" / "minimal.toml"
PROVEN = versions.proven("@anthropic-ai/claude-code")[0]
REMINDER = "Reminder: never read, print or edit .env files; ask the user for a secret instead."

SPEC_HEAD = """
[harness]
name = "acme-guard"
prefix = "acme"
home_default = "~/.acme-guard"

[gate]
readiness = false
armed_roots = false

[halt]
enabled = false
"""


def spec(tmp_path: Path, hooks: str, vendors: str = "[vendors.claude]\n") -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC_HEAD + hooks + vendors)
    return path


def hook(name: str, event: str, run: list[str], match: str = "") -> str:
    text = f'\n[[hooks]]\nname = "{name}"\nevent = "{event}"\nrun = {json.dumps(run)}\n'
    return text + (f"match = {json.dumps([match])}\n" if match else "")


def verify(tmp_path: Path, spec_path: Path, *args: str, version: str = PROVEN, skip: tuple[str, ...] = (),
           fail: str = "", env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    bin_dir = fake_claude(tmp_path / "cli", version, skip, fail)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    return clikit.hookshape("verify", "--vendor", "claude", "--spec", spec_path, *args, cwd=tmp_path,
                            env={"PATH": path, "HOOKSHAPE_HOME": None, **(env or {})})


def event_lines(out: str) -> dict[str, str]:
    """event -> the rest of its line."""
    found = {}
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith("  the turn") and not line.startswith("  scratch"):
            event, rest = line.strip().split(None, 1)
            found[event] = rest
    return found


def test_minimal_example_fires_and_its_context_reaches_the_model(tmp_path: Path) -> None:
    """One run of the minimal example (kept, to look at what the recorder kept), with a user home
    and a harness home of the caller's that nothing may touch."""
    home, harness = tmp_path / "home", tmp_path / "acme"
    home.mkdir()
    done = verify(tmp_path, MINIMAL, "--keep", env={"HOME": str(home), "ACME_HOME": str(harness)})
    out = done.stdout.splitlines()
    kept = Path(next(ln for ln in out if ln.startswith("  scratch kept: ")).split(": ", 1)[1])
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stderr == ""  # a proven version: no warning
        lines = event_lines(done.stdout)
        assert list(lines) == ["prompt", "pre_tool"]
        assert lines["prompt"] == (f"UserPromptSubmit     reached the model: 1x: its context ({REMINDER[:57]}...) "
                                   "reached the model")
        assert lines["pre_tool"] == "PreToolUse           fired: 2x (Write, Bash): each call allowed"
        assert out[0].startswith(f"verify: Claude Code {PROVEN} (") and out[0].endswith(
            "), one scripted turn in a scratch home")
        assert out[-1].startswith(f"ok: 2 of 2 registered events fired on Claude Code {PROVEN} (turn ")
        # nothing outside the scratch was touched
        assert list(home.iterdir()) == [] and not harness.exists()
        # the recorder kept each gate run; the harness was installed in the scratch home
        gates = sorted(c.gate for c in probe.calls(kept / "calls"))
        assert gates == ["acme-guard-pre-tool", "acme-guard-pre-tool", "acme-guard-prompt"]
        assert "acme-guard-pre-tool" in (kept / "home/.claude/settings.json").read_text()
    finally:
        subprocess.run(["rm", "-rf", str(kept)], check=True)


def test_an_event_the_cli_never_fires_fails_with_a_reason_and_an_unproven_version_warns(tmp_path: Path) -> None:
    hooks = hook("pre", "pre_tool", ["true"], "any") + hook("post", "post_tool", ["true"], "any")
    done = verify(tmp_path, spec(tmp_path, hooks), version="9.9.9", skip=("PostToolUse",))
    assert done.returncode == 1, done.stdout
    assert done.stderr == (f"hookshape: warning: Claude Code 9.9.9 has not been proven with hookshape verify "
                           f"(proven: {PROVEN}); running it anyway\n")
    lines = event_lines(done.stdout)
    assert lines["pre_tool"].endswith("fired: 3x (Write, Read, Bash): each call allowed")
    assert lines["post_tool"] == (f"PostToolUse          NOT FIRED: Claude Code 9.9.9 never ran it: it may not "
                                  f"know the event PostToolUse or keep its hooks switched off by default "
                                  f"(proven: {PROVEN})")
    assert done.stdout.splitlines()[-1].startswith("FAILED: 1 of 2 registered events did not fire")


def test_a_deny_reaches_the_model_and_post_tool_is_not_exercised(tmp_path: Path) -> None:
    deny = ["sh", "-c", "echo 'DENIED: no tools here' >&2; exit 2"]
    hooks = hook("no", "pre_tool", deny, "any") + hook("post", "post_tool", ["true"], "any")
    done = verify(tmp_path, spec(tmp_path, hooks))
    assert done.returncode == 0, done.stdout
    lines = event_lines(done.stdout)
    assert lines["pre_tool"].endswith("reached the model: 3x (Write, Read, Bash): its deny (DENIED: no tools "
                                      "here) reached the model")
    assert lines["post_tool"].endswith("not exercised: every scripted tool call was denied by a pre_tool "
                                       "hook, so no tool ran")
    assert ", 1 not exercised" in done.stdout.splitlines()[-1]


def test_session_start_context_reaches_the_model(tmp_path: Path) -> None:
    done = verify(tmp_path, spec(tmp_path, hook("hello", "session_start", ["echo", "the repo is acme"])))
    assert done.returncode == 0, done.stdout
    assert event_lines(done.stdout)["session_start"].endswith(
        "reached the model: 1x: its context (the repo is acme) reached the model")


def test_a_stop_hook_that_never_lets_go_is_ended_by_the_mock(tmp_path: Path) -> None:
    stop = ["sh", "-c", "echo 'one more thing' >&2; exit 2"]
    done = verify(tmp_path, spec(tmp_path, hook("more", "stop", stop)))
    assert done.returncode == 0, done.stdout
    assert event_lines(done.stdout)["stop"].endswith(
        "reached the model: 2x: its reason to keep working (one more thing) reached the model")


def test_a_matcher_that_takes_none_of_the_tools_called_is_the_reason(tmp_path: Path) -> None:
    done = verify(tmp_path, spec(tmp_path, hook("nb", "pre_tool", ["true"], "NotebookEdit")))
    assert done.returncode == 1, done.stdout
    assert event_lines(done.stdout)["pre_tool"].endswith(
        "NOT FIRED: matcher: ^(NotebookEdit)$ takes none of the tools the model called (Write, Read, "
        "Bash); Claude Code may name them otherwise for hooks")


def test_a_cli_that_fails_before_the_model_says_so_for_every_event(tmp_path: Path) -> None:
    done = verify(tmp_path, MINIMAL, fail="fake: no such model")
    assert done.returncode == 1, done.stdout
    why = "the turn never reached the model: the CLI exited 1: fake: no such model"
    assert all(rest.endswith(f"NOT FIRED: {why}") for rest in event_lines(done.stdout).values())
    assert "  the turn: the CLI exited 1: fake: no such model" in done.stdout.splitlines()


@pytest.mark.parametrize("vendor", ["agy", "cursor", "factory"])
def test_a_cli_it_cannot_drive_is_one_line_saying_why(vendor: str, tmp_path: Path) -> None:
    done = clikit.hookshape("verify", "--vendor", vendor, "--spec", MINIMAL, cwd=tmp_path)
    display = load_profiles()[vendor].vendor.display
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"hookshape: error: verify cannot drive {display}: ")
    assert done.stderr.count("\n") == 1


def test_errors_are_one_line(tmp_path: Path) -> None:
    cases = [
        (["--vendor", "gemini", "--spec", str(spec(tmp_path, hook("p", "prompt", ["true"])))],
         {}, f"{tmp_path / 'spec.toml'}: vendors.gemini is not enabled in the spec: add a [vendors.gemini] "
         "table to it"),
        (["--vendor", "claude", "--spec", str(MINIMAL)], {"PATH": str(tmp_path)},
         "claude is not on PATH: install Claude Code (npm install -g @anthropic-ai/claude-code) or pass --bin PATH"),
        (["--vendor", "claude", "--spec", str(MINIMAL), "--bin", str(tmp_path / "none")], {},
         f"--bin {tmp_path / 'none'}: not an executable file"),
    ]
    garbage = tmp_path / "bad" / "claude"
    garbage.parent.mkdir()
    garbage.write_bytes(b"\x7fELF not really")
    garbage.chmod(0o755)
    cases.append((["--vendor", "claude", "--spec", str(MINIMAL), "--bin", str(garbage)], {},
                  f"{garbage}: cannot run it: Exec format error"))
    for args, env, said in cases:
        done = clikit.hookshape("verify", *args, cwd=tmp_path, env=env)
        last = done.stderr.splitlines(keepends=True)[-1]  # (a version it cannot tell warns first)
        assert (done.returncode, done.stdout, last) == (1, "", f"hookshape: error: {said}\n")


# -- the pieces ------------------------------------------------------------------------------


def test_the_recorder_keeps_the_call_and_answers_as_the_gate(tmp_path: Path) -> None:
    gate = tmp_path / "bin" / "acme-gate"
    gate.parent.mkdir()
    gate.write_text('#!/bin/sh\nread -r line\nprintf \'{"seen":"%s"}\\n\' "$line"\necho "to stderr: $1" >&2\nexit 2\n')
    gate.chmod(0o755)
    probe.wrap(gate, tmp_path / "calls")
    probe.wrap(gate, tmp_path / "calls")  # twice: still one recorder in front of one gate
    shellcheck = ROOT / ".venv" / "bin" / "shellcheck"
    if shellcheck.exists():
        lint = subprocess.run([str(shellcheck), "-s", "sh", str(gate)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout
    done = subprocess.run([str(gate), "arg one"], input="hello\n", capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, '{"seen":"hello"}\n', "to stderr: arg one\n")
    [call] = probe.calls(tmp_path / "calls")
    assert (call.gate, call.payload, call.stdout, call.code) == ("acme-gate", b"hello\n", done.stdout, 2)


def test_versions_come_from_the_package_and_the_proven_list(tmp_path: Path) -> None:
    bin_dir = fake_claude(tmp_path, "1.2.3")
    assert versions.from_package(bin_dir / "claude", "@anthropic-ai/claude-code") == "1.2.3"
    assert versions.from_package(bin_dir / "claude", "@other/cli") == ""
    assert versions.proven("@openai/codex") and versions.proven("no-such-package") == []
