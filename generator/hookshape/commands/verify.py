"""`hookshape verify`: run the real vendor CLI offline for one scripted turn against the bundled
mock model, with the harness installed in a scratch home, and say which hooks fired."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.install.request import pick
from hookshape.spec.load import SpecChoice
from hookshape.verify.outcome import EventResult
from hookshape.verify.verify import Options, Verified, driven, run

LABEL = {"reached": "reached the model", "fired": "fired", "not fired": "NOT FIRED",
         "not exercised": "not exercised"}


def event_line(res: EventResult) -> str:
    return f"  {res.event:<18} {res.name:<20} {LABEL[res.status]}: {res.detail}"


def lines(done: Verified) -> list[str]:
    display = done.profile.vendor.display
    who = f"{display} {done.version or '(version unknown)'}"
    out = [f"verify: {who} ({done.binary}), one scripted turn in a scratch home"]
    out += [event_line(r) for r in done.events]
    if done.turn.ended():
        out.append(f"  the turn: {done.turn.ended()}")
    if done.kept is not None:
        out.append(f"  scratch kept: {done.kept}")
    counted = [r for r in done.events if r.status != "not exercised"]
    fired = [r for r in counted if r.status != "not fired"]
    aside = len(done.events) - len(counted)
    more = f", {aside} not exercised" if aside else ""
    if done.ok:
        out.append(f"ok: {len(fired)} of {len(counted)} registered events fired on {who}{more} "
                   f"(turn {done.seconds:.1f} s)")
    else:
        out.append(f"FAILED: {len(counted) - len(fired)} of {len(counted)} registered events did not "
                   f"fire on {who}{more} (turn {done.seconds:.1f} s)")
    return out


@click.command("verify")
@click.option("--vendor", required=True, metavar="V", help="The vendor whose CLI to run.")
@click.option("--bin", "binary", type=click.Path(path_type=Path, dir_okay=False), default=None,
              metavar="PATH", help="The CLI to run (default: the vendor's command on PATH).")
@click.option("--timeout", type=click.FloatRange(min=1), default=120.0, show_default=True,
              metavar="S", help="Seconds the turn may take before it is stopped.")
@click.option("--keep", is_flag=True, help="Keep the scratch home and project (the path is printed).")
@spec_option
@profiles_option
def command(vendor: str, binary: Path | None, timeout: float, keep: bool, spec: SpecChoice,
            profile_dirs: tuple[Path, ...]) -> None:
    """Run the vendor's installed CLI for one offline turn and say, per event, whether its hooks
    fired. Exit 1 when a registered hook did not fire."""
    loaded = spec.load(profile_dirs)
    driven(pick(loaded, (vendor,), enabled_only=False)[0])  # why not, before "not enabled"
    profile = pick(loaded, (vendor,))[0]
    done = run(loaded, profile, Options(binary, timeout, keep), dict(os.environ), warn)
    for line in lines(done):
        click.echo(line)
    if not done.ok:
        sys.exit(1)


def warn(problem: str) -> None:
    click.echo(f"hookshape: warning: {problem}", err=True)
