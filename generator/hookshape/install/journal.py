"""The journal of one install or uninstall, written ahead of its changes, so that a run stopped
midway (killed, a power cut) leaves nothing behind: the next run, under the lock and before it
does anything else, undoes it, or finishes it when it had already committed.

It lives in `<harness home>/.hookshape-journal/`: `log`, one JSON record a line, each appended
and synced before the change it describes; `priors/<n>`, the bytes a file had before the run
first changed it; `trash/<n>`, trees the run took away (deleted once it commits).

    {"begin": "install", "pid": 123, "token": "hookshape-123", "home": [...]}
        the run starts; `home`: the harness home and the parents it made for it
    {"touches": [...]}  the files the apply will write or remove, before the first of them
    {"file": P, "prior": "priors/3" or null, "mode": M, "uid": U, "gid": G}  before P changes
    {"mkdir": P}  {"rmdir": P, "mode": M, "uid": U, "gid": G}  {"move": P, "to": "trash/1"}
    {"commit": true, "gone": [...]}  all done: never undone; `gone`: the harness home and the
        parents an install made, taken away with the journal once nothing else is in them

A file is written through a temp file named after the run (fsops.temp_name: `.<name>.<token>.tmp`),
so the undo of a file record removes a temp file the run left too. A harness home that does not
exist yet is made in one rename, with the run's lock and journal already in it; a tree taken
away (the home of a last uninstall) is first renamed aside, `.<name>.hookshape-gone.<pid>`. A run
killed between making such a name and renaming it leaves it; the next run removes the ones whose
process is gone (sweep)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hookshape.errors import HookshapeError
from hookshape.install import fsops, lock
from hookshape.install.fsops import DIR_MODE, Prior

JOURNAL_DIR = ".hookshape-journal"
LOG = "log"
NEW, GONE = "hookshape-new", "hookshape-gone"
Echo = Callable[[str], None]
Record = dict[str, Any]


def _aside(folder: Path, kind: str) -> Path:
    """Where a home being made (NEW) or taken away (GONE) sits meanwhile: beside it."""
    return folder.parent / f".{folder.name}.{kind}.{os.getpid()}"


class Journal:
    """One run's changes, each written ahead to the log; rollback() puts everything back as it
    was (bytes, mode, owner), commit() makes the run final."""

    def __init__(self, harness: Path, what: str, home: list[Path], pid: int | None = None,
                 token: str | None = None) -> None:
        self.harness = harness
        self.what = what
        self.home = home  # the harness home and the parents this run made for it, outermost first
        self.pid = os.getpid() if pid is None else pid
        self.token = token or f"hookshape-{self.pid}"
        self.folder = harness / JOURNAL_DIR
        self.records: list[Record] = []
        self.files: set[Path] = set()
        self.gone: list[Path] = []  # set by a last uninstall: the home goes with the journal
        self.closed = False
        self._fd: int | None = None
        self._count = 0

    # -- the log -------------------------------------------------------------------------
    def start(self, at: Path | None = None) -> None:
        """Make the journal folder (in `at`, a home being made) and write the begin record."""
        folder = (at or self.harness) / JOURNAL_DIR
        fsops.before_change("journal")
        os.mkdir(folder, DIR_MODE)
        self._fd = os.open(folder / LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_EXCL, 0o600)
        self._append({"begin": self.what, "pid": self.pid, "token": self.token,
                      "home": [str(p) for p in self.home]})

    def _append(self, record: Record) -> None:
        self.records.append(record)
        if self._fd is None:
            self._fd = os.open(self.folder / LOG, os.O_WRONLY | os.O_APPEND)
        fsops.before_change("journal")
        try:
            os.write(self._fd, (json.dumps(record, sort_keys=True) + "\n").encode())
            os.fsync(self._fd)
        except OSError as exc:  # name the journal (a full disk: the write itself names nothing)
            raise OSError(exc.errno, exc.strerror, str(self.folder / LOG)) from None

    def _keep(self, kind: str, data: bytes | None = None) -> str:
        """A new name under the journal folder (`priors/3`), holding `data` when given."""
        self._count += 1
        rel = f"{kind}/{self._count}"
        (self.folder / kind).mkdir(mode=DIR_MODE, exist_ok=True)
        if data is not None:
            fsops.before_change("journal")
            try:
                fd = os.open(self.folder / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, str(self.folder / rel)) from None
        return rel

    def touches(self, paths: list[Path]) -> None:
        self._append({"touches": sorted({str(p) for p in paths})})

    # -- the changes ---------------------------------------------------------------------
    def _remember(self, path: Path) -> None:
        if path in self.files:
            return
        was = fsops.prior(path)
        prior = None if was.data is None else self._keep("priors", was.data)
        self._append({"file": str(path), "prior": prior, "mode": was.mode, "uid": was.uid,
                      "gid": was.gid})
        self.files.add(path)

    def make_dirs(self, path: Path) -> list[Path]:
        """mkdir -p (0700); returns the directories this call made, outermost first."""
        made = []
        for folder in fsops.missing_dirs(path):
            self._append({"mkdir": str(folder)})
            if fsops.make_dir(folder):
                made.append(folder)
        return made

    def write(self, path: Path, data: bytes, default_mode: int, keep_mode: bool = True) -> None:
        """An existing file keeps its owner and group, and its mode unless `keep_mode` is off."""
        self.make_dirs(path.parent)  # recorded before the file: the undo removes it first
        self._remember(path)
        try:
            info = path.stat()
        except FileNotFoundError:
            fsops.put(path, data, default_mode, token=self.token)
            return
        mode = stat.S_IMODE(info.st_mode) if keep_mode else default_mode
        fsops.put(path, data, mode, info.st_uid, info.st_gid, token=self.token)

    def unlink(self, path: Path) -> None:
        self._remember(path)
        fsops.remove(path)

    def remove_dirs(self, folders: list[Path]) -> None:
        """Remove directories, innermost first, each only while it is empty."""
        for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
            try:
                info = folder.stat()
                if not folder.is_dir() or any(folder.iterdir()):
                    continue
            except OSError:
                continue
            self._append({"rmdir": str(folder), "mode": stat.S_IMODE(info.st_mode),
                          "uid": info.st_uid, "gid": info.st_gid})
            try:
                fsops.before_change("rmdir")
                folder.rmdir()
            except OSError:
                continue

    def remove_tree(self, path: Path) -> None:
        """Take a whole tree away (into the trash: it is deleted when the run commits)."""
        if not path.exists():
            return
        rel = self._keep("trash")
        self._append({"move": str(path), "to": rel})
        fsops.before_change("rename")
        os.rename(path, self.folder / rel)

    # -- the end -------------------------------------------------------------------------
    def commit(self) -> None:
        """The run is done: from here on it is finished, never undone."""
        self._append({"commit": True, "gone": [str(p) for p in self.gone]})
        self._finish()

    def _finish(self) -> None:
        """Delete the trash, then the journal; a last uninstall takes the home along (best
        effort: what is left here, the next run finishes)."""
        self.closed = True
        self._close()
        try:
            trash = self.folder / "trash"
            if trash.exists():
                fsops.before_change("rmtree")
                shutil.rmtree(trash)
            top = _removable(self.gone, self.harness)
            if top is not None:
                take_away(top)
                return
            self._drop()
        except OSError:
            return

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _drop(self) -> None:
        """The journal goes: its log first (then what is left is no journal), then the rest."""
        fsops.before_change("unlink")
        (self.folder / LOG).unlink(missing_ok=True)
        fsops.before_change("rmtree")
        shutil.rmtree(self.folder, ignore_errors=True)

    def rollback(self) -> list[str]:
        """Undo in reverse order (the home this run made goes last); returns what could not be
        undone (empty: all of it). The journal stays when something could not be."""
        self.closed = True
        self._close()
        failed: list[str] = []
        for record in reversed(self.records):
            try:
                self._undo(record)
            except OSError as exc:
                failed.append(f"{exc.filename or _subject(record)} ({exc.strerror or exc})")
        if failed:
            return failed
        if self.home:
            take_away(self.home[0])
        else:
            self._drop()
        return []

    def _undo(self, record: Record) -> None:
        if "file" in record:
            path = Path(record["file"])
            fsops.discard(fsops.temp_name(path, self.token))
            data = None if record["prior"] is None else (self.folder / record["prior"]).read_bytes()
            _restore(path, Prior(data, record["mode"], record["uid"], record["gid"]), self.token)
        elif "mkdir" in record:
            _rmdir(Path(record["mkdir"]))
        elif "rmdir" in record:
            _remake_dir(Path(record["rmdir"]), record)
        elif "move" in record:
            source, path = self.folder / record["to"], Path(record["move"])
            if source.exists() and not path.exists():
                fsops.before_change("rename")
                os.rename(source, path)

    def undo(self, exc: OSError | HookshapeError, what: str) -> HookshapeError:
        """Roll back after `exc`; the one error line says what failed and that it was undone."""
        message = str(fsops.os_error(exc)) if isinstance(exc, OSError) else str(exc)
        failed = self.rollback()
        if failed:
            return HookshapeError(f"{message}; rollback incomplete, left as they are: "
                                  f"{', '.join(failed)}")
        return HookshapeError(f"{message}; rolled back: every file is as it was before this {what}")


def _subject(record: Record) -> str:
    return str(next(v for k, v in record.items() if k in ("file", "mkdir", "rmdir", "move")))


def _restore(path: Path, was: Prior, token: str) -> None:
    """Put a file back as it was, where it differs (bytes, mode, owner)."""
    now = fsops.prior(path)
    if was.data is None:
        if now.data is not None:
            fsops.remove(path)
        return
    if now == was or (now.data == was.data and now.mode == was.mode and os.geteuid() != 0):
        return
    fsops.put(path, was.data, was.mode, was.uid, was.gid, token=token)


def _rmdir(folder: Path) -> None:
    try:
        if folder.is_dir() and not any(folder.iterdir()):
            fsops.before_change("rmdir")
            folder.rmdir()
    except OSError:
        return


def _remake_dir(folder: Path, record: Record) -> None:
    if folder.exists():
        return
    fsops.before_change("mkdir")
    folder.mkdir()
    os.chmod(folder, record["mode"])
    if os.geteuid() == 0:
        os.chown(folder, record["uid"], record["gid"])


def _removable(chain: list[Path], harness: Path) -> Path | None:
    """The outermost directory of `chain` (the home and parents an install made) whose whole
    tree holds nothing but the rest of the chain and, in the home, our lock and journal."""
    keep = {lock.LOCK_NAME, JOURNAL_DIR}
    for top in sorted(chain, key=lambda p: len(p.parts)):
        if harness.is_relative_to(top) and _only(top, harness, keep):
            return top
    return None


def _only(top: Path, harness: Path, keep: set[str]) -> bool:
    folder = top
    while True:
        try:
            names = {p.name for p in folder.iterdir()}
        except OSError:
            return False
        if folder == harness:
            return names <= keep
        step = harness.relative_to(folder).parts[0]
        if names != {step}:
            return False
        folder = folder / step


def take_away(top: Path) -> None:
    """Remove a tree in one step others can see: renamed aside, then deleted."""
    aside = _aside(top, GONE)
    fsops.before_change("rename")
    os.rename(top, aside)
    fsops.before_change("rmtree")
    shutil.rmtree(aside, ignore_errors=True)


# -- a run: the home, the lock, recovery ---------------------------------------------------

def read_log(folder: Path) -> list[Record]:
    """The records of a journal; a last line cut short (a run killed while appending it) is
    dropped: its change had not begun."""
    try:
        lines = (folder / LOG).read_bytes().splitlines()
    except OSError:
        return []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            break
    return records


def pending(harness: Path) -> str | None:
    """What a journal left by a stopped run says (for a note), None when there is none."""
    records = read_log(harness / JOURNAL_DIR)
    if not records or "begin" not in records[0]:
        return None
    head = records[0]
    done = any("commit" in r for r in records)
    verb = "finishes" if done else "undoes"
    return (f"an {head['begin']} was stopped midway (pid {head['pid']}); this run {verb} it "
            "first")


def recover(harness: Path) -> str | None:
    """Under the lock: undo (or finish) what a stopped run left. Returns a note for the user."""
    folder = harness / JOURNAL_DIR
    if not folder.exists():
        return None
    records = read_log(folder)
    if not records or "begin" not in records[0]:
        shutil.rmtree(folder, ignore_errors=True)  # stopped before its first record: no change
        return None
    head = records[0]
    old = Journal(harness, head["begin"], [Path(p) for p in head["home"]], head["pid"],
                  head["token"])
    old.records = records
    commit = next((r for r in records if "commit" in r), None)
    if commit is not None:
        old.gone = [Path(p) for p in commit["gone"]]
        old._finish()
        return f"finished an {old.what} that had been stopped (pid {old.pid}) after its last change"
    failed = old.rollback()
    if failed:
        raise HookshapeError(f"{folder}: an {old.what} stopped midway (pid {old.pid}) could not be "
                             f"undone: {', '.join(failed)}; fix that, then run again")
    return (f"undid an {old.what} that had been stopped midway (pid {old.pid}): every file it "
            "changed is as it was before it")


def sweep(harness: Path) -> None:
    """Remove what stopped runs left beside the home or its parents (a home half made or half
    taken away), once their process is gone (lock.take does the same for a lock half made)."""
    for folder in [harness, *harness.parents]:
        parent = folder.parent
        for kind in (NEW, GONE):
            for path in lock.leftovers(parent, f".{folder.name}.{kind}."):
                shutil.rmtree(path, ignore_errors=True)
        if parent == folder:
            break


def make_home(harness: Path, what: str) -> Journal | None:
    """Make a missing harness home (and its missing parents) in one rename, our lock and the
    run's journal already in it. None when someone else made it meanwhile."""
    chain = fsops.missing_dirs(harness)
    if not chain:
        return None
    top = chain[0]
    aside = _aside(top, NEW)
    shutil.rmtree(aside, ignore_errors=True)
    try:
        inner = _build_aside(aside, harness.relative_to(top))
        journal = Journal(harness, what, chain)
        journal.start(at=inner)
        fsops.before_change("rename")
        os.rename(aside, top)
    except OSError as exc:
        shutil.rmtree(aside, ignore_errors=True)
        if top.exists():
            return None  # another run made it first: take its lock like any other
        raise OSError(exc.errno, exc.strerror, str(top)) from None
    return journal


