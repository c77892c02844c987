"""`hookshape doctor`: for each vendor, is the harness wired, and if not, why. Every check is
driven by the spec and the vendor profile (config format, paths, switches, timeout unit, auth
and trust keys, facts marked for doctor), never by a vendor's name or by parsing a fact's
text. An `error` is something that stops hooks from firing."""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hookshape import health
from hookshape.entries import entries
from hookshape.install import survey as surveys
from hookshape.install.formats import switches
from hookshape.install.ledger import ledger_path
from hookshape.install.managed import Owner, owner
from hookshape.install.paths import Homes, Scope, also_read, config_path, harness_home, legacy_paths
from hookshape.install.survey import Handler, Survey, lookup, trusted
from hookshape.loader import Loaded
from hookshape.profiles import Profile

Severity = Literal["error", "warn", "info"]
# The gate outcomes that skip the tentacle (see hookshape.health.OUTCOMES).
SKIPS = frozenset({"not-ready", "unarmed", "skipped-open", "skipped-probe"})
RECENT_CALLS = 5  # how many of the last gate calls the debug-log check looks at


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    fix: str = ""


@dataclass
class Report:
    """Findings about one vendor (or, with vendor "harness", about the harness home)."""

    vendor: str
    display: str
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def wired(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


@dataclass(frozen=True)
class Ctx:
    loaded: Loaded
    homes: Homes
    project: Path
    env: Mapping[str, str]
    own: Owner
    again: str = ""  # the --spec/--home/... the user gave doctor, repeated in every suggestion

    def hs(self, args: str) -> str:
        """A suggested hookshape command line, with the user's own --spec/--home."""
        return f"hookshape {args}{self.again}"


@dataclass
class Seen:
    """The configs of one vendor that exist: where its CLI reads them, and elsewhere."""

    profile: Profile
    read: list[Survey]
    elsewhere: list[Survey]

    def ours(self, ctx: Ctx, where: list[Survey] | None = None) -> list[tuple[Survey, Handler]]:
        return [(s, h) for s in (self.read if where is None else where) for h in s.handlers
                if ctx.own.owns(h.command)]


def _surveys(profile: Profile, paths: list[Path]) -> list[Survey]:
    unique = list(dict.fromkeys(paths))
    return [surveys.load(profile, p) for p in unique if p.is_file()]


def seen(ctx: Ctx, profile: Profile) -> Seen:
    home, project = ctx.homes.user, ctx.project
    name = ctx.loaded.spec.harness.name
    scopes: list[Scope] = ["user", "project"]
    raws = (profile.config.user_path, profile.config.project_path)
    read = [config_path(profile, scope, home, project, name) for scope, raw in zip(scopes, raws, strict=True) if raw]
    read += also_read(profile, home, project)
    old = [p for p in legacy_paths(profile, home, project) if p not in read]
    return Seen(profile, _surveys(profile, read), _surveys(profile, old))


Check = Callable[[Ctx, Seen], list[Finding]]


def check_parse(ctx: Ctx, s: Seen) -> list[Finding]:
    return [Finding("error", "unparsable", f"{v.error} (the vendor ignores this file)",
                    f"fix the file at that line, then run `{ctx.hs('install')}`")
            for v in s.read + s.elsewhere if v.error]


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


def _script_findings(ctx: Ctx, command: str, where: str) -> list[Finding]:
    script = ctx.own.script(command) or ""
    if not script.startswith("/"):
        return [Finding("error", "relative-path", f"{where}: {script} is not an absolute path "
                        "(it breaks after a cd, and some vendors expand $VARS themselves)",
                        f"run `{ctx.hs('install')}` (it writes absolute, quoted paths)")]
    path = Path(script)
    sub = ctx.loaded.spec.harness.tentacle_dir
    out = []
    for target in (path, path.parent / sub / path.name):
        if not target.is_file():
            out.append(Finding("error", "missing-script", f"{where}: {target} does not exist",
                               f"run `{ctx.hs('install')}`"))
        elif not os.access(target, os.X_OK):
            out.append(Finding("error", "not-executable", f"{where}: {target} is not executable",
                               f"chmod 0755 {target} (or run `{ctx.hs('install')}`)"))
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
        out += _script_findings(ctx, h.command, where)
        home = ctx.own.home(h.command)
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
    for v in s.read:
        for dotted in switches(s.profile):
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


def check_trust(ctx: Ctx, s: Seen) -> list[Finding]:
    """From the profile's trust_table / trust_key: the vendor skips hooks nobody trusted."""
    table, key = s.profile.config.trust_table, s.profile.config.trust_key
    if not table or not s.ours(ctx):
        return []
    user = config_path(s.profile, "user", ctx.homes.user, ctx.project, ctx.loaded.spec.harness.name)
    data = next((v.data for v in s.read if v.path == user), {})
    if trusted(data, table, key):
        return []
    return [Finding("warn", "untrusted", f"{user}: no {table}.<hook> entries with {key}: "
                    f"{s.profile.vendor.display} skips hooks nobody reviewed and trusted, silently",
                    f"start {s.profile.vendor.display}, review its hooks and trust the "
                    f"{ctx.loaded.spec.harness.name} hooks"
                    + (f" ({s.profile.vendor.caveat})" if s.profile.vendor.caveat else ""))]


def check_auth(ctx: Ctx, s: Seen) -> list[Finding]:
    """From the profile's auth_key / auth_value / auth_env: a settings key the vendor needs set
    when an API key is in its environment (else it picks an auth mode it then rejects)."""
    cfg = s.profile.config
    if not cfg.auth_key:
        return []
    present = [name for name in cfg.auth_env if ctx.env.get(name)]
    if not present or any(lookup(v.data, cfg.auth_key) not in (None, "") for v in s.read):
        return []
    want = f"{cfg.auth_key} = {cfg.auth_value!r}" if cfg.auth_value else cfg.auth_key
    user = config_path(s.profile, "user", ctx.homes.user, ctx.project, ctx.loaded.spec.harness.name)
    return [Finding("warn", "auth-not-selected",
                    f"{', '.join(present)} is set but no settings file sets {cfg.auth_key}: "
                    f"{s.profile.vendor.display} then picks an auth mode a headless run rejects",
                    f"set {want} in {user}")]


def check_notes(ctx: Ctx, s: Seen) -> list[Finding]:
    """Known vendor behaviour worth knowing when a hook seems not to work: the profile's caveat
    and every fact the profile marks with a doctor code."""
    out = [Finding("info", "caveat", s.profile.vendor.caveat)] if s.profile.vendor.caveat else []
    out += [Finding("info", f.doctor, f.fact) for f in s.profile.facts if f.doctor]
    return out


CHECKS: list[Check] = [check_parse, check_comments, check_shape, check_wired, check_elsewhere,
                       check_commands, check_foreign_paths, check_duplicates, check_fail_closed, check_timeouts,
                       check_switches, check_trust, check_auth, check_notes]


def vendor_report(ctx: Ctx, profile: Profile) -> Report:
    found = seen(ctx, profile)
    report = Report(profile.id, profile.vendor.display,
                    files=[str(v.path) for v in found.read + found.elsewhere])
    for check in CHECKS:
        report.findings += check(ctx, found)
    return report


def harness_report(ctx: Ctx) -> Report:
    report = Report("harness", str(ctx.homes.harness))
    for check in HARNESS_CHECKS:
        report.findings += check(ctx)
    return report


def check_switch_files(ctx: Ctx) -> list[Finding]:
    gate, halt = ctx.loaded.spec.gate, ctx.loaded.spec.halt
    out = []
    kill = ctx.homes.harness / gate.kill_switch_file
    if kill.exists():
        out.append(Finding("error", "kill-switch", f"{kill} exists: every gate exits at once",
                           f"remove {kill} to turn the hooks back on"))
    if ctx.env.get(gate.kill_switch_env) == gate.kill_switch_off_value:
        out.append(Finding("error", "kill-switch", f"{gate.kill_switch_env}="
                           f"{gate.kill_switch_off_value} in this environment: every gate exits "
                           "at once",
                           f"unset {gate.kill_switch_env}"))
    if not halt.enabled:
        return out
    sentinel = Path(ctx.env.get(halt.sentinel_env) or ctx.homes.harness / halt.sentinel_default)
    if sentinel.exists():
        out.append(Finding("warn", "halted", f"{sentinel} exists: the harness is halted (its CLI "
                           "and tools are blocked, the closeout contract is off)",
                           f"remove {sentinel} when the operator lifts the halt"))
    return out


def _first_line(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
    except OSError:
        return ""


def _leased(ctx: Ctx) -> bool:
    gate, home = ctx.loaded.spec.gate, ctx.homes.harness
    ready, pid = _first_line(home / gate.ready_file), _first_line(home / gate.pid_file)
    return ready.isdigit() and ready == pid


def check_lease(ctx: Ctx) -> list[Finding]:
    gate, home = ctx.loaded.spec.gate, ctx.homes.harness
    if not gate.readiness or _leased(ctx):
        return []
    return [Finding("warn", "not-ready", f"no readiness lease ({home / gate.ready_file} and "
                    f"{home / gate.pid_file} do not agree): every gate lets events through unseen",
                    "start the harness daemon")]


def check_heartbeat(ctx: Ctx) -> list[Finding]:
    """The lease also needs a fresh heartbeat (mtime within heartbeat_max_age_s, as the gate
    checks it); a stale one makes every gate skip, silently. A future mtime counts as fresh."""
    gate = ctx.loaded.spec.gate
    if not gate.readiness or not _leased(ctx):
        return []  # no lease in this harness, or not-ready already says it
    beat, limit = ctx.homes.harness / gate.heartbeat_file, gate.heartbeat_max_age_s
    fix = (f"restart the harness daemon: it must touch {beat} at least every {limit} s")
    try:
        age = time.time() - beat.stat().st_mtime
    except OSError:
        return [Finding("warn", "stale-heartbeat", f"{beat} does not exist: the daemon looks "
                        "started but every gate counts it as not ready and lets events through "
                        "unseen", fix)]
    if int(age) <= limit:
        return []
    return [Finding("warn", "stale-heartbeat", f"{beat} is {age:.0f} s old (the gates accept "
                    f"{limit} s): the daemon looks hung, and every gate lets events through "
                    "unseen", fix)]


def _skip_fix(ctx: Ctx, outcome: str | None) -> str:
    gate, home = ctx.loaded.spec.gate, ctx.homes.harness
    if outcome == "not-ready":
        return (f"start the harness daemon in {home} (ready and pid files agreeing, heartbeat "
                f"fresh), and run the vendor CLI with the same {ctx.loaded.spec.harness.home_env}")
    if outcome == "unarmed":
        return f"add the project root to {home / gate.armed_roots_file}"
    return f"see `{ctx.hs('status')}`; `{ctx.hs('status --reset')}` closes the breaker"


def check_recent_calls(ctx: Ctx) -> list[Finding]:
    """The gates' debug log (hookshape.health reads it): when the last calls all skipped their
    tentacle, say why."""
    recent = [e for e in health.events(ctx.loaded.spec, ctx.homes.harness, limit=RECENT_CALLS)
              if e.outcome is not None]
    if not recent or any(e.outcome not in SKIPS for e in recent):
        return []
    count = Counter(e.outcome for e in recent)
    reasons = "; ".join(f"{n} x {outcome} ({health.outcome_words(outcome)})"
                        for outcome, n in count.most_common())
    log = ctx.homes.harness / ctx.loaded.spec.gate.debug_log
    latest = health.local_time(recent[-1].time)
    fixes = "; ".join(dict.fromkeys(_skip_fix(ctx, o) for o, _ in count.most_common()))
    return [Finding("warn", "gates-skipping",
                    f"the last {len(recent)} gate call{'s' if len(recent) != 1 else ''} in {log} "
                    f"(latest {latest}) all skipped their tentacle: {reasons}", fixes)]


def _armed(roots: Path, project: Path) -> bool:
    here = os.path.realpath(project) + "/"
    for line in _lines(roots):
        root = line.rstrip("/")
        if line.startswith("/") and here.startswith(root + "/"):
            return True
    return False


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def check_armed(ctx: Ctx) -> list[Finding]:
    if not ctx.loaded.spec.gate.armed_roots:
        return []
    roots = ctx.homes.harness / ctx.loaded.spec.gate.armed_roots_file
    if _armed(roots, ctx.project):
        return []
    return [Finding("warn", "unarmed", f"{ctx.project} is not at or below a line of {roots}: gates "
                    "there let every event through", f"add the project root to {roots}")]


def check_breaker(ctx: Ctx) -> list[Finding]:
    """Breakers not closed (hookshape.health reads the gates' state files)."""
    now = time.time()
    out = []
    for breaker in health.breakers(ctx.loaded.spec, ctx.homes.harness):
        if breaker.state == "closed":
            continue
        retry = breaker.retry_at
        waiting = retry is not None and retry > now
        severity: Severity = "error" if waiting else "warn"
        when = f"for {retry - now:.0f} s more" if retry is not None and waiting else \
            "until its next call probes it"
        out.append(Finding(severity, "breaker-open",
                           f"the breaker of {breaker.name} is {breaker.state} after "
                           f"{breaker.failures} failures ({breaker.last_kind or 'unknown'}): that "
                           f"gate skips its tentacle {when}",
                           f"see `{ctx.hs('status')}`; `{ctx.hs('status --reset')}` closes it"))
    return out


def check_home_env(ctx: Ctx) -> list[Finding]:
    """The harness home comes from an env var here: the vendor CLIs need the same value."""
    harness = ctx.loaded.spec.harness
    value = ctx.env.get(harness.home_env)
    default = harness_home(ctx.loaded.spec, ctx.homes.user, {})
    if not value or ctx.homes.harness == default:
        return []
    return [Finding("info", "home-env", f"{harness.home_env}={value} here: the gates read "
                    f"{harness.home_env} when they run, so each vendor CLI must run with the same "
                    f"value, or its gates look in {default}")]


HARNESS_CHECKS: list[Callable[[Ctx], list[Finding]]] = [check_switch_files, check_home_env,
                                                        check_lease, check_heartbeat,
                                                        check_armed, check_breaker,
                                                        check_recent_calls]


def context(loaded: Loaded, homes: Homes, project: Path, env: Mapping[str, str],
            again: str = "") -> Ctx:
    """`again`: the options to repeat in every suggested command (e.g. ` --spec x.toml`)."""
    return Ctx(loaded=loaded, homes=homes, project=project, env=env, own=owner(loaded.spec),
               again=again)


def diagnose(ctx: Ctx, profiles: list[Profile]) -> list[Report]:
    return [harness_report(ctx)] + [vendor_report(ctx, p) for p in profiles]
