"""`hookshape vendors [--json]`: every vendor of the loaded profiles, its confidence, its config
files, and what it can enforce on each event the spec has a gate on (the rules of `hookshape
capabilities`, applied to each vendor whether or not the spec enables it). The spec is optional:
without --spec, --default or ./hookshape.toml the built-in default harness is the spec the rules
are applied to."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import click

from hookshape.commands.options import profiles_option, spec_option
from hookshape.plan.capabilities import Cell, cell, group_cell
from hookshape.plan.contract import to_contract, to_doc
from hookshape.spec.hooks import Group
from hookshape.spec.load import SPEC_NAME, Loaded, SpecChoice
from hookshape.spec.profiles import Profile
from hookshape.spec.tentacles import Tentacle


@dataclass(frozen=True)
class Vendor:
    id: str
    display: str
    confidence: str
    enabled: bool  # by the spec the capabilities are computed for
    user_config: str
    project_config: str
    caveat: str
    roles: list[Cell]  # one per gate of the spec, in the spec's order


def gate_cell(loaded: Loaded, profile: Profile, gate: Tentacle | Group) -> Cell:
    if isinstance(gate, Group):
        return group_cell(loaded.spec, profile, gate)
    return cell(loaded.spec, profile, gate.role)


def columns(loaded: Loaded) -> list[str]:
    """A column per gate: its event, or its name where two gates share an event."""
    gates = loaded.spec.gates()
    events = [g.role for g in gates]
    return [g.role if events.count(g.role) == 1 else g.name for g in gates]


def describe(loaded: Loaded, profile: Profile) -> Vendor:
    settings = loaded.spec.vendors.get(profile.id)
    return Vendor(id=profile.id, display=profile.vendor.display, confidence=profile.vendor.confidence,
                  enabled=settings is not None and settings.enabled,
                  user_config=profile.config.user_path, project_config=profile.config.project_path,
                  caveat=profile.vendor.caveat,
                  roles=[gate_cell(loaded, profile, g) for g in loaded.spec.gates()])


def choose(spec: SpecChoice) -> SpecChoice:
    """The spec the user named, else ./hookshape.toml, else the built-in default harness."""
    if spec.given is not None or spec.builtin or Path(SPEC_NAME).is_file():
        return spec
    return SpecChoice(builtin=True)


def spec_label(loaded: Loaded) -> str:
    return "the built-in default harness" if loaded.builtin else f"the spec {loaded.spec_path}"


def to_json(loaded: Loaded, vendors: list[Vendor]) -> str:
    out: dict[str, Any] = {"spec": None if loaded.builtin else str(loaded.spec_path),
                           "vendors": [{**asdict(v), "roles": [c.to_json() for c in v.roles]} for v in vendors]}
    return json.dumps(out, indent=2) + "\n"


def to_table(loaded: Loaded, vendors: list[Vendor]) -> str:
    head = ["vendor", "name", "confidence", "in spec", *columns(loaded), "user config",
            "project config"]
    rows = [[v.id, v.display, v.confidence, "yes" if v.enabled else "no",
             *(c.level for c in v.roles), v.user_config, v.project_config] for v in vendors]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(col.ljust(w) for col, w in zip(row, widths, strict=True)).rstrip()
             for row in [head, *rows]]
    lines += ["", f"what each event of {spec_label(loaded)} can enforce; "
                  "the reasons: `hookshape vendors --json` or `hookshape capabilities`"]
    return "\n".join(lines) + "\n"


@click.command("vendors")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--contract", is_flag=True,
              help="The user-hook contract per vendor (event names, exit 2, stdout) as markdown.")
@click.option("--doc", is_flag=True,
              help="The whole vendors page (docs/vendors.md) as markdown: the contract, the answers, "
                   "the view, where hooks live, every fact with its source.")
@spec_option
@profiles_option
def command(as_json: bool, contract: bool, doc: bool, spec: SpecChoice, profile_dirs: tuple[Path, ...]) -> None:
    """List the vendors: confidence, config files, and what each can enforce per event."""
    loaded = choose(spec).load(profile_dirs)
    profiles = [loaded.profiles[v] for v in sorted(loaded.profiles)]
    if contract or doc:
        click.echo(to_doc(profiles) if doc else to_contract(profiles), nl=False)
        return
    vendors = [describe(loaded, loaded.profiles[v]) for v in sorted(loaded.profiles)]
    click.echo(to_json(loaded, vendors) if as_json else to_table(loaded, vendors), nl=False)
