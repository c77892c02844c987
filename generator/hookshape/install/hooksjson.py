"""The `hooks-json` format (Claude Code, Gemini CLI settings.json): our matcher groups inside
`hooks.<Event>` arrays, merged into the user's text surgically.

A unit is a group whose every handler is ours; a handler of ours inside a user's group is a
partial unit (removed on reinstall, so the new group does not run the gate twice)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookshape.errors import ConfigError
from hookshape.install import jsonedit as je
from hookshape.install.managed import Owner, all_ours, unit_hash
from hookshape.install.model import JsonPath, Known, Outcome, Unit, Want

HOOKS = "hooks"


@dataclass(frozen=True)
class Found:
    event: str
    index: int
    handler: int | None  # None: the whole group is ours
    value: Any

    @property
    def whole(self) -> bool:
        return self.handler is None


def normalise(text: str) -> str:
    """An empty (or all-blank) settings file is an empty object; one that holds only comments
    gets the object after them."""
    if not text.strip():
        return "{}\n"
    if je.strip_comments(text).strip():
        return text
    return text + ("" if text.endswith("\n") else "\n") + "{}\n"


def style_of(text: str, root: je.Node) -> je.Style:
    """The file's style; a file that is only `{}` gets the rendered configs' 2-space style."""
    style = je.detect_style(text)
    if root.members or style.unit:
        return style
    return je.Style(unit="  ", colon=": ", comma=", ", newline=style.newline)


def hooks_node(text: str, root: je.Node, path: Path) -> je.Node | None:
    node = root.get(HOOKS)
    if node is not None and node.kind != "object":
        raise ConfigError(f"{path}: `{HOOKS}` is not an object; fix it by hand first")
    return node


def found_units(text: str, root: je.Node, own: Owner) -> list[Found]:
    hooks = root.get(HOOKS)
    if hooks is None or hooks.kind != "object":
        return []
    out: list[Found] = []
    for member in hooks.members:
        if member.value.kind == "array":
            for index, item in enumerate(member.value.items):
                out += _in_group(member.key, index, je.data(text, item), own)
    return out


def _in_group(event: str, index: int, group: Any, own: Owner) -> list[Found]:
    if not isinstance(group, dict) or not isinstance(group.get(HOOKS), list):
        return []
    if all_ours(own, group):
        return [Found(event, index, None, group)]
    return [Found(event, index, h_index, handler) for h_index, handler in enumerate(group[HOOKS])
            if isinstance(handler, dict) and own.owns(handler.get("command"))]


def conflicts(found: list[Found], want: Want, known: Known, path: Path) -> list[str]:
    """Managed units someone edited since the last install (not a hash the ledger wrote)."""
    if known.hashes is None:
        return []
    wanted = [value for _, value in want.units]
    return [f"{path}: hooks.{f.event}[{f.index}]: a hookshape entry was edited since the last "
            "install (kept; --force replaces it)"
            for f in found if unit_hash(f.value) not in known.hashes and f.value not in wanted]


def _drop_one(text: str, found: Found) -> str:
    array = _array(text, found.event)
    if found.handler is None:
        return je.remove_item(text, array, found.index)
    handlers = array.items[found.index].get(HOOKS)
    assert handlers is not None
    return je.remove_item(text, handlers, found.handler)


def drop_event(text: str, own: Owner, event: str) -> str:
    """Remove every unit of ours under one event, last first so earlier indices stay valid."""
    mine = [f for f in found_units(text, je.scan(text), own) if f.event == event]
    for found in reversed(mine):
        text = _drop_one(text, found)
    return text


def add_groups(text: str, event: str, groups: list[Any],
               style: je.Style) -> tuple[str, list[JsonPath]]:
    """Append groups to `hooks.<event>`, creating the array (and `hooks`) where missing."""
    root = je.scan(text)
    hooks = root.get(HOOKS)
    if hooks is None:
        text = je.append_member(text, root, HOOKS, {event: groups}, style)
        return text, [(HOOKS,), (HOOKS, event)]
    array = hooks.get(event)
    if array is None or array.kind != "array":
        if array is not None:
            raise ConfigError(f"hooks.{event} is not an array")
        return je.append_member(text, hooks, event, groups, style), [(HOOKS, event)]
    for group in groups:
        text = je.append_item(text, _array(text, event), group, style)
    return text, []


def _array(text: str, event: str) -> je.Node:
    """`hooks.<event>` of the current text (the caller knows it exists)."""
    hooks = je.scan(text).get(HOOKS)
    node = hooks.get(event) if hooks is not None else None
    assert node is not None
    return node


def _events(found: list[Found], want: Want) -> list[str]:
    order: list[str] = []
    for event in [f.event for f in found] + [key for key, _ in want.units]:
        if event not in order:
            order.append(event)
    return order


def _settled(found: list[Found], wanted: list[Any]) -> bool:
    return all(f.whole for f in found) and [f.value for f in found] == wanted


def prune(text: str, created: tuple[JsonPath, ...]) -> str:
    """Remove members earlier installs created that are now empty (`[]` / `{}`), deepest first."""
    for path in sorted(created, key=len, reverse=True):
        root = je.scan(text)
        parent = je.find(root, ".".join(path[:-1])) if len(path) > 1 else root
        node = parent.get(path[-1]) if parent is not None and parent.kind == "object" else None
        if parent is not None and node is not None and je.data(text, node) in ([], {}):
            text = je.remove_member(text, parent, path[-1])
    return text


def set_switches(text: str, paths: list[str], value: bool,
                 style: je.Style) -> tuple[str, list[str]]:
    """Flip each switch that is explicitly the opposite literal; returns the ones flipped."""
    flipped = []
    opposite = "false" if value else "true"
    for dotted in paths:
        node = je.find(je.scan(text), dotted)
        if node is not None and text[node.start:node.end] == opposite:
            text = je.replace_value(text, node, value, style)
            flipped.append(dotted)
    return text, flipped


def merge(text: str, path: Path, own: Owner, want: Want, known: Known, force: bool,
          comments: bool = False) -> Outcome:
    text = normalise(text)
    root = je.parse(text, path, comments)
    hooks_node(text, root, path)
    style = style_of(text, root)
    found = found_units(text, root, own)
    clash = conflicts(found, want, known, path)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    created: list[JsonPath] = []
    for event in _events(found, want):
        wanted = [value for key, value in want.units if key == event]
        mine = [f for f in found_units(text, je.scan(text), own) if f.event == event]
        if _settled(mine, wanted):
            continue
        text = drop_event(text, own, event)
        if wanted:
            text, made = add_groups(text, event, wanted, style)
            created += made
    text = prune(text, tuple(p for p in known.created if p not in created))
    text, switched = set_switches(text, want.switches, True, style)
    je.loads(text, path, comments)
    units = [Unit(key, unit_hash(value)) for key, value in want.units]
    return Outcome(text=text, units=units, switches=switched, created=created)


def unmerge(text: str, path: Path, own: Owner, known: Known, force: bool,
            comments: bool = False) -> Outcome:
    """Our units out, created members pruned, switches we turned on turned back off."""
    text = normalise(text)
    root = je.parse(text, path, comments)
    found = found_units(text, root, own)
    clash = conflicts(found, Want(units=[], switches=[]), known, path)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    for event in _events(found, Want(units=[], switches=[])):
        text = drop_event(text, own, event)
    text = prune(text, known.created)
    text, _ = set_switches(text, list(known.switches), False, style_of(text, je.scan(text)))
    je.loads(text, path, comments)
    return Outcome(text=text)
