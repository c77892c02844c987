"""Vendor config blocks built as data (json.dumps, tomlkit) from the profile's `[config]`: its
syntax, the key holding the entries, how entries sit per event (layout) and the handler's keys.
Render code reads those facts, never a vendor's name: a new vendor needs no code."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

import tomlkit

from hookshape.plan.entries import HookEntry
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile

# the key of a matcher group's handler list (Claude's shape, shared by every grouped layout)
GROUP_HANDLERS = "hooks"


def handler(profile: Profile, entry: HookEntry) -> dict[str, Any]:
    keys = profile.config.handler
    out: dict[str, Any] = {"type": keys.type} if keys.type else {}
    out[keys.command] = entry.command
    out[keys.timeout] = entry.timeout
    out.update(keys.extra)
    if entry.detached and keys.async_key:
        # the vendor runs the gate of async hooks in the background (the gate itself detaches
        # them on a vendor without the key)
        out[keys.async_key] = True
    return out


def _matcher(entry: HookEntry) -> dict[str, Any]:
    return {} if entry.matcher is None else {"matcher": entry.matcher}


def item(profile: Profile, entry: HookEntry) -> dict[str, Any]:
    """One entry as its layout shapes it: a matcher group, a flat handler, or a list element."""
    layout = profile.config.layout
    if layout == "list":
        return {profile.config.handler.event: entry.event, **_matcher(entry), **handler(profile, entry)}
    tool_event = entry.role in profile.matcher.roles
    if layout == "flat" or (layout == "groups-for-matchers" and not tool_event):
        return {**_matcher(entry), **handler(profile, entry)}
    return {**_matcher(entry), GROUP_HANDLERS: [handler(profile, entry)]}


def events_tree(profile: Profile, entries: list[HookEntry]) -> dict[str, list[dict[str, Any]]]:
    tree: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        tree.setdefault(entry.event, []).append(item(profile, entry))
    return tree


def root_key(spec: Spec, profile: Profile) -> str:
    """The key holding the entries ("" for the top level; a named bundle's key is the harness
    name)."""
    root = profile.config.root
    return spec.harness.name if root == "{name}" else root


def body(spec: Spec, profile: Profile, entries: list[HookEntry]) -> dict[str, Any]:
    """The entries under their root key (without the file's extras)."""
    if profile.config.layout == "list":
        return {root_key(spec, profile): [item(profile, e) for e in entries]}
    tree = events_tree(profile, entries)
    key = root_key(spec, profile)
    return {key: tree} if key else dict(tree)


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def markers(spec: Spec) -> tuple[str, str]:
    """The lines around the block of entries hookshape writes into a TOML config."""
    name = spec.harness.name
    return (f"# >>> hookshape {name} hooks (managed: edit hookshape.toml, not this block) >>>",
            f"# <<< hookshape {name} hooks <<<")


def toml_block(spec: Spec, profile: Profile, entries: list[HookEntry]) -> str:
    """The entries as TOML tables between a start marker and an end fence."""
    text = tomlkit.dumps(body(spec, profile, entries)).strip("\n")
    start, end = markers(spec)
    return f"{start}\n{text}\n{end}\n"


def file_name(spec: Spec, profile: Profile) -> str:
    """The config's file name in dist/config/<vendor>/ (the project file's name)."""
    raw = profile.config.project_path or profile.config.user_path
    return PurePosixPath(raw.replace("{name}", spec.harness.name)).name


def render_config(spec: Spec, profile: Profile, entries: list[HookEntry]) -> tuple[str, str]:
    """(file name, text) of one vendor's config block."""
    if profile.config.syntax == "toml":
        return file_name(spec, profile), toml_block(spec, profile, entries)
    return file_name(spec, profile), dump_json({**profile.config.extras, **body(spec, profile, entries)})
