"""The awk library of a tentacle dir cut to what its programs use.

awk compiles every function of every -f file on every run, used or not: in mawk that is most of
a tentacle's time (a 58 KB library is ~1 ms a run, its event work a tenth of that). The library
is rendered from the spec alone, so it holds every fragment any program might call; this keeps
only the functions some program of the dir reaches, each with the comment lines above it.

The library's layout is the templates' own: at the top level only comment lines, blank lines
and functions; a function starts at column 0 with `function NAME(` and either ends on that line
(`... }`) or runs to the next line that is exactly `}`. Text of any other shape is kept whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_HEAD = re.compile(r"function ([A-Za-z_][A-Za-z0-9_]*)\(")
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")


@dataclass(frozen=True)
class Chunk:
    name: str  # "" for the text before the first function and after the last
    text: str


def chunks(lib: str) -> list[Chunk] | None:
    """The library as its functions (each with the comments above it) and the text around them;
    None when its layout is not the one described above."""
    out: list[Chunk] = []
    lead: list[str] = []
    lines = lib.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        head = _HEAD.match(line)
        if head is None:
            if line.strip() and not line.lstrip().startswith("#"):
                return None
            lead.append(line)
            i += 1
            continue
        end = i
        if line.rstrip().endswith("{"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip("\n") == "}"), -1)
            if end < 0:
                return None
        elif not line.rstrip().endswith("}"):
            return None
        out.append(Chunk(head.group(1), "".join(lead + lines[i:end + 1])))
        lead = []
        i = end + 1
    out.append(Chunk("", "".join(lead)))
    return out


def reached(parts: list[Chunk], programs: Iterable[str]) -> set[str]:
    """The functions of the library the programs call, directly or through one another."""
    body = {c.name: c.text for c in parts if c.name}
    todo = [n for text in programs for n in _CALL.findall(text) if n in body]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        own = body[name].split(f"function {name}(", 1)[1]
        todo += [n for n in _CALL.findall(own) if n in body and n not in seen]
    return seen


def trim(lib: str, programs: Iterable[str]) -> str:
    """The library with only the functions the programs reach (the whole library when its layout
    is not the templates')."""
    parts = chunks(lib)
    if parts is None:
        return lib
    keep = reached(parts, programs)
    return "".join(c.text for c in parts if not c.name or c.name in keep)
