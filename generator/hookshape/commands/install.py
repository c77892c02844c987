"""`hookshape install`: the spec's plan (or a rendered tree's scripts with the spec's entries),
applied to a home: gates and tentacles staged, entries merged into the vendors' configs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, say, spec_option
from hookshape.install import installer
from hookshape.install.options import (
    change_options,
    home_option,
    project_option,
    scope_option,
    vendor_option,
)
from hookshape.install.paths import Scope
from hookshape.plan.homes import homes
from hookshape.plan.plan import Plan, build
from hookshape.render.manifest import listed_files
from hookshape.spec.load import Loaded, SpecChoice


def plan_of(loaded: Loaded, harness: Path, source: Path | None, scope: Scope = "user") -> Plan:
    """The spec's plan for this harness home and scope; with --from, its scripts are the
    tree's (checked against its MANIFEST)."""
    if source is None:
        return build(loaded, harness, scope=scope)
    scripts = listed_files(source, "bin/", "--from wants an extracted dist/ tree")
    return build(loaded, harness, scripts, source, scope)


@click.command("install")
@vendor_option
@scope_option
@project_option
@home_option
@change_options
@click.option("--from", "source", type=click.Path(path_type=Path, file_okay=False, exists=True),
              default=None, help="Copy the scripts from an extracted release or dist/ tree "
              "(checked against its MANIFEST) instead of rendering them; the spec it carries "
              "(its hookshape.toml) is the spec used.")
@spec_option
@profiles_option
def command(vendors: tuple[str, ...], scope: Scope, project: Path | None, home: Path | None,
            dry_run: bool, force: bool, source: Path | None, spec: SpecChoice,
            profile_dirs: tuple[Path, ...]) -> None:
    """Install the harness: scripts under the harness home, entries in each vendor's config.
    At project scope the scripts go into the project (harness.project_dir) and each entry
    names them through the vendor's own way of naming the project: a setup to commit."""
    loaded = (spec.carried_by(source) if source else spec).load(profile_dirs)
    where = homes(loaded.spec, home, os.environ)
    plan = plan_of(loaded, where.harness, source.resolve() if source else None, scope)
    code = installer.install(plan, where, vendors, scope, project, force, dry_run, say)
    if code:
        sys.exit(code)
