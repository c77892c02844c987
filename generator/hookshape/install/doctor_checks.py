"""`hookshape doctor`: for each vendor, is the harness wired, and if not, why. An `error` is
something that stops hooks from firing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookshape.install.findings import Ctx, Report
from hookshape.install.harness_checks import harness_report
from hookshape.install.managed import owner
from hookshape.install.paths import Homes
from hookshape.install.vendor_checks import vendor_report
from hookshape.loader import Loaded
from hookshape.profiles import Profile


def context(loaded: Loaded, homes: Homes, project: Path, env: Mapping[str, str],
            again: str = "") -> Ctx:
    """`again`: the options to repeat in every suggested command (e.g. ` --spec x.toml`)."""
    return Ctx(loaded=loaded, homes=homes, project=project, env=env, own=owner(loaded.spec),
               again=again)


def diagnose(ctx: Ctx, profiles: list[Profile]) -> list[Report]:
    return [harness_report(ctx)] + [vendor_report(ctx, p) for p in profiles]
