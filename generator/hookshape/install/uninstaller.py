"""`hookshape uninstall`: the exact reversal of what the ledger recorded.

A config file unchanged since the install gets its pre-install bytes back (kept as a backup);
one the user edited since loses only our entries, surgically, and the switches we turned on
are turned back off. A file the install created goes once nothing else is in it. Scripts go
when no config still points at them; files they replaced come back. Like install, it refuses a
read-only config unless forced, and it is all or nothing (installer.transact)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.edit import formats
from hookshape.edit.managed import commands, owner, sha256
from hookshape.edit.units import Known
from hookshape.errors import HookshapeError
from hookshape.install import fsops, heirs, lock, staged
from hookshape.install import ledger as ledgers
from hookshape.install.installer import Echo, check_writable, report_conflicts, save_ledger, transact
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
            record: ConfigRecord) -> tuple[Revert, list[str]]:
    target = real(path)
    before = fsops.read(target)
    if before is None:
        return Revert(profile, path, target, None, None, "already gone"), []
    exact, original = _restorable(request.homes.harness, record, before)
    if exact:
        how = "removed the file install created" if original is None else \
            "restored the pre-install bytes"
        return Revert(profile, path, target, before, original, how), []
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


def _selected(request: Request, ledger: Ledger) -> list[tuple[Profile, Path, ConfigRecord]]:
    found = []
    for profile in request.profiles:
        path = request.config_path(profile)
        record = ledger.configs.get(str(path))
        if record is not None:
            found.append((profile, path, record))
    return found


def compute(request: Request, ledger: Ledger) -> RemovalSteps:
    plan = RemovalSteps()
    chosen = _selected(request, ledger)
    for profile, path, record in chosen:
        revert, clash = _revert(request, ledger, profile, path, record)
        check_writable(revert.target, revert.changed, request.force)
        plan.reverts.append(revert)
        plan.conflicts += clash
    if len(chosen) == len(ledger.configs):
        plan.unstage, clash = staged.plan(request.homes.harness, ledger, (), request.force,
                                          "removes")
        plan.conflicts += clash
    return plan


def show_dry_run(plan: RemovalSteps, echo: Echo) -> None:
    staged.show(plan.unstage, echo)
    for revert in plan.reverts:
        if revert.changed:
            echo(diff(revert.path, revert.before, revert.after).rstrip("\n"))
        else:
            echo(f"{revert.profile.id}: {revert.path}: unchanged")


def _apply_reverts(plan: RemovalSteps, ledger: Ledger, harness: Path, backups: fsops.Backups, echo: Echo) -> None:
    made: list[Path] = []
    for revert in plan.reverts:
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
    held = {r.heir.home for r in plan.reverts if r.heir is not None}
    handed = heirs.hand_dirs([d for d in made if d.exists()], harness, backups.journal, held)
    left = [str(d) for d in made if d.exists() and d not in handed]
    ledger.created_dirs += [d for d in left if d not in ledger.created_dirs]


def _apply_unstage(plan: RemovalSteps, ledger: Ledger, backups: fsops.Backups, echo: Echo) -> None:
    staged.apply(plan.unstage, ledger, backups)
    if plan.unstage:
        echo(f"removed {len(plan.unstage)} scripts from {plan.unstage[0].target.parent}")


def _finish(ledger: Ledger, harness: Path, backups: fsops.Backups) -> None:
    """Save what is left of the ledger; with nothing left, remove it and what installs made."""
    if not ledger.empty():
        save_ledger(ledger, harness, backups)
        return
    backups.journal.unlink(ledgers.ledger_path(harness))
    created = [Path(d) for d in ledger.created_dirs] + backups.created
    backup_root = harness / fsops.BACKUPS
    if backup_root in created:
        fsops.remove_tree(backup_root)
    backups.journal.remove_dirs([d for d in created if d != harness])


def run(request: Request, echo: Echo) -> int:
    """Uninstall; 1 when edited entries stop it (nothing written), user errors raise."""
    harness = request.homes.harness
    ledger = ledgers.load(harness)
    if ledger is None:
        env_name = request.loaded.spec.harness.home_env
        raise HookshapeError(f"{ledgers.ledger_path(harness)}: no hookshape ledger here: nothing "
                             f"to uninstall (is {env_name} set as it was?)")
    if request.dry_run:
        plan = compute(request, ledger)
        if plan.conflicts:
            return report_conflicts(plan.conflicts, echo)
        show_dry_run(plan, echo)
        return 0
    try:
        with lock.held(harness):
            code, ledger = _locked_run(request, echo)
    except OSError as exc:
        raise fsops.os_error(exc) from None
    if ledger is not None and ledger.empty() and str(harness) in ledger.created_dirs:
        fsops.remove_dirs([harness])
    return code


def _locked_run(request: Request, echo: Echo) -> tuple[int, Ledger | None]:
    harness = request.homes.harness
    ledger = ledgers.load(harness)
    if ledger is None:
        return 0, None
    plan = compute(request, ledger)
    if plan.conflicts:
        return report_conflicts(plan.conflicts, echo), None
    if not plan.reverts and not plan.unstage:
        echo(f"nothing recorded for {', '.join(p.id for p in request.profiles)} "
             f"at {request.scope} scope")
        return 0, None
    with ExitStack() as stack:
        for home in sorted({r.heir.home for r in plan.reverts if r.heir is not None}):
            stack.enter_context(lock.held(home))
        transact(lambda journal, say: _apply(plan, ledger, harness, journal, say), "uninstall",
                 echo)
    return 0, ledger


def _apply(plan: RemovalSteps, ledger: Ledger, harness: Path, journal: fsops.Journal, echo: Echo) -> None:
    backups = fsops.Backups(harness, journal)
    _apply_reverts(plan, ledger, harness, backups, echo)
    _apply_unstage(plan, ledger, backups, echo)
    _finish(ledger, harness, backups)
