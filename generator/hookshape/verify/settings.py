"""The few keys a turn needs in a CLI's settings file (how to reach the mock, no update checks or
telemetry), written without touching anything else in the file: hooks merged there by
`hookshape install` survive every turn."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

JSON = dict[str, Any]


def leaves(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(key path, value) of every non-table value of nested tables, in order."""
    for key, value in tree.items():
        if isinstance(value, Mapping):
            yield from leaves(value, (*prefix, key))
        else:
            yield (*prefix, key), value


def filled(value: Any, values: Mapping[str, str]) -> Any:
    """`value` with {name} placeholders of its strings replaced (nested tables and lists too)."""
    if isinstance(value, str):
        return re.sub(r"\{([a-z]+)\}", lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, Mapping):
        return {k: filled(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [filled(v, values) for v in value]
    return value


def _load_json(path: Path) -> JSON:
    if not path.exists() or not path.read_text().strip():
        return {}
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def update_json(path: Path, own: Mapping[str, Any]) -> None:
    """Set these (nested) keys in a JSON object file, leaving every other key alone."""
    data = _load_json(path)
    for keys, value in leaves(own):
        node = data
        for key in keys[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[keys[-1]] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _toml_split(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(preamble lines, [(header name, lines incl. header)]) of a TOML document.

    Line-based, aware of multi-line strings, enough for config files.
    """
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    current = preamble
    in_ml: str | None = None
    for line in text.splitlines():
        if in_ml is None:
            m = _HEADER.match(line)
            if m:
                current = [line]
                sections.append((m.group(1).replace(" ", ""), current))
                continue
        current.append(line)
        for quote in ('"""', "'''"):
            if in_ml in (None, quote) and line.count(quote) % 2 == 1:
                in_ml = quote if in_ml is None else None
    return preamble, sections


def tables(own: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Nested keys as TOML tables: header name ("" for the top level) -> {key: value}."""
    out: dict[str, dict[str, Any]] = {}
    for keys, value in leaves(own):
        name = ".".join(toml_key(k) for k in keys[:-1])
        out.setdefault(name, {})[toml_key(keys[-1])] = value
    return out


def update_toml(path: Path, own: Mapping[str, Any]) -> None:
    """Set these (nested) keys in a TOML file, leaving every other key and table alone.

    A key set here is replaced where it stands; a missing table is appended. The result is
    checked with tomllib, so a broken file is never left behind.
    """
    text = path.read_text() if path.exists() else ""
    preamble, sections = _toml_split(text)
    want = tables(own)

    def assign(values: Mapping[str, object]) -> list[str]:
        return [f"{k} = {_toml_value(v)}" for k, v in values.items()]

    def without(lines: list[str], keys: Mapping[str, object]) -> list[str]:
        key_re = re.compile(r"^\s*(" + "|".join(re.escape(k) for k in keys) + r")\s*=")
        return [line for line in lines if not key_re.match(line)]

    top = want.get("", {})
    out = assign(top) + (without(preamble, top) if top else preamble)
    done = set()
    for name, lines in sections:
        header_is_table = not lines[0].lstrip().startswith("[[")
        if name in want and name and header_is_table and name not in done:
            values = want[name]
            lines = [lines[0], *assign(values), *without(lines[1:], values)]
            done.add(name)
        out += lines
    for name, values in want.items():
        if name and name not in done:
            if out and out[-1].strip():
                out.append("")
            out.append(f"[{name}]")
            out += assign(values)
    new_text = "\n".join(out).rstrip("\n") + "\n"
    tomllib.loads(new_text)  # never leave an invalid file behind
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_text)


def update(path: Path, own: Mapping[str, Any]) -> None:
    """update_toml for a .toml file, update_json for any other."""
    if path.suffix == ".toml":
        update_toml(path, own)
    else:
        update_json(path, own)
