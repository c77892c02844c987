"""File-system steps shared by install and uninstall: directories that remember whether we
made them, timestamped backups, atomic writes that keep a file's mode and owner, removals, and
the journal that makes a run all or nothing."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hookshape.errors import HookshapeError

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


def put(path: Path, data: bytes, mode: int, uid: int = -1, gid: int = -1) -> None:
    """Temp file in the same directory, fsync, mode and owner, rename: readers never see half a
    file, and an owner set before the rename is never lost."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # name the file we meant to write, not the temp file
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
            _keep_owner(handle.fileno(), uid, gid)
        _rename(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove(path: Path) -> None:
    try:
        _unlink(path)
    except FileNotFoundError:
        return


def remove_dirs(folders: list[Path]) -> None:
    """Remove directories we created, innermost first, only while they are empty."""
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue


def os_error(exc: OSError, hint: str = "") -> HookshapeError:
    """A file-system failure as a one-line user error."""
    where = exc.filename or "hookshape"
    return HookshapeError(f"{where}: {exc.strerror or exc}{hint}")


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ") + f"-{os.getpid()}"


class Journal:
    """Every file and directory one run changes, each file's prior state saved before its first
    change, so that any failure puts the tree back exactly as it was (bytes, mode, owner)."""

    def __init__(self) -> None:
        self.priors: dict[Path, Prior] = {}
        self.done: set[Path] = set()  # files a write or removal actually changed
        self.dirs: list[Path] = []
        self.removed: list[tuple[Path, Prior]] = []  # directories (data None) this run removed

    def _remember(self, path: Path) -> None:
        if path not in self.priors:
            self.priors[path] = prior(path)

    def make_dirs(self, path: Path) -> list[Path]:
        made = make_dirs(path)
        self.dirs += made
        return made

    def write(self, path: Path, data: bytes, default_mode: int, keep_mode: bool = True) -> None:
        """An existing file keeps its owner and group, and its mode unless `keep_mode` is off."""
        self._remember(path)
        self.make_dirs(path.parent)
        try:
            info = path.stat()
        except FileNotFoundError:
            put(path, data, default_mode)
            self.done.add(path)
            return
        mode = stat.S_IMODE(info.st_mode) if keep_mode else default_mode
        put(path, data, mode, info.st_uid, info.st_gid)
        self.done.add(path)

    def unlink(self, path: Path) -> None:
        self._remember(path)
        remove(path)
        self.done.add(path)

    def remove_dirs(self, folders: list[Path]) -> None:
        """fsops.remove_dirs, remembering each directory removed (with its mode and owner)."""
        for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
            try:
                info = folder.stat()
                folder.rmdir()
            except OSError:
                continue
            self.removed.append((folder, Prior(None, stat.S_IMODE(info.st_mode), info.st_uid,
                                               info.st_gid)))

    def _recreate_dirs(self) -> None:
        for folder, was in sorted(self.removed, key=lambda r: len(r[0].parts)):
            folder.mkdir(exist_ok=True)
            os.chmod(folder, was.mode)
            if os.geteuid() == 0:
                os.chown(folder, was.uid, was.gid)

    def rollback(self) -> list[str]:
        """Undo in reverse order; returns what could not be undone (empty: all of it)."""
        failed = []
        try:
            self._recreate_dirs()
        except OSError as exc:
            failed.append(f"{exc.filename} ({exc.strerror or exc})")
        for path, was in reversed(list(self.priors.items())):
            if path not in self.done:
                continue
            try:
                if was.data is None:
                    remove(path)
                else:
                    put(path, was.data, was.mode, was.uid, was.gid)
            except OSError as exc:
                failed.append(f"{path} ({exc.strerror or exc})")
        remove_dirs(self.dirs)
        failed += [str(d) for d in self.dirs if d.exists()]
        return failed

    def undo(self, exc: OSError | HookshapeError, what: str) -> HookshapeError:
        """Roll back after `exc`; the one error line says what failed and that it was undone."""
        message = str(os_error(exc)) if isinstance(exc, OSError) else str(exc)
        failed = self.rollback()
        if failed:
            return HookshapeError(f"{message}; rollback incomplete, left as they are: "
                                  f"{', '.join(failed)}")
        return HookshapeError(f"{message}; rolled back: every file is as it was before this {what}")


class Backups:
    """`<harness home>/backups/<timestamp>/<absolute path of the file>`."""

    def __init__(self, harness_home: Path, journal: Journal) -> None:
        self.home = harness_home
        self.root = harness_home / BACKUPS / stamp()
        self.journal = journal
        self.created: list[Path] = []

    def save(self, path: Path, data: bytes) -> str:
        """Keep a copy; returns its path relative to the harness home (for the ledger)."""
        target = self.root / str(path).lstrip("/")
        self.created += self.journal.make_dirs(target.parent)
        self.journal.write(target, data, 0o600, keep_mode=False)
        return target.relative_to(self.home).as_posix()


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
