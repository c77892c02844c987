"""Doctor's checks of one vendor's configs: parsed, shaped, wired, the commands our entries run,
timeouts, switches, trust and auth. Every check is driven by the profile (config format,
paths, switches, timeout unit, auth and trust keys, facts marked for doctor), never by a
vendor's name."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hookshape.diagnose import field_checks as field
from hookshape.diagnose import survey as surveys
from hookshape.diagnose.findings import Ctx, Finding, Report, Severity
from hookshape.diagnose.survey import Handler, Survey, lookup
from hookshape.install.ledger import ledger_path
from hookshape.install.paths import Scope, also_read, config_path, legacy_paths, settings_path
from hookshape.plan.artifacts import job_files
from hookshape.plan.entries import entries
from hookshape.plan.homes import harness_home
from hookshape.spec.profiles import Profile


@dataclass
class Seen:
    """The configs of one vendor that exist: where its CLI reads them, and elsewhere; and its
    settings files beside its hooks files (those whose entries it reads too are in `read`)."""

    profile: Profile
    read: list[Survey]
    elsewhere: list[Survey]
    settings: list[Survey]

    def ours(self, ctx: Ctx, where: list[Survey] | None = None) -> list[tuple[Survey, Handler]]:
        return [(s, h) for s in (self.read if where is None else where) for h in s.handlers
                if ctx.own.owns(h.command)]

    def files(self) -> list[Survey]:
        """Every file surveyed, once."""
        out: dict[Path, Survey] = {}
        for v in self.read + self.settings + self.elsewhere:
            out.setdefault(v.path, v)
        return list(out.values())

    def configs(self) -> list[Survey]:
        """The files the vendor reads its settings and hooks from, once."""
        return [v for v in self.files() if v not in self.elsewhere]


def _surveys(profile: Profile, paths: list[Path]) -> list[Survey]:
    unique = list(dict.fromkeys(paths))
    return [surveys.load(profile, p) for p in unique if p.is_file()]


def _settings(ctx: Ctx, profile: Profile) -> list[Survey]:
    shaped = profile.settings_config()
    if shaped is None:
        return []
    name = ctx.loaded.spec.harness.name
    paths = [settings_path(profile, scope, ctx.homes.user, ctx.project, name)
             for scope in ("user", "project")]
    return _surveys(profile.model_copy(update={"config": shaped}), [p for p in paths if p])


def seen(ctx: Ctx, profile: Profile) -> Seen:
    home, project = ctx.homes.user, ctx.project
    name = ctx.loaded.spec.harness.name
    scopes: list[Scope] = ["user", "project"]
    raws = (profile.config.user_path, profile.config.project_path)
    read = [config_path(profile, scope, home, project, name) for scope, raw in zip(scopes, raws, strict=True) if raw]
    read += also_read(profile, home, project)
    old = [p for p in legacy_paths(profile, home, project) if p not in read]
    settings = _settings(ctx, profile)
    inline = settings if profile.config.settings and profile.config.settings.hooks else []
    return Seen(profile, _surveys(profile, read) + inline, _surveys(profile, old), settings)


Check = Callable[[Ctx, Seen], list[Finding]]


def check_parse(ctx: Ctx, s: Seen) -> list[Finding]:
    return [Finding("error", "unparsable", f"{v.error} (the vendor ignores this file)",
                    f"fix the file at that line, then run `{ctx.hs('install')}`")
            for v in s.files() if v.error]


def check_comments(ctx: Ctx, s: Seen) -> list[Finding]:
    """A JSON config with comments the vendor allows: fine for the vendor, and install and
    uninstall edit it keeping every comment outside hookshape's own entries."""
    display = s.profile.vendor.display
    return [Finding("info", "comments",
                    f"{v.path} holds comments: {display} strips them before parsing, and "
                    "`hookshape install` and `uninstall` keep them byte for byte",
                    "nothing to do")
            for v in s.read if v.comments and not v.error]


def check_shape(ctx: Ctx, s: Seen) -> list[Finding]:
    out = []
    for v in s.read:
        if v.shape:
            more = f" (+{len(v.shape) - 3} more)" if len(v.shape) > 3 else ""
            out.append(Finding("error", "bad-shape",
                               f"{v.path}: {'; '.join(v.shape[:3])}{more}: one bad hook entry can "
                               f"make {s.profile.vendor.display} drop every hook in the file",
                               "correct or remove those entries (ours or not)"))
    return out


def _wanted(ctx: Ctx, profile: Profile) -> list[tuple[str, str]]:
    found = entries(ctx.loaded.spec, profile, home=str(ctx.homes.harness))
    return [(e.event, e.gate) for e in found]


