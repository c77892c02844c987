"""Tests for templates/fragments/json.awk, the portable awk JSON reader.

Every test runs under each awk found on the machine: mawk and busybox awk are
required (they are the targets), gawk and original-awk are optional.  The
reference for every answer is Python's json module.

Known, documented differences (see the header of json.awk):
  * busybox awk and original-awk cannot hold NUL bytes in strings: a decoded
    \\u0000 is dropped and a raw NUL in the input cuts the line there.  The
    expectations below account for that on those awks only.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from tests.jsonref import lookup, py_cap, py_esc, py_pct, py_str, type_of
from tests.shells import FAST

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIB = ROOT / "templates" / "fragments" / "json.awk"
DRIVER = ROOT / "tests" / "jsonawk_driver.awk"

# ---------------------------------------------------------------- settings --

# tests/conftest.py normally registers and loads the shared profiles; the
# "ci" profile is registered here too so that this file also runs on its own.
_HC = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
_CI = os.environ.get("CI") == "true"
try:
    settings.get_profile("ci")
except InvalidArgument:
    settings.register_profile("ci", derandomize=True, max_examples=300, deadline=None)
if _CI:
    # derandomized like the shared profile, but 100 examples: 13 properties x 4 awks x 100 keeps
    # this file inside the suite's time budget on a 2-core runner
    settings.load_profile("ci")
    PROFILE = settings(settings.get_profile("ci"), max_examples=100, deadline=None, suppress_health_check=_HC)
else:
    # make test-fast: every property still runs, on fewer examples (make test: 60)
    PROFILE = settings(max_examples=8 if FAST else 60, deadline=None, suppress_health_check=_HC)

# -------------------------------------------------------------------- awks --

_AWKS = {
    "mawk": (["mawk"], True),
    "busybox": (["busybox", "awk"], True),
    "gawk": (["gawk"], False),
    "original-awk": (["original-awk"], False),
}
if FAST:  # make test-fast: the preferred awk only
    _AWKS = {"mawk": _AWKS["mawk"]}

ENV = dict(os.environ, LC_ALL="C")
ENV.pop("POSIXLY_CORRECT", None)


class Awk:
    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.argv = argv
        probe = subprocess.run(
            [*argv, 'BEGIN { printf "%d", length(sprintf("%c", 0)) }'],
            capture_output=True,
            env=ENV,
            check=True,
        )
        # whether strings can hold a NUL byte
        self.nul = probe.stdout == b"1"

    def __repr__(self) -> str:
        return self.name


_awk_cache: dict[str, Awk] = {}


@pytest.fixture(params=list(_AWKS), scope="module")
def awk(request) -> Awk:
    name = request.param
    argv, required = _AWKS[name]
    if shutil.which(argv[0]) is None:
        if required:
            pytest.fail(f"{argv[0]} is required but not installed")
        pytest.skip(f"{argv[0]} not installed")
    if name == "busybox":
        r = subprocess.run([*argv, "BEGIN { exit 0 }"], capture_output=True, env=ENV)
        if r.returncode != 0:
            pytest.fail("busybox has no awk applet")
    if name not in _awk_cache:
        _awk_cache[name] = Awk(name, argv)
    return _awk_cache[name]


# ------------------------------------------------------------------ runner --


def run_driver(awk: Awk, data: bytes, *, timeout: float = 120, **vars) -> bytes:
    argv = list(awk.argv)
    for k, v in vars.items():
        if isinstance(v, str):
            v = v.encode("utf-8", "surrogatepass")
        elif not isinstance(v, bytes):
            v = str(v).encode()
        argv += ["-v", k.encode() + b"=" + v]
    argv += ["-f", str(LIB), "-f", str(DRIVER)]
    r = subprocess.run(argv, input=data, capture_output=True, env=ENV, timeout=timeout)
    assert r.returncode == 0, (r.returncode, r.stderr[:2000])
    assert r.stderr == b"", r.stderr[:2000]
    return r.stdout


def encode_path(keys: tuple[str, ...]) -> str:
    return ".".join(keys)


def query(awk: Awk, data: bytes, paths: list[tuple[str, ...]], **vars):
    """Run the driver; return ([(type, value_bytes)] in query order, ok)."""
    spec = ",".join(encode_path(p) for p in paths)
    out = run_driver(awk, data, paths=spec, **vars)
    lines = out.split(b"\n")
    assert lines[-1] == b"", out[-200:]
    lines = lines[:-1]
    assert len(lines) == len(paths) + 1, (len(lines), len(paths), out[:500])
    res = []
    for p, line in zip(paths, lines[:-1], strict=True):
        name, typ, val = line.split(b"\t", 2)
        assert name == encode_path(p).encode("utf-8", "surrogatepass")
        res.append((typ.decode(), val))
    tag, ok = lines[-1].split(b"\t")
    assert tag == b"ok" and ok in (b"0", b"1"), lines[-1]
    return res, int(ok)


# --------------------------------------------------------- python reference --

def utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


_BAD_KEY = re.compile(r"[.,\\\x00-\x1f\x7f\ud800-\udfff]")


def queryable(k: str) -> bool:
    """Keys that can be written in the driver path list (a lone surrogate in a key decodes to
    U+FFFD, so the key cannot be named in the list)."""
    return not _BAD_KEY.search(k)


def all_paths(doc, prefix=()):
    """Every path of doc (at every depth) whose keys are queryable."""
    out = []
    if isinstance(doc, dict):
        items = doc.items()
    elif isinstance(doc, list):
        items = ((str(i), v) for i, v in enumerate(doc))
    else:
        return out
    for k, v in items:
        if not queryable(k):
            continue
        p = (*prefix, k)
        out.append(p)
        out.extend(all_paths(v, p))
    return out


DECOY_ABSENT = [
    ("nope",),
    ("tool_input", "nope"),
    ("cwd", "x"),
    ("tool_input", "command", "99"),
    ("tool_input", "command", "00"),
    ("tool_input", "command", "-1"),
    ("tool_name", "0"),
    ("tool_input", "nested", "file_path", "x"),
]


_RAW_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")
_ESC_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def string_bytes(v: str, raw: bytes) -> list[bytes]:
    """The bytes j_str may give for the decoded string v of the input raw: a lone surrogate
    written as an escape is U+FFFD; written as raw bytes (not UTF-8) it stays those bytes.
    Both forms in one input: either reading of v."""
    if not re.search("[\ud800-\udfff]", v):
        return [utf8(v)]
    forms = []
    if _ESC_SURROGATE.search(raw) or not _RAW_SURROGATE.search(raw):
        forms.append(py_str(v))
    if _RAW_SURROGATE.search(raw):
        forms.append(utf8(v))
    return forms


def check_answers(awk: Awk, doc, paths, answers, raw: bytes = b""):
    for p, (typ, val) in zip(paths, answers, strict=True):
        v = lookup(doc, p)
        want = type_of(v)
        assert typ == want, (p, typ, want, val[:200])
        if want == "s":
            forms = [b if awk.nul else b.replace(b"\x00", b"") for b in string_bytes(v, raw)]
            got, exp = val, py_esc(forms[0])
            if got not in {py_esc(b) for b in forms}:
                # locate the first difference for a readable failure
                i = next((i for i in range(min(len(got), len(exp))) if got[i] != exp[i]), None)
                raise AssertionError((p, len(got), len(exp), i, got[:300], exp[:300]))
        elif want == "n":
            got = json.loads(val.decode())
            assert type(got) is type(v) and (got == v or (got != got and v != v)), (p, val, v)
        else:
            assert val == b"", (p, val)


def check_doc(awk: Awk, text: str | bytes, extra_paths=()):
    data = utf8(text) if isinstance(text, str) else text
    doc = json.loads(data.decode("utf-8", "surrogatepass"))
    paths = all_paths(doc)
    if len(paths) > 2000:  # keep the -v argument well below the kernel limit
        paths = paths[:: len(paths) // 1000] + paths[-50:]
    paths += list(DECOY_ABSENT) + list(extra_paths)
    answers, ok = query(awk, data, paths)
    check_answers(awk, doc, paths, answers, data)
    assert ok == (1 if isinstance(doc, dict) else 0)
    return answers


# -------------------------------------------------------------- strategies --

SPECIAL = [
    '"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1b", "\x1c",
    "\x1f", "\x7f", "\x80", "\xff", "\u2028", "\ufeff", "\uffff", "é", "日", "😀",
    "\U0010ffff", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00",
    "'", " ", ",", ":", "{", "}", "[", "]", "\\u", '\\"', "\\\\", "u00e9",
    "true", "null", "-1.5e3", "file_path", "tool_name",
]

any_char = st.one_of(
    st.sampled_from(SPECIAL),
    st.characters(codec="ascii"),
    st.integers(0, 0x10FFFF).map(chr),
)
small_text = st.lists(any_char, max_size=25).map("".join)


def _repeat(pair):
    unit, n = pair
    return (unit * (n // len(unit) + 1))[:n]


long_text = st.tuples(st.lists(any_char, min_size=1, max_size=40).map("".join), st.integers(1_000, 40_000)).map(
    _repeat
)
some_text = st.one_of(small_text, small_text, small_text, small_text, small_text, long_text)

# keys: queryable ones mostly, plus the odd one with awkward characters
plain_key = st.text(alphabet="abcxyz_-0123456789 é日😀\"/'{}[]:", max_size=8)
odd_key = st.lists(any_char.filter(lambda c: c not in ("\x00", "\x1c")), max_size=6).map("".join)
any_key = st.one_of(plain_key, plain_key, plain_key, odd_key, st.sampled_from(["tool_name", "file_path", "cwd", "0"]))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    small_text,
)
json_values = st.recursive(
    scalars,
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(any_key, ch, max_size=4),
    max_leaves=12,
)
decoy = st.fixed_dictionaries({"tool_name": small_text, "file_path": small_text})


@st.composite
def shuffled(draw, d: dict) -> dict:
    keys = draw(st.permutations(list(d)))
    return {k: d[k] for k in keys}


@st.composite
def payloads(draw):
    ti = {
        "file_path": draw(small_text),
        "command": draw(st.one_of(small_text, st.lists(small_text, max_size=5))),
        "content": draw(some_text),
        "tool_name": draw(small_text),
        "nested": draw(decoy),
        "arr": draw(st.lists(st.one_of(decoy, json_values), max_size=3)),
    }
    ti.update(draw(st.dictionaries(any_key, json_values, max_size=3)))
    top = {
        "session_id": draw(small_text),
        "cwd": draw(small_text),
        "hook_event_name": draw(st.one_of(st.sampled_from(["PreToolUse", "PostToolUse", "Stop"]), small_text)),
        "tool_name": draw(st.one_of(st.sampled_from(["Bash", "Write", "Edit"]), small_text)),
        "tool_input": ti,
        "stop_hook_active": draw(st.booleans()),
        "last_assistant_message": draw(st.one_of(st.none(), some_text)),
        "deep": draw(st.lists(st.one_of(decoy, json_values, st.lists(decoy, max_size=2)), max_size=3)),
        "n": draw(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False))),
    }
    top.update(draw(st.dictionaries(any_key, json_values, max_size=3)))
    drop = draw(st.sets(st.sampled_from(sorted(top)), max_size=3))
    for k in drop:
        if k != "tool_input":
            del top[k]
    top["tool_input"] = draw(shuffled(ti))
    return draw(shuffled(top))


@st.composite
def serialize(draw, obj) -> str:
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, None, 0, 2, "\t", " "]))
    seps = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" , ", " : "), (",\n", ":\t")]))
    text = json.dumps(obj, ensure_ascii=ensure_ascii, indent=indent, separators=seps)
    # raw newlines never occur inside JSON strings, so this is safe
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    ws = st.sampled_from(["", " ", "\n", "\r\n", "\t \n"])
    return draw(ws) + text + draw(ws)


# ------------------------------------------------------------------- tests --


def test_library_is_pasteable():
    src = LIB.read_text(encoding="ascii")
    assert "'" not in src
    for bad in ("{{", "{%", "{#"):
        assert bad not in src
    # only function definitions at top level
    depth = 0
    for line in src.splitlines():
        stripped = line.strip()
        if depth == 0 and stripped and not stripped.startswith("#"):
            assert re.match(r"function j_\w+\(", stripped) or stripped == "}", line
        depth += _brace_delta(line)
    assert depth == 0


def _strip_awk(line: str) -> str:
    """Drop strings, regex literals and comments from one awk line."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    line = re.sub(r"(?<=[(~,!]) */(?:[^/\\\[]|\\.|\[(?:[^\]\\]|\\.)*\]?[^\]]*\])*/", " R ", line)
    line = re.sub(r"(^|\s)/(?:[^/\\\[]|\\.|\[\]?[^\]]*\])*/", r"\1 R ", line)
    return line.split("#", 1)[0]


