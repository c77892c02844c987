"""Write a plan atomically, or compare it with what is on disk (render --check)."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from hookshape.plan import Artifact


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Temp file in the same directory, fsync, chmod, rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def same_mode(path: Path, mode: int) -> bool:
    """Only the executable bit is compared: git keeps nothing else, and umasks differ."""
    return bool(path.stat().st_mode & 0o100) == bool(mode & 0o100)


def stale_files(out: Path, artifacts: list[Artifact]) -> list[Path]:
    """Files under out/ that the plan no longer produces (removed on render)."""
    if not out.is_dir():
        return []
    wanted = {a.path for a in artifacts}
    return sorted(p for p in out.rglob("*") if p.is_file() and p.relative_to(out).as_posix() not in wanted)


def write_plan(out: Path, artifacts: list[Artifact]) -> list[str]:
    """Write every artifact whose bytes or mode differ; remove stale files. Returns changed paths."""
    changed = []
    for art in artifacts:
        target = out / art.path
        if target.is_file() and target.read_bytes() == art.data and same_mode(target, art.mode):
            continue
        write_atomic(target, art.data, art.mode)
        changed.append(art.path)
    for path in stale_files(out, artifacts):
        path.unlink()
        changed.append(path.relative_to(out).as_posix() + " (removed)")
    return changed


def _text(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def diff_plan(out: Path, artifacts: list[Artifact]) -> str:
    """A unified diff of dist/ against the plan ('' when identical, modes included)."""
    chunks = []
    for art in artifacts:
        target = out / art.path
        old = target.read_bytes() if target.is_file() else b""
        if old != art.data:
            chunks.append("".join(difflib.unified_diff(
                _text(old), _text(art.data), f"a/{art.path}", f"b/{art.path}")))
        elif not same_mode(target, art.mode):
            chunks.append(f"mode {art.path}: executable bit differs from {art.mode:04o}\n")
    for path in stale_files(out, artifacts):
        chunks.append(f"stale {path.relative_to(out).as_posix()}: not produced by the spec\n")
    return "".join(chunks)
