"""The plan: everything a spec makes, computed once from the spec and the vendor profiles. Every
artifact's bytes (the scripts under bin/, one config block per vendor, CAPABILITIES, MANIFEST),
every vendor's hook entries and what its config must carry, every capability. render writes it
to dist/, package bundles it, install applies it; none of them renders anything itself.

A plan is made for a harness home: the portable `$HOME/<home>` of dist/ and the release package,
or the absolute home an install targets. The one difference is the command of each vendor entry
(the scripts never name their home: they find it at run time)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import (
    Artifact,
    capability_artifacts,
    config_artifact,
    job_files,
    manifest,
    script_artifacts,
)
from hookshape.plan.capabilities import Cell, table
from hookshape.plan.entries import HookEntry, entries, home_reference
from hookshape.plan.homes import Scope
from hookshape.plan.wiring import Want, settings_wiring, wiring
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile


@dataclass(frozen=True)
class VendorPlan:
    """One vendor: its profile, its hook entries (commands into the plan's home) and the units
    its config must carry for them (what install merges; dist/config holds them as a file)."""

    profile: Profile
    entries: tuple[HookEntry, ...]
    want: Want
    settings: Want | None = None  # what its settings file beside the hooks file must carry


@dataclass(frozen=True)
class Plan:
    loaded: Loaded
    home: str  # the harness home (state, ledger); user scope: the vendor entries run the gates there
    artifacts: tuple[Artifact, ...]  # dist/, by path, MANIFEST included
    scripts: tuple[Artifact, ...]  # the part of it install stages: the files under bin/
    vendors: dict[str, VendorPlan]  # the enabled vendors, in the spec's order
    capabilities: tuple[Cell, ...]
    scope: Scope = "user"  # project: the entries run the scripts a project holds


def build(loaded: Loaded, home: Path | None = None, scripts: list[Artifact] | None = None,
          source: Path | None = None, scope: Scope = "user") -> Plan:
    """The plan of a spec for a harness home (None: the portable `$HOME/<home>` of dist/).
    `scripts`: the bin/ files of an already rendered tree (`source`, checked to hold every file
    of every gate) instead of rendering them here. At project scope the vendor entries run the
    scripts inside the project (each vendor naming the project its own way); the vendors that
    cannot run a project's setup are left out."""
    if scripts is None:
        scripts = script_artifacts(loaded)
    else:
        check_complete(loaded, scripts, source or Path("."))
    base = home_reference(loaded.spec) if home is None else str(home)
    vendors = {p.id: vendor_plan(loaded, p, base, scope) for p in loaded.vendors
               if scope == "user" or p.project.root}
    cells = table(loaded)
    arts = list(scripts) + [config_artifact(loaded, v.profile, list(v.entries))
                            for v in vendors.values()]
    arts += capability_artifacts(loaded, cells)
    arts.append(manifest(loaded, arts))
    return Plan(loaded, base, tuple(sorted(arts, key=lambda a: a.path)),
                tuple(sorted(scripts, key=lambda a: a.path)), vendors, tuple(cells), scope)


def vendor_plan(loaded: Loaded, profile: Profile, home: str, scope: Scope = "user") -> VendorPlan:
    found = entries(loaded.spec, profile, home=home, scope=scope)
    return VendorPlan(profile, tuple(found), wiring(loaded.spec, profile, found),
                      settings_wiring(loaded.spec, profile))


def check_complete(loaded: Loaded, scripts: list[Artifact], source: Path) -> None:
    """A rendered tree must hold every file of every gate of the spec in use."""
    have = {a.path for a in scripts}
    for tentacle in loaded.spec.gates():
        for rel in job_files(loaded, tentacle.name):
            if rel not in have:
                raise HookshapeError(f"{source}: no {rel} in MANIFEST; was it rendered from "
                                     f"another spec than {loaded.spec_path}?")