def _brace_delta(line: str) -> int:
    s = _strip_awk(line)
    return s.count("{") - s.count("}")


_AWK_WORDS = set(
    re.findall(
        r"\w+",
        """
        BEGIN END function if else while for in do break continue next exit return delete getline
        print printf close length substr index split sub gsub match sprintf tolower toupper
        int sin cos atan2 exp log sqrt rand srand system fflush
        SUBSEP RS FS OFS ORS NR NF FNR RSTART RLENGTH CONVFMT OFMT FILENAME ENVIRON ARGV ARGC
        R
        """,
    )
)  # R is the placeholder _strip_awk leaves for a regex literal


def test_library_namespace():
    """Globals start with J_, functions with j_; everything else is a local."""
    src = LIB.read_text(encoding="ascii")
    local: set[str] = set()
    for line in src.splitlines():
        m = re.match(r"function (\w+)\(([^)]*)\)", line)
        if m:
            assert m.group(1).startswith("j_"), m.group(1)
            local = {a.strip() for a in m.group(2).split(",") if a.strip()}
            continue
        for word in re.findall(r"[A-Za-z_]\w*", _strip_awk(line)):
            if word in _AWK_WORDS or word in local or word.startswith(("J_", "j_")):
                continue
            raise AssertionError(f"stray global {word!r} in: {line.strip()}")


