"""JSON configs whose events sit under one key (or at the top level): our entries inside the
`<root>.<Event>` arrays, merged into the user's text surgically. An entry is a matcher group
(`{matcher?, hooks:[handler]}`) or a flat handler, as the profile's layout says; the handler's
command key is the profile's too.

A unit is an entry whose every handler is ours; a handler of ours inside a user's group is a
partial unit (removed on reinstall, so the new group does not run the gate twice)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookshape.edit import jsonedit as je
from hookshape.edit.managed import Owner, all_ours, unit_hash
from hookshape.edit.units import JsonPath, Known, Outcome, Unit
from hookshape.errors import ConfigError
from hookshape.plan.wiring import NOTHING, Want

GROUP_HANDLERS = "hooks"


@dataclass(frozen=True)
class Tree:
    """Where the events sit (root key, "" = top level), the handler's command key, and the
    top-level keys the file must hold (written when absent, recorded as created)."""

    root: str = "hooks"
    command: str = "command"
    extras: dict[str, Any] = field(default_factory=dict)

    def where(self, event: str) -> str:
        return f"{self.root}.{event}" if self.root else event

    def path(self, event: str) -> JsonPath:
        return (self.root, event) if self.root else (event,)


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


def hooks_node(text: str, root: je.Node, path: Path, tree: Tree) -> je.Node | None:
    if not tree.root:
        return root
    node = root.get(tree.root)
    if node is not None and node.kind != "object":
        raise ConfigError(f"{path}: `{tree.root}` is not an object; fix it by hand first")
    return node


def found_units(text: str, root: je.Node, own: Owner, tree: Tree) -> list[Found]:
    hooks = root if not tree.root else root.get(tree.root)
    if hooks is None or hooks.kind != "object":
        return []
    out: list[Found] = []
    for member in hooks.members:
        if member.value.kind == "array":
            for index, item in enumerate(member.value.items):
                out += _in_entry(member.key, index, je.data(text, item), own, tree.command)
    return out


def _in_entry(event: str, index: int, entry: Any, own: Owner, key: str) -> list[Found]:
    if not isinstance(entry, dict):
        return []
    if not isinstance(entry.get(GROUP_HANDLERS), list):
        return [Found(event, index, None, entry)] if own.owns(entry.get(key)) else []
    if all_ours(own, entry, key):
        return [Found(event, index, None, entry)]
    return [Found(event, index, h_index, handler) for h_index, handler in enumerate(entry[GROUP_HANDLERS])
            if isinstance(handler, dict) and own.owns(handler.get(key))]


def conflicts(found: list[Found], want: Want, known: Known, path: Path, tree: Tree) -> list[str]:
    """Managed units someone edited since the last install (not a hash the ledger wrote)."""
    if known.hashes is None:
        return []
    wanted = [value for _, value in want.units]
    return [f"{path}: {tree.where(f.event)}[{f.index}]: a hookshape entry was edited since the last "
            "install (kept; --force replaces it)"
            for f in found if unit_hash(f.value) not in known.hashes and f.value not in wanted]


def _drop_one(text: str, found: Found, tree: Tree) -> str:
    array = _array(text, found.event, tree)
    if found.handler is None:
        return je.remove_item(text, array, found.index)
    handlers = array.items[found.index].get(GROUP_HANDLERS)
    assert handlers is not None
    return je.remove_item(text, handlers, found.handler)


def drop_event(text: str, own: Owner, event: str, tree: Tree) -> str:
    """Remove every unit of ours under one event, last first so earlier indices stay valid."""
    mine = [f for f in found_units(text, je.scan(text), own, tree) if f.event == event]
    for found in reversed(mine):
        text = _drop_one(text, found, tree)
    return text


def add_entries(text: str, event: str, entries: list[Any], style: je.Style,
                tree: Tree) -> tuple[str, list[JsonPath]]:
    """Append entries to `<root>.<event>`, creating the array (and the root) where missing."""
    root = je.scan(text)
    hooks = root if not tree.root else root.get(tree.root)
    if hooks is None:
        text = je.append_member(text, root, tree.root, {event: entries}, style)
        return text, [(tree.root,), (tree.root, event)]
    array = hooks.get(event)
    if array is None or array.kind != "array":
        if array is not None:
            raise ConfigError(f"{tree.where(event)} is not an array")
        return je.append_member(text, hooks, event, entries, style), [tree.path(event)]
    for entry in entries:
        text = je.append_item(text, _array(text, event, tree), entry, style)
    return text, []


def add_extras(text: str, tree: Tree, style: je.Style) -> tuple[str, list[JsonPath]]:
    """The top-level keys the vendor wants beside the entries, where the file has none."""
    made: list[JsonPath] = []
    for key, value in tree.extras.items():
        root = je.scan(text)
        if root.get(key) is None:
            text = je.append_member(text, root, key, value, style)
            made.append((key,))
    return text, made


def _array(text: str, event: str, tree: Tree) -> je.Node:
    """`<root>.<event>` of the current text (the caller knows it exists)."""
    root = je.scan(text)
    hooks = root if not tree.root else root.get(tree.root)
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


def _in_place(found: list[Found], wanted: list[Any]) -> bool:
    """Our entries of an event can be rewritten where they are: as many whole ones as wanted.
    Nothing moves then, so a vendor that keys a hook by its position (Codex's trust records)
    keeps every other entry's key, and an unchanged entry is not written at all."""
    return bool(found) and all(f.whole for f in found) and len(found) == len(wanted)


def replace_entries(text: str, event: str, found: list[Found], wanted: list[Any], style: je.Style,
                    tree: Tree) -> str:
    """Each entry of ours that differs from the one wanted at its place, rewritten there."""
    for mine, value in zip(found, wanted, strict=True):
        if mine.value != value:
            node = _array(text, event, tree).items[mine.index]
            text = je.replace_value(text, node, value, style)
    return text


def prune(text: str, created: tuple[JsonPath, ...], extras: dict[str, Any] | None = None) -> str:
    """Remove members earlier installs created that are now empty (`[]` / `{}`), deepest first;
    with `extras` (an uninstall), also the extras it created, once nothing else is left beside
    them."""
    for path in sorted(created, key=len, reverse=True):
        root = je.scan(text)
        parent = je.find(root, ".".join(path[:-1])) if len(path) > 1 else root
        node = parent.get(path[-1]) if parent is not None and parent.kind == "object" else None
        if parent is not None and node is not None and je.data(text, node) in ([], {}):
            text = je.remove_member(text, parent, path[-1])
    mine = [p[0] for p in created if len(p) == 1 and extras and p[0] in extras]
    root = je.scan(text)
    if mine and {m.key for m in root.members} <= set(mine):
        for key in mine:
            text = je.remove_member(text, je.scan(text), key)
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
          comments: bool = False, tree: Tree | None = None) -> Outcome:
    tree = tree or Tree()
    text = normalise(text)
    root = je.parse(text, path, comments)
    hooks_node(text, root, path, tree)
    style = style_of(text, root)
    found = found_units(text, root, own, tree)
    clash = conflicts(found, want, known, path, tree)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    created: list[JsonPath] = []
    for event in _events(found, want):
        wanted = [value for key, value in want.units if key == event]
        mine = [f for f in found_units(text, je.scan(text), own, tree) if f.event == event]
        if _settled(mine, wanted):
            continue
        if _in_place(mine, wanted):
            text = replace_entries(text, event, mine, wanted, style, tree)
            continue
        text = drop_event(text, own, event, tree)
        if wanted:
            text, made = add_entries(text, event, wanted, style, tree)
            created += made
    if want.units:
        text, made = add_extras(text, tree, style)
        created += made
    text = prune(text, tuple(p for p in known.created if p not in created))
    text, switched = set_switches(text, want.switches, True, style)
    je.loads(text, path, comments)
    units = [Unit(key, unit_hash(value)) for key, value in want.units]
    return Outcome(text=text, units=units, switches=switched, created=created)


def unmerge(text: str, path: Path, own: Owner, known: Known, force: bool,
            comments: bool = False, tree: Tree | None = None) -> Outcome:
    """Our units out, created members pruned, switches we turned on turned back off."""
    tree = tree or Tree()
    text = normalise(text)
    root = je.parse(text, path, comments)
    found = found_units(text, root, own, tree)
    clash = conflicts(found, NOTHING, known, path, tree)
    if clash and not force:
        return Outcome(text=text, conflicts=clash)
    for event in _events(found, NOTHING):
        text = drop_event(text, own, event, tree)
    text = prune(text, known.created, tree.extras)
    text, _ = set_switches(text, list(known.switches), False, style_of(text, je.scan(text)))
    je.loads(text, path, comments)
    return Outcome(text=text)
