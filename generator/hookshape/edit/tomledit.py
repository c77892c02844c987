"""TOML configs (profile `config.syntax = "toml"`): our tables live between a start marker line and
an end fence line (configs.markers). The block is appended at the end of the file and
replaced in place on reinstall; the rest of the file is never re-serialised. tomlkit is used
only to read and to flip a switch such as `[features] hooks`, which keeps comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import Table

from hookshape.edit.managed import unit_hash
from hookshape.edit.units import Known, Outcome, Unit
from hookshape.errors import ConfigError
from hookshape.plan.wiring import Want
from hookshape.spec.validation import loads_toml


def loads(text: str, path: Path, after: str = "") -> dict[str, Any]:
    """A config's TOML, or `file:line:col: invalid TOML: message` (and why, when we caused it)."""
    return loads_toml(text, path, ConfigError, after)


def markers(block: str) -> tuple[str, str]:
    lines = block.rstrip("\n").split("\n")
    return lines[0], lines[-1]


def locate(text: str, block: str, path: Path) -> tuple[int, int] | None:
    """Character span of the managed block (start marker line to end fence line, with its
    newline), or None when absent; a marker without its partner is an error."""
    start_line, end_line = markers(block)
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == start_line]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == end_line]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ConfigError(f"{path}: the hookshape block markers are damaged (start lines "
                          f"{[i + 1 for i in starts]}, end lines {[i + 1 for i in ends]}); "
                          "fix by hand")
    offset = sum(len(line) for line in lines[:starts[0]])
    length = sum(len(line) for line in lines[starts[0]:ends[0] + 1])
    return offset, offset + length


def append_block(text: str, block: str) -> str:
    """One blank line between the user's text and the block (two newlines if it had none)."""
    if not text:
        return block
    return text + ("\n" if text.endswith("\n") else "\n\n") + block


def cut_block(text: str, span: tuple[int, int]) -> str:
    """Remove the block and the one blank line append_block put before it: at the end of the
    file, or where another blank line follows (the one another harness's block came with)."""
    head, tail = text[:span[0]], text[span[1]:]
    if head.endswith("\n\n") and (not tail or tail.startswith(("\n", "\r\n"))):
        head = head[:-1]
    return head + tail


def _container(doc: tomlkit.TOMLDocument, keys: list[str]) -> Container | Table | None:
    node: Any = doc
    for key in keys:
        if not isinstance(node, (Container, Table, tomlkit.TOMLDocument)) or key not in node:
            return None
        node = node[key]
    return node if isinstance(node, (Container, Table, tomlkit.TOMLDocument)) else None


def set_switches(text: str, paths: list[str], value: bool) -> tuple[str, list[str]]:
    """Flip each switch that is explicitly the opposite boolean, keeping comments and layout."""
    doc = tomlkit.parse(text)
    flipped = []
    for dotted in paths:
        *parents, leaf = dotted.split(".")
        table = _container(doc, parents)
        if table is not None and leaf in table and table[leaf] is (not value):
            table[leaf] = value
            flipped.append(dotted)
    return (tomlkit.dumps(doc) if flipped else text), flipped


def _edited(current: str, block: str, known: Known, path: Path) -> list[str]:
    if known.hashes is None or current == block or unit_hash(current) in known.hashes:
        return []
    return [f"{path}: the hookshape block was edited since the last install "
            "(kept; --force replaces it)"]


def merge(text: str, path: Path, want: Want, known: Known, force: bool) -> Outcome:
    loads(text, path)
    block = str(want.units[0][1])
    span = locate(text, block, path)
    if span is not None:
        clash = _edited(text[span[0]:span[1]], block, known, path)
        if clash and not force:
            return Outcome(text=text, conflicts=clash)
        text = text[:span[0]] + block + text[span[1]:]
    else:
        text = append_block(text, block)
    loads(text, path, after=" once the hookshape block is added (are hooks defined inline?)")
    text, switched = set_switches(text, want.switches, True)
    loads(text, path)
    return Outcome(text=text, units=[Unit("block", unit_hash(block))], switches=switched)


def settle(text: str, path: Path, block_hint: str, switches: list[str], known: Known,
           force: bool) -> Outcome:
    """A settings file beside the vendor's hooks file: the block of entries an older install
    put here taken out (they move to the hooks file; one edited since is kept unless forced),
    and the switches that are explicitly off turned on."""
    loads(text, path)
    span = locate(text, block_hint, path) if block_hint else None
    if span is not None:
        current = text[span[0]:span[1]]
        if known.hashes is not None and unit_hash(current) not in known.hashes and not force:
            return Outcome(text=text, conflicts=[
                f"{path}: the hookshape block was edited since the last install (kept; --force "
                "moves it to the hooks file)"])
        text = cut_block(text, span)
    text, switched = set_switches(text, switches, True)
    loads(text, path)
    return Outcome(text=text, switches=switched, moved=span is not None)


def unmerge(text: str, path: Path, block_hint: str, known: Known, force: bool) -> Outcome:
    """`block_hint` is any block of ours (only its marker lines are used)."""
    loads(text, path)
    span = locate(text, block_hint, path)
    if span is not None:
        current = text[span[0]:span[1]]
        if known.hashes is not None and unit_hash(current) not in known.hashes and not force:
            return Outcome(text=text, conflicts=_edited(current, "", known, path))
        text = cut_block(text, span)
    text, _ = set_switches(text, list(known.switches), False)
    loads(text, path)
    return Outcome(text=text)
