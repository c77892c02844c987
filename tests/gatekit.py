"""Toolkit of the gate tests (tests/test_gate.py, tests/test_status.py).

A Rig is a copy of dist/ whose tentacles can be replaced by stubs, plus a scratch harness home
with a fresh readiness lease (ready == pid, heartbeat touched now) and an armed project that
the gates run in. Stubs record what happened in a marks dir ($MARKS): `ran` gets one line per
start, `stdin` a copy of the event, `kid` the pid of a child they started.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.shells import DIST, MATRIX, ROOT, Result, Shell, run, shell

from hookshape.diagnose import health
from hookshape.plan import outputs
from hookshape.spec.load import load
from hookshape.spec.profiles import Profile

LOADED = load(ROOT / "hookshape.toml")
SPEC = LOADED.spec
GATE = SPEC.gate
PROFILES: dict[str, Profile] = {p.id: p for p in LOADED.vendors}
NAMES = {t.role: t.name for t in SPEC.tentacles}
PHASES = {t.role: t.phase for t in SPEC.tentacles}
ROLES = tuple(NAMES)
VENDOR_IDS = tuple(PROFILES)

DASH = shell("dash")
CORE = tuple(s for s in MATRIX if s.name in ("dash", "busybox", "bash") and s.available)
EXTRA = tuple(s for s in MATRIX if s.name not in ("dash", "busybox", "bash") and s.available)

# Stub tentacle bodies (run by /bin/sh through their shebang).
OK = 'cat > "$MARKS/stdin"\necho ran >> "$MARKS/ran"\necho out\n'
SILENT = 'echo ran >> "$MARKS/ran"\n'
CRASH = 'echo ran >> "$MARKS/ran"\nexit 1\n'
EXIT2 = 'echo ran >> "$MARKS/ran"\nexit 2\n'
SYNTAX = 'echo ran >> "$MARKS/ran"\nif then fi )\n'
VERDICT = ('echo ran >> "$MARKS/ran"\necho "nope: reason for the block" >&2\n'
           f'exit "${GATE.verdict_env}"\n')
HUNG = 'echo ran >> "$MARKS/ran"\nsleep 60 &\necho "$!" > "$MARKS/kid"\nwait\n'
# A tentacle that ignores TERM, with a descendant that ignores it too: only KILL ends them.
STUBBORN = ('echo ran >> "$MARKS/ran"\ntrap "" TERM\n'
            'sh -c \'trap "" TERM; echo "$$" > "$MARKS/kid"; while :; do sleep 0.05; done\' &\n'
            'while :; do sleep 0.05; done\n')
# A tentacle that answers and leaves a double-forked grandchild (reparented, out of reach of the
# ladder) holding its stdout and stderr for 100 s.
DOUBLE_FORK = ('echo ran >> "$MARKS/ran"\n( sleep 100 & echo "$!" > "$MARKS/kid" )\n'
               'echo out\necho err >&2\n')


GENEROUS_SLOW_MS = 10_000


def slow(seconds: float) -> str:
    return f'echo ran >> "$MARKS/ran"\nsleep {seconds}\n'


def notice_text(role: str, count: int, cooldown_ms: int) -> str:
    return SPEC.messages.breaker_notice.format(phase=PHASES[role], count=count,
                                               cooldown_s=math.ceil(cooldown_ms / 1000))


def notice_json(vendor: str, role: str, count: int, cooldown_ms: int) -> dict[str, object] | None:
    """The notice a vendor's context channel gets for this role, or None when it has none."""
    profile = PROFILES[vendor]
    if not profile.events.of(role):  # type: ignore[arg-type]
        return None
    return outputs.stdout_object(profile, "context", notice_text(role, count, cooldown_ms), role)


