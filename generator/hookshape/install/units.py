"""The data the format editors share: what we want in a file, what the ledger knows about it,
and what an edit did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JsonPath = tuple[str, ...]


@dataclass(frozen=True)
class Want:
    """Our units for one file, in order (hooks-json: (event, group); agy-json: (hook name,
    tree); codex-toml: ("block", text)) and the switches to turn on where explicitly off."""

    units: list[tuple[str, Any]]
    switches: list[str]
    commands: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Known:
    """What earlier installs recorded for a file. `hashes` None: no record, so a managed unit
    found there counts as ours to replace, never as a user edit."""

    hashes: frozenset[str] | None = None
    created: tuple[JsonPath, ...] = ()
    switches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unit:
    key: str
    sha256: str


@dataclass
class Outcome:
    """A file's new text and what the edit did (or the conflicts that stopped it)."""

    text: str
    units: list[Unit] = field(default_factory=list)
    switches: list[str] = field(default_factory=list)
    created: list[JsonPath] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
