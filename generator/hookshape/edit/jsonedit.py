"""Surgical JSON text edits: a scanner that records the span of every value, and edits that
insert or remove one array element or object member, reusing the file's own indentation.

Load-and-redump would reorder nothing but still rewrite every byte (indentation, escapes,
number spellings, a missing final newline); editing the text keeps the user's file byte for
byte outside the one span we touch, and an insert followed by the matching remove is exact.

JSON with comments (a profile's `json_comments`, e.g. Gemini CLI, which parses settings with
strip-json-comments): the scanner reads a copy with every comment blanked to spaces (same
length, same offsets), the edits cut and paste the real text, and a comment is never inside
a span we cut unless it was inside one of our own entries."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from hookshape.errors import ConfigError

Kind = Literal["object", "array", "scalar"]
_WS = " \t\r\n"
_WS_RUN = re.compile(f"[{_WS}]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR_END = re.compile(r"[\s,\]}]")
# A string (kept as it is), a line comment, or a block comment (unclosed: to the end).
_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
_NOT_BREAK = re.compile(r"[^\r\n]")
# A line that ends, after a value, with one comment: `] // note` or `] /* note */`.
_TRAILING = re.compile(r"[ \t]*(?://[^\r\n]*|/\*(?:(?!\*/)[^\r\n])*\*/[ \t]*)\r?")


def strip_comments(text: str) -> str:
    """JSON with comments as plain JSON, as strip-json-comments does: every `// ...` and
    `/* ... */` outside a string becomes spaces (line breaks kept), so offsets, lines and
    columns stay those of the real text."""
    if "//" not in text and "/*" not in text:
        return text
    return _COMMENT.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    found = match.group()
    return found if found.startswith('"') else _NOT_BREAK.sub(" ", found)


def has_comment(text: str) -> bool:
    return strip_comments(text) != text


@dataclass
class Node:
    """A JSON value and its span `text[start:end]`; containers keep their children."""

    kind: Kind
    start: int
    end: int
    members: list[Member] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        """The value of a member (the last one when a key repeats, as json.loads does)."""
        found = [m for m in self.members if m.key == key]
        return found[-1].value if found else None

    def index(self, key: str) -> int:
        return max(i for i, m in enumerate(self.members) if m.key == key)


@dataclass
class Member:
    key: str
    start: int  # where the key's opening quote is
    value: Node

    @property
    def end(self) -> int:
        return self.value.end


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        match = _WS_RUN.match(self.text, self.pos)
        assert match is not None  # a run of none matches too
        self.pos = match.end()

    def value(self) -> Node:
        self.skip()
        char = self.text[self.pos]
        if char == "{":
            return self.obj()
        if char == "[":
            return self.arr()
        start = self.pos
        self.pos = self.string_end() if char == '"' else self.scalar_end()
        return Node("scalar", start, self.pos)

    def string_end(self) -> int:
        match = _STRING.match(self.text, self.pos)
        assert match is not None  # the text was validated by json.loads first
        return match.end()

    def scalar_end(self) -> int:
        match = _SCALAR_END.search(self.text, self.pos)
        return match.start() if match else len(self.text)

    def obj(self) -> Node:
        node = Node("object", self.pos, -1)
        self.pos += 1
        while self.next_or_close("}"):
            key_start = self.pos
            self.pos = self.string_end()
            key = self.text[key_start + 1:self.pos - 1]
            if "\\" in key:
                key = json.loads(self.text[key_start:self.pos])
            self.skip()
            self.pos += 1  # the colon
            node.members.append(Member(key, key_start, self.value()))
        node.end = self.pos
        return node

    def arr(self) -> Node:
        node = Node("array", self.pos, -1)
        self.pos += 1
        while self.next_or_close("]"):
            node.items.append(self.value())
        node.end = self.pos
        return node

    def next_or_close(self, close: str) -> bool:
        """Step over a separating comma; False (past the bracket) at the closing bracket."""
        self.skip()
        if self.text[self.pos] == ",":
            self.pos += 1
            self.skip()
        if self.text[self.pos] == close:
            self.pos += 1
            return False
        return True


@lru_cache(maxsize=16)
def scan(text: str) -> Node:
    """Spans of an already valid JSON text (comments, where it may hold them, skipped). The tree
    is only read, never changed: an edit scans its text after each step, mostly the same text
    again, and each text is scanned once."""
    return _Scanner(strip_comments(text)).value()


def loads(text: str, path: Path, comments: bool = False) -> Any:
    """json.loads with a located one-line error: `file:line:col: invalid JSON: message`.
    With `comments`, `//` and `/* */` comments are allowed (and a line, column still true)."""
    try:
        return json.loads(strip_comments(text) if comments else text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def parse(text: str, path: Path, comments: bool = False) -> Node:
    """Validate, then scan; the top level must be an object (every vendor file is one)."""
    loads(text, path, comments)
    root = scan(text)
    if root.kind != "object" or text[root.start] != "{":
        raise ConfigError(f"{path}:1:1: the top level is not a JSON object")
    return root


def data(text: str, node: Node) -> Any:
    return json.loads(strip_comments(text[node.start:node.end]))


def find(root: Node, dotted: str) -> Node | None:
    """The node at `a.b.c`, or None when any step is missing or not an object."""
    node: Node | None = root
    for key in dotted.split("."):
        if node is None or node.kind != "object":
            return None
        node = node.get(key)
    return node


@dataclass(frozen=True)
class Style:
    """How the file writes JSON: one indent level (None: all on one line), the text after a
    colon and after a comma (one-line files), and the line ending."""

    unit: str | None
    colon: str
    comma: str
    newline: str


def detect_style(text: str) -> Style:
    text = strip_comments(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    colon = re.search(r'"\s*:([ \t]*)', text)
    comma = re.search(r",([ \t]*)[^\s]", text)
    unit: str | None = None
    if "\n" in text.strip():
        indented = re.search(r"\n([ \t]+)\S", text)
        unit = indented.group(1) if indented else ""
    return Style(unit=unit, colon=":" + (colon.group(1) if colon else " "),
                 comma="," + (comma.group(1) if comma else " "), newline=newline)


def line_indent(text: str, pos: int) -> str:
    """The leading whitespace of the line that holds `pos`."""
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def render(value: Any, style: Style, base: str, one_line: bool = False) -> str:
    """A value as JSON in the file's style; continuation lines start with `base`."""
    if style.unit is None or one_line:
        return json.dumps(value, ensure_ascii=False, separators=(style.comma, style.colon))
    text = json.dumps(value, ensure_ascii=False, indent=style.unit, separators=(",", style.colon))
    return text.replace("\n", style.newline + base)


