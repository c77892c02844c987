"""The data the format editors share with install: what the ledger knows about a file, and what
an edit did (what we want in a file is the plan's: plan.wiring.Want)."""

from __future__ import annotations

from dataclasses import dataclass, field

JsonPath = tuple[str, ...]


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
    moved: bool = False  # a settings file: the entries an older install put there were taken out
