"""Doctor's checks of the harness home: switch files, the home env var, the readiness lease and
heartbeat (when the spec has them), armed roots, breakers and the last gate calls."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hookshape.diagnose import health
from hookshape.diagnose.findings import Ctx, Finding, Report, Severity
from hookshape.plan.homes import harness_home

# The gate outcomes that skip the tentacle (see hookshape.diagnose.health.OUTCOMES).
SKIPS = frozenset({"not-ready", "unarmed", "skipped-open", "skipped-probe"})
RECENT_CALLS = 5  # how many of the last gate calls the debug-log check looks at


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
    """The gates' debug log (hookshape.diagnose.health reads it): when the last calls all skipped their
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
    for line in health.text_lines(roots):
        root = line.rstrip("/")
        if line.startswith("/") and here.startswith(root + "/"):
            return True
    return False


def check_armed(ctx: Ctx) -> list[Finding]:
    if not ctx.loaded.spec.gate.armed_roots:
        return []
    roots = ctx.homes.harness / ctx.loaded.spec.gate.armed_roots_file
    if _armed(roots, ctx.project):
        return []
    return [Finding("warn", "unarmed", f"{ctx.project} is not at or below a line of {roots}: gates "
                    "there let every event through", f"add the project root to {roots}")]


def check_breaker(ctx: Ctx) -> list[Finding]:
    """Breakers not closed (hookshape.diagnose.health reads the gates' state files)."""
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
