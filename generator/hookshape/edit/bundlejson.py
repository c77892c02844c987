"""JSON configs of named bundles (profile `config.root = "{name}"`: a standalone hooks file whose
top-level keys are hook names): ours is one named member, replaced in place or appended; a member
whose every command is ours under another name (an older spec's harness name) is stale and goes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookshape.edit import jsonedit as je
from hookshape.edit.hooksjson import normalise, style_of
from hookshape.edit.managed import Owner, all_ours, unit_hash
from hookshape.edit.units import JsonPath, Known, Outcome, Unit
from hookshape.errors import ConfigError
from hookshape.plan.wiring import NOTHING, Want


def found_members(text: str, root: je.Node, own: Owner, key: str = "command") -> list[tuple[str, Any]]:
    """(name, value) of every top-level member whose commands (under the handler key) are all
    ours."""
    out = []
    for member in root.members:
        value = je.data(text, member.value)
        if all_ours(own, value, key):
            out.append((member.key, value))
    return out


def _conflicts(text: str, root: je.Node, found: list[tuple[str, Any]], want: Want, known: Known,
               path: Path) -> list[str]:
    clash = []
    for name, _ in want.units:
        node = root.get(name)
        if node is not None and name not in dict(found):
            clash.append(f"{path}: a hook named {name!r} exists that hookshape did not write "
                         "(kept; --force replaces it)")
    if known.hashes is not None:
        wanted = [value for _, value in want.units]
        clash += [f"{path}: {name}: a hookshape hook was edited since the last install "
                  "(kept; --force replaces it)"
                  for name, value in found
                  if unit_hash(value) not in known.hashes and value not in wanted]
    return clash


def _put(text: str, name: str, value: Any, style: je.Style) -> tuple[str, bool]:
    """Replace the member's value in place, or append the member; True when appended."""
    root = je.scan(text)
    node = root.get(name)
    if node is None:
        return je.append_member(text, root, name, value, style), True
    if je.data(text, node) == value:
        return text, False
    return je.replace_value(text, node, value, style), False


def _drop(text: str, names: list[str]) -> str:
    for name in names:
        root = je.scan(text)
        if root.get(name) is not None:
            text = je.remove_member(text, root, name)
    return text


def merge(text: str, path: Path, own: Owner, want: Want, known: Known, force: bool,
          comments: bool = False, key: str = "command") -> Outcome:
    text = normalise(text)
    root = je.parse(text, path, comments)
    style = style_of(text, root)
    found = found_members(text, root, own, key)
    clash = _conflicts(text, root, found, want, known, path)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    keep = {name for name, _ in want.units}
    text = _drop(text, [name for name, _ in found if name not in keep])
    created: list[JsonPath] = []
    for name, value in want.units:
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: {name}: internal error: a hook tree must be an object")
        text, appended = _put(text, name, value, style)
        if appended:
            created.append((name,))
    je.loads(text, path, comments)
    return Outcome(text=text, units=[Unit(k, unit_hash(v)) for k, v in want.units], created=created)


def unmerge(text: str, path: Path, own: Owner, known: Known, force: bool,
            comments: bool = False, key: str = "command") -> Outcome:
    text = normalise(text)
    root = je.parse(text, path, comments)
    found = found_members(text, root, own, key)
    clash = _conflicts(text, root, found, NOTHING, known, path)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    text = _drop(text, [name for name, _ in found])
    je.loads(text, path, comments)
    return Outcome(text=text)
