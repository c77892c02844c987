"""`hookshape uninstall`: the exact reversal of what the ledger recorded.

A config file unchanged since the install gets its pre-install bytes back (kept as a backup);
one the user edited since loses only our entries, surgically, and the switches we turned on
are turned back off. A file the install created goes once nothing else is in it. Scripts go
when no config still points at them; files they replaced come back. Like install, it refuses a
read-only config unless forced, and it is all or nothing (journal.transact)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.edit import formats
from hookshape.edit.managed import commands, owner, sha256
from hookshape.edit.units import Known
from hookshape.errors import HookshapeError
from hookshape.install import fsops, heirs, lock, staged
from hookshape.install import journal as journals
from hookshape.install import ledger as ledgers
from hookshape.install.backups import BACKUPS, Backups
from hookshape.install.installer import Echo, check_writable, report_conflicts, save_ledger
from hookshape.install.journal import Journal, transact
from hookshape.install.ledger import ConfigRecord, Ledger
from hookshape.install.paths import real
from hookshape.install.request import Request, decode, diff
from hookshape.spec.profiles import Profile


@dataclass
class Revert:
    profile: Profile
    path: Path
    target: Path
    before: bytes | None
    after: bytes | None  # None: the file goes (or stays gone)
    how: str
    heir: heirs.Heir | None = None  # another harness whose entries stay in the file
    settings: bool = False  # the vendor's settings file beside its hooks file

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class RemovalSteps:
    """What one uninstall will do: the config reverts, the scripts to unstage, and the conflicts
    that stop it."""

    reverts: list[Revert] = field(default_factory=list)
    unstage: list[staged.Unstage] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def _original(harness: Path, record: ConfigRecord) -> bytes | None:
    """The pre-install bytes, when the backup is still there and still has the recorded hash."""
    if record.original is None:
        return None
    data = fsops.read(harness / record.original)
    return data if data is not None and sha256(data) == record.pre_sha256 else None


def _restorable(harness: Path, record: ConfigRecord, before: bytes) -> tuple[bool, bytes | None]:
    if sha256(before) != record.post_sha256:
        return False, None
    if record.created_file:
        return True, None
    original = _original(harness, record)
    return original is not None, original


def _revert(request: Request, ledger: Ledger, profile: Profile, path: Path,
            record: ConfigRecord, settings: bool = False) -> tuple[Revert, list[str]]:
    target = real(path)
    before = fsops.read(target)
    if before is None:
        return Revert(profile, path, target, None, None, "already gone", settings=settings), []
    exact, original = _restorable(request.homes.harness, record, before)
    if exact:
        how = "removed the file install created" if original is None else \
            "restored the pre-install bytes"
        return Revert(profile, path, target, before, original, how, settings=settings), []
    if settings:
        return _revert_settings(request, profile, path, target, before, record)
    own = owner(request.loaded.spec, ledger.commands())
    text = decode(before, path)
    found = commands(formats.data(profile, text, path), profile.config.handler.command)
    heir = heirs.find(path, found, own, request.homes.harness)
    known = record.known()
    if heir is not None:  # its hooks still need the switches on
        known = Known(hashes=known.hashes, created=known.created)
    outcome = formats.unmerge(request.loaded.spec, profile, text, path, own, known, request.force)
    after: bytes | None = outcome.text.encode()
    if record.created_file and heir is None and formats.is_empty(profile, outcome.text):
        after = None
    how = "removed hookshape entries" + (f" ({heir.name}'s stay)" if heir else "")
    return Revert(profile, path, target, before, after, how, heir), outcome.conflicts


def _revert_settings(request: Request, profile: Profile, path: Path, target: Path, before: bytes,
                     record: ConfigRecord) -> tuple[Revert, list[str]]:
    """A settings file the user changed since: any block of ours out, our switches back off."""
    outcome = formats.unsettle(request.loaded.spec, profile, decode(before, path), path,
                               record.known(), request.force)
    after: bytes | None = outcome.text.encode()
    if record.created_file and formats.settings_empty(profile, outcome.text):
        after = None
    return (Revert(profile, path, target, before, after, "turned back what install changed",
                   settings=True), outcome.conflicts)


def _selected(request: Request,
              ledger: Ledger) -> list[tuple[Profile, Path, ConfigRecord, bool]]:
    """The recorded configs of the request's vendors in its scope: each hooks file, then the
    settings file beside it."""
    found = []
    for profile in request.profiles:
        settings = request.settings_path(profile)
        for path, is_settings in [(request.config_path(profile), False),
                                  *([(settings, True)] if settings else [])]:
            record = ledger.configs.get(str(path))
            if record is not None:
                found.append((profile, path, record, is_settings))
    return found


def _roots_freed(request: Request, ledger: Ledger, chosen: list[Path]) -> Sequence[Path | None]:
    """Where the scripts that no config runs after this uninstall are staged (None: all of them,
    once no config is left)."""
    harness = request.homes.harness
    left = [r for p, r in ledger.configs.items() if Path(p) not in chosen]
    if not left:
        return [None]
    used = {ledgers.scripts_of(harness, r) for r in left}
    freed = {ledgers.scripts_of(harness, ledger.configs[str(p)]) for p in chosen} - used
    return list(sorted(freed))


def compute(request: Request, ledger: Ledger) -> RemovalSteps:
    steps = RemovalSteps()
    chosen = _selected(request, ledger)
    for profile, path, record, is_settings in chosen:
        revert, clash = _revert(request, ledger, profile, path, record, is_settings)
        check_writable(revert.target, revert.changed, request.force)
        steps.reverts.append(revert)
        steps.conflicts += clash
    for root in _roots_freed(request, ledger, [path for _, path, _, _ in chosen]):
        unstage, clash = staged.plan(request.homes.harness, ledger, (), request.force,
                                     "removes", root)
        steps.unstage += unstage
        steps.conflicts += clash
    return steps


def show_dry_run(steps: RemovalSteps, echo: Echo) -> None:
    staged.show(steps.unstage, echo)
    for revert in steps.reverts:
        if revert.changed:
            echo(diff(revert.path, revert.before, revert.after).rstrip("\n"))
        else:
            echo(f"{revert.profile.id}: {revert.path}: unchanged")


def _apply_reverts(steps: RemovalSteps, ledger: Ledger, harness: Path, backups: Backups,
                   echo: Echo) -> None:
    made: list[Path] = []
    for revert in steps.reverts:
        record = ledger.configs.pop(str(revert.path))
        if revert.before is not None and revert.changed:
            backups.save(revert.target, revert.before)
        if revert.after is None:
            backups.journal.unlink(revert.target)
        elif revert.changed:
            backups.journal.write(revert.target, revert.after, 0o600)
        if revert.heir is not None:
            heirs.hand_over(revert.heir, revert.path, record, backups.journal)
        else:
            made += [Path(d) for d in record.created_dirs]
        echo(f"{revert.profile.id}: {revert.path}: {revert.how if revert.changed else 'unchanged'}")
    backups.journal.remove_dirs(made)
    # A directory another harness's own config file fills is theirs to remove; one another
    # config still fills goes with the harness's own, once empty.
    held = {r.heir.home for r in steps.reverts if r.heir is not None}
    handed = heirs.hand_dirs([d for d in made if d.exists()], harness, backups.journal, held)
    left = [str(d) for d in made if d.exists() and d not in handed]
    ledger.created_dirs += [d for d in left if d not in ledger.created_dirs]


def _apply_unstage(steps: RemovalSteps, ledger: Ledger, backups: Backups, echo: Echo) -> None:
    staged.apply(steps.unstage, ledger, backups)
    staged.prune_dirs(steps.unstage, ledger, backups.journal)
    if steps.unstage:
        echo(f"removed {len(steps.unstage)} scripts from {steps.unstage[0].target.parent}")


def _finish(ledger: Ledger, harness: Path, backups: Backups) -> None:
    """Save what is left of the ledger; with nothing left, remove it and what installs made
    (the harness home and the parents made for it go with the journal, when it commits)."""
    if not ledger.empty():
        save_ledger(ledger, harness, backups)
        return
    journal = backups.journal
    journal.unlink(ledgers.ledger_path(harness))
    created = [Path(d) for d in ledger.created_dirs] + backups.created
    backup_root = harness / BACKUPS
    if backup_root in created:
        journal.remove_tree(backup_root)
    home = [d for d in created if d == harness or harness.is_relative_to(d)]
    journal.remove_dirs([d for d in created if d not in home])
    journal.gone = sorted(home, key=lambda d: len(d.parts)) if harness in home else []


def run(request: Request, echo: Echo) -> int:
    """Uninstall; 1 when edited entries stop it (nothing written), user errors raise. A run
    stopped midway before this one is undone (or finished) first, under the lock."""
    harness = request.homes.harness
    if not request.dry_run:
        journals.sweep(harness)
    ledger = ledgers.load(harness)
    stopped = journals.pending(harness)
    if ledger is None and stopped is None:
        env_name = request.loaded.spec.harness.home_env
        raise HookshapeError(f"{ledgers.ledger_path(harness)}: no hookshape ledger here: nothing "
                             f"to uninstall (is {env_name} set as it was?)")
    if request.dry_run:
        if stopped is not None:
            echo(f"note: {stopped}")
        steps = compute(request, ledger) if ledger else RemovalSteps()
        if steps.conflicts:
            return report_conflicts(steps.conflicts, echo)
        show_dry_run(steps, echo)
        return 0
    try:
        with journals.run(harness, "uninstall", False, echo) as journal:
            return _locked_run(request, journal, echo) if journal is not None else 0
    except OSError as exc:
        raise fsops.os_error(exc) from None


def touched(steps: RemovalSteps, harness: Path) -> list[Path]:
    """The files the apply will write or remove (the journal's list, before the first)."""
    heirs_ = {ledgers.ledger_path(r.heir.home) for r in steps.reverts if r.heir is not None}
    return ([r.target for r in steps.reverts] + [u.target for u in steps.unstage]
            + [ledgers.ledger_path(harness), *heirs_])


def _locked_run(request: Request, journal: Journal, echo: Echo) -> int:
    harness = request.homes.harness
    ledger = ledgers.load(harness)
    if ledger is None:
        echo("nothing left to uninstall")
        return 0
    steps = compute(request, ledger)
    if steps.conflicts:
        return report_conflicts(steps.conflicts, echo)
    if not steps.reverts and not steps.unstage:
        echo(f"nothing recorded for {', '.join(p.id for p in request.profiles)} "
             f"at {request.scope} scope")
        return 0
    with ExitStack() as stack:
        for home in sorted({r.heir.home for r in steps.reverts if r.heir is not None}):
            stack.enter_context(lock.held(home))
        journal.touches(touched(steps, harness))
        transact(journal, lambda jr, say: _apply(steps, ledger, harness, jr, say), "uninstall",
                 echo)
    return 0


def _apply(steps: RemovalSteps, ledger: Ledger, harness: Path, journal: Journal, echo: Echo) -> None:
    backups = Backups(harness, journal)
    _apply_reverts(steps, ledger, harness, backups, echo)
    _apply_unstage(steps, ledger, backups, echo)
    _finish(ledger, harness, backups)
