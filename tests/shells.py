"""The shell matrix and helpers to run rendered scripts as subprocesses."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookshape.install.lock import pid_alive

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
FIXTURES = ROOT / "tests" / "fixtures" / "payloads"
VENDORS = ("claude", "gemini", "codex", "agy")


@dataclass(frozen=True)
class Shell:
    """One interpreter of the matrix: a name for reports and the argv prefix that runs a file."""

    name: str
    argv: tuple[str, ...]

    @property
    def available(self) -> bool:
        return shutil.which(self.argv[0]) is not None


# `make test-fast` (HOOKSHAPE_FAST=1): every behaviour once, under dash and the preferred awk only
FAST = os.environ.get("HOOKSHAPE_FAST", "") == "1"

FULL_MATRIX = (
    Shell("dash", ("dash",)),
    Shell("busybox", ("busybox", "sh")),
    Shell("bash", ("bash",)),
    Shell("bash-posix", ("bash", "--posix")),
    Shell("posh", ("posh",)),
    Shell("yash", ("yash", "--posix")),
    Shell("mksh", ("mksh",)),
    Shell("ksh93", ("ksh93",)),
    Shell("zsh", ("zsh", "--emulate", "sh", "--no-rcs")),
)
MATRIX = tuple(s for s in FULL_MATRIX if s.name == "dash") if FAST else FULL_MATRIX
CORE = tuple(s for s in MATRIX if s.name in ("dash", "busybox", "bash"))


def crossed(*dims: Sequence[Any], keep: int = 1, everywhere: bool = False) -> list[tuple[Any, ...]]:
    """Parameters of a test: every combination of the dimensions in full mode. In fast mode every
    combination of the first `keep` dimensions only, each later dimension taking its values in
    turn (the i-th combination gets value i mod len): every value still appears, crossed only
    where the test says it can change the result. everywhere: in turn in full mode too, for a
    later dimension that cannot change the result at all (the same code path with other data)."""
    head: list[tuple[Any, ...]] = [()]
    for d in dims[:keep]:
        head = [(*h, v) for h in head for v in d]
    tail = dims[keep:]
    if not FAST and not everywhere:
        out = head
        for d in tail:
            out = [(*h, v) for h in out for v in d]
        return out
    return [(*h, *(d[i % len(d)] for d in tail)) for i, h in enumerate(head)]


class InTurn:
    """A parametrize decorator over `values` that, in fast mode, gives each test it decorates
    one value, the values in turn over the tests of the module (every value still appears);
    in full mode every test gets every value."""

    def __init__(self, argname: str, values: Sequence[Any]) -> None:
        self.argname = argname
        self.values = tuple(values)
        self.turn = 0

    def take(self) -> tuple[Any, ...]:
        """The values of the next test: all of them in full mode, the next one in fast mode."""
        if not FAST:
            return self.values
        self.turn += 1
        return (self.values[(self.turn - 1) % len(self.values)],)

    def __call__(self, fn: Callable[..., Any]) -> Any:
        import pytest

        return pytest.mark.parametrize(self.argname, self.take())(fn)


# the awks a tentacle tries before plain `awk` (harness.awk_prefer of the default spec)
AWK_PREFER: tuple[str, ...] = tuple(tomllib.loads((ROOT / "hookshape.toml").read_text())["harness"]["awk_prefer"])


def tentacle_awk(path: str) -> str | None:
    """The awk a tentacle runs on this PATH: the first of the preferred ones found, else awk."""
    for name in (*AWK_PREFER, "awk"):
        found = shutil.which(name, path=path)
        if found:
            return found
    return None


def shell(name: str) -> Shell:
    return next(s for s in FULL_MATRIX if s.name == name)


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def run(script: Path, payload: bytes | str, *, sh: Shell | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, timeout: float = 20) -> Result:
    """Run a rendered script with the payload on stdin (under `sh`, else via its shebang)."""
    data = payload.encode() if isinstance(payload, str) else payload
    argv = [*(sh.argv if sh else ()), str(script)]
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
                "LANG": "C.UTF-8", **(env or {})}
    proc = subprocess.run(argv, input=data, capture_output=True, env=full_env, cwd=cwd, timeout=timeout,
                          check=False)
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                  proc.stderr.decode("utf-8", "replace"))


def fixture(vendor: str, name: str) -> bytes:
    return (FIXTURES / vendor / f"{name}.json").read_bytes()


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (PID 1 may never reap it here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone, or no /proc here
        return pid_alive(pid)
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def pipe_holders(*fds: int) -> list[str]:
    """The command lines of the other processes that hold open the pipes these fds of ours are
    (a vendor waits for EOF on a hook's stdout and stderr)."""
    mine = {f"pipe:[{os.fstat(fd).st_ino}]" for fd in fds}
    found = []
    for pid in Path("/proc").glob("[0-9]*"):
        if pid.name == str(os.getpid()):
            continue
        try:  # processes come and go while we look: a vanished one holds nothing
            links = [os.readlink(fd) for fd in (pid / "fd").iterdir()]
            if mine.intersection(links):
                found.append((pid / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


def sh_scripts(root: Path) -> list[Path]:
    """The shell scripts under root (#!/bin/sh), sorted: not the awk programs or hook files
    beside them."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p.read_bytes()[:9] == b"#!/bin/sh")


def wait_until(done: Callable[[], bool], within: float) -> bool:
    """Whether done() came true within that many seconds (polled every 50 ms)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        if done():
            return True
        time.sleep(0.05)
    return done()


def wait_gone(pid: int, within: float) -> bool:
    """Whether the process is gone (or a zombie) within that many seconds."""
    return wait_until(lambda: not alive(pid), within)
