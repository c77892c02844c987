"""Write a plan's artifacts into dist/ atomically, or compare them with what is on disk
(render --check)."""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import Artifact
from hookshape.render import manifest

MANIFEST = manifest.NAME


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Temp file in the same directory, fsync, chmod, rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:  # a full disk: the write itself names no file
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def same_mode(path: Path, mode: int) -> bool:
    """Only the executable bit is compared: git keeps nothing else, and umasks differ."""
    return bool(path.stat().st_mode & 0o100) == bool(mode & 0o100)


def stale_files(out: Path, artifacts: Sequence[Artifact]) -> list[Path]:
    """Files a previous render wrote (listed in its MANIFEST) that the plan no longer
    produces. Files render never wrote are never touched."""
    wanted = {a.path for a in artifacts}
    return sorted(out / p for p in manifest.owned(out) - wanted if (out / p).is_file())


def check_target(out: Path) -> None:
    """Refuse to write into something that is not a directory render owns."""
    if out.exists() and not out.is_dir():
        raise HookshapeError(f"{out}: not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise HookshapeError(f"{out}: not empty and holds no {MANIFEST}: refusing to render into it")


@dataclass
class Written:
    """What one render changed: the artifacts it (re)wrote, the stale files it removed."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def write_plan(out: Path, artifacts: Sequence[Artifact]) -> Written:
    """Write every artifact whose bytes or mode differ; remove stale files."""
    check_target(out)
    try:
        return _write(out, artifacts)
    except OSError as exc:
        raise HookshapeError(f"{exc.filename or out}: cannot write: {exc.strerror or exc}") from None


def _write(out: Path, artifacts: Sequence[Artifact]) -> Written:
    stale = stale_files(out, artifacts)  # before the new MANIFEST replaces the old one
    done = Written()
    for art in artifacts:
        target = out / art.path
        if target.is_file() and target.read_bytes() == art.data and same_mode(target, art.mode):
            continue
        write_atomic(target, art.data, art.mode)
        done.written.append(art.path)
    for path in stale:
        path.unlink()
        done.removed.append(path.relative_to(out).as_posix())
    return done


def _text(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def diff_plan(out: Path, artifacts: Sequence[Artifact]) -> str:
    """A unified diff of dist/ against the plan ('' when identical, modes included)."""
    chunks = []
    for art in artifacts:
        target = out / art.path
        old = target.read_bytes() if target.is_file() else b""
        if old != art.data:
            lines = difflib.unified_diff(_text(old), _text(art.data), f"a/{art.path}", f"b/{art.path}")
            chunks.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                                  for line in lines))
        elif not same_mode(target, art.mode):
            chunks.append(f"mode {art.path}: executable bit differs from {art.mode:04o}\n")
    wanted = {a.path for a in artifacts}
    strays = sorted(p for p in out.rglob("*") if p.is_file() and p.relative_to(out).as_posix() not in wanted) \
        if out.is_dir() else []
    for path in strays:
        chunks.append(f"stale {path.relative_to(out).as_posix()}: not produced by the spec\n")
    return "".join(chunks)
