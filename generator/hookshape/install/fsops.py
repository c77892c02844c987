"""File-system steps shared by install and uninstall: directories that remember whether we
made them, timestamped backups, atomic writes that keep a file's mode, removals."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.writer import write_atomic

DIR_MODE = 0o700
BACKUPS = "backups"


def make_dirs(path: Path) -> list[Path]:
    """mkdir -p with 0700, returning the directories this call created (outermost first).
    os.mkdir per level, so a concurrent creator is never counted as us."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    created = []
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)
        created.append(folder)
    return created


def read(path: Path) -> bytes | None:
    """The bytes of a file, None when there is none; anything else is a user error."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc, "") from None


def mode_of(path: Path, default: int) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return default


def write(path: Path, data: bytes, default_mode: int) -> None:
    """Atomic (temp + rename in the same directory); an existing file keeps its mode."""
    write_atomic(path, data, mode_of(path, default_mode))


def remove_dirs(folders: list[Path]) -> None:
    """Remove directories we created, innermost first, only while they are empty."""
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue


AFTER_WRITES = " (the backups under the harness home hold every file touched before it)"


def os_error(exc: OSError, hint: str = AFTER_WRITES) -> HookshapeError:
    """A file-system failure as a one-line user error."""
    where = exc.filename or "hookshape"
    return HookshapeError(f"{where}: {exc.strerror or exc}{hint}")


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ") + f"-{os.getpid()}"


class Backups:
    """`<harness home>/backups/<timestamp>/<absolute path of the file>`."""

    def __init__(self, harness_home: Path) -> None:
        self.home = harness_home
        self.root = harness_home / BACKUPS / stamp()
        self.created: list[Path] = []

    def save(self, path: Path, data: bytes) -> str:
        """Keep a copy; returns its path relative to the harness home (for the ledger)."""
        target = self.root / str(path).lstrip("/")
        self.created += make_dirs(target.parent)
        write_atomic(target, data, 0o600)
        return target.relative_to(self.home).as_posix()


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
