"""`hookshape validate [--spec F]`: validate only, write nothing."""

from __future__ import annotations

from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option, warn_about
from hookshape.spec.load import SpecChoice


@click.command("validate")
@spec_option
@profiles_option
def command(spec: SpecChoice, profile_dirs: tuple[Path, ...]) -> None:
    """Check the spec and the vendor profiles it uses."""
    loaded = spec.load(profile_dirs)
    warn_about(loaded)
    vendors = ", ".join(p.id for p in loaded.vendors)
    parsed = loaded.spec
    click.echo(f"{loaded.spec_path}: valid ({len(parsed.jobs())} built-in jobs, {len(parsed.groups())} hook gates; "
               f"vendors: {vendors})")
