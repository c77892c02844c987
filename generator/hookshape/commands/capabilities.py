"""`hookshape capabilities [--json]`: the tentacle x vendor table."""

from __future__ import annotations

from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.plan.capabilities import table, to_json, to_markdown
from hookshape.spec.load import SpecChoice


@click.command("capabilities")
@spec_option
@profiles_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(spec: SpecChoice, profile_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Show what each tentacle enforces on each vendor, and why."""
    loaded = spec.load(profile_dirs)
    cells = table(loaded)
    click.echo(to_json(cells) if as_json else to_markdown(loaded, cells, "").lstrip("\n"), nl=False)
