"""`hookshape doctor`: per vendor, is the harness wired, and if not, why (and what to do)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, repeated_options, spec_option
from hookshape.install import request
from hookshape.install.doctor_checks import context, diagnose
from hookshape.install.findings import Report
from hookshape.install.options import home_option, vendor_option
from hookshape.loader import SpecChoice

MARK = {"error": "error", "warn": "warn ", "info": "info "}


def render_text(reports: list[Report]) -> str:
    lines = []
    for report in reports:
        if report.vendor == "harness":
            lines.append(f"harness home {report.display}")
        else:
            state = "wired" if report.wired else "NOT WIRED"
            lines.append(f"{report.vendor} ({report.display}): {state}")
        for f in report.findings:
            lines.append(f"  {MARK[f.severity]} {f.code}: {f.message}")
            if f.fix:
                lines.append(f"         fix: {f.fix}")
    return "\n".join(lines)


def render_json(reports: list[Report]) -> str:
    out = {"ok": all(r.wired for r in reports),
           "reports": [dict(asdict(r), wired=r.wired) for r in reports]}
    return json.dumps(out, indent=2)


@click.command("doctor")
@vendor_option
@home_option
@click.option("--project", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The project whose configs are checked too (default: cwd).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@spec_option
@profiles_option
def command(vendors: tuple[str, ...], home: Path | None, project: Path | None, as_json: bool,
            spec: SpecChoice, profile_dirs: tuple[Path, ...]) -> None:
    """Explain, per vendor, why a hook would not fire. Exit 1 when something stops them."""
    loaded = spec.load(profile_dirs)
    req = request.make(loaded, vendors, "user", project, home)
    ctx = context(loaded, req.homes, req.project, os.environ, again=repeated_options())
    reports = diagnose(ctx, req.profiles)
    click.echo(render_json(reports) if as_json else render_text(reports))
    if not all(r.wired for r in reports):
        sys.exit(1)
