"""Python's reading of a JSON document, as the awk parser (templates/fragments/json.awk) promises
to answer it: a path lookup, the one-letter type of a value, the bytes of a decoded string, and
the escaping of a string for JSON (plain ASCII) and for printf %b."""

from __future__ import annotations

import json
import re
from typing import Any

_IDX = re.compile(r"0|[1-9][0-9]*")
ABSENT = object()
_LONE = re.compile("[\ud800-\udfff]")


def lookup(doc: Any, keys: tuple[str, ...]) -> Any:
    """The value at keys (object keys, or decimal array indexes), else ABSENT."""
    cur = doc
    for k in keys:
        if isinstance(cur, dict):
            if k not in cur:
                return ABSENT
            cur = cur[k]
        elif isinstance(cur, list):
            if not _IDX.fullmatch(k) or int(k) >= len(cur):
                return ABSENT
            cur = cur[int(k)]
        else:
            return ABSENT
    return cur


def type_of(v: Any) -> str:
    """The parser's type letter: - absent, t/f booleans, z null, n number, s, o, a."""
    if v is ABSENT:
        return "-"
    if isinstance(v, bool):
        return "t" if v else "f"
    if v is None:
        return "z"
    if isinstance(v, (int, float)):
        return "n"
    if isinstance(v, str):
        return "s"
    if isinstance(v, dict):
        return "o"
    if isinstance(v, list):
        return "a"
    raise TypeError(v)


def py_str(v: str) -> bytes:
    """The bytes j_str gives for a decoded string: a lone surrogate is U+FFFD."""
    return _LONE.sub("\ufffd", v).encode("utf-8")


def py_esc(b: bytes) -> bytes:
    """The escaping j_esc promises: the bytes read as UTF-8 (each maximal ill-formed part as
    U+FFFD, as Python's errors="replace"), then plain ASCII: backslash, quote, named control
    escapes, every other character outside printable ASCII as \\uXXXX (a pair above U+FFFF).
    That is exactly the body of json.dumps with ensure_ascii (its C encoder)."""
    return json.dumps(b.decode("utf-8", "replace"))[1:-1].encode("ascii")


_PCT_BYTE = re.compile(rb"[\\\x00-\x1f\x7f-\xff]")
_PCT = {c: b"\\\\" if c == 0x5C else b"\\0%03o" % c for c in [*range(32), *range(127, 256), 0x5C]}


def py_pct(b: bytes) -> bytes:
    """The printf %b form j_pct promises: the bytes read as UTF-8 as py_esc does, backslash
    doubled, bytes below 0x20, 0x7f and every non-ASCII byte as \\0ooo."""
    return _PCT_BYTE.sub(lambda m: _PCT[m.group()[0]], b.decode("utf-8", "replace").encode("utf-8"))


def py_cap(b: bytes, n: int) -> bytes:
    """j_cap: at most n bytes of b, never inside a UTF-8 character."""
    if len(b) <= n:
        return b
    k = n
    while k > 0 and (b[k] & 0xC0) == 0x80:
        k -= 1
    return b[:k]