def project_of(ctx: Ctx, profile: Profile, path: Path) -> Path:
    """The project a config file belongs to (the folder its project path sits in), else the
    project doctor looks at."""
    settings = profile.config.settings
    for raw in (profile.config.project_path, settings.project_path if settings else ""):
        parts = PurePosixPath(raw.replace("{name}", ctx.loaded.spec.harness.name)).parts
        if raw and path.parts[-len(parts):] == parts:
            return Path(*path.parts[:-len(parts)])
    return ctx.project


def resolved(ctx: Ctx, profile: Profile, path: Path, text: str) -> str:
    """A script or home of a command as the vendor resolves it in the project of the config
    holding it: a project setup's reference to the project's root (`${CLAUDE_PROJECT_DIR}`)
    becomes that folder."""
    root = profile.project.root
    if root and text.startswith(root + "/"):
        return str(project_of(ctx, profile, path)) + text[len(root):]
    return text


def _gate(ctx: Ctx, command: str) -> str:
    script = ctx.own.script(command) or ""
    return script.rsplit("/", 1)[-1]


def check_wired(ctx: Ctx, s: Seen) -> list[Finding]:
    if any(v.error for v in s.read):
        return []
    ours = s.ours(ctx)
    install = ctx.hs(f"install --vendor {s.profile.id}")
    if not ours:
        where = ", ".join(str(v.path) for v in s.read) or "no config file exists"
        name = ctx.loaded.spec.harness.name
        return [Finding("error", "not-wired", f"no {name} hook entries ({where})",
                        f"run `{install}`")]
    have = {(h.event, _gate(ctx, h.command)) for _, h in ours}
    return [Finding("error", "missing-entry", f"no {gate} entry on {event}", f"run `{install}`")
            for event, gate in _wanted(ctx, s.profile) if (event, gate) not in have]


def check_elsewhere(ctx: Ctx, s: Seen) -> list[Finding]:
    out = []
    for v in s.elsewhere:
        if s.ours(ctx, [v]):
            where = config_path(s.profile, "user", ctx.homes.user, ctx.project, ctx.loaded.spec.harness.name)
            sev: Severity = "warn" if s.ours(ctx) else "error"
            out.append(Finding(sev, "unread-location",
                               f"{v.path} holds hook entries, but only older versions of "
                               f"{s.profile.vendor.display} read that file; this one reads {where}",
                               f"run `{ctx.hs(f'install --vendor {s.profile.id}')}`, then remove "
                               f"the entries from {v.path}"))
    return out


def _script_findings(ctx: Ctx, script: str, where: str) -> list[Finding]:
    if not script.startswith("/"):
        return [Finding("error", "relative-path", f"{where}: {script} is not an absolute path "
                        "(it breaks after a cd, and some vendors expand $VARS themselves)",
                        f"run `{ctx.hs('install')}` (it writes absolute, quoted paths)")]
    path = Path(script)
    # the gate's files, laid out around it as in bin/
    files = [path.parent / rel.removeprefix("bin/") for rel in job_files(ctx.loaded, path.name)]
    gate, program, lib = files[0], files[-2], files[-1]
    job = files[1] if len(files) == 4 else gate
    out = []
    for target in dict.fromkeys((gate, job)):
        if not target.is_file():
            out.append(Finding("error", "missing-script", f"{where}: {target} does not exist",
                               f"run `{ctx.hs('install')}`"))
        elif not os.access(target, os.X_OK):
            out.append(Finding("error", "not-executable", f"{where}: {target} is not executable",
                               f"chmod 0755 {target} (or run `{ctx.hs('install')}`)"))
    # the awk programs beside the tentacle (or of a gate of user hooks): without them a tentacle
    # says nothing, every call allowed; a gate of user hooks fails its hooks
    for target in (program, lib) if job.is_file() else ():
        if not target.is_file():
            out.append(Finding("error", "missing-script", f"{where}: {target} does not exist (the "
                               "tentacle beside it then allows every call)", f"run `{ctx.hs('install')}`"))
    return out


def _installed_elsewhere(ctx: Ctx, home: str) -> bool:
    """The entries point at a home other than the default one, which holds a live install
    (its ledger), while the harness's home variable is unset here."""
    harness = ctx.loaded.spec.harness
    default = harness_home(ctx.loaded.spec, ctx.homes.user, {})
    return (not ctx.env.get(harness.home_env) and Path(home) != default
            and ledger_path(Path(home)).is_file())


