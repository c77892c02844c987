"""Python's reading of a JSON document, as the awk parser (templates/fragments/json.awk) promises
to answer it: a path lookup, the one-letter type of a value, the bytes of a decoded string, and
the escaping of a string for JSON (plain ASCII) and for printf %b."""

from __future__ import annotations

import re
from typing import Any

_IDX = re.compile(r"0|[1-9][0-9]*")
ABSENT = object()
_NAMED = {8: b"\\b", 9: b"\\t", 10: b"\\n", 12: b"\\f", 13: b"\\r"}
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


def _esc_char(ch: str) -> str:
    c = ord(ch)
    if ch in ('"', "\\"):
        return "\\" + ch
    if c in _NAMED:
        return _NAMED[c].decode()
    if 32 <= c < 127:
        return ch
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def py_esc(b: bytes) -> bytes:
    """The escaping j_esc promises: the bytes read as UTF-8 (each maximal ill-formed part as
    U+FFFD, as Python's errors="replace"), then plain ASCII: backslash, quote, named control
    escapes, every other character outside printable ASCII as \\uXXXX (a pair above U+FFFF)."""
    return "".join(_esc_char(ch) for ch in b.decode("utf-8", "replace")).encode("ascii")


def py_pct(b: bytes) -> bytes:
    """The printf %b form j_pct promises: the bytes read as UTF-8 as py_esc does, backslash
    doubled, bytes below 0x20, 0x7f and every non-ASCII byte as \\0ooo."""
    out = []
    for c in b.decode("utf-8", "replace").encode("utf-8"):
        if c == 0x5C:
            out.append(b"\\\\")
        elif c < 32 or c >= 127:
            out.append(b"\\0%03o" % c)
        else:
            out.append(bytes([c]))
    return b"".join(out)


def py_cap(b: bytes, n: int) -> bytes:
    """j_cap: at most n bytes of b, never inside a UTF-8 character."""
    if len(b) <= n:
        return b
    k = n
    while k > 0 and (b[k] & 0xC0) == 0x80:
        k -= 1
    return b[:k]
