"""Helpers of the live harness tests: the rendered harness, installed, under a real CLI.

`Setup(vendor, scratch)` installs hookshape's harness into `<scratch>/home` with
`hookshape install --home <scratch>/home --vendor <vendor> --spec <spec>` (the
default spec, hookshape.toml, unless `spec=` names another) and prepares what
the gates check before they run a tentacle (the paths below are the default
spec's; another spec's names and files are read from it):

    <harness home>                  = <scratch>/home/.port-daddy (PD_HOME, set explicitly)
    <harness home>/daemon.ready     \\ the readiness lease: the same number in both,
    <harness home>/daemon.pid       /  and a fresh heartbeat file
    <harness home>/heartbeat
    <harness home>/squid/projects   the work dir's physical path (armed)
    <harness home>/squid/debug      the gates' debug switch (-> squid/debug.log)
    <harness home>/matrix.env       locks and alerts, as a scenario needs them

`Setup.turn(script, actor=...)` runs one turn of the vendor's CLI against a
fresh mock and returns a `Turn` holding the result, the mock's records and
everything a failed assertion should print (`Turn.why`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import clikit
from tests.tentaclekit import suffix  # the one copy of the lock key rule (docs/default-harness.md, "Lock keys")

from hookshape.spec.hooks import Group
from hookshape.spec.load import load
from hookshape.spec.model import Spec
from hookshape.verify import runner
from hookshape.verify.mock.server import MockServer, Script, ToolCall
from hookshape.verify.trusting import trust_all

from . import pinned

SPEC = pinned.REPO_ROOT / "hookshape.toml"

# Values of the default spec (hookshape.toml), as the harness shows them.
LOCK_PREFIX = "PD_LOCK_"
ALERT_PREFIX = "PD_ALERT_"
DEADLINE_MS = 1000
VENDOR_TIMEOUT_MS = 5000  # [vendors.*].timeout_ms
SITREP_HEADER = (
    "| Idea / Suggestion / Remediation | Source (Agent/Operator) | Status | Related PR/Issue | Docs / Roadmap Link |"
)

# Event names per vendor (prompt, pre-tool, stop), for messages.
EVENTS = {
    "claude": ("UserPromptSubmit", "PreToolUse", "Stop"),
    "codex": ("UserPromptSubmit", "PreToolUse", "Stop"),
    "gemini": ("BeforeAgent", "BeforeTool", "AfterAgent"),
    "copilot": ("userPromptSubmitted", "preToolUse", "agentStop"),
    "qwen": ("UserPromptSubmit", "PreToolUse", "Stop"),
    "kimi": ("UserPromptSubmit", "PreToolUse", "Stop"),
}

# A final text that satisfies the stop hook (mentions SITREP, has a table line), so a
# scenario about something else is not continued by the stop hook.
SITREP_TEXT = f"MOCK_DONE_1\n\nSITREP\n{SITREP_HEADER}\n|---|---|---|---|---|\n| none | Agent | done | - | - |"


def lock_line(path: str, actor: str) -> str:
    return f'{LOCK_PREFIX}{suffix(path)}="{actor}"'


def alert_line(ident: str, text: str) -> str:
    return f'{ALERT_PREFIX}{ident}="{text}"'


@dataclass
class Turn:
    """One finished turn: the CLI's result, the mock's records, and the setup it ran in."""

    setup: Setup
    result: runner.TurnResult
    mock: MockServer
    env: dict

    @property
    def requests(self) -> list:
        return self.mock.model_requests()

    def first_request(self):
        reqs = self.requests
        return reqs[0] if reqs else None

    def after_tool_calls(self) -> list:
        return self.mock.requests_after_tool_call()

    def tool_results(self) -> list[str]:
        """Texts of the tool results the model was shown, oldest first (from the last request)."""
        reqs = self.requests
        if not reqs:
            return []
        return [i.text for i in reqs[-1].items if i.kind == "tool_result"]

    def continuations(self) -> list:
        """Model requests sent after the model had already produced a final text."""
        return [r for r in self.requests if any(i.kind == "text" for i in r.items)]

    def final_text(self) -> str:
        return final_text(self.setup.vendor, self.result)

    @property
    def why(self) -> str:
        """Everything a reader needs to see why an assertion failed."""
        return self.setup.explain(self.result, self.mock)


def final_text(vendor: str, result: runner.TurnResult) -> str:
    """The agent's last message as the CLI reports it on stdout ("" if none)."""
    if vendor == "codex":
        texts = []
        for line in result.stdout.splitlines():
            if not line.startswith("{"):
                continue
            try:
                item = json.loads(line).get("item") or {}
            except ValueError:
                continue
            if item.get("type") == "agent_message":
                texts.append(item.get("text", ""))
        return texts[-1] if texts else ""
    if vendor == "copilot":  # JSONL events; the agent's messages are assistant.message
        texts = []
        for line in result.stdout.splitlines():
            try:
                event = json.loads(line) if line.startswith("{") else {}
            except ValueError:
                continue
            if event.get("type") == "assistant.message":
                content = (event.get("data") or {}).get("content") or ""
                if content.strip():
                    texts.append(content)
        return texts[-1] if texts else ""
    if vendor == "kimi":  # stream-json: one message per line, the agent's as role assistant
        texts = []
        for line in result.stdout.splitlines():
            try:
                msg = json.loads(line) if line.startswith("{") else {}
            except ValueError:
                continue
            content = msg.get("content") if msg.get("role") == "assistant" else None
            if isinstance(content, str) and content.strip():
                texts.append(content)
        return texts[-1] if texts else ""
    if vendor == "qwen":  # one JSON array of messages, the last a "result" record
        start = result.stdout.find("[")
        try:
            records = json.loads(result.stdout[start:]) if start >= 0 else []
        except ValueError:
            return ""
        done = [r for r in records if isinstance(r, dict) and r.get("type") == "result"]
        return str(done[-1].get("result") or "") if done else ""
    start = result.stdout.find("{")
    if start < 0:
        return ""
    try:
        data = json.loads(result.stdout[start:])
    except ValueError:
        return ""
    return data.get("result" if vendor == "claude" else "response", "") or ""


