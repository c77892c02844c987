"""Two harnesses in one config file. When one uninstalls while another's entries stay, what the
first install did for both (JSON members it created that now hold the other's entries, the
switches it turned on, the file and directories it created) is handed to the other's ledger:
the switch stays on for the hooks still there, and the last uninstall restores the bytes
from before the first install."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.install import fsops
from hookshape.install import ledger as ledgers
from hookshape.install.ledger import ConfigRecord
from hookshape.install.managed import Owner

# Any hookshape harness's command: `<PROVIDER_ENV>=<vendor> "<home>/bin/<gate>"`.
_ANY = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.-]+ "((?:[^"\\]|\\.)*)/bin/[^"/]+"$')
_ESCAPED = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Heir:
    """Another harness whose ledger records entries in the same config file."""

    home: Path
    name: str


def find(path: Path, found: Iterable[str], own: Owner, harness: Path) -> Heir | None:
    """The first other harness (by command) whose ledger recorded one of these commands in
    this file; None when only the user's entries (or none) stay."""
    for command in sorted(set(found)):
        match = _ANY.match(command)
        if match is None or own.owns(command):
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


def hand_over(heir: Heir, path: Path, ours: ConfigRecord, journal: fsops.Journal) -> None:
    """Add what our record made to the heir's record of the same file (under the heir's lock,
    which the caller holds)."""
    ledger = ledgers.load(heir.home)
    theirs = ledger.configs.get(str(path)) if ledger else None
    if ledger is None or theirs is None:
        return
    ledger.configs[str(path)] = _merged(theirs, ours)
    journal.write(ledgers.ledger_path(heir.home), ledgers.dump(ledger), 0o600)