@dataclass
class Rig:
    root: Path
    source: Path = DIST  # the rendered tree to copy (another spec's render, for variants)

    def __post_init__(self) -> None:
        self.dist = self.root / "dist"
        shutil.copytree(self.source, self.dist, symlinks=True)
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.marks = self.root / "marks"
        self.events = 0
        for d in (self.home, self.project, self.marks):
            d.mkdir(parents=True, exist_ok=True)
        self.lease()
        self.arm(self.project)

    # --- the harness home -----------------------------------------------------------------
    def path(self, rel: str) -> Path:
        return self.home / rel

    def write(self, rel: str, text: str) -> Path:
        p = self.path(rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def lease(self, ready: str = "4242", pid: str | None = None) -> None:
        self.write(GATE.ready_file, ready + "\n")
        self.write(GATE.pid_file, (ready if pid is None else pid) + "\n")
        self.write(GATE.heartbeat_file, "")

    def arm(self, *roots: Path | str) -> None:
        self.write(GATE.armed_roots_file, "".join(f"{r}\n" for r in roots))

    @property
    def health(self) -> Path:
        return self.home / GATE.health_dir

    def state_file(self, role: str) -> Path:
        return self.health / f"{NAMES[role]}{health.STATE_EXT}"

    def state(self, role: str) -> str | None:
        p = self.state_file(role)
        return p.read_text() if p.exists() else None

    def breaker(self, role: str) -> health.Breaker:
        t = SPEC.tentacle(role)  # type: ignore[arg-type]
        assert t is not None
        return health.read_breaker(SPEC, self.home, t)

    # --- scripts --------------------------------------------------------------------------
    def gate(self, role: str) -> Path:
        return self.dist / "bin" / NAMES[role]

    def tentacle(self, role: str) -> Path:
        return self.dist / "bin" / SPEC.harness.tentacle_dir / NAMES[role]

    def stub(self, role: str, body: str, mode: int = 0o755) -> Path:
        p = self.tentacle(role)
        p.write_text("#!/bin/sh\n" + body)
        p.chmod(mode)
        return p

    def runs(self) -> int:
        p = self.marks / "ran"
        return len(p.read_text().splitlines()) if p.exists() else 0

    def kid(self) -> int:
        p = self.marks / "kid"
        end = time.monotonic() + 5
        while time.monotonic() < end:
            text = p.read_text().strip() if p.exists() else ""
            if text.isdigit():
                return int(text)
            time.sleep(0.02)
        raise AssertionError("the stub never wrote its child's pid")

    def env(self, vendor: str | None = None, **extra: str) -> dict[str, str]:
        # A loaded CI box can take a healthy stub past the spec's slow line: tests that judge
        # time say so with their own values; the rest get lines no healthy stub reaches.
        env = {SPEC.harness.home_env: str(self.home), "MARKS": str(self.marks),
               GATE.slow_env: str(GENEROUS_SLOW_MS), GATE.deadline_env: str(GENEROUS_SLOW_MS * 2)}
        if vendor:
            env[SPEC.harness.provider_env] = vendor
        env.update(extra)
        return env

    def run(self, role: str, payload: bytes | str = b"{}", *, sh: Shell = DASH,
            vendor: str | None = None, cwd: Path | None = None, timeout: float = 30,
            argv0: str | None = None, **extra: str) -> Result:
        """Run the gate; argv0 is the script operand as the shell gets it (default: its
        absolute path)."""
        script = Path(argv0) if argv0 is not None else self.gate(role)
        return run(script, payload, sh=sh, env=self.env(vendor, **extra),
                   cwd=cwd or self.project, timeout=timeout)

    def popen(self, role: str, payload: bytes = b"{}", *, sh: Shell = DASH,
              vendor: str | None = None, **extra: str) -> subprocess.Popen[bytes]:
        """Start a gate with the payload on stdin (from a file, so concurrent gates never wait on
        each other's pipes)."""
        full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8",
                **self.env(vendor, **extra)}
        self.events += 1
        event = self.root / f"event-{self.events}.json"
        event.write_bytes(payload)
        with event.open("rb") as stdin:
            return subprocess.Popen([*sh.argv, str(self.gate(role))], stdin=stdin,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full,
                                    cwd=self.project)


@contextmanager
def many(procs: list[subprocess.Popen[bytes]],
         timeout: float = 60) -> Iterator[list[tuple[int, bytes, bytes]]]:
    """Collect (code, out, err) of every process, all waited on at once: once this starts, each
    is reaped as soon as it ends (as a vendor reaps its hooks; a gate left a zombie still answers
    `kill -0`). One that ended while the rest were started waits until then: a test of that race
    runs each gate from a thread of its own. Kill them all on a timeout."""
    deadline = time.monotonic() + timeout

    def collect(p: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
        out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        return p.returncode, out, err

    try:
        with ThreadPoolExecutor(max_workers=len(procs) or 1) as pool:
            results = list(pool.map(collect, procs))
        yield results
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