def check_commands(ctx: Ctx, s: Seen) -> list[Finding]:
    out = []
    current = str(ctx.homes.harness)
    elsewhere: dict[str, int] = {}
    for v, h in s.ours(ctx):
        where = f"{v.path}: {h.where}"
        out += _script_findings(ctx, resolved(ctx, s.profile, v.path, ctx.own.script(h.command) or ""),
                                where)
        home = ctx.own.home(h.command)
        if home is not None and home.startswith(s.profile.project.root + "/"):
            out += _project_home(ctx, s.profile, v.path, home, where)
            continue
        if home is None or home == current:
            continue
        if _installed_elsewhere(ctx, home):
            elsewhere[home] = elsewhere.get(home, 0) + 1
            continue
        out.append(Finding("warn", "stale-entry", f"{where} points at {home}, not at the "
                           f"harness home {current}",
                           f"run `{ctx.hs('install')}` (it replaces entries of an old home)"))
    env = ctx.loaded.spec.harness.home_env
    finds = ("find no readiness lease and let every event through" if ctx.loaded.spec.gate.readiness
             else "find none of that install's state")
    for home, n in elsewhere.items():
        out.append(Finding("warn", "home-mismatch",
                           f"{n} {s.profile.vendor.display} entr{'ies' if n != 1 else 'y'} run "
                           f"gates installed in {home} (its install ledger is there), but {env} is "
                           f"not set here: the gates read {env} when they run, else use {current}, "
                           f"where they {finds}",
                           f"run {s.profile.vendor.display} with {env}={home} in its environment "
                           f"(e.g. export it in your shell profile; run doctor with it too), or "
                           f"reinstall without {env} so the gates live in {current}"))
    return out


def _project_home(ctx: Ctx, profile: Profile, path: Path, home: str, where: str) -> list[Finding]:
    """An entry of a project setup runs the project's scripts: those of harness.project_dir."""
    project = project_of(ctx, profile, path)
    want = project / ctx.loaded.spec.harness.project_dir
    have = resolved(ctx, profile, path, home)
    if have == str(want):
        return []
    return [Finding("warn", "stale-entry", f"{where} runs the scripts in {have}, not in {want} "
                    "(the spec's harness.project_dir)",
                    f"run `{ctx.hs(f'install --scope project --project {project}')}`")]


def _first_word(command: str) -> str:
    """The program a command runs (after any NAME=value assignments), '' when unparsable."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    return next((w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)), "")


def check_foreign_paths(ctx: Ctx, s: Seen) -> list[Finding]:
    """Someone else's hook run by a relative path: it breaks once the agent changes directory."""
    out = []
    for v in s.read:
        for h in v.handlers:
            word = _first_word(h.command)
            if ctx.own.owns(h.command) or "/" not in word or word.startswith(("/", "~", "$")):
                continue
            out.append(Finding("warn", "relative-path", f"{v.path}: {h.where}: {word} is a "
                               "relative path: it runs only from the directory it names",
                               "use an absolute path (or the vendor's project-dir variable)"))
    return out


def check_duplicates(ctx: Ctx, s: Seen) -> list[Finding]:
    count = Counter((h.event, _gate(ctx, h.command)) for _, h in s.ours(ctx))
    return [Finding("warn", "duplicate", f"{gate} is registered {n} times on {event}: it runs "
                    f"{n} times per event", f"remove the extra entries (`{ctx.hs('install')}` "
                    "keeps one per event in the file it manages)")
            for (event, gate), n in sorted(count.items()) if n > 1]


def check_fail_closed(ctx: Ctx, s: Seen) -> list[Finding]:
    """An entry of ours with the vendor's fail-closed switch (profile config.fail_closed): a
    crash, a timeout or a missing script of the gate would block instead of letting through."""
    switch = s.profile.config.fail_closed
    if not switch:
        return []
    return [Finding("error", "fail-closed", f"{v.path}: {h.where} sets "
                    + ", ".join(f"{k} = {json.dumps(val)}" for k, val in switch.items())
                    + f": {s.profile.vendor.display} then blocks whenever the gate cannot answer "
                    "(a crash, a timeout, a missing script), which its fail-open design never does",
                    f"remove the key, or run `{ctx.hs('install')}` to rewrite the entry")
            for v, h in s.ours(ctx) if all(h.value.get(k) == val for k, val in switch.items())]


def check_timeouts(ctx: Ctx, s: Seen) -> list[Finding]:
    unit = s.profile.config.timeout_unit
    deadline_ms = ctx.loaded.spec.gate.deadline_ms
    deadline = deadline_ms if unit == "ms" else deadline_ms / 1000
    out = []
    for v, h in s.ours(ctx):
        timeout = h.value.get(s.profile.config.handler.timeout)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            continue
        if timeout <= deadline:
            out.append(Finding("error", "timeout", f"{v.path}: {h.where}.timeout is {timeout} "
                               f"{unit}, not above the gate deadline ({deadline:g} {unit}): "
                               f"{s.profile.vendor.display} kills the gate first",
                               "raise the vendor's timeout_ms in the spec and reinstall"))
    return out


