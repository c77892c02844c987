"""Turn TOML and pydantic failures into located user errors: one line per problem, each at its
key, saying in words what a constrained value allows (never the raw regex)."""

from __future__ import annotations

import difflib
import functools
import json
import re
import tomllib
import typing
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from hookshape.errors import HookshapeError

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_toml(path: Path, error: type[HookshapeError]) -> dict[str, Any]:
    """Read and parse a TOML file; a syntax error reports file:line:col."""
    return loads_toml(read_text(path, error), path, error)


def read_text(path: Path, error: type[HookshapeError]) -> str:
    """A UTF-8 text file's text, without a byte order mark (some editors write one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    return text.removeprefix("\ufeff")


def loads_toml(text: str, path: Path, error: type[HookshapeError], after: str = "") -> dict[str, Any]:
    """tomllib.loads with `file:line:col: invalid TOML: message`; with `after` (why the text is
    invalid when we made it so) the position is left out: it is one of our text, not the file's."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        pos = _TOML_POS.search(msg)
        where = f"{path}:{pos.group(1)}:{pos.group(2)}" if pos and not after else str(path)
        raise error(f"{where}: invalid TOML{after}: {_TOML_POS.sub('', msg).strip()}") from None


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


def _folded(errors: list[Any], model: type[BaseModel]) -> list[Any]:
    """Drop a 'missing' key that an unknown key beside it is a typo of: the unknown key's
    did-you-mean already names it."""
    typos = set()
    for err in errors:
        if err["type"] == "extra_forbidden":
            loc = tuple(err["loc"])
            near = _near(model, loc)
            if near:
                typos.add((*loc[:-1], near))
    return [e for e in errors if not (e["type"] == "missing" and tuple(e["loc"]) in typos)]


def _near(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    known = _fields_at(model, loc[:-1])
    near = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    return near[0] if near else ""


@functools.cache
def pattern_words(model: type[BaseModel]) -> dict[str, str]:
    """regex -> what it allows in words, read off the constrained types of the model's fields
    (every one carries its words as its description; a field's own description does not hide
    them)."""
    found: dict[str, str] = {}
    seen: set[type[BaseModel]] = set()

    def walk(hint: Any) -> None:
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            if hint not in seen:
                seen.add(hint)
                hints = typing.get_type_hints(hint, include_extras=True)
                for name in hint.model_fields:
                    walk(hints[name])
            return
        args = typing.get_args(hint)
        if typing.get_origin(hint) is Annotated:
            for meta in args[1:]:
                if isinstance(meta, FieldInfo) and meta.description:
                    for pattern in (getattr(c, "pattern", None) for c in meta.metadata):
                        if isinstance(pattern, str):
                            found.setdefault(pattern, meta.description)
            args = args[:1]
        for arg in args:
            walk(arg)

    walk(model)
    return found


def _message(model: type[BaseModel], err: Any) -> str:
    if err["type"] == "string_pattern_mismatch":
        pattern = str((err.get("ctx") or {}).get("pattern", ""))
        words = pattern_words(model).get(pattern)
        if words:
            return f"{json.dumps(err['input'], ensure_ascii=False)} must be {words}"
    if err["type"] == "list_type" and isinstance(err.get("input"), str):
        given = json.dumps(err["input"], ensure_ascii=False)
        return f"{given} must be a list: write [{given}]"
    return str(err["msg"]).removeprefix("Value error, ")


def one(path: Path, model: type[BaseModel], err: Any) -> str:
    """One validation error as `file: key.path: message (did you mean ...)`."""
    loc = tuple(err["loc"])
    if err["type"] == "value_error":
        keyed = _KEYED.match(err["msg"].removeprefix("Value error, "))
        if keyed:
            loc = loc + tuple(keyed.group(1).split("."))
            err = {**err, "msg": keyed.group(2)}
    key = key_path(loc) or "(top level)"
    if err["type"] == "extra_forbidden":
        near = _near(model, loc)
        hint = f"; did you mean '{near}'?" if near else ""
        return f"{path}: {key}: unknown key{hint}"
    if err["type"] == "missing":
        return f"{path}: {key}: required key is missing"
    return f"{path}: {key}: {_message(model, err)}"


def describe(path: Path, model: type[BaseModel], exc: ValidationError) -> str:
    """Every validation error, one line each (unknown keys first: a typo explains a missing
    key)."""
    errors = _folded(list(exc.errors()), model)
    errors.sort(key=lambda e: e["type"] != "extra_forbidden")
    return "\n".join(dict.fromkeys(one(path, model, e) for e in errors))


def validate(path: Path, model: type[BaseModel], data: dict[str, Any],
             error: type[HookshapeError]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(describe(path, model, exc)) from None
