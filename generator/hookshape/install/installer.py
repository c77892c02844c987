"""`hookshape install`: apply a plan to a home: stage its scripts, merge its entries into the
vendors' configs, write the ledger. Nothing is rendered here: the scripts' bytes and the units
each config must carry are the plan's.

Two phases: the steps computed from reads only (every target parsed and merged in memory, so a
malformed file, a read-only config or an edited entry stops the run before anything is
written), then, under the lock, the same steps recomputed (another install may have finished
meanwhile) and applied through a journal written ahead of every change: a failure halfway (a
full disk, a directory we may not write) puts every file back as it was, and a run killed
midway is undone by the next one, so a run does all of its work or none of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.edit import formats
from hookshape.edit.formats import merge
from hookshape.edit.managed import Owner, owner, sha256
from hookshape.edit.units import Known, Outcome
from hookshape.errors import HookshapeError
from hookshape.install import fsops, staged
from hookshape.install import journal as journals
from hookshape.install import ledger as ledgers
from hookshape.install.backups import Backups
from hookshape.install.journal import Journal, transact
from hookshape.install.ledger import ConfigRecord, Ledger, StagedFile, UnitRecord
from hookshape.install.paths import Scope, real
from hookshape.install.request import Request, decode, diff, make_at
from hookshape.plan.homes import Homes
from hookshape.plan.plan import Plan
from hookshape.plan.wiring import NOTHING, Want
from hookshape.spec.profiles import Profile

Echo = Callable[[str], None]
CONFIG_MODE = 0o600
SCRIPT_MODE = 0o755


@dataclass(frozen=True)
class Target:
    """What one install puts in place, taken from the plan: the scripts' bytes (`bin/...` path
    -> bytes) and, per vendor, the units its config must carry for this harness home."""

    scripts: dict[str, bytes]
    wants: dict[str, Want]
    settings: dict[str, Want]  # per vendor with a settings file beside its hooks file

    @classmethod
    def of(cls, plan: Plan, request: Request) -> Target:
        if plan.home != str(request.homes.harness) or plan.scope != request.scope:
            raise HookshapeError(f"internal error: a plan for {plan.home} ({plan.scope} scope) "
                                 f"applied to {request.homes.harness} ({request.scope} scope)")
        chosen = [plan.vendors[p.id] for p in request.profiles]
        return cls({a.path: a.data for a in plan.scripts},
                   {v.profile.id: v.want for v in chosen},
                   {v.profile.id: v.settings for v in chosen if v.settings is not None})


@dataclass
class ConfigStep:
    profile: Profile
    path: Path  # as configured (the ledger's key)
    target: Path  # where the bytes go (symlinks followed)
    before: bytes | None
    outcome: Outcome
    wanted: Want
    settings: bool = False  # the vendor's settings file beside its hooks file

    @property
    def after(self) -> bytes:
        return self.outcome.text.encode()

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class ScriptStep:
    rel: str
    key: str  # in the ledger (request.file_key)
    target: Path
    data: bytes
    before: bytes | None
    executable: bool

    @property
    def changed(self) -> bool:
        return self.before != self.data or not self.executable


@dataclass
class InstallSteps:
    """What one install will do: the config edits, the scripts to stage and unstage, and the
    conflicts that stop it (nothing is written while there is one)."""

    configs: list[ConfigStep] = field(default_factory=list)
    scripts: list[ScriptStep] = field(default_factory=list)
    stale: list[staged.Unstage] = field(default_factory=list)  # staged before, no longer wanted
    conflicts: list[str] = field(default_factory=list)


def _config_step(request: Request, profile: Profile, wanted: Want, own: Owner,
                 ledger: Ledger | None) -> ConfigStep:
    path = request.config_path(profile)
    target = real(path)
    before = fsops.read(target)
    known = ledger.known(path) if ledger else Known()
    outcome = merge(profile, decode(before, path), path, own, wanted, known, request.force)
    step = ConfigStep(profile, path, target, before, outcome, wanted)
    check_writable(target, step.changed, request.force)
    return step


def _settings_step(request: Request, profile: Profile, wanted: Want | None,
                   ledger: Ledger | None) -> ConfigStep | None:
    """The vendor's settings file beside its hooks file: entries an older install put there move
    out, switches explicitly off are turned on. None when there is nothing to do there (the file
    is never created) and no record of it."""
    path = request.settings_path(profile)
    target = real(path) if path is not None else None
    before = fsops.read(target) if target is not None else None
    if path is None or target is None or before is None or wanted is None:
        return None
    record = ledger.configs.get(str(path)) if ledger else None
    known = record.known() if record else Known()
    outcome = formats.settle(profile, decode(before, path), path, wanted, known, request.force)
    step = ConfigStep(profile, path, target, before, outcome, NOTHING, settings=True)
    if not step.changed and record is None and not outcome.conflicts:
        return None
    check_writable(target, step.changed, request.force)
    return step


def check_writable(target: Path, changed: bool, force: bool) -> None:
    """A read-only config (e.g. 0444) is the user saying "do not touch": the temp-file rename
    would replace it anyway, so refuse unless forced (the mode is kept either way)."""
    mode = fsops.read_only(target) if changed and not force else None
    if mode is not None:
        raise fsops.read_only_error(target, mode)


def _script_step(request: Request, rel: str, data: bytes,
                 ledger: Ledger | None) -> tuple[ScriptStep, str]:
    target = request.stage / rel
    key = request.file_key(rel)
    before = fsops.read(target)
    executable = before is not None and bool(target.stat().st_mode & 0o100)
    step = ScriptStep(rel, key, target, data, before, executable)
    record = ledger.files.get(key) if ledger else None
    edited = (record is not None and before is not None and before != data
              and sha256(before) != record.sha256)
    clash = (f"{target}: a staged script was edited since the last install "
             "(kept; --force replaces it)")
    return step, clash if edited and not request.force else ""


def compute(request: Request, target: Target, ledger: Ledger | None) -> InstallSteps:
    own = owner(request.loaded.spec, ledger.commands() if ledger else ())
    steps = InstallSteps()
    for rel, data in sorted(target.scripts.items()):
        step, clash = _script_step(request, rel, data, ledger)
        steps.scripts.append(step)
        steps.conflicts += [clash] if clash else []
    if ledger is not None:
        keep = {request.file_key(rel) for rel in target.scripts}
        steps.stale, clashes = staged.plan(request.homes.harness, ledger, keep, request.force,
                                           "removes", request.stage)
        steps.conflicts += clashes
    for profile in request.profiles:
        found = [_config_step(request, profile, target.wants[profile.id], own, ledger),
                 _settings_step(request, profile, target.settings.get(profile.id), ledger)]
        for step_ in (f for f in found if f is not None):
            steps.configs.append(step_)
            steps.conflicts += step_.outcome.conflicts + _switched_off(step_, request.force)
    return steps


def _every_hook(step: ConfigStep) -> str:
    """What a switch turns off: the hooks of its file, or of the vendor (a settings file's)."""
    return f"every hook of {step.profile.vendor.display}" if step.settings else \
        "every hook in this file"


def _switched_off(step: ConfigStep, force: bool) -> list[str]:
    """A switch the user set to false turns off every hook of the file, theirs too: install
    turns it on only when forced, and says so either way."""
    if not step.outcome.switches or force:
        return []
    return [f"{step.path}: {', '.join(step.outcome.switches)} is false, which switches off "
            f"{_every_hook(step)}, yours too; pass --force to turn it on (your own hooks there "
            "then run again as well)"]


def show_dry_run(steps: InstallSteps, echo: Echo) -> None:
    for step in steps.scripts:
        state = "unchanged" if not step.changed else ("new" if step.before is None else "update")
        echo(f"would stage {step.target} (0755, {state})")
    staged.show(steps.stale, echo)
    for cfg in steps.configs:
        if cfg.changed:
            echo(diff(cfg.path, cfg.before, cfg.after).rstrip("\n"))
        else:
            echo(f"{cfg.profile.id}: {cfg.path}: unchanged")


def _backup_script(step: ScriptStep, record: StagedFile | None,
                   backups: Backups) -> str | None:
    """Back up a script we are about to touch; returns the backup of a file that was not ours
    (uninstall puts it back), else the one recorded before."""
    if step.before is None:
        return record.replaced if record else None
    if record is None:
        return backups.save(step.target, step.before)
    if step.changed:
        backups.save(step.target, step.before)
    return record.replaced


def _stage(steps: InstallSteps, ledger: Ledger, backups: Backups) -> int:
    written = 0
    journal = backups.journal
    for step in steps.scripts:
        replaced = _backup_script(step, ledger.files.get(step.key), backups)
        if step.changed:
            ledger.created_dirs += [str(p) for p in journal.make_dirs(step.target.parent)]
            journal.write(step.target, step.data, SCRIPT_MODE, keep_mode=False)
            written += 1
        ledger.files[step.key] = StagedFile(sha256=sha256(step.data), replaced=replaced)
    staged.apply(steps.stale, ledger, backups)
    staged.prune_dirs(steps.stale, ledger, journal)
    return written


def _record(request: Request, step: ConfigStep, old: ConfigRecord | None, saved: str | None,
            dirs: list[str]) -> ConfigRecord:
    outcome = step.outcome
    units = [UnitRecord(key=u.key, sha256=u.sha256) for u in outcome.units]
    commands = step.wanted.commands
    scripts = "" if request.stage == request.homes.harness else str(request.stage)
    if old is None or step.before is None:
        return ConfigRecord(
            vendor=step.profile.id, scope=request.scope,
            format=formats.shape(step.profile, step.settings), scripts=scripts,
            created_file=step.before is None,
            pre_sha256=None if step.before is None else sha256(step.before),
            original=saved if step.changed else None, post_sha256=sha256(step.after),
            units=units, commands=commands, switches=outcome.switches,
            created=ledgers.as_paths(outcome.created), created_dirs=dirs)
    untouched = step.before is not None and sha256(step.before) == old.post_sha256
    return old.model_copy(update={
        "original": old.original if untouched else None, "scripts": scripts,
        "post_sha256": sha256(step.after), "units": units, "commands": commands,
        "switches": sorted(set(old.switches) | set(outcome.switches)),
        "created": old.created + [p for p in ledgers.as_paths(outcome.created)
                                  if p not in old.created],
        "created_dirs": old.created_dirs + [d for d in dirs if d not in old.created_dirs]})


def _configure(request: Request, steps: InstallSteps, ledger: Ledger, backups: Backups,
               echo: Echo) -> None:
    for step in steps.configs:
        saved, dirs = None, []
        if step.changed:
            if step.before is not None:
                saved = backups.save(step.target, step.before)
            dirs = [str(p) for p in backups.journal.make_dirs(step.target.parent)]
            backups.journal.write(step.target, step.after, CONFIG_MODE)
        old = ledger.configs.get(str(step.path))
        ledger.configs[str(step.path)] = _record(request, step, old, saved, dirs)
        echo(_summary(step))


def _summary(step: ConfigStep) -> str:
    merged = "hook entries merged"
    if step.settings:
        merged = "hook entries of an older install moved out" if step.outcome.moved else "updated"
    what = merged if step.changed else "unchanged"
    switched = (f"; turned on {', '.join(step.outcome.switches)} (it was false: "
                f"{_every_hook(step)} runs again, yours too)") if step.outcome.switches else ""
    return f"{step.profile.id}: {step.path}: {what}{switched}"


def save_ledger(ledger: Ledger, harness: Path, backups: Backups) -> None:
    """Write the ledger when it changed (a no-op reinstall leaves the tree byte-identical)."""
    path = ledgers.ledger_path(harness)
    old = fsops.read(path)
    ledger.created_dirs += [str(p) for p in backups.created
                            if p.parent == harness and str(p) not in ledger.created_dirs]
    data = ledgers.dump(ledger)
    if data == old:
        return
    if old is not None:
        backups.save(path, old)
        ledger.created_dirs += [str(p) for p in backups.created
                                if p.parent == harness and str(p) not in ledger.created_dirs]
        data = ledgers.dump(ledger)
    backups.journal.write(path, data, 0o600, keep_mode=False)


def apply(request: Request, steps: InstallSteps, ledger: Ledger, journal: Journal,
          echo: Echo) -> None:
    harness = request.homes.harness
    backups = Backups(harness, journal)
    written = _stage(steps, ledger, backups)
    gone = f", {len(steps.stale)} no longer in the spec removed" if steps.stale else ""
    echo(f"staged {len(steps.scripts)} scripts under {request.stage / 'bin'} ({written} written{gone})")
    _configure(request, steps, ledger, backups, echo)
    save_ledger(ledger, harness, backups)
    echo(f"ledger: {ledgers.ledger_path(harness)}")


def report_conflicts(conflicts: list[str], echo: Echo) -> int:
    for line in conflicts:
        echo(f"conflict: {line}")
    echo("nothing was written; --force goes ahead (edited entries replaced or removed, "
         "switched-off hooks turned on)")
    return 1


def touched(request: Request, steps: InstallSteps) -> list[Path]:
    """The files the apply will write or remove (the journal's list, before the first)."""
    return ([s.target for s in steps.scripts] + [s.target for s in steps.stale]
            + [c.target for c in steps.configs] + [ledgers.ledger_path(request.homes.harness)])


def _locked_run(request: Request, target: Target, echo: Echo) -> int:
    harness = request.homes.harness
    with journals.run(harness, "install", True, echo) as journal:
        assert journal is not None
        ledger = ledgers.load(harness)
        steps = compute(request, target, ledger)
        if steps.conflicts:
            return report_conflicts(steps.conflicts, echo)
        ledger = ledger or ledgers.fresh(request.loaded.spec.harness.name, harness)
        ledger.created_dirs += [str(p) for p in journal.home if str(p) not in ledger.created_dirs]
        journal.touches(touched(request, steps))
        transact(journal, lambda jr, say: apply(request, steps, ledger, jr, say), "install", echo)
    return 0


def install(plan: Plan, where: Homes, names: tuple[str, ...], scope: Scope, project: Path | None,
            force: bool, dry_run: bool, echo: Echo) -> int:
    """`hookshape install`: the plan (made for `where`) applied to the vendors named (default:
    every one the spec enables) in this scope."""
    req = make_at(plan.loaded, names, scope, project, where, force=force, dry_run=dry_run)
    for note in req.skipped:
        echo(f"note: {note}")
    return run(req, plan, echo)


def check_home(request: Request) -> None:
    """The harness home (its env var may move it) is not, and does not hold, a config directory
    of a vendor being wired: the last uninstall takes the home away."""
    for profile in request.profiles:
        settings = request.settings_path(profile)
        for folder in dict.fromkeys([request.config_path(profile).parent,
                                     *([settings.parent] if settings else [])]):
            _not_in_home(request, profile, folder)


def _not_in_home(request: Request, profile: Profile, folder: Path) -> None:
    harness = request.homes.harness
    if folder == harness or harness in folder.parents:
        what = "is" if folder == harness else "holds"
        env = request.loaded.spec.harness.home_env
        raise HookshapeError(f"{harness}: the harness home {what} the config directory of "
                             f"{profile.vendor.display} ({folder}); the last uninstall takes "
                             f"the home away: set {env} to a directory of its own")


def run(request: Request, plan: Plan, echo: Echo) -> int:
    """Install the plan; 1 when edited entries stop it (nothing written), user errors raise.
    A run stopped midway before this one is undone (or finished) first, under the lock."""
    check_home(request)
    target = Target.of(plan, request)
    stopped = journals.pending(request.homes.harness)
    if stopped is None or request.dry_run:
        if stopped is not None:
            echo(f"note: {stopped}")
        steps = compute(request, target, ledgers.load(request.homes.harness))
        if steps.conflicts:
            return report_conflicts(steps.conflicts, echo)
        if request.dry_run:
            show_dry_run(steps, echo)
            return 0
    try:
        return _locked_run(request, target, echo)
    except OSError as exc:
        raise fsops.os_error(exc) from None
