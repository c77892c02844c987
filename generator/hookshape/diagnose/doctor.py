"""`hookshape doctor`: for each vendor, is the harness wired, and if not, why. An `error` is
something that stops hooks from firing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookshape.diagnose.findings import Ctx, Report
from hookshape.diagnose.harness_checks import harness_report
from hookshape.diagnose.vendor_checks import vendor_report
from hookshape.edit.managed import owner
from hookshape.plan.homes import Homes
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile


def context(loaded: Loaded, homes: Homes, project: Path, env: Mapping[str, str],
            again: str = "") -> Ctx:
    """`again`: the options to repeat in every suggested command (e.g. ` --spec x.toml`)."""
    return Ctx(loaded=loaded, homes=homes, project=project, env=env, own=owner(loaded.spec),
               again=again)


def diagnose(ctx: Ctx, profiles: list[Profile]) -> list[Report]:
    return [harness_report(ctx)] + [vendor_report(ctx, p) for p in profiles]
