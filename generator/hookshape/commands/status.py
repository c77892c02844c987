"""`hookshape status [--home D] [--json] [--reset]`: breaker state and recent gate events."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.diagnose import health
from hookshape.errors import HookshapeError
from hookshape.install.options import home_option
from hookshape.plan.homes import homes
from hookshape.spec.load import SpecChoice
from hookshape.spec.model import Spec

EVENTS = 10


def switches(spec: Spec, home: Path) -> dict[str, Any]:
    """The switches a gate looks at before its breaker, as the gate would see them here."""
    gate = spec.gate
    out = {"kill_switch": (home / gate.kill_switch_file).exists()
           or os.environ.get(gate.kill_switch_env) == gate.kill_switch_off_value}
    if spec.halt.enabled:  # no halt model, no halt switch
        halt = os.environ.get(spec.halt.sentinel_env) or str(home / spec.halt.sentinel_default)
        out["halted"] = Path(halt).exists()
    out["debug"] = (home / gate.debug_switch_file).exists()
    return out


def render_text(spec: Spec, home: Path, now: float) -> str:
    sw = switches(spec, home)
    lines = [f"harness home {home}"]
    if sw["kill_switch"]:
        lines.append(f"  kill switch ON: every gate exits at once ({spec.gate.kill_switch_file} "
                     f"or {spec.gate.kill_switch_env}={spec.gate.kill_switch_off_value})")
    if sw.get("halted"):
        skips = ": gates skip the readiness lease" if spec.gate.readiness else ""
        lines.append(f"  halt sentinel present{skips}")
    lines.append("breakers:")
    lines += [f"  {health.breaker_words(b, now)}" for b in health.breakers(spec, home)]
    recent = health.events(spec, home, EVENTS)
    if not sw["debug"] and not recent:
        switch = home / spec.gate.debug_switch_file
        lines.append(f"recent events: none (the debug log is off; create {switch} to record calls)")
    else:
        lines.append("recent events:" if recent else "recent events: none yet")
        lines += [f"  {health.event_words(e)}" for e in recent]
    runs = health.hook_runs(spec, home)
    if runs:
        lines.append("hooks (last outcomes):")
        for name, seen in runs.items():
            lines += [f"  {health.hook_words(r)}" for r in seen] or [f"  {name}: no run recorded"]
    return "\n".join(lines)


def render_json(spec: Spec, home: Path, now: float) -> str:
    out = {"home": str(home), **switches(spec, home),
           "breakers": [b.to_json(now) for b in health.breakers(spec, home)],
           "events": [e.to_json() for e in health.events(spec, home, EVENTS)],
           "hooks": {name: [r.to_json() for r in seen]
                     for name, seen in health.hook_runs(spec, home).items()}}
    return json.dumps(out, indent=2)


@click.command("status")
@home_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--reset", is_flag=True, help="Close every breaker (removes the state files).")
@spec_option
@profiles_option
def command(home: Path | None, as_json: bool, reset: bool, spec: SpecChoice,
            profile_dirs: tuple[Path, ...]) -> None:
    """Show each tentacle's circuit breaker and the gates' recent debug events."""
    loaded = spec.load(profile_dirs)
    model = loaded.spec
    harness = homes(model, home, os.environ).harness
    if not harness.is_dir():
        raise HookshapeError(f"{harness}: no harness home here (install first, or pass --home "
                             f"or set {model.harness.home_env})")
    if reset:
        removed = health.reset(model, harness)
        if as_json:
            out = {"home": str(harness), "removed": [str(p) for p in removed]}
            click.echo(json.dumps(out, indent=2))
        else:
            click.echo(f"{harness}: every breaker closed ({len(removed)} file(s) removed)")
        return
    now = time.time()
    click.echo(render_json(model, harness, now) if as_json else render_text(model, harness, now))
