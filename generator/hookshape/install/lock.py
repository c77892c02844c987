"""A directory lock in the harness home: two installs (or an install and an uninstall) never
interleave. The lock is a folder holding its owner's pid, made aside and renamed into place
(atomic on every filesystem we care about): no flock (missing on minimal systems), and no lock
is ever seen without its pid, so one whose process is gone is broken at once."""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.install import fsops

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


def create(folder: Path) -> None:
    """Our lock in a folder nobody else can see yet (a harness home being made)."""
    create_at(folder / LOCK_NAME)


def _try(lock: Path) -> bool:
    """Make the lock with our pid in it, in one rename: no one ever sees it without a pid."""
    fresh = lock.with_name(f"{LOCK_NAME}.{os.getpid()}.new")
    shutil.rmtree(fresh, ignore_errors=True)
    try:
        fsops.before_change("lock")
        create_at(fresh)
        fsops.before_change("lock")
        os.rename(fresh, lock)
        return True
    except FileNotFoundError:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR):
            return False
        raise


def create_at(path: Path) -> None:
    os.mkdir(path, 0o700)
    (path / "pid").write_text(f"{os.getpid()}\n")


def leftovers(folder: Path, prefix: str, suffix: str = "") -> list[Path]:
    """The entries of `folder` named `<prefix><pid><suffix>` whose process is gone."""
    try:
        names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    except OSError:
        return []
    out = []
    for name in names:
        pid = name[len(prefix):len(name) - len(suffix)]
        if name.startswith(prefix) and name.endswith(suffix) and pid.isdigit() \
                and not pid_alive(int(pid)):
            out.append(folder / name)
    return out


def take(harness_home: Path, wait_s: float = 30.0) -> None:
    """Wait for the lock (breaking one whose holder is gone, and removing the half made ones
    of runs that were stopped); FileNotFoundError when the home is not there (any more)."""
    for path in leftovers(harness_home, f"{LOCK_NAME}.", ".new"):
        shutil.rmtree(path, ignore_errors=True)
    lock = harness_home / LOCK_NAME
    deadline = time.monotonic() + wait_s
    while not _try(lock):
        if _stale(lock):
            shutil.rmtree(lock, ignore_errors=True)
            continue
        if time.monotonic() > deadline:
            raise _busy(lock) from None
        time.sleep(0.05)


def release(harness_home: Path) -> None:
    """Let go of the lock, if it is still ours."""
    lock = harness_home / LOCK_NAME
    if _holder(lock) == os.getpid():
        fsops.before_change("lock")
        shutil.rmtree(lock, ignore_errors=True)


@contextmanager
def held(harness_home: Path, wait_s: float = 30.0) -> Iterator[Path]:
    take(harness_home, wait_s)
    try:
        yield harness_home / LOCK_NAME
    finally:
        release(harness_home)