def check_switches(ctx: Ctx, s: Seen) -> list[Finding]:
    out = []
    enable = s.profile.config.enable_switch
    for v in s.configs():
        for dotted in s.profile.config.switches:
            value = lookup(v.data, dotted)
            if value is False:
                out.append(Finding("error", "switched-off", f"{v.path}: {dotted} is false: "
                                   f"{s.profile.vendor.display} runs no hooks",
                                   f"set {enable or dotted} to true (or run "
                                   f"`{ctx.hs('install')}`)"))
            elif value is not None and dotted != enable:
                out.append(Finding("warn", "old-switch", f"{v.path}: {dotted} is an old key",
                                   f"use {enable} instead" if enable else "remove it"))
    return out


def check_auth(ctx: Ctx, s: Seen) -> list[Finding]:
    """From the profile's auth_key / auth_value / auth_env: a settings key the vendor needs set
    when an API key is in its environment (else it picks an auth mode it then rejects)."""
    cfg = s.profile.config
    if not cfg.auth_key:
        return []
    present = [name for name in cfg.auth_env if ctx.env.get(name)]
    if not present or any(lookup(v.data, cfg.auth_key) not in (None, "") for v in s.configs()):
        return []
    want = f"{cfg.auth_key} = {cfg.auth_value!r}" if cfg.auth_value else cfg.auth_key
    user = config_path(s.profile, "user", ctx.homes.user, ctx.project, ctx.loaded.spec.harness.name)
    return [Finding("warn", "auth-not-selected",
                    f"{', '.join(present)} is set but no settings file sets {cfg.auth_key}: "
                    f"{s.profile.vendor.display} then picks an auth mode a headless run rejects",
                    f"set {want} in {user}")]


def check_inline(ctx: Ctx, s: Seen) -> list[Finding]:
    """Entries of ours in a settings file the vendor also reads hooks from (an older install's):
    they run beside the hooks file's, and a shape error there can stop the whole CLI."""
    name = ctx.loaded.spec.harness.name
    user = settings_path(s.profile, "user", ctx.homes.user, ctx.project, name)
    out = []
    for v in s.settings:
        if v not in s.read or not s.ours(ctx, [v]):
            continue
        scope: Scope = "user" if v.path == user else "project"
        hooks = config_path(s.profile, scope, ctx.homes.user, ctx.project, name)
        out.append(Finding("warn", "inline-entries",
                           f"{v.path} holds {name} hook entries: {s.profile.vendor.display} reads "
                           f"them beside {hooks}, and a shape error there stops it altogether",
                           f"run `{ctx.hs('install' if scope == 'user' else 'install --scope project')}` "
                           f"(it moves them to {hooks})"))
    return out


def check_project_setup(ctx: Ctx, s: Seen) -> list[Finding]:
    """The project holds a setup committed with it (harness.project_dir): whether this vendor
    runs it, and what each user does first."""
    folder = ctx.project / ctx.loaded.spec.harness.project_dir
    if not folder.is_dir():
        return []
    setup, display = s.profile.project, s.profile.vendor.display
    if setup.cannot:
        return [Finding("warn", "no-project-setup", f"{folder}: {display} cannot run this "
                        f"project's committed setup: {setup.cannot}",
                        f"run `{ctx.hs(f'install --vendor {s.profile.id}')}` (your user scope)")]
    if not setup.needs:
        return []
    return [Finding("info", "project-setup", f"{display} runs this project's committed setup "
                    f"({folder}) once each user has done this: {setup.needs}")]


def check_notes(ctx: Ctx, s: Seen) -> list[Finding]:
    """Known vendor behaviour worth knowing when a hook seems not to work: the profile's caveat
    and every fact the profile marks with a doctor code."""
    out = [Finding("info", "caveat", s.profile.vendor.caveat)] if s.profile.vendor.caveat else []
    out += [Finding("info", f.doctor, f.fact) for f in s.profile.facts if f.doctor]
    return out


CHECKS: list[Check] = [check_parse, check_comments, check_shape, check_wired, check_elsewhere,
                       check_commands, check_foreign_paths, check_duplicates, field.check_duplicate_commands,
                       check_fail_closed, check_timeouts, check_switches, field.check_trust,
                       field.check_unknown_events, field.check_mcp_matchers, field.check_plugin_mcp,
                       field.check_also_runs, field.check_sdk_host, check_auth, check_inline,
                       check_project_setup, check_notes]


def vendor_report(ctx: Ctx, profile: Profile) -> Report:
    found = seen(ctx, profile)
    report = Report(profile.id, profile.vendor.display,
                    files=[str(v.path) for v in found.read + found.elsewhere])
    for check in CHECKS:
        report.findings += check(ctx, found)
    return report