def test_pasted_into_single_quoted_shell(awk, tmp_path):
    """The library works when pasted into a single-quoted shell program."""
    prog = LIB.read_text() + '\nBEGIN { doc = j_readfile(ARGV[1]); print j_parse(doc), j_str("tool_name") }\n'
    script = "awk_prog='" + prog + "'\nLC_ALL=C " + " ".join(awk.argv) + ' "$awk_prog" "$1"\n'
    fixture = tmp_path / "pasted.json"
    fixture.write_text('{"tool_name": "Bash", "it\\u0027s": "x\'y"}')
    r = subprocess.run(["sh", "-c", script, "sh", str(fixture)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"1 Bash\n"


def test_basic(awk):
    text = (
        '{"cwd":"/tmp/a\\"b","tool\\u005fname":"Bash","tool_input":{"command":["ls","-l \\ud83d\\ude00 \\u00e9\\\\"],'
        '"n":-1.5e3,"x":null,"t":true,"f":false,"file_path":"\\/x\\b\\f\\n\\r\\t\\u0001\\u007f\\ud800\\udc00\\udc00"},\n'
        ' "a":{"b":1},"a":[2,{"c":"\\ud800x","tool_name":"decoy"}], "e": {}, "ea": [],'
        ' "big": 123456789012345678901234567890,'
        ' "inf": Infinity, "ninf": -Infinity, "nan": NaN}\n'
    )
    paths = [
        ("cwd",), ("tool_name",), ("tool_input",), ("tool_input", "command"), ("tool_input", "command", "0"),
        ("tool_input", "command", "1"), ("tool_input", "n"), ("tool_input", "x"), ("tool_input", "t"),
        ("tool_input", "f"), ("tool_input", "file_path"), ("a",), ("a", "b"), ("a", "0"), ("a", "1", "c"),
        ("a", "1", "tool_name"), ("e",), ("ea",), ("big",), ("inf",), ("ninf",), ("nan",), ("zz",),
    ]
    answers, ok = query(awk, text.encode(), paths)
    assert ok == 1
    got = dict(zip(paths, answers, strict=True))
    assert got[("cwd",)] == ("s", b'/tmp/a\\"b')
    assert got[("tool_name",)] == ("s", b"Bash")
    assert got[("tool_input",)] == ("o", b"")
    assert got[("tool_input", "command")] == ("a", b"")
    assert got[("tool_input", "command", "1")] == ("s", b"-l \\ud83d\\ude00 \\u00e9\\\\")
    assert got[("tool_input", "n")] == ("n", b"-1.5e3")
    assert got[("tool_input", "x")] == ("z", b"")
    assert got[("tool_input", "t")] == ("t", b"")
    assert got[("tool_input", "f")] == ("f", b"")
    assert got[("tool_input", "file_path")] == ("s", b"/x\\b\\f\\n\\r\\t\\u0001\\u007f\\ud800\\udc00\\ufffd")
    assert got[("a",)] == ("a", b"")
    assert got[("a", "b")] == ("-", b"")
    assert got[("a", "0")] == ("n", b"2")
    assert got[("a", "1", "c")] == ("s", b"\\ufffdx")
    assert got[("e",)] == ("o", b"") and got[("ea",)] == ("a", b"")
    assert got[("big",)] == ("n", b"123456789012345678901234567890")
    assert got[("inf",)] == ("n", b"Infinity") and got[("nan",)] == ("n", b"NaN")
    assert got[("zz",)] == ("-", b"")
    check_doc(awk, text)


def test_nul_escape(awk):
    answers, ok = query(awk, b'{"a": "x\\u0000y", "b\\u0000": 1}', [("a",)])
    assert ok == 1
    assert answers[0] == ("s", b"x\\u0000y" if awk.nul else b"xy")


# 1. equivalence with Python's json module
@PROFILE
@given(data=st.data())
def test_equivalence(awk, data):
    doc = data.draw(payloads())
    text = data.draw(serialize(doc))
    check_doc(awk, text)


@PROFILE
@given(doc=json_values, data=st.data())
def test_equivalence_any_value(awk, doc, data):
    """Arbitrary JSON values, wrapped in an object or at the top level."""
    wrap = data.draw(st.booleans())
    text = data.draw(serialize({"v": doc} if wrap else doc))
    check_doc(awk, text, extra_paths=[("v",)])


# string lengths around the parser's 8 KB pieces: just under one, just over one, over two (fast
# mode: just over one)
LONG_SIZES = (8449,) if FAST else (8190, 8449, 17_000)
LONG_UNITS = ["\\", "a", "é", "😀", "\ud83d", "\ude00\ud83d", '"', "\\u", "\x01\n", "deadBEEF", "\\\\x", "c:\\Users\\",
              "\t\"", "0", "0a\n", "x" * 8191 + "\\", "u" * 255 + "é"]


@pytest.mark.parametrize("unit", LONG_UNITS, ids=lambda u: repr(u[:12]))
def test_long_strings(awk, unit):
    """Long strings are checked and decoded in pieces; pieces must never split an escape."""
    for n in LONG_SIZES:
        v = (unit * (n // len(unit) + 1))[:n]
        for ensure_ascii in (True, False):
            doc = {"tool_input": {"content": v, "file_path": "/x"}, "k" * 9000: [v, 1]}
            check_doc(awk, json.dumps(doc, ensure_ascii=ensure_ascii))


@pytest.mark.parametrize("skip", [None, 1, 7, 0x0B, 0x1F])
@pytest.mark.parametrize("upper", [False, True])
def test_escaped_backslash_with_control_escapes(awk, skip, upper):
    """Decoding with escaped backslashes next to \\u00XX escapes of every control byte."""
    esc = "".join(f"\\u{c:04x}" for c in range(32) if c != skip)
    if upper:
        esc = esc.upper().replace("\\U", "\\u")
    body = "a\\\\b" + esc + "\\\\u0001\\\\" + esc + "z"
    for reps in (1, 400):
        text = '{"a": "' + body * reps + '", "b": ["' + body + '"]}'
        check_doc(awk, text)


def test_long_outside_segments(awk):
    """A big array of numbers and literals (a long segment outside strings)."""
    doc = {"a": [i * 7 - 3 for i in range(20_000)] + [1.5e300, True, None, False], "b": "x"}
    for seps in ((",", ":"), (", ", ": "), (",\n", ":")):
        check_doc(awk, json.dumps(doc, separators=seps))
    text = json.dumps(doc, separators=(",", ":"))
    answers, ok = query(awk, text[:-40].encode(), [("a", "19995"), ("a", "19999"), ("b",)])
    assert answers[2] == ("-", b"") and ok == 0
    assert answers[0] == ("n", str(19995 * 7 - 3).encode())


# 2. duplicate keys: the last one wins, subtrees included


def _dump_pairs(v) -> str:
    if isinstance(v, Pairs):
        return "{" + ", ".join(json.dumps(k) + ": " + _dump_pairs(x) for k, x in v.items) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_dump_pairs(x) for x in v) + "]"
    return json.dumps(v)


class Pairs:
    def __init__(self, items):
        self.items = items


def _pair_paths(v, prefix=()):
    out = []
    if isinstance(v, Pairs):
        for k, x in v.items:
            out.append((*prefix, k))
            out.extend(_pair_paths(x, (*prefix, k)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.append((*prefix, str(i)))
            out.extend(_pair_paths(x, (*prefix, str(i))))
    return out


dup_key = st.sampled_from(["a", "b", "c", "tool_name", "file_path", "0"])
dup_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["x", "y\\z", "é"])),
    lambda ch: st.lists(ch, max_size=3) | st.lists(st.tuples(dup_key, ch), max_size=5).map(Pairs),
    max_leaves=15,
)


def test_duplicate_keys_fixed(awk):
    text = (
        '{"a": {"b": 1, "c": [1, {"d": 2}]}, "t": "x", "a": 5, "t": {"u": 1}, "t": [7],'
        ' "c": {"d": {"e": 1}}, "c": {"f": 2}, "tool_input": {"file_path": "/1", "file_path": "/2"}}'
    )
    paths = [("a",), ("a", "b"), ("a", "c"), ("a", "c", "1", "d"), ("t",), ("t", "u"), ("t", "0"),
             ("c", "d"), ("c", "d", "e"), ("c", "f"), ("tool_input", "file_path")]
    answers, ok = query(awk, text.encode(), paths)
    assert ok == 1
    assert answers == [("n", b"5"), ("-", b""), ("-", b""), ("-", b""), ("a", b""), ("-", b""), ("n", b"7"),
                       ("-", b""), ("-", b""), ("n", b"2"), ("s", b"/2")]


@PROFILE
@given(items=st.lists(st.tuples(dup_key, dup_values), max_size=8))
def test_duplicate_keys(awk, items):
    top = Pairs(items)
    text = _dump_pairs(top)
    doc = json.loads(text)
    paths = [*sorted(set(_pair_paths(top))), ("zz",)]
    answers, ok = query(awk, text.encode(), paths)
    assert ok == 1
    check_answers(awk, doc, paths, answers)


# 3. truncation

FILE_PATH = '/tmp/d "q" \\ é 😀 \u2028/f.py'


def _truncation_doc(ensure_ascii: bool, indent) -> tuple[bytes, int, int]:
    doc = {
        "session_id": "s1",
        "cwd": "/w",
        "tool_input": {"file_path": FILE_PATH, "content": "x\"\\\n" * 6_000 + "é" * 10},
        "tool_name": "Write",
    }
    data = json.dumps(doc, ensure_ascii=ensure_ascii, indent=indent).encode()
    fp = json.dumps(FILE_PATH, ensure_ascii=ensure_ascii).encode()
    key = b'"file_path": '
    start = data.index(key)
    end = start + len(key) + len(fp)
    assert data[start + len(key): end] == fp
    return data, start, end


FP_PATH = [("tool_input", "file_path"), ("session_id",), ("tool_name",)]


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_truncation_around_file_path(awk, ensure_ascii):
    data, start, end = _truncation_doc(ensure_ascii, None)
    want = py_esc(utf8(FILE_PATH))
    for cut in [*list(range(start, end + 4)), len(data) - 1, len(data)]:
        answers, ok = query(awk, data[:cut], FP_PATH)
        assert answers[1] == ("s", b"s1")
        if cut >= end:
            assert answers[0] == ("s", want), cut
        else:
            assert answers[0] == ("-", b""), cut
        assert answers[2] == (("s", b"Write") if cut >= len(data) - 1 else ("-", b""))
        assert ok == (1 if cut == len(data) else 0)


@PROFILE
@given(data=st.data())
def test_truncation_anywhere(awk, data):
    ensure_ascii = data.draw(st.booleans())
    indent = data.draw(st.sampled_from([None, 2]))
    text, _start, end = _truncation_doc(ensure_ascii, indent)
    cut = data.draw(st.integers(0, len(text)))
    answers, ok = query(awk, text[:cut], FP_PATH)
    if cut >= end:
        assert answers[0] == ("s", py_esc(utf8(FILE_PATH)))
    else:
        assert answers[0] == ("-", b"")
    assert ok == (1 if text[cut:].strip() == b"" else 0)


@PROFILE
@given(data=st.data())
def test_truncation_never_invents(awk, data):
    """After any cut, every value reported equals the value in the full document."""
    doc = data.draw(payloads())
    text = utf8(data.draw(serialize(doc)))
    cut = data.draw(st.integers(0, len(text)))
    full = json.loads(text.decode("utf-8", "surrogatepass"))
    paths = all_paths(full) + list(DECOY_ABSENT)
    answers, ok = query(awk, text[:cut], paths)
    for p, (typ, val) in zip(paths, answers, strict=True):
        if typ == "-":
            continue
        check_answers(awk, full, [p], [(typ, val)], text)
    if text[cut:].strip():
        assert ok == 0


# 4. garbage, binary, empty input


def python_verdict(data: bytes):
    """Python's view of data when bytes are taken as they are (no UTF-8 check)."""
    try:
        doc = json.loads(data.decode("latin-1"))
    except ValueError:
        return None
    return doc


@pytest.mark.parametrize(
    "data",
    [b"", b"\n", b" ", b"{", b"}", b"[]", b"{}", b"{} x", b"{}{}", b'"x"', b"1", b"null", b'{"a"}', b'{"a":}',
     b'{"a":1,}', b'{,"a":1}', b'{"a":1 "b":2}', b'{"a":01}', b'{"a":1.}', b'{"a":.5}', b'{"a":-}', b'{"a":tru}',
     b'{"a":"\\x"}', b'{"a":"\\u12g4"}', b'{"a":"\\u123"}', b'{"a":"x\ty"}', b'{"a":"x\ny"}', b'{"a":\x0c1}',
     b'\xef\xbb\xbf{"a":1}', b'{"a":1}\x00', b'{"a\\":1}', b'{"a":"\\\\"}', b'{"a":"\\\\\\"}', b"\xff\xfe{",
     b'{"a":[1,2}', b'{"a":{"b":1]}', b'{"a" 1}', b'{"a"::1}', b"{'a':1}", b'{"a":1}\n\n', b'{"a":+1}',
     b'{"a":-Infinity}', b'{"a":-NaN}', b'{"a":1e5}', b'{"a":1E+5}', b'{"a":1e}', b'[{"a":1}]'],
)
def test_garbage_fixed(awk, data):
    paths = [("a",), ("a", "b")]
    answers, ok = query(awk, data, paths)
    doc = python_verdict(data)
    if b"\x00" in data and not awk.nul:
        return  # the line is cut at the NUL there
    assert ok == (1 if isinstance(doc, dict) else 0), doc
    if isinstance(doc, dict):
        check_answers(awk, doc, paths, answers)


@PROFILE
@given(data=st.binary(max_size=300))
def test_garbage_binary(awk, data):
    _answers, ok = query(awk, data, [("a",), ("cwd",)])
    if b"\x00" in data and not awk.nul:
        return
    doc = python_verdict(data)
    assert ok == (1 if isinstance(doc, dict) else 0)


JSONISH = st.sampled_from([*list('{}[]:,"\\ \n\t0123456789-+.eEtrufalsnIyNx'), "\\u", "\\ud800", "\x01", "é"])


@PROFILE
@given(data=st.data())
def test_garbage_mutated(awk, data):
    """Small edits of valid payloads: awk accepts exactly what Python accepts."""
    doc = data.draw(json_values.map(lambda v: {"v": v, "tool_name": "Bash", "cwd": "/x"}))
    text = json.dumps(doc, ensure_ascii=data.draw(st.booleans()))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["del", "ins", "rep"]))
        if op == "del":
            text = text[:i] + text[i + data.draw(st.integers(1, 3)):]
        elif op == "ins":
            text = text[:i] + data.draw(JSONISH) + text[i:]
        else:
            text = text[:i] + data.draw(JSONISH) + text[i + 1:]
    raw = utf8(text)
    try:
        ref = json.loads(text)
    except ValueError:
        ref = None
    paths = (all_paths(ref) if isinstance(ref, dict) else []) + [("v",), ("tool_name",), ("cwd",)]
    answers, ok = query(awk, raw, paths)
    assert ok == (1 if isinstance(ref, dict) else 0), (text[:300], ref)
    if isinstance(ref, dict):
        check_answers(awk, ref, paths, answers, raw)


