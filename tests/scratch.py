"""Where the suite writes: in memory (/dev/shm) when there is room and it may run what it writes
there, else the usual temporary place. The suite writes and removes tens of thousands of small
files (homes, state, traces); a disk's journal makes each of them cost."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SHM = Path("/dev/shm")
MIN_FREE = 2 << 30  # a container's default 64 MB is not enough
KEEP = 3  # runs kept for a look after they end, as pytest keeps its own


def _memory() -> Path | None:
    try:
        st = os.statvfs(SHM)
    except OSError:
        return None
    # the tests run scripts they write: a noexec mount will not do
    if st.f_bavail * st.f_frsize < MIN_FREE or st.f_flag & os.ST_NOEXEC or not os.access(SHM, os.W_OK):
        return None
    return SHM


MEMORY = _memory()
SHORT = str(MEMORY or "/tmp")  # the parent of short private dirs


def basetemp() -> Path | None:
    """A fresh folder in memory for pytest's temporary folders (None: pytest's own place); the
    folders of older runs go, all but the newest few, and never one of a run still going (its
    pytest's pid is in its name: two checkouts may run the suite at once)."""
    if MEMORY is None:
        return None
    mine = f"hookshape-tests-{os.getuid()}-"
    old = sorted((p for p in MEMORY.glob(mine + "*") if not _running(p.name[len(mine):])),
                 key=lambda p: p.stat().st_mtime)
    for p in old[: max(0, len(old) - KEEP + 1)]:
        shutil.rmtree(p, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{mine}{os.getpid()}-", dir=MEMORY))


def _running(rest: str) -> bool:
    """Whether the run that made a folder (named <pid>-<random>) is still going."""
    pid = rest.split("-", 1)[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def short_root(prefix: str = "pd") -> Iterator[Path]:
    """A private dir under a short path, removed after: a harness there gets plain, readable
    lock keys for its files (lock keys are cut at 80 characters, and pytest's long tmp paths
    hold "_" and "-", which take hashed keys)."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=SHORT))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
