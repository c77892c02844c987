"""`hookshape package [--spec F] [--out DIR] [--from DIST]`: a reproducible release tarball."""

from __future__ import annotations

from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.plan.plan import build
from hookshape.render.package import package
from hookshape.spec.load import SpecChoice


@click.command("package")
@spec_option
@profiles_option
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("build"),
              show_default=True, help="Directory for the tarball and SHA256SUMS.")
@click.option("--from", "source", type=click.Path(path_type=Path, file_okay=False, exists=True),
              default=None,
              help="Package this rendered tree (checked against its MANIFEST) instead of "
                   "rendering the spec in memory.")
def command(spec: SpecChoice, profile_dirs: tuple[Path, ...], out: Path,
            source: Path | None) -> None:
    """Build <out>/<harness>-hooks-<version>.tar.gz (dist/, INSTALL.md, the spec) and SHA256SUMS.

    Reproducible: two runs give the same bytes (mtimes from SOURCE_DATE_EPOCH, else a constant).
    """
    loaded = spec.load(profile_dirs)
    built = package(build(loaded), out, source)
    click.echo(f"{built.tarball}: {built.members} files, sha256 {built.sha256}")
    click.echo(f"{built.sums}: written")
