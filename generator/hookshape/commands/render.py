"""`hookshape render [--spec F] [--out D] [--check]`: validate, then write dist/ or check drift."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, repeated_options, spec_option, warn_about
from hookshape.plan.plan import build
from hookshape.render.write import diff_plan, write_plan
from hookshape.spec.load import Loaded, SpecChoice


def default_out(loaded: Loaded) -> Path:
    """dist/ next to the spec; for the built-in default spec ./dist (never the package's own
    folder)."""
    base = Path.cwd() if loaded.builtin else loaded.spec_path.resolve().parent
    return base / "dist"


@click.command("render")
@spec_option
@profiles_option
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output directory (default: dist/ next to the spec; with --default, ./dist).")
@click.option("--check", is_flag=True, help="Render in memory; exit 1 with a diff if the output differs.")
def command(spec: SpecChoice, profile_dirs: tuple[Path, ...], out: Path | None, check: bool) -> None:
    """Render the spec into dist/ (gates, tentacles, vendor configs, MANIFEST, CAPABILITIES)."""
    loaded = spec.load(profile_dirs)
    warn_about(loaded)
    target = out or default_out(loaded)
    artifacts = build(loaded).artifacts
    if check:
        drift = diff_plan(target, artifacts)
        if drift:
            click.echo(drift, nl=False)
            again = repeated_options() + (f" --out {shlex.quote(str(out))}" if out else "")
            click.echo(f"hookshape: {target} differs from the spec; run `hookshape render{again}`",
                       err=True)
            sys.exit(1)
        click.echo(f"{target}: up to date ({len(artifacts)} files)")
        return
    done = write_plan(target, artifacts)
    removed = f", {len(done.removed)} stale removed" if done.removed else ""
    click.echo(f"{target}: {len(done.written)} of {len(artifacts)} files written{removed}")
