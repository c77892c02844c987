"""`hookshape uninstall`: the exact reversal of an install, from its ledger."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, say, spec_option
from hookshape.install import ledger as ledgers
from hookshape.install import request, uninstaller
from hookshape.install.options import home_option, project_option, scope_option
from hookshape.install.paths import Scope
from hookshape.plan.homes import homes
from hookshape.spec.load import Loaded, SpecChoice


def _recorded(loaded: Loaded, home: Path | None) -> tuple[str, ...]:
    """Every vendor the ledger has a config for (the default selection)."""
    ledger = ledgers.load(homes(loaded.spec, home, os.environ).harness)
    found = {r.vendor for r in ledger.configs.values()} if ledger else set()
    return tuple(sorted(v for v in found if v in loaded.profiles))


@click.command("uninstall")
@click.option("--vendor", "vendors", multiple=True, metavar="V",
              help="A vendor id (repeatable; default: every vendor the install ledger records).")
@scope_option
@project_option
@home_option
@click.option("--dry-run", is_flag=True,
              help="Print the diffs and the files to remove; write nothing.")
@click.option("--force", is_flag=True,
              help="Also remove hookshape entries and staged scripts someone edited since the "
                   "install (they are kept otherwise).")
@spec_option
@profiles_option
def command(vendors: tuple[str, ...], scope: Scope, project: Path | None, home: Path | None,
            dry_run: bool, force: bool, spec: SpecChoice,
            profile_dirs: tuple[Path, ...]) -> None:
    """Remove what install wrote: entries, switches, scripts, directories it created."""
    loaded = spec.load(profile_dirs)
    names = vendors or _recorded(loaded, home) or tuple(p.id for p in loaded.vendors)
    req = request.make(loaded, names, scope, project, home, force=force, dry_run=dry_run,
                       enabled_only=False, named=bool(vendors), runs=False)
    for note in req.skipped:
        say(f"note: {note}")
    code = uninstaller.run(req, say)
    if code:
        sys.exit(code)
