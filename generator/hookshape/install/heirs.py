"""Two harnesses in one config file. When one uninstalls while another's entries stay, what the
first install did for both (JSON members it created that now hold the other's entries, the
switches it turned on, the file and directories it created) is handed to the other's ledger:
the switch stays on for the hooks still there, and the last uninstall restores the bytes
from before the first install."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookshape.edit.managed import Owner
from hookshape.errors import HookshapeError
from hookshape.install import ledger as ledgers
from hookshape.install import lock
from hookshape.install.journal import Journal
from hookshape.install.ledger import ConfigRecord

# Any hookshape harness's command: `<PROVIDER_ENV>=<vendor> "<home>/bin/<gate>"`.
_ANY = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.-]+ "((?:[^"\\]|\\.)*)/bin/[^"/]+"$')
_ESCAPED = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Heir:
    """Another harness whose ledger records entries in the same config file."""

    home: Path
    name: str


def find(path: Path, found: Iterable[str], own: Owner | None, harness: Path) -> Heir | None:
    """The first other harness (by command) whose ledger recorded one of these commands in
    this file; None when only the user's entries (or none) stay."""
    for command in sorted(set(found)):
        match = _ANY.match(command)
        if match is None or (own is not None and own.owns(command)):
            continue
        home = Path(_ESCAPED.sub(r"\1", match.group(1)))
        if home == harness:
            continue
        try:
            ledger = ledgers.load(home)
        except HookshapeError:
            continue
        record = ledger.configs.get(str(path)) if ledger else None
        if ledger is not None and record is not None and command in record.commands:
            return Heir(home, ledger.harness)
    return None


def _merged(theirs: ConfigRecord, ours: ConfigRecord) -> ConfigRecord:
    return theirs.model_copy(update={
        "created_file": theirs.created_file or ours.created_file,
        "created": theirs.created + [p for p in ours.created if p not in theirs.created],
        "switches": sorted(set(theirs.switches) | set(ours.switches)),
        "created_dirs": theirs.created_dirs + [d for d in ours.created_dirs
                                               if d not in theirs.created_dirs]})


def hand_over(heir: Heir, path: Path, ours: ConfigRecord, journal: Journal) -> None:
    """Add what our record made to the heir's record of the same file (under the heir's lock,
    which the caller holds)."""
    ledger = ledgers.load(heir.home)
    theirs = ledger.configs.get(str(path)) if ledger else None
    if ledger is None or theirs is None:
        return
    ledger.configs[str(path)] = _merged(theirs, ours)
    journal.write(ledgers.ledger_path(heir.home), ledgers.dump(ledger), 0o600)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _file_heir(directory: Path, harness: Path) -> tuple[Heir, Path] | None:
    """Another harness with a config file of its own in this directory (a vendor that reads a
    folder of hook files, one per harness)."""
    for path in sorted(p for p in directory.iterdir() if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        heir = find(path, _strings(data), None, harness)
        if heir is not None:
            return heir, path
    return None


def hand_dirs(dirs: list[Path], harness: Path, journal: Journal, held: set[Path]) -> list[Path]:
    """Directories we created that another harness's own config file still fills go to that
    harness's record of its file (the last uninstall removes them); returns those handed over.
    `held`: harness homes whose lock the caller holds already."""
    handed: list[Path] = []
    for directory in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
        if directory in handed or not directory.is_dir():
            continue
        found = _file_heir(directory, harness)
        if found is None:
            continue
        heir, path = found
        mine = [d for d in dirs if d == directory or directory.is_relative_to(d)]
        with nullcontext() if heir.home in held else lock.held(heir.home):
            ledger = ledgers.load(heir.home)
            record = ledger.configs.get(str(path)) if ledger else None
            if ledger is None or record is None:
                continue
            record.created_dirs += [str(d) for d in mine if str(d) not in record.created_dirs]
            journal.write(ledgers.ledger_path(heir.home), ledgers.dump(ledger), 0o600)
        handed += mine
    return handed
