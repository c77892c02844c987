"""Turn TOML and pydantic failures into one-line, located user errors."""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from hookshape.errors import HookshapeError

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_toml(path: Path, error: type[HookshapeError]) -> dict[str, Any]:
    """Read and parse a TOML file; a syntax error reports file:line:col."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        pos = _TOML_POS.search(msg)
        where = f"{path}:{pos.group(1)}:{pos.group(2)}" if pos else str(path)
        raise error(f"{where}: invalid TOML: {_TOML_POS.sub('', msg).strip()}") from None


def _fields_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """Names of the fields the model expects at a location (for did-you-mean); list indexes
    and the keys of a table of models (e.g. `vendors.claude`) are stepped over."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None:
            current = None
            break
        if part not in fields:
            continue  # a key of a dict of models: its value type is already current
        current = _model_of(fields[part].annotation)
    fields = getattr(current, "model_fields", None)
    return list(fields) if fields else []


def _model_of(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_of(arg)
        if found is not None:
            return found
    return None


_KEYED = re.compile(r"^([A-Za-z_][\w.-]*): (.*)$", re.S)


def key_path(loc: tuple[int | str, ...]) -> str:
    """`tentacles.1.matcher` -> `tentacles[1].matcher`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _first(exc: ValidationError) -> Any:
    """The most useful error: an unknown key (its typo explains a 'missing' one) first."""
    errors = exc.errors()
    return next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])


def describe(path: Path, model: type[BaseModel], exc: ValidationError) -> str:
    """The first validation error as `file: key.path: message (did you mean ...)`."""
    err = _first(exc)
    loc = tuple(err["loc"])
    if err["type"] == "value_error":
        keyed = _KEYED.match(err["msg"].removeprefix("Value error, "))
        if keyed:
            loc = loc + tuple(keyed.group(1).split("."))
            err = {**err, "msg": keyed.group(2)}
    key = key_path(loc) or "(top level)"
    if err["type"] == "extra_forbidden":
        known = _fields_at(model, loc[:-1])
        near = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        return f"{path}: {key}: unknown key{hint}"
    if err["type"] == "missing":
        return f"{path}: {key}: required key is missing"
    msg = err["msg"].removeprefix("Value error, ")
    extra = f" ({len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{path}: {key}: {msg}{extra}"


def validate(path: Path, model: type[BaseModel], data: dict[str, Any],
             error: type[HookshapeError]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(describe(path, model, exc)) from None