@functools.cache
def load_spec(path: Path) -> Spec:
    return load(path).spec


@dataclass
class Setup:
    """The harness of a spec (default: hookshape.toml) installed for one vendor inside a scratch dir."""

    vendor: str
    scratch: Path
    spec_path: Path = SPEC
    install_output: str = ""
    install_seconds: float = 0.0
    notes: list = field(default_factory=list)

    # -- places --------------------------------------------------------------
    @property
    def spec(self) -> Spec:
        return load_spec(self.spec_path)

    @property
    def user_home(self) -> Path:
        return runner.home_dir(self.scratch)

    @property
    def home(self) -> Path:
        """The harness home (PD_HOME: the spec's home_default under the scratch home)."""
        return self.user_home / self.spec.harness.home_default.removeprefix("~/")

    @property
    def registered(self) -> list[str]:
        """Names of the gates wired into the vendors' configs (tentacles and groups of hooks)."""
        return [g.name for g in self.spec.gates() if g.registered]

    @property
    def work(self) -> Path:
        return runner.work_dir(self.scratch)

    @property
    def state(self) -> Path:
        return self.home / self.spec.harness.state_dir

    @property
    def debug_log(self) -> Path:
        return self.home / self.spec.gate.debug_log

    @property
    def stop_blocks(self) -> Path:
        return self.state / "stop-blocks"

    @property
    def matrix_file(self) -> Path:
        return self.home / "matrix.env"

    def gate(self, name: str) -> Path:
        return self.home / "bin" / name

    def tentacle(self, name: str) -> Path:
        return self.home / "bin" / self.spec.harness.tentacle_dir / name

    # -- building it ---------------------------------------------------------
    def install(self) -> Setup:
        """`hookshape install --home <scratch>/home --vendor <vendor> --spec <spec>`; fails loudly.

        The command runs in this process (tests/clikit.py: the same command, arguments and
        environment as on a shell, without a second interpreter start and import per test,
        which cost about a second each); the install itself is tested on its own elsewhere.
        """
        self.user_home.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        env: dict[str, str | None] = {"HOOKSHAPE_HOME": None, self.spec.harness.home_env: str(self.home)}
        argv = ["install", "--home", str(self.user_home), "--vendor", self.vendor, "--spec", str(self.spec_path)]
        start = time.monotonic()
        proc = clikit.hookshape(*argv, cwd=pinned.REPO_ROOT, env=env)
        self.install_seconds = time.monotonic() - start
        self.install_output = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise AssertionError(f"hookshape {' '.join(argv)} failed (exit {proc.returncode}):\n{self.install_output}")
        for unit in self.spec.gates():
            if not unit.registered:
                continue
            # a built-in job has its tentacle script; a group of user hooks, its awk program
            # (its gate runs the hooks itself)
            if isinstance(unit, Group):
                want = [(self.gate(unit.name), os.X_OK), (self.tentacle(f"{unit.name}.awk"), os.R_OK)]
            else:
                want = [(self.gate(unit.name), os.X_OK), (self.tentacle(unit.name), os.X_OK)]
            for path, mode in want:
                if not os.access(path, mode):
                    raise AssertionError(f"install left no usable {path}:\n{self.install_output}")
        profile = pinned.profile(self.vendor)
        files = [runner.hook_config(profile, self.scratch, self.spec.harness.name)]
        for path in files:  # Codex runs only hooks a user trusted: trust them as its review would
            trust_all(profile, path, runner.records_file(profile, self.scratch))
        texts = [f.read_text() for f in files if f.is_file()]
        missing = [name for name in self.registered if not any(name in text for text in texts)]
        if missing:
            raise AssertionError(f"install wrote no hook entry for {missing} into {files or 'any hook file'}")
        return self

    def lease(self, pid: int = 4242) -> None:
        """The readiness lease: daemon.ready == daemon.pid (numeric), a fresh heartbeat."""
        g = self.spec.gate
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / g.ready_file).write_text(f"{pid}\n")
        (self.home / g.pid_file).write_text(f"{pid}\n")
        (self.home / g.heartbeat_file).write_text("")
        os.utime(self.home / g.heartbeat_file)

    def arm(self) -> None:
        """Append the work dir's physical path to <harness home>/squid/projects."""
        roots = self.home / self.spec.gate.armed_roots_file
        roots.parent.mkdir(parents=True, exist_ok=True)
        with open(roots, "a") as fh:
            fh.write(os.path.realpath(self.work) + "\n")

    def debug(self) -> None:
        switch = self.home / self.spec.gate.debug_switch_file
        switch.parent.mkdir(parents=True, exist_ok=True)
        switch.write_text("")

    def ready(self) -> Setup:
        """install + lease + arm + debug log: the common starting point."""
        self.install()
        self.lease()
        self.arm()
        self.debug()
        return self

    def matrix(self, *lines: str) -> None:
        self.matrix_file.write_text("".join(line + "\n" for line in lines))

    def halt(self, reason: str) -> Path:
        path = self.home / "HALT"
        path.write_text(reason + "\n")
        return path

    def disable(self) -> Path:
        path = self.home / "hooks.disabled"
        path.write_text("")
        return path

    def work_file(self, rel: str, text: str) -> Path:
        path = self.work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def target(self, rel: str) -> str:
        """The path of a work file as the CLI reports it to the hook (absolute, unresolved)."""
        return str(self.work / rel)

    # -- a turn ----------------------------------------------------------------
    def env(self, actor: str | None, extra: Mapping[str, str | None] | None = None) -> dict:
        env: dict = {self.spec.harness.home_env: str(self.home)}
        if actor is not None:
            env[self.spec.harness.actor_env] = actor
        # Nothing from the caller's environment steers the harness.
        for name in (
            "PD_MATRIX_FILE",
            "PD_HALT_FILE",
            "PD_DISTRESS_FILE",
            "PD_HOOKS",
            "PD_SUGGESTIBILITY",
            "PD_SITREP",
            "PD_HOOK_DEADLINE_MS",
            "PD_HOOK_SHELL",
        ):
            env.setdefault(name, None)
        env.update(extra or {})
        return env

    def turn(
        self,
        script: Script,
        *,
        actor: str | None = "bob",
        prompt: str = "MOCK_PROMPT change the file as asked",
        env: Mapping[str, str | None] | None = None,
        timeout: float = 45,
    ) -> Turn:
        # The heartbeat must be fresh when the hooks run (30 s window).
        heartbeat = self.home / self.spec.gate.heartbeat_file
        if heartbeat.exists():
            os.utime(heartbeat)
        full_env = self.env(actor, env)
        with MockServer(script) as mock:
            result = runner.run_turn(
                pinned.cli(self.vendor),
                prompt,
                scratch=self.scratch,
                mock=mock,
                env_extra=full_env,
                timeout=timeout,
            )
        return Turn(self, result, mock, full_env)

    # -- explaining ------------------------------------------------------------
    def debug_lines(self) -> list[dict]:
        """The gates' debug log, one dict per line."""
        if not self.debug_log.exists():
            return []
        out = []
        for line in self.debug_log.read_text(errors="replace").splitlines():
            fields = dict(f.split("=", 1) for f in line.split("\t") if "=" in f)
            out.append(fields)
        return out

    def gate_ends(self, tentacle: str | None = None) -> list[dict]:
        return [
            d
            for d in self.debug_lines()
            if d.get("ev") == "end" and (tentacle is None or d.get("tentacle") == tentacle)
        ]

    def explain(self, result: runner.TurnResult, mock: MockServer) -> str:
        parts = [
            f"=== {self.vendor} turn ===",
            result.describe(),
            "--- mock request log ---",
            mock.log(),
        ]
        reqs = mock.model_requests()
        if reqs:
            last = reqs[-1]
            parts += [
                f"--- last model request ({len(reqs)} in all): items ---",
                "\n".join(
                    f"[{i.kind}{'/' + i.name if i.name else ''}] "
                    + (i.text[:200] + " [...]" if i.kind == "context" and len(i.text) > 200 else i.text[:2000])
                    for i in last.items
                ),
            ]
        parts += ["--- gate debug log ---"]
        parts.append(self.debug_log.read_text() if self.debug_log.exists() else "(none)")
        g = self.spec.gate
        for rel in ("matrix.env", "HALT", g.kill_switch_file, g.armed_roots_file):
            p = self.home / rel
            if p.exists():
                parts.append(f"--- {p} ---\n{p.read_text()}")
        health = self.home / g.health_dir
        if health.is_dir():
            for p in sorted(health.iterdir()):
                if p.is_file():
                    parts.append(f"--- {p.name} ---\n{p.read_text(errors='replace')}")
        if self.stop_blocks.is_dir():
            parts.append(f"--- stop-blocks --- {sorted(os.listdir(self.stop_blocks))}")
        parts.append(f"--- install ({self.install_seconds:.2f}s) ---\n{self.install_output}")
        parts += self.notes
        return "\n".join(parts)


