"""One entry point per config format (profile `config.format`), never per vendor name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hookshape.configs import agy_tree, codex_block, codex_markers, group
from hookshape.entries import HookEntry, entries
from hookshape.install import agyjson, hooksjson, jsonedit, tomledit
from hookshape.install.managed import Owner
from hookshape.install.model import Known, Outcome, Want
from hookshape.profiles import ConfigFormat, Profile
from hookshape.spec import Spec

Units = Callable[[Spec, list[HookEntry]], list[tuple[str, object]]]


def _hooks_units(spec: Spec, found: list[HookEntry]) -> list[tuple[str, object]]:
    return [(e.event, group(e)) for e in found]


def _agy_units(spec: Spec, found: list[HookEntry]) -> list[tuple[str, object]]:
    return [(spec.harness.name, agy_tree(found))]


def _codex_units(spec: Spec, found: list[HookEntry]) -> list[tuple[str, object]]:
    return [("block", codex_block(spec, found))]


UNITS: dict[ConfigFormat, Units] = {
    "hooks-json": _hooks_units,
    "agy-json": _agy_units,
    "codex-toml": _codex_units,
}


def switches(profile: Profile) -> list[str]:
    return [s for s in [profile.config.enable_switch, *profile.config.legacy_switches] if s]


def want(spec: Spec, profile: Profile, harness_home: Path) -> Want:
    found = entries(spec, profile, home=str(harness_home))
    return Want(units=list(UNITS[profile.config.format](spec, found)), switches=switches(profile),
                commands=[e.command for e in found])


def marker_block(spec: Spec) -> str:
    start, end = codex_markers(spec)
    return f"{start}\n{end}\n"


def merge(profile: Profile, text: str, path: Path, own: Owner, wanted: Want, known: Known,
          force: bool) -> Outcome:
    fmt = profile.config.format
    if fmt == "codex-toml":
        return tomledit.merge(text, path, wanted, known, force)
    comments = profile.config.json_comments
    if fmt == "agy-json":
        return agyjson.merge(text, path, own, wanted, known, force, comments)
    return hooksjson.merge(text, path, own, wanted, known, force, comments)


def unmerge(spec: Spec, profile: Profile, text: str, path: Path, own: Owner, known: Known,
            force: bool) -> Outcome:
    fmt = profile.config.format
    if fmt == "codex-toml":
        return tomledit.unmerge(text, path, marker_block(spec), known, force)
    comments = profile.config.json_comments
    if fmt == "agy-json":
        return agyjson.unmerge(text, path, own, known, force, comments)
    return hooksjson.unmerge(text, path, own, known, force, comments)


def data(profile: Profile, text: str, path: Path) -> object:
    """A config's parsed data (a malformed file is a located user error)."""
    if profile.config.format == "codex-toml":
        return tomledit.loads(text, path)
    return jsonedit.loads(text, path, profile.config.json_comments) if text.strip() else {}


def is_empty(profile: Profile, text: str) -> bool:
    """Nothing but an empty document left (a file the install created may then go; not when
    someone wrote a comment in it)."""
    if profile.config.format == "codex-toml" or not text.strip():
        return not text.strip()
    return not jsonedit.has_comment(text) and json.loads(text) == {}
