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
from hookshape.install.ledger import Ledger, staged_at


@dataclass
class Unstage:
    rel: str  # the ledger's key
    target: Path
    before: bytes | None
    restore: bytes | None  # the file our script replaced, if any


def plan(harness: Path, ledger: Ledger, keep: Container[str], force: bool,
         verb: str, root: Path | None = None) -> tuple[list[Unstage], list[str]]:
    """Every recorded script not in `keep` (only those staged under `root`, when given), and
    the edited ones as conflicts."""
    out, clash = [], []
    for rel, record in sorted(ledger.files.items()):
        target = staged_at(harness, rel)
        if rel in keep or (root is not None and not target.is_relative_to(root)):
            continue
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
    tentacle_dir, a project's folder of scripts and its parents) go too; the harness home and
    its parents are the last uninstall's."""
    ours = {Path(d) for d in ledger.created_dirs}
    home = Path(ledger.harness_home)
    folders = {d for d in ours for s in steps
               if s.target.is_relative_to(d) and not home.is_relative_to(d)}
    journal.remove_dirs(sorted(folders))
    ledger.created_dirs = [d for d in ledger.created_dirs if Path(d).exists()]