def _build_aside(aside: Path, rel: Path) -> Path:
    folder = aside
    fsops.before_change("mkdir")
    os.mkdir(folder, DIR_MODE)
    os.chmod(folder, DIR_MODE)
    for part in rel.parts:
        folder = folder / part
        os.mkdir(folder, DIR_MODE)
        os.chmod(folder, DIR_MODE)
    lock.create(folder)
    return folder


def begin(harness: Path, what: str, create: bool, echo: Echo) -> Journal | None:
    """Start a run: the home's lock held (the home made first when `create` and missing),
    whatever a stopped run left undone or finished, and this run's journal begun. None: no
    home (and `create` is off)."""
    sweep(harness)
    for _ in range(3):
        if create:
            made = make_home(harness, what)
            if made is not None:
                return made
        if not harness.is_dir():
            if create:
                continue
            return None
        try:
            lock.take(harness)
        except FileNotFoundError:
            continue  # the home went while we waited (a last uninstall)
        try:
            note = recover(harness)
        except BaseException:
            lock.release(harness)
            raise
        if note:
            echo(f"note: {note}")
        if not harness.is_dir():
            continue  # what we finished was a last uninstall: the home (and our lock) went
        journal = Journal(harness, what, [])
        try:
            journal.start()
        except BaseException:
            lock.release(harness)
            raise
        return journal
    raise HookshapeError(f"{harness}: the harness home keeps appearing and going; is another "
                         "install or uninstall running?")


def end(journal: Journal) -> None:
    """Close a run: what it began and neither committed nor rolled back (it found a conflict,
    or failed before its first change) is undone quietly; then the lock goes, with the home
    when the run took it away."""
    try:
        if not journal.closed:
            journal.rollback()
    finally:
        if journal.harness.is_dir():
            lock.release(journal.harness)


@contextmanager
def run(harness: Path, what: str, create: bool, echo: Echo) -> Iterator[Journal | None]:
    """begin() ... end() around the body."""
    journal = begin(harness, what, create, echo)
    try:
        yield journal
    finally:
        if journal is not None:
            end(journal)


def transact(journal: Journal, work: Callable[[Journal, Echo], None], what: str, echo: Echo) -> None:
    """Run the writes of one install or uninstall as a whole: on any failure every file is put
    back and the error says so; the report lines are printed only once all of it is done."""
    lines: list[str] = []
    try:
        work(journal, lines.append)
        journal.commit()
    except (OSError, HookshapeError) as exc:
        raise journal.undo(exc, what) from None
    except BaseException:  # an interrupt (or a bug) leaves the files as they were, too
        journal.rollback()
        raise
    for line in lines:
        echo(line)
