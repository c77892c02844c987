"""What one vendor config must carry: the plan's entries of that vendor shaped as the units the
config editors merge (a TOML block, a named bundle, or one entry per event), and the switches
that must be on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hookshape.plan.configs import events_tree, item, markers, root_key, toml_block
from hookshape.plan.entries import HookEntry
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile


@dataclass(frozen=True)
class Want:
    """Our units for one file, in order (hooks-json: (event, group); agy-json: (hook name,
    tree); codex-toml: ("block", text)) and the switches to turn on where explicitly off."""

    units: list[tuple[str, Any]]
    switches: list[str]
    commands: list[str] = field(default_factory=list)
    # a settings file beside the hooks file: the marker lines around the entries an older
    # install wrote there, to move out
    moved: tuple[str, str] | None = None


NOTHING = Want(units=[], switches=[])  # what an uninstall wants in a config


def wiring(spec: Spec, profile: Profile, entries: Sequence[HookEntry]) -> Want:
    """The units of these entries as the vendor's config shape holds them."""
    found = list(entries)
    if profile.config.syntax == "toml":
        units: list[tuple[str, Any]] = [("block", toml_block(spec, profile, found))]
    elif profile.config.bundled:
        units = [(root_key(spec, profile), events_tree(profile, found))]
    else:
        units = [(e.event, item(profile, e)) for e in found]
    # a vendor with a settings file of its own keeps its switches there (install edits it too)
    switches = [] if profile.config.settings else profile.config.switches
    return Want(units=units, switches=switches, commands=[e.command for e in found])


def settings_wiring(spec: Spec, profile: Profile) -> Want | None:
    """What the vendor's settings file beside its hooks file must carry (None: it has none):
    its switches on, and no block of entries an older install put there."""
    settings = profile.config.settings
    if settings is None:
        return None
    return Want(units=[], switches=profile.config.switches,
                moved=markers(spec) if settings.hooks else None)