def _gap_before_last(text: str, node: Node, starts: list[int], ends: list[int]) -> str:
    """The whitespace between the separator before the last child and that child (a new line
    at the child's indent where a comment sits there: a comment is never copied)."""
    if len(starts) == 1:
        gap = text[node.start + 1:starts[0]]
    else:
        between = text[ends[-2]:starts[-1]]
        gap = between[strip_comments(between).index(",") + 1:]
    if not has_comment(gap):
        return gap
    return "\n" + line_indent(text, starts[-1]) if "\n" in gap else " "


def _after_trailing_comment(text: str, end: int) -> int:
    """Where the line of a value ends, when only a comment follows the value there (else the
    value's end): a child appended to a multi-line container goes after that comment."""
    eol = text.find("\n", end)
    if eol < 0:
        return end
    match = _TRAILING.fullmatch(text, end, eol)
    return (eol - 1 if text[eol - 1] == "\r" else eol) if match else end


def _append(text: str, node: Node, piece: Any, style: Style, key: str | None) -> str:
    spans = [(m.start, m.end) for m in node.members] if node.kind == "object" else \
        [(i.start, i.end) for i in node.items]
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + style.colon
    if not starts:
        return _fill_empty(text, node, piece, style, prefix)
    gap = _gap_before_last(text, node, starts, ends)
    one_line = "\n" not in gap
    child = render(piece, style, line_indent(text, starts[-1]), one_line)
    at = ends[-1] if one_line else _after_trailing_comment(text, ends[-1])
    return text[:ends[-1]] + "," + text[ends[-1]:at] + gap + prefix + child + text[at:]


def _fill_empty(text: str, node: Node, piece: Any, style: Style, prefix: str) -> str:
    """The only child of an empty container; a comment inside it stays, before the child."""
    inside = text[node.start + 1:node.end - 1]
    keep = inside.rstrip() if has_comment(inside) else ""
    if style.unit is None:
        child = render(piece, style, "")
        return text[:node.start + 1] + keep + prefix + child + text[node.end - 1:]
    outer = line_indent(text, node.start)
    inner = outer + style.unit
    child = render(piece, style, inner)
    body = keep + style.newline + inner + prefix + child + style.newline + outer
    return text[:node.start + 1] + body + text[node.end - 1:]


def append_item(text: str, array: Node, value: Any, style: Style) -> str:
    return _append(text, array, value, style, None)


def append_member(text: str, obj: Node, key: str, value: Any, style: Style) -> str:
    return _append(text, obj, value, style, key)


def _remove(text: str, node: Node, spans: list[tuple[int, int]], index: int) -> str:
    """Cut one child and one separator: the comma before it (or after it, for the first).
    Where a comment sits in what that would cut, only the child (with the blank run before it
    on its line) and the comma go, and every comment stays."""
    start, end = spans[index]
    if len(spans) == 1:
        cut = (node.start + 1, node.end - 1)
    elif index > 0:
        cut = (spans[index - 1][1], end)
    else:
        cut = (start, spans[1][0])
    if not has_comment(text[cut[0]:cut[1]]):
        return text[:cut[0]] + text[cut[1]:]
    return _remove_keeping_comments(text, node, spans, index)


def _line_start(text: str, start: int, floor: int) -> int:
    """The start of the blank run before `start` (with one line break), not before floor."""
    pos = start
    while pos > floor and text[pos - 1] in " \t":
        pos -= 1
    if pos > floor and text[pos - 1] == "\n":
        pos -= 1
        if pos > floor and text[pos - 1] == "\r":
            pos -= 1
    return pos


def _remove_keeping_comments(text: str, node: Node, spans: list[tuple[int, int]],
                             index: int) -> str:
    start, end = spans[index]
    if len(spans) == 1:
        head = text[node.start + 1:start].rstrip()
        tail = text[end:node.end - 1]
        return text[:node.start + 1] + head + tail + text[node.end - 1:]
    plain = strip_comments(text)
    if index > 0:
        comma = plain.index(",", spans[index - 1][1])
        begin = _line_start(text, start, comma + 1)
        return text[:comma] + text[comma + 1:begin] + text[end:]
    comma = plain.index(",", end)
    begin = _line_start(text, start, node.start + 1)
    return text[:begin] + text[end:comma] + text[comma + 1:]


def remove_item(text: str, array: Node, index: int) -> str:
    return _remove(text, array, [(i.start, i.end) for i in array.items], index)


def remove_member(text: str, obj: Node, key: str) -> str:
    return _remove(text, obj, [(m.start, m.end) for m in obj.members], obj.index(key))


def replace_value(text: str, node: Node, value: Any, style: Style) -> str:
    child = render(value, style, line_indent(text, node.start))
    return text[:node.start] + child + text[node.end:]
