"""[stop]: the closeout check and the stop gate's loop guard on vendors without a flag."""

from __future__ import annotations

import re
import warnings
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    model_validator,
)

from hookshape.spec import defaults
from hookshape.spec.types import Keyword, PosInt, ScriptName, Strict


def _awk_ere(value: str) -> str:
    """A closeout pattern is a POSIX ERE every awk reads alike: it compiles in Python's re and
    holds nothing that only Python's re (or only some awks) knows."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" on [[:digit:]]
            re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regex: {exc}") from None
    problem = _ere_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _ere_problem(value: str) -> str:
    """The first construct of the pattern that awk EREs lack, in words, or ""."""
    i, n = 0, len(value)
    prev = ""  # the previous token: "(", "|", "q" (a quantifier) or "x" (anything else)
    while i < n:
        c = value[i]
        if c == "\\":
            nxt = value[i + 1:i + 2]
            if nxt.isalnum():
                return (f"\\{nxt}: awk EREs have no backslash-letter or backslash-digit escapes "
                        "(backreferences, \\d, \\w, \\b, \\n ...): use a bracket expression such as [0-9]")
            i, prev = i + 2, "x"
            continue
        if c == "[":
            end = _bracket_end(value, i)
            if "\\" in value[i:end]:
                return ("a backslash inside [...] is read differently by the awks: put ] first and - "
                        "last instead")
            i, prev = end, "x"
            continue
        if c == "(" and value[i + 1:i + 2] == "?":
            return "(?...) groups (lookaround, non-capturing, flags, names) are not in awk EREs"
        if c == "{":
            return ("a {n,m} interval is not read by every awk (mawk takes it as text): repeat the item, "
                    "or write \\{ for a brace")
        if c in "*+?" and prev == "q":
            return f"{value[i - 1]}{c}: a lazy or repeated quantifier is not in awk EREs"
        if (c == "|" and prev in ("", "(", "|")) or (c == ")" and prev == "|"):
            return _EMPTY_ALT
        prev = "q" if c in "*+?" else c if c in "(|" else "x"
        i += 1
    return _EMPTY_ALT if prev == "|" else ""


_EMPTY_ALT = "an empty alternative ('|' at an end or beside another '|') is refused by some awks"


def _bracket_end(value: str, start: int) -> int:
    """The index just after the bracket expression opening at start ([^]...], [[:digit:]])."""
    i = start + 1
    if value[i:i + 1] == "^":
        i += 1
    if value[i:i + 1] == "]":
        i += 1
    while i < len(value) and value[i] != "]":
        if value[i] == "[" and value[i + 1:i + 2] in (":", ".", "="):
            close = value.find(value[i + 1] + "]", i + 2)
            i = close + 2 if close >= 0 else len(value)
            continue
        i += 1
    return i + 1


class Stop(Strict):
    marker_dir: ScriptName = Field("stop-blocks", description=(
        "the per-session block markers, under <home>/<state_dir>"))
    block_ttl_s: PosInt = Field(300, description=(
        "a session is kept working at most once per this many seconds"))
    gc_batch: Annotated[int, Field(ge=1, le=1000)] = Field(16, description=(
        "stale markers removed per stop call"))
    compliance_keyword: Keyword = Field(defaults.KEYWORD, description=(
        "the word the closing message must hold (checks keyword+table and keyword)"))
    counter_mode: Literal["observe", "enforce"] = Field("observe", description=(
        "on a vendor without a stop_hook_active flag (its profile's output.stop_guard = counter): "
        "observe only, or block with a per-session counter"))
    counter_max_blocks: Annotated[int, Field(ge=1, le=8)] = Field(1, description=(
        "blocks per session on such a vendor when counter_mode = enforce"))
    check: Literal["keyword+table", "keyword", "regex"] = Field("keyword+table", description=(
        "what the last assistant message of a turn must hold to comply: keyword+table (the "
        "compliance keyword, any case, and a table line: two or more '|'), keyword (the "
        "compliance keyword alone, any case), regex (a match of `pattern`). messages.stop_directive, "
        "stop_suggest and sitrep_contract keep their text whatever the check (each is followed by "
        "messages.sitrep_header): write them to fit the chosen check"))
    pattern: Annotated[str, Field(
        pattern=r"^[ -~]{1,1000}$",
        description="1 to 1000 printable ASCII characters"), AfterValidator(_awk_ere)] | None = Field(
        None, description=(
            "check = regex: a POSIX ERE the message must match, as awk's ~ does (case-sensitive; "
            "^ and $ are the ends of the whole message; . and [^...] match a newline too). "
            "Refused at load: what Python's re cannot compile, and what awk EREs lack: (?...) "
            "groups (lookaround, flags), backslash-letter and backslash-digit escapes "
            "(backreferences, \\d, \\b, \\n: write [0-9]), lazy quantifiers, {n,m} intervals "
            "(mawk reads them as text: write \\{ for a brace), empty alternatives, and a "
            "backslash inside [...] (put ] first and - last instead)"))

    @model_validator(mode="after")
    def _pattern_with_regex(self) -> Stop:
        if self.check == "regex" and self.pattern is None:
            raise ValueError("pattern: the regex check needs a pattern (a POSIX ERE)")
        if self.check != "regex" and self.pattern is not None:
            raise ValueError(f"pattern: only the regex check takes a pattern (check is {self.check!r})")
        return self
