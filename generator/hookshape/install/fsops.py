"""File-system steps shared by install and uninstall: directories that remember whether we
made them, atomic writes that keep a file's mode and owner, removals. Every change goes through
`before_change` first (the kill-point tests stop a run there)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hookshape.errors import HookshapeError

DIR_MODE = 0o700


def _nothing(what: str) -> None:
    return None


# Called before every change an install or uninstall makes on disk, with what it is about to
# do; a no-op, but the kill-point tests kill the run here, at every step in turn.
before_change: Callable[[str], None] = _nothing


def missing_dirs(path: Path) -> list[Path]:
    """The directories `mkdir -p path` would create, outermost first."""
    missing = []
    probe = path
    while not probe.exists() and not probe.is_symlink():
        missing.append(probe)
        probe = probe.parent
    return missing[::-1]


def make_dir(folder: Path) -> bool:
    """mkdir with 0700; False when it exists already (a concurrent creator is never counted as
    us)."""
    try:
        before_change("mkdir")
        os.mkdir(folder, DIR_MODE)
    except FileExistsError:
        return False
    os.chmod(folder, DIR_MODE)
    return True


def read(path: Path) -> bytes | None:
    """The bytes of a file, None when there is none; anything else is a user error."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc) from None


@dataclass(frozen=True)
class Prior:
    """A file as it was before a run touched it (data None: there was none)."""

    data: bytes | None
    mode: int = 0
    uid: int = -1
    gid: int = -1


def prior(path: Path) -> Prior:
    try:
        info = path.stat()
        return Prior(path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid)
    except FileNotFoundError:
        return Prior(None)


def read_only(path: Path) -> int | None:
    """The mode of an existing file nobody may write (e.g. 0444), else None. Checked on the
    bits, not with access(): root may write anything, yet a 0444 file says "leave me alone"."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None
    return mode if not mode & 0o222 else None


def read_only_error(path: Path, mode: int) -> HookshapeError:
    return HookshapeError(f"{path}: read-only (mode {mode:04o}): not replaced; make it writable, "
                          "or pass --force to replace it keeping its mode")


# The two calls that change a file in place (tests inject failures here).
_rename = os.replace
_unlink = os.unlink


def _keep_owner(fd: int, uid: int, gid: int) -> None:
    """Root rewriting another user's file gives the new inode the old owner and group
    (without root, the file can only be ours or a group we are in: chown may fail, that is fine)."""
    if uid < 0 or os.geteuid() != 0:
        return
    os.fchown(fd, uid, gid)


def temp_name(path: Path, token: str) -> Path:
    """The temp file a write of `path` goes through: beside it, named after the run (`token`), so
    a run killed between writing it and renaming it leaves a name the next run can find."""
    return path.parent / f".{path.name}.{token}.tmp"


def put(path: Path, data: bytes, mode: int, uid: int = -1, gid: int = -1,
        token: str = "hookshape") -> None:
    """Temp file in the same directory, fsync, mode and owner, rename: readers never see half a
    file, and an owner set before the rename is never lost. Any failure names `path`."""
    tmp = temp_name(path, token)
    try:
        _write_new(tmp, data, mode, uid, gid)
        before_change("rename")
        _rename(tmp, path)
    except OSError as exc:  # name the file we meant to write, not the temp file
        discard(tmp)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        discard(tmp)
        raise


def _write_new(tmp: Path, data: bytes, mode: int, uid: int, gid: int) -> None:
    """Create `tmp` afresh (never through a link someone planted there) with the data."""
    discard(tmp)
    before_change("create")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        os.fchmod(handle.fileno(), mode)
        _keep_owner(handle.fileno(), uid, gid)


def discard(path: Path) -> None:
    """Remove a file of ours that is no change of the user's (a temp file), if it is there."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return


def remove(path: Path) -> None:
    try:
        before_change("unlink")
        _unlink(path)
    except FileNotFoundError:
        return


def remove_dirs(folders: list[Path]) -> None:
    """Remove directories we created, innermost first, only while they are empty."""
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            before_change("rmdir")
            folder.rmdir()
        except OSError:
            continue


def os_error(exc: OSError, hint: str = "", where: Path | None = None) -> HookshapeError:
    """A file-system failure as a one-line user error, naming the file (`where` when the error
    itself names none, e.g. a failed write)."""
    name = exc.filename or where or "hookshape"
    return HookshapeError(f"{name}: {exc.strerror or exc}{hint}")



def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ") + f"-{os.getpid()}"
