"""Vendor config blocks built as data (json.dumps, tomlkit), one builder per config format.

Render code branches on the profile's `config.format`, never on a vendor's name: a new vendor
with an existing format needs no code."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import tomlkit

from hookshape.entries import HookEntry
from hookshape.profiles import ConfigFormat, Profile
from hookshape.spec import Spec


def handler(entry: HookEntry) -> dict[str, Any]:
    return {"type": "command", "command": entry.command, "timeout": entry.timeout}


def group(entry: HookEntry) -> dict[str, Any]:
    """A matcher group: `{matcher?, hooks:[handler]}` (lifecycle events carry no matcher)."""
    out: dict[str, Any] = {} if entry.matcher is None else {"matcher": entry.matcher}
    out["hooks"] = [handler(entry)]
    return out


def hooks_tree(entries: list[HookEntry]) -> dict[str, list[dict[str, Any]]]:
    tree: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        tree.setdefault(entry.event, []).append(group(entry))
    return tree


def agy_tree(entries: list[HookEntry]) -> dict[str, list[dict[str, Any]]]:
    """agy: tool events take matcher groups, other events a flat handler list (wrapping those
    in a group makes them silently never fire)."""
    tree: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        item = group(entry) if entry.matcher is not None else handler(entry)
        tree.setdefault(entry.event, []).append(item)
    return tree


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def codex_markers(spec: Spec) -> tuple[str, str]:
    name = spec.harness.name
    return (f"# >>> hookshape {name} hooks (managed: edit hookshape.toml, not this block) >>>",
            f"# <<< hookshape {name} hooks <<<")


def codex_block(spec: Spec, entries: list[HookEntry]) -> str:
    """The `[[hooks.<Event>]]` tables between a start marker and an end fence."""
    body = tomlkit.dumps({"hooks": hooks_tree(entries)}).strip("\n")
    start, end = codex_markers(spec)
    return f"{start}\n{body}\n{end}\n"


def build_hooks_json(spec: Spec, profile: Profile, entries: list[HookEntry]) -> str:
    return dump_json({"hooks": hooks_tree(entries)})


def build_agy_json(spec: Spec, profile: Profile, entries: list[HookEntry]) -> str:
    return dump_json({spec.harness.name: agy_tree(entries)})


def build_codex_toml(spec: Spec, profile: Profile, entries: list[HookEntry]) -> str:
    return codex_block(spec, entries)


Builder = Callable[[Spec, Profile, list[HookEntry]], str]

BUILDERS: dict[ConfigFormat, tuple[str, Builder]] = {
    "hooks-json": ("settings.json", build_hooks_json),
    "codex-toml": ("config.toml", build_codex_toml),
    "agy-json": ("hooks.json", build_agy_json),
}


def render_config(spec: Spec, profile: Profile, entries: list[HookEntry]) -> tuple[str, str]:
    """(file name, text) of one vendor's config block."""
    filename, build = BUILDERS[profile.config.format]
    return filename, build(spec, profile, entries)