# 5. j_esc and j_cap

VALID_SPECIAL = [c for c in SPECIAL if not re.search("[\ud800-\udfff]", c)]
valid_text = st.lists(st.one_of(st.sampled_from(VALID_SPECIAL), st.characters(codec="utf-8")), max_size=60).map("".join)


def _stdin_form(b: bytes) -> bytes:
    # the driver joins input lines with newlines, so one final newline is lost
    return b[:-1] if b.endswith(b"\n") else b


@PROFILE
@given(s=st.one_of(valid_text, st.text(st.characters(codec="utf-8"))))
def test_esc_roundtrip(awk, s):
    b = s.encode("utf-8")
    if not awk.nul:
        b = b.replace(b"\x00", b"")
    out = run_driver(awk, b, mode="esc")
    b = _stdin_form(b)
    assert out == py_esc(b)
    assert json.loads(b'"' + out + b'"') == b.decode("utf-8")


@PROFILE
@given(b=st.binary(max_size=200))
def test_esc_bytes(awk, b):
    if not awk.nul:
        b = b.replace(b"\x00", b"")
    out = run_driver(awk, b, mode="esc")
    assert out == py_esc(_stdin_form(b))
    json.loads(b'"' + out + b'"')


# bytes that are not UTF-8, or not the shortest form, or a surrogate, or cut short
ILL_FORMED = [b"\x80", b"\xbf\x80", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
              b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xfe",
              b"\xc3", b"\xe6\x97", b"\xf0\x9f\x98", b"\xe6\x97A", b"\xf0\x9f\x98\xc3\xa9", b"\xc3\xc3\xa9",
              b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbf", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80"]


