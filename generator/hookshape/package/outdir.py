"""Write a package's files as a new directory, whole or not at all: everything goes into a
temporary directory beside the target, which is renamed into place last. The target must not
exist, or be an empty directory; on any error nothing is left behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from hookshape.package.common import PackageError, normal_mode
from hookshape.plan.artifacts import Artifact

DIR_MODE = 0o755


def check_free(out: Path) -> None:
    """Refuse a target that is in the way: a file, a link, a directory with anything in it."""
    if out.is_symlink():
        raise PackageError(f"{out}: a symlink; name a new or empty directory")
    if not out.exists():
        return
    if not out.is_dir():
        raise PackageError(f"{out}: not a directory")
    if any(out.iterdir()):
        raise PackageError(f"{out}: not empty; name a new or empty directory")


def _missing_parents(out: Path) -> list[Path]:
    """The ancestors of out that do not exist yet, outermost first."""
    return [p for p in reversed(out.parents) if not p.exists()]


def _fill(root: Path, files: list[Artifact], mtime: int) -> None:
    dirs = {root}
    for art in sorted(files, key=lambda a: a.path):
        path = root / PurePosixPath(art.path)
        for parent in reversed(path.relative_to(root).parents):
            folder = root / parent
            if folder not in dirs:
                folder.mkdir(mode=DIR_MODE)
                dirs.add(folder)
        path.write_bytes(art.data)
        path.chmod(normal_mode(art.mode))
        os.utime(path, (mtime, mtime))
    for folder in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
        folder.chmod(DIR_MODE)
        os.utime(folder, (mtime, mtime))


def write_tree(out: Path, files: list[Artifact], mtime: int) -> None:
    """out becomes a directory holding exactly these files (modes 0755/0644, every mtime the
    build epoch)."""
    out = out.absolute()
    check_free(out)
    made = _missing_parents(out)
    tmp: Path | None = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
        _fill(tmp, files, mtime)
        os.rename(tmp, out)  # over an empty directory too: rename(2) replaces it
    except OSError as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for parent in reversed(made):
            if parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
        raise PackageError(f"{exc.filename or out}: cannot write: {exc.strerror or exc}") from None
