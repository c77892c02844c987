"""`hookshape package [--as FORMAT] [--out DIR] [--marketplace] [--from DIST]`: a reproducible
release tarball, or a vendor plugin or extension directory."""

from __future__ import annotations

from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.errors import HookshapeError
from hookshape.package.plugin import package_plugin
from hookshape.package.tarball import package
from hookshape.spec.load import Loaded, SpecChoice

TARBALL = "tarball"
DEFAULT_OUT = Path("build")


@click.command("package")
@spec_option
@profiles_option
@click.option("--as", "fmt", default=TARBALL, show_default=True, metavar="FORMAT",
              help="tarball, or a vendor plugin format: claude-plugin, codex-plugin, "
                   "gemini-extension, copilot-plugin, cursor-plugin (a profile's [plugin] format).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="tarball: the directory for the tarball and SHA256SUMS [default: build]. "
                   "A plugin format: the directory that becomes the plugin, new or empty "
                   "[default: build/<name>-<format>].")
@click.option("--marketplace", is_flag=True,
              help="A plugin format: OUT becomes a marketplace with the plugin in it "
                   "(plugins/<name>/), for the vendor's `plugin marketplace add OUT`.")
@click.option("--from", "source", type=click.Path(path_type=Path, file_okay=False, exists=True),
              default=None,
              help="Package this rendered tree (checked against its MANIFEST) instead of "
                   "rendering the spec in memory.")
def command(spec: SpecChoice, profile_dirs: tuple[Path, ...], fmt: str, out: Path | None,
            marketplace: bool, source: Path | None) -> None:
    """Build <out>/<harness>-hooks-<version>.tar.gz (dist/, INSTALL.md, the spec) and SHA256SUMS,
    or, with --as, the harness as a vendor's plugin or extension: manifest, hooks file, scripts,
    README and LICENSE, from the spec's [package] and the vendor's profile.

    Reproducible: two runs give the same bytes (mtimes from SOURCE_DATE_EPOCH, else a constant).
    """
    loaded = spec.load(profile_dirs)
    if fmt == TARBALL:
        if marketplace:
            raise HookshapeError("--marketplace: only with a plugin format (--as)")
        built = package(loaded, out or DEFAULT_OUT, source)
        click.echo(f"{built.tarball}: {built.members} files, sha256 {built.sha256}")
        click.echo(f"{built.sums}: written")
        return
    plugin(loaded, fmt, out, marketplace, source)


def plugin(loaded: Loaded, fmt: str, out: Path | None, marketplace: bool,
           source: Path | None) -> None:
    pkg = loaded.spec.package
    target = out or DEFAULT_OUT / f"{pkg.name}-{fmt}"
    built = package_plugin(loaded, fmt, target, source, marketplace)
    where = f" (marketplace {pkg.marketplace}, the plugin in {built.plugin_dir}/)" if built.plugin_dir else ""
    click.echo(f"{target}: {fmt} {pkg.name} {pkg.version}{where}, {len(built.files)} files")
    if not (pkg.license or pkg.license_file):
        click.echo("note: [package] names no license: its LICENSE grants none")
