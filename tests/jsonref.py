"""Python's reading of a JSON document, as the awk parser (templates/fragments/json.awk) promises
to answer it: a path lookup, the one-letter type of a value, and the escaping of a string."""

from __future__ import annotations

import re
from typing import Any

_IDX = re.compile(r"0|[1-9][0-9]*")
ABSENT = object()
_NAMED = {8: b"\\b", 9: b"\\t", 10: b"\\n", 12: b"\\f", 13: b"\\r"}


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


def py_esc(b: bytes) -> bytes:
    """The escaping j_esc promises, computed in Python."""
    b = b.replace(b"\\", b"\\\\").replace(b'"', b'\\"')
    for c in [*range(32), 127]:
        ch = bytes([c])
        if ch in b:
            b = b.replace(ch, _NAMED.get(c, b"\\u%04x" % c))
    return b
