"""A mkdir lock in the harness home: two installs (or an install and an uninstall) never
interleave. mkdir is atomic on every filesystem we care about; no flock (missing on minimal
systems) and no pid files racing their own creation."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hookshape.errors import HookshapeError

LOCK_NAME = ".hookshape.lock"
STALE_WITHOUT_PID_S = 10.0


def _holder(lock: Path) -> int | None:
    try:
        return int((lock / "pid").read_text().strip())
    except (OSError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (a zombie counts; one we may not signal, too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale(lock: Path) -> bool:
    """The holder is gone (its pid is dead), or it never wrote a pid and is long past mkdir."""
    pid = _holder(lock)
    if pid is not None:
        return not pid_alive(pid)
    try:
        return time.time() - lock.stat().st_mtime > STALE_WITHOUT_PID_S
    except OSError:
        return False


def _busy(lock: Path) -> HookshapeError:
    pid = _holder(lock)
    who = f" by pid {pid}" if pid is not None else ""
    return HookshapeError(f"{lock}: held{who}: another hookshape install or uninstall is running; "
                          "wait for it (or remove that directory if none is running)")


@contextmanager
def held(harness_home: Path, wait_s: float = 30.0) -> Iterator[Path]:
    lock = harness_home / LOCK_NAME
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.mkdir(lock, 0o700)
            break
        except FileExistsError:
            if _stale(lock):
                shutil.rmtree(lock, ignore_errors=True)
                continue
            if time.monotonic() > deadline:
                raise _busy(lock) from None
            time.sleep(0.05)
    (lock / "pid").write_text(f"{os.getpid()}\n")
    try:
        yield lock
    finally:
        shutil.rmtree(lock, ignore_errors=True)
