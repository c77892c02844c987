"""MANIFEST, the list of a rendered tree's files: a comment header, then one `path mode sha256`
line per file (mode in octal). Written by plan.artifacts.manifest; read here, and only here."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import Artifact

NAME = "MANIFEST"


@dataclass(frozen=True)
class Entry:
    mode: int
    sha256: str


def parse(text: str, where: Path, error: type[HookshapeError]) -> dict[str, Entry]:
    """path -> entry; a line that is not `path mode sha256` is `where:line: ...` as `error`."""
    listed: dict[str, Entry] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rsplit(" ", 2)
        if len(parts) != 3 or len(parts[2]) != 64 or not _hex(parts[2]):
            raise error(f"{where}:{number}: not a `path mode sha256` line")
        try:
            mode = int(parts[1], 8)
        except ValueError:
            raise error(f"{where}:{number}: bad mode {parts[1]!r}") from None
        listed[parts[0]] = Entry(mode, parts[2])
    return listed


def _hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def read(root: Path, error: type[HookshapeError], missing: str) -> dict[str, Entry]:
    """The MANIFEST of a tree; `missing` is the hint when it has none."""
    path = root / NAME
    if not path.is_file():
        raise error(f"{root}: no {NAME}; {missing}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    return parse(text, path, error)


def owned(root: Path) -> set[str]:
    """The paths a previous render listed, or none when its MANIFEST is missing or unreadable
    (then render owns nothing there but what it writes now)."""
    try:
        return set(read(root, HookshapeError, ""))
    except HookshapeError:
        return set()


def listed_files(root: Path, under: str, hint: str) -> list[Artifact]:
    """The files a tree's MANIFEST lists under `under` (e.g. `bin/`), each checked against its
    sha256 (`install --from`: the scripts of an extracted release or dist/ tree)."""
    out = []
    for rel, entry in sorted(read(root, HookshapeError, hint).items()):
        if not rel.startswith(under):
            continue
        path = root / rel
        if not path.is_file():
            raise HookshapeError(f"{path}: listed in MANIFEST but missing")
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise HookshapeError(f"{path}: sha256 does not match MANIFEST (corrupt or edited copy)")
        out.append(Artifact(rel, entry.mode, data))
    return out