@pytest.mark.parametrize("bad", ILL_FORMED, ids=lambda b: b.hex())
def test_esc_ill_formed(awk, bad):
    """Every byte sequence escapes to plain ASCII that a strict decoder reads, one U+FFFD per
    maximal ill-formed part (as Python's errors="replace"); the printf %b form likewise."""
    for b in (bad, b"a" + bad + b"z", bad * 3, b"\xc3\xa9" + bad + b"\\"):
        out = run_driver(awk, b, mode="esc")
        assert out == py_esc(b), (b, out)
        assert out.isascii()
        assert json.loads(b'"' + out + b'"') == b.decode("utf-8", "replace")
        pct = run_driver(awk, b, mode="pct")
        assert pct == py_pct(b) and pct.isascii(), (b, pct)


@pytest.mark.parametrize("unit", ["é".encode(), "日本".encode(), "😀x".encode(), b"\x80", b"\xe6\x97", b"\xc3\xa9\xff",
                                  b"a\xf0\x9f\x98\x80"], ids=lambda u: u.hex())
def test_esc_long_non_ascii(awk, unit):
    """Long non-ASCII text is escaped in pieces; no cut falls inside a character."""
    for n in LONG_SIZES:
        b = (unit * (n // len(unit) + 1))[:n]
        assert run_driver(awk, b, mode="esc") == py_esc(b), n
        assert run_driver(awk, b, mode="pct") == py_pct(b), n


@PROFILE
@given(b=st.binary(max_size=200))
def test_pct_bytes(awk, b):
    if not awk.nul:
        b = b.replace(b"\x00", b"")
    assert run_driver(awk, b, mode="pct") == py_pct(_stdin_form(b))


@PROFILE
@given(s=valid_text, n=st.integers(0, 120))
def test_cap(awk, s, n):
    b = s.encode("utf-8")
    if not awk.nul:
        b = b.replace(b"\x00", b"")
    out = run_driver(awk, b, mode="cap", n=n)
    b = _stdin_form(b)
    assert len(out) <= n
    assert b.startswith(out)
    out.decode("utf-8")  # never splits a character
    assert out == py_cap(b, n)


# j_readfile


def test_readfile(awk, tmp_path):
    doc = {"tool_name": "Edit", "tool_input": {"file_path": "/a b", "old": "x\ny"}, "z": [1, 2]}
    f = tmp_path / "payload.json"
    f.write_text(json.dumps(doc, indent=2) + "\n")
    paths = all_paths(doc)
    answers, ok = query(awk, b"", paths, file=str(f))
    assert ok == 1
    check_answers(awk, doc, paths, answers)
    answers, ok = query(awk, b"", [("tool_name",)], file=str(tmp_path / "missing.json"))
    assert (answers, ok) == ([("-", b"")], 0)


def test_readfile_keeps_rs(awk, tmp_path):
    f = tmp_path / "p.json"
    f.write_bytes(b'{"a":\n\n"x"\n\n}\n')
    prog = tmp_path / "p.awk"
    prog.write_text(
        'BEGIN { RS = ""; s = j_readfile(ARGV[1]);'
        ' printf "%d|%s|%d|%s\\n", j_parse(s), j_str("a"), length(s), RS }\n'
    )
    r = subprocess.run([*awk.argv, "-f", str(LIB), "-f", str(prog), str(f)], capture_output=True, env=ENV)
    assert r.stdout == b"1|x|13|\n", r


# 6. performance sanity (no timing assertions; see the report for numbers)


def _big_payload() -> bytes:
    src = "".join(
        f'def f{i}(x):\n    """Doc {i}: é 😀 \\ "q"."""\n    return x * {i}  # {"c" * (i % 7)}\n' for i in range(4000)
    )
    doc = {"session_id": "s", "cwd": "/w", "hook_event_name": "PreToolUse", "tool_name": "Write",
           "tool_input": {"file_path": "/w/big.py", "content": ""}}
    base = len(json.dumps(doc).encode())
    body = src.encode()[: 256 * 1024 - base].decode("utf-8", "ignore")
    doc["tool_input"]["content"] = body
    data = json.dumps(doc, ensure_ascii=False).encode()
    while len(data) > 256 * 1024:
        body = body[: -(len(data) - 256 * 1024)]
        doc["tool_input"]["content"] = body
        data = json.dumps(doc, ensure_ascii=False).encode()
    return data


def test_performance_256k(awk):
    data = _big_payload()
    assert 250_000 < len(data) <= 256 * 1024
    t0 = time.perf_counter()
    answers = check_doc(awk, data)
    elapsed = time.perf_counter() - t0
    print(f"{awk.name}: 256 KiB payload, parse + decode + compare {elapsed * 1000:.1f} ms")
    assert answers[0][0] in "so"