def setup(vendor: str, scratch: Path, spec: Path = SPEC) -> Setup:
    return Setup(vendor, Path(scratch), Path(spec)).ready()


KEEP_ENV = "HOOKSHAPE_LIVE_KEEP"  # set to 1 to keep scratch dirs for a look afterwards


@contextlib.contextmanager
def scratch_dir(vendor: str):
    """A short scratch dir in the system temp dir (removed afterwards unless KEEP_ENV=1)."""
    path = Path(tempfile.mkdtemp(prefix=f"hs-{vendor}-"))
    try:
        yield path
    finally:
        if os.environ.get(KEEP_ENV) == "1":
            print(f"kept {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def contains_all(text: str, needles: Sequence[str]) -> bool:
    return all(n in text for n in needles)


@dataclass
class SharedTurn:
    """One turn of a CLI that several tests read: the model's calls by name, in order, and what
    the model was shown as the result of each (`results[name]`)."""

    setup: Setup
    turn: Turn
    calls: list[str]
    results: dict[str, str]

    @property
    def vendor(self) -> str:
        return self.setup.vendor

    @property
    def why(self) -> str:
        return self.turn.why + f"\n--- calls ---\n{self.calls}"


def named_turn(s: Setup, named: Sequence[tuple[str, ToolCall]], texts: tuple[str, ...],
               text_limit: int = 0, script: type[Script] = Script,
               **kw: Any) -> tuple[Turn, list[str], dict[str, str]]:
    """One turn of these calls in this order, ending with these texts (with `text_limit`, a
    continuation past that many is refused), the model scripted by `script`: the turn, the call
    names and what the model was shown for each (one result per call, in the order of the calls)."""
    turn = s.turn(script([call for _, call in named], texts, text_limit), **kw)
    shown = turn.tool_results()
    calls = [name for name, _ in named]
    assert len(shown) == len(calls), f"results: {shown}\n{turn.why}"
    return turn, calls, dict(zip(calls, shown, strict=True))
