"""Hypothesis strategies: vendor-shaped payloads with decoys, hostile paths, serialisation
variants, garbage, and the matrix files that go with them."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from tests.conformance import oracle as o

# the stdin cap of the tentacles; generated payloads stay below it (oversize is its own test)
CAP = 250_000

SPECIAL = ['"', "\\", "\t", "\n", "\r", "\x01", "\x1f", "\x7f", "\x80", "é", "日", "😀", "\U0010ffff",
           "\u2028", "\ufeff", "$", "$(", ")", "`", "'", "*", ":", "=", "|", ",", "{", "}", "[", "]",
           " ", "..", "\\u0041", "%s", "%b", "\\c", "-", "~"]
path_char = st.one_of(
    st.sampled_from(list("abcxyzABC0189_-. ")),
    st.sampled_from(SPECIAL),
    st.characters(exclude_categories=("Cs",), exclude_characters="\x00"),
)
segment = st.one_of(
    st.lists(path_char, min_size=1, max_size=10).map("".join).map(lambda s: s.replace("/", "_")),
    st.sampled_from([".", "..", "", "src", "a b", "x.py"]),
    st.integers(300, 2500).map(lambda n: "L" * n),
)
rel_path = st.lists(segment, min_size=1, max_size=5).map("/".join).filter(lambda s: s != "")
abs_path = rel_path.map(lambda s: "/" + s)
any_path = st.one_of(abs_path, abs_path, abs_path, rel_path)
cwd_value = st.one_of(
    st.lists(segment.filter(lambda s: len(s) < 50), max_size=3).map(lambda p: "/nonexistent-cf/" + "/".join(p)),
    st.just("/nonexistent-cf"),
    rel_path.filter(lambda s: len(s) < 60),
    st.just(""),
)
small_text = st.lists(st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=("Cs",),
                                                                         exclude_characters="\x00")),
                      max_size=20).map("".join)
long_text = st.tuples(st.text(min_size=1, max_size=30, alphabet=st.characters(exclude_categories=("Cs",),
                                                                              exclude_characters="\x00")),
                      st.integers(1_000, 15_000)).map(lambda p: (p[0] * (p[1] // len(p[0]) + 1))[: p[1]])
some_text = st.one_of(small_text, small_text, small_text, long_text)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63),
                    st.floats(allow_nan=False, allow_infinity=False), small_text)
json_values = st.recursive(scalars, lambda ch: st.lists(ch, max_size=3) | st.dictionaries(small_text, ch, max_size=3),
                           max_leaves=8)

EDIT = {v: sorted(s.edit) for v, s in o.VENDOR.items()}
# tools that are not edits: each vendor's shell tools, and a read tool of every shape
OTHER_TOOLS = {v: [*o.PROFILES[v].tools.shell, "Read", "read_file", "view_file", "mcp__x__y"] for v in o.VENDOR}


put = o.put  # one helper sets a value at a payload path (a "0" step is a list's first element)


@st.composite
def shuffled(draw: st.DrawFn, d: dict[str, Any]) -> dict[str, Any]:
    keys = draw(st.permutations(list(d)))
    return {k: shuffled_deep(draw, d[k]) for k in keys}


def shuffled_deep(draw: st.DrawFn, v: Any) -> Any:
    if isinstance(v, dict) and 0 < len(v) <= 8:
        return draw(shuffled(v))
    return v


def patch_body(draw: st.DrawFn, paths: list[str]) -> str:
    heads = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "]
    lines = ["*** Begin Patch"]
    for p in paths:
        lines += [draw(st.sampled_from(heads)) + p.replace("\n", " ") + draw(st.sampled_from(["", " ", "\t", "\r"])),
                  "@@", "-old", "+new"]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


@dataclass
class Payload:
    vendor: str
    doc: dict[str, Any]
    text: bytes
    decoys: list[str]  # paths at places that are not targets


@st.composite
def tool_payload(draw: st.DrawFn, vendor: str) -> Payload:
    """A pre-tool event of `vendor`'s shape: an edit (mostly) of a hostile path, with decoy
    "tool_name"/path keys at other depths, in arrays, inside long strings, and in any key order."""
    v = o.VENDOR[vendor]
    # hypothesis favours the first choice of a sampled_from: the edit tools come first
    kind = draw(st.sampled_from(["edit", "edit", "edit", "other", "text"]))
    tool = draw({"edit": st.sampled_from(EDIT[vendor]), "other": st.sampled_from(OTHER_TOOLS[vendor]),
                 "text": small_text}[kind])
    target = draw(any_path)
    decoys = draw(st.lists(abs_path.filter(lambda p: len(p) < 200), min_size=1, max_size=4))
    field = draw(st.sampled_from(v.path_fields))
    doc: dict[str, Any] = {}
    tin: dict[str, Any] = {}
    if v.patch is not None and draw(st.booleans()):
        paths = [target, *draw(st.lists(any_path.filter(lambda p: len(p) < 200), max_size=2))]
        body = patch_body(draw, paths)
        tin[v.patch] = draw(st.sampled_from([body, ["apply_patch", body]]))
    else:
        tin[field] = target
    d = itertools.cycle(decoys)
    tin["nested"] = {"tool_name": draw(st.sampled_from(EDIT[vendor])), field: next(d),
                     "file_path": next(d), "TargetFile": next(d)}
    tin["arr"] = [{"file_path": next(d)}, draw(json_values), [{"path": next(d)}]]
    tin["content"] = draw(some_text) + json.dumps({"file_path": next(d), "tool_name": "Write"})
    tin.update(draw(st.dictionaries(small_text, json_values, max_size=2)))
    put(doc, v.tool, tool)
    put(doc, v.tool_input, tin)
    if draw(st.integers(0, 9)) < 9:  # mostly a cwd, at one of the places the vendor keeps it
        cwd = draw(cwd_value)
        listed = len(v.cwd[0]) == 2 and v.cwd[0][1] == "0"  # a list of roots (agy's workspacePaths)
        if not listed:
            put(doc, v.cwd[0], cwd)
        elif draw(st.booleans()):
            tin["Cwd"] = cwd  # a cwd in the tool args, which the model writes: never the cwd
        else:
            doc[v.cwd[0][0]] = [cwd]
    if len(v.cwd[0]) == 2 and v.cwd[0][0] not in doc and draw(st.booleans()):
        doc[v.cwd[0][0]] = [draw(cwd_value), "/nonexistent-cf/second"]
    put(doc, v.session[0], draw(small_text))
    doc["file_path"] = next(d)           # the right key at the wrong depth
    doc["TargetFile"] = next(d)
    doc["tool_response"] = {"filePath": next(d), "tool_name": draw(st.sampled_from(EDIT[vendor]))}
    doc.update(draw(st.dictionaries(small_text.filter(lambda k: k not in doc), json_values, max_size=2)))
    if o.PROFILES[vendor].payload.event:
        put(doc, tuple(o.PROFILES[vendor].payload.event.split(".")), o.EVENTS[vendor]["pre_tool"])
    doc = draw(shuffled(doc))
    text = draw(serialize(doc))
    return Payload(vendor, doc, text, decoys)


@st.composite
def serialize(draw: st.DrawFn, doc: Any) -> bytes:
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, None, 0, 2, "\t"]))
    seps = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" , ", " : "), (",\n", ":\t")]))
    text = json.dumps(doc, ensure_ascii=ensure_ascii, indent=indent, separators=seps)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")  # raw newlines never occur inside JSON strings
    ws = st.sampled_from(["", " ", "\n", "\r\n", "\t \n"])
    return (draw(ws) + text + draw(ws)).encode("utf-8")


def lock_key(path: str) -> str:
    """The key a lock on path is written under: both writers in turn (the seed harness's key for
    a path of even length, the hashed one for an odd one), so the fuzz meets both."""
    return o.seed_suffix(path) if len(path) % 2 == 0 else o.suffix(path)


def locks_text(locks: list[tuple[str, str]]) -> tuple[str, dict[str, str]]:
    """Matrix lines for (path, holder) pairs, and the suffix -> holder map the awk side builds
    (a later line for the same suffix wins)."""
    lines = ['# matrix\nPD_ALERT_Z="unrelated"\n']
    seen: dict[str, str] = {}
    for path, holder in locks:
        lines.append(f'{o.LOCK}{lock_key(path)}="{holder}"\n')
        seen[lock_key(path)] = holder
    return "".join(lines), seen


garbage = st.one_of(
    st.binary(max_size=400),
    st.lists(st.sampled_from(['{', '}', '[', ']', ':', ',', '"', '\\', '"tool_name"', '"file_path"', '"Write"',
                              '"tool_input"', '"/a/b"', '"cwd"', 'true', 'null', '1e9', ' ', '\n', '\\u0000', 'é']),
             max_size=60).map(lambda t: "".join(t).encode()),
)
