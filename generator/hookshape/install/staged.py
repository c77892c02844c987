"""Staged scripts a ledger recorded and a run takes away: all of them on uninstall, the ones the
spec no longer produces (a renamed or dropped gate) on reinstall. A script edited since it was
staged is kept unless forced; a file a script replaced comes back."""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path

from hookshape.edit.managed import sha256
from hookshape.install import fsops
from hookshape.install.backups import Backups
from hookshape.install.journal import Journal
from hookshape.install.ledger import Ledger


@dataclass
class Unstage:
    rel: str
    target: Path
    before: bytes | None
    restore: bytes | None  # the file our script replaced, if any


def plan(harness: Path, ledger: Ledger, keep: Container[str], force: bool,
         verb: str) -> tuple[list[Unstage], list[str]]:
    """Every recorded script not in `keep`, and the edited ones as conflicts."""
    out, clash = [], []
    for rel, record in sorted(ledger.files.items()):
        if rel in keep:
            continue
        target = harness / rel
        before = fsops.read(target)
        if before is not None and sha256(before) != record.sha256 and not force:
            clash.append(f"{target}: a staged script was edited since the install "
                         f"(kept; --force {verb} it)")
        restore = fsops.read(harness / record.replaced) if record.replaced else None
        out.append(Unstage(rel, target, before, restore))
    return out, clash


def show(steps: list[Unstage], echo: Callable[[str], None]) -> None:
    for step in steps:
        echo(f"would remove {step.target}" + (" (and put back the file it replaced)"
                                              if step.restore is not None else ""))


def apply(steps: list[Unstage], ledger: Ledger, backups: Backups) -> None:
    for step in steps:
        if step.before is not None:
            backups.save(step.target, step.before)
        if step.restore is not None:
            backups.journal.write(step.target, step.restore, 0o755, keep_mode=False)
        else:
            backups.journal.unlink(step.target)
        ledger.files.pop(step.rel, None)


def prune_dirs(steps: list[Unstage], ledger: Ledger, journal: Journal) -> None:
    """Directories installs made that the scripts taken away leave empty (a renamed
    tentacle_dir) go too."""
    ours = {Path(d) for d in ledger.created_dirs}
    folders = {s.target.parent for s in steps} & ours
    journal.remove_dirs(sorted(folders))
    ledger.created_dirs = [d for d in ledger.created_dirs if Path(d).exists()]
