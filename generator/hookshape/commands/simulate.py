"""`hookshape simulate`: run a rendered tentacle on a payload and say what the vendor would do."""

from __future__ import annotations

import os
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.diagnose.simulate import Options, Target, find_tentacle, simulate
from hookshape.install.request import pick
from hookshape.spec.load import SpecChoice


@click.command("simulate")
@click.option("--vendor", required=True, metavar="V", help="The vendor whose dialect to use.")
@click.option("--event", "--tentacle", "tentacle_name", required=True, metavar="E",
              help="An event the spec has a gate on (session_start, prompt, pre_tool, post_tool, "
                   "stop, subagent_stop, pre_compact, session_end), or a gate's name.")
@click.option("--payload", default=None, metavar="FILE|-",
              help="The event JSON (default: the built-in example of the vendor's event).")
@click.option("--shell", default=None, metavar="SH", help="Run the script with this shell.")
@click.option("--gate", is_flag=True, help="Run the gate wrapper instead of the bare tentacle.")
@click.option("--home", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The user home to run in (default: a scratch home with the lease held).")
@spec_option
@profiles_option
def command(vendor: str, tentacle_name: str, payload: str | None, shell: str | None, gate: bool,
            home: Path | None, spec: SpecChoice, profile_dirs: tuple[Path, ...]) -> None:
    """Run one gate's script as VENDOR would and print exit code, stdout, stderr and the verdict."""
    loaded = spec.load(profile_dirs)
    profile = pick(loaded, (vendor,))[0]  # a vendor the spec disables never runs a hook
    target = Target(loaded, profile, find_tentacle(loaded, tentacle_name), gate)
    lines = simulate(target, Options(payload, shell, home), dict(os.environ), warn)
    for line in lines:
        click.echo(line)


def warn(problem: str) -> None:
    click.echo(f"hookshape: warning: {problem}", err=True)
