"""Timestamped backups under the harness home: `<home>/backups/<timestamp>/<absolute path>`,
written through the run's journal (a stopped run leaves none behind)."""

from __future__ import annotations

from pathlib import Path

from hookshape.install.fsops import stamp
from hookshape.install.journal import Journal

BACKUPS = "backups"


class Backups:
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
