"""Every byte a tentacle prints is valid UTF-8, whatever bytes the payload and the matrix hold.

The awk side hands the shell plain ASCII only (JSON with every other character as a \\u
escape, the stderr line in printf %b form, a cwd only when it is printable ASCII): yash in the
C locale cuts a command substitution at the first other byte, and drops the rest of the answer
with it. Bytes that are not UTF-8 (overlong forms, surrogates, cut sequences, stray
continuation bytes) and \\u escapes of lone surrogates become U+FFFD.

- a fixed case under every shell and every awk, in the C locale: the deny for a locked path
  with a non-ASCII character reaches stdout, the warning on stderr (the Codex warn dialect)
  keeps the character, and a prompt context carries a non-ASCII alert;
- a property (hypothesis) over arbitrary bytes in the payload's string values (raw bytes, lone
  surrogate escapes, overlong and cut sequences) and in the matrix (holder names, alert texts,
  pheromone notes), each example on a shell and an awk of the matrix drawn at random, in the C
  or a UTF-8 locale, directly or through the gate: stdout is empty or exactly one JSON object
  that json.loads reads from the bytes decoded strictly, stderr decodes strictly, and the deny
  for a locked non-ASCII path is there. Examples under CI (derandomized): 60 per tentacle; a
  fifth locally.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
import tomlkit
from hypothesis import given
from hypothesis import strategies as st
from tests.conformance import oracle as o
from tests.conformance import test_fuzz as fz
from tests.conformance.conftest import tag
from tests.conformance.kit import BLOCKING, MATRIX, NAMES, SPEC_PATH, VENDORS, Shell, new_home, parse_stdout
from tests.tentaclekit import render as render_tentacles
from tests.tentaclekit import run_script

from hookshape.plan import outputs

# the awk farms and the runner of the fuzz suite (pytest finds these fixtures by their names here)
awk_dirs = fz.awk_dirs
behind_awk = fz.behind_awk
shells = fz.shells
AWKS, REQUIRED_AWKS, awk_order, fuzz, runner = fz.AWKS, fz.REQUIRED_AWKS, fz.awk_order, fz.fuzz, fz.runner

pytestmark = pytest.mark.slow

LOCALES = ({"LANG": "C", "LC_ALL": ""}, {"LANG": "", "LC_ALL": ""}, {"LANG": "C.UTF-8", "LC_ALL": ""})


def q(raw: bytes) -> bytes:
    """A JSON string literal around raw body bytes (escapes in raw stay escapes)."""
    return b'"' + raw + b'"'


def js(s: str, ascii_only: bool = False) -> bytes:
    """The body of a JSON string literal of s."""
    return json.dumps(s, ensure_ascii=ascii_only)[1:-1].encode("utf-8")


def tool_event(vendor: str, path: bytes, session: bytes, content: bytes, cwd: bytes) -> bytes:
    v = o.VENDOR[vendor]
    tool = o.PROFILES[vendor].tools.edit[0]
    return o.raw_event(vendor, "pre_tool", {v.tool: tool.encode(), (*v.tool_input, v.path_fields[0]): path,
                                            (*v.tool_input, "content"): content, v.session[0]: session}, cwd)


def prompt_event(vendor: str, session: bytes, text: bytes, cwd: bytes) -> bytes:
    return o.raw_event(vendor, "prompt", {o.VENDOR[vendor].session[0]: session, ("prompt",): text}, cwd)


def stop_event(vendor: str, session: bytes, text: bytes, cwd: bytes) -> bytes:
    v = o.VENDOR[vendor]
    fields = {v.session[0]: session, **{path: text for path in v.stop_text[:1]}}
    doc = o.raw_event(vendor, "stop", fields, cwd)
    return doc[:-1] + b', "' + b".".join(p.encode() for p in v.stop_active) + b'": false}' if v.stop_active else doc


def check_output(vendor: str | None, role: str, out: bytes, err: bytes) -> object:
    """Empty or one JSON object on one line, strictly decoded, of a shape the vendor accepts;
    stderr valid UTF-8. Returns the object (or None)."""
    err.decode("utf-8")  # strict
    if out == b"":
        return None
    assert out.endswith(b"\n") and out.count(b"\n") == 1, out[:300]
    obj = json.loads(out.decode("utf-8"))  # strict
    assert isinstance(obj, dict), out[:300]
    verdicts = [parse_stdout(v, role, out) for v in ([vendor] if vendor else VENDORS)]
    assert any(not bad for _o, _s, bad in verdicts), [b for *_x, b in verdicts]
    return obj


def reason_of(obj: object, vendor: str, role: str = "pre_tool") -> str:
    """The text of a vendor's answer, whichever answer of the role it is."""
    assert isinstance(obj, dict)
    for kind in ("deny", "stop", "context", "warn", "suggest"):
        text = outputs.read(o.PROFILES[vendor], kind, obj, role)  # type: ignore[arg-type]
        if text:
            return text
    return ""


# ------------------------------------------------------------------ the fixed case, every cell --

NAME = "a.py\u00e9"
TARGET = "/repo/src/" + NAME
ALERT_TEXT = "d\u00e9ploiement gel\u00e9 \u65e5\u672c \U0001f600"
HALT_REASON = "maintenance caf\u00e9 \u2014 back at 18:00"


@pytest.mark.parametrize("awk", list(AWKS))
@pytest.mark.parametrize("sh", MATRIX, ids=lambda s: s.name)
def test_non_ascii_in_c_locale(rendered, behind_awk, interps, awk_dirs, tmp_path, request, sh: Shell, awk: str):
    """In the C locale: the deny for a locked /repo/src/a.py\\u00e9 reaches stdout on every
    vendor, the Codex warning on stderr keeps the character, the prompt context carries a
    non-ASCII alert, a trail line for the path is whole and valid UTF-8, and a non-ASCII halt
    reason (awk reads it: a shell read fails in yash) reaches the context."""
    tag(request, kind="fuzz")
    if not sh.available:
        pytest.skip(f"{sh.name} is not installed")
    if awk not in awk_dirs:
        pytest.fail(f"{awk} is not installed") if awk in REQUIRED_AWKS else pytest.skip(f"{awk} is not installed")
    ctx = runner(rendered, behind_awk, interps, awk_dirs)(sh, awk)
    matrix = f'{o.LOCK}{o.suffix(TARGET)}="{o.OTHER}"\n{o.ALERT}A1="{ALERT_TEXT}"\n'.encode()
    c = {"LANG": "C", "LC_ALL": ""}
    for vendor in VENDORS:
        for escaped in (False, True):
            payload = tool_event(vendor, js(TARGET, escaped), b"s1", b"x", b"/repo")
            r = ctx.invoke("pre_tool", payload, home_with(tmp_path, matrix), vendor,
                           {**c, "PD_SUGGESTIBILITY": "enforce"})
            obj = check_output(vendor, "pre_tool", r.out, r.err)
            assert r.code == 0 and obj is not None, (vendor, r.brief())
            assert parse_stdout(vendor, "pre_tool", r.out)[1] in BLOCKING, r.brief()
            assert TARGET in reason_of(obj, vendor), r.brief()
        r = ctx.invoke("prompt", prompt_event(vendor, b"s1", js("salut \u00e9"), b"/repo"),
                       home_with(tmp_path, matrix), vendor, c)
        obj = check_output(vendor, "prompt", r.out, r.err)
        if "prompt" not in o.PROFILES[vendor].output.context_roles:
            assert obj is None, r.brief()  # no context channel at turn start (Cursor)
            continue
        assert obj is not None and ALERT_TEXT in json.dumps(obj, ensure_ascii=False), r.brief()
    r = ctx.invoke("pre_tool", tool_event("codex", js(TARGET), b"s1", b"x", b"/repo"), home_with(tmp_path, matrix),
                   "codex", {**c, "PD_SUGGESTIBILITY": "warn"})
    check_output("codex", "pre_tool", r.out, r.err)
    assert r.out == b"" and TARGET in r.err.decode("utf-8") and r.err.count(b"\n") == 1, r.brief()
    post = tool_event("claude", js(TARGET), b"s1", b"x", b"/repo").replace(b"PreToolUse", b"PostToolUse")
    home = home_with(tmp_path, matrix)
    r = ctx.invoke("post_tool", post, home, "claude", c)
    assert r.code == 0 and r.out == b"" and r.err == b"", r.brief()
    added = home.matrix.read_bytes()[len(matrix):].decode("utf-8")  # strict
    assert added.startswith(o.PHEROMONE) and f'="{TARGET} | ' in added and added.endswith('"\n'), added
    halted = home_with(tmp_path, matrix)
    (halted.path / o.SPEC["halt"]["sentinel_default"]).write_bytes(HALT_REASON.encode() + b"\nsecond line\n")
    r = ctx.invoke("prompt", prompt_event("claude", b"s1", b"hi", b"/repo"), halted, "claude", c)
    obj = check_output("claude", "prompt", r.out, r.err)
    assert r.err == b"" and obj is not None and HALT_REASON in json.dumps(obj, ensure_ascii=False), r.brief()


SPEC_BLOCK = "BLOQU\u00c9 : {path} \u2014 tenu par {holder} \U0001f512"


def test_spec_text_outside_ascii(tmp_path: Path) -> None:
    """Spec messages outside ASCII render into plain-ASCII tentacles and gates (octal escapes in
    awk, \\u escapes in the gate's notice: yash in the C locale cannot read a script holding
    other bytes), and the deny carries the message whole, every shell."""
    doc = tomlkit.parse(SPEC_PATH.read_text(encoding="utf-8"))
    doc["messages"]["block"] = SPEC_BLOCK
    doc["messages"]["breaker_notice"] = "PAUS\u00c9 {phase}: {count} \u00e9checs, {cooldown_s} s"
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    squid = render_tentacles(tmp_path / "out", spec)
    scripts = sorted(p for p in squid.parent.rglob("*") if p.is_file())
    assert len(scripts) >= 8
    for script in scripts:
        assert script.read_bytes().isascii(), script.name
    home = home_with(tmp_path, f'{o.LOCK}{o.suffix(TARGET)}="{o.OTHER}"\n'.encode())
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home.path.parent / "user"), "LANG": "C",
           "PD_HOME": str(home.path), "PD_ACTOR": o.ACTOR, "PD_HOOK_PROVIDER": "claude"}
    want = SPEC_BLOCK.format(path=TARGET, holder=o.OTHER)
    ran = []
    for sh in MATRIX:
        if not shutil.which(sh.argv[0]):
            continue
        r = run_script(squid / NAMES["pre_tool"], tool_event("claude", js(TARGET), b"s1", b"x", b"/repo"), sh, env,
                       tmp_path)
        obj = check_output("claude", "pre_tool", r.out, r.err)
        assert r.code == 0 and obj is not None and reason_of(obj, "claude") == want, (sh.name, r)
        ran.append(sh.name)
    assert "dash" in ran


def home_with(base, matrix: bytes):
    home = new_home(base)
    home.matrix.write_bytes(matrix)
    return home


# -------------------------------------------------------------------------- the property --

# pieces of string bodies a JSON text may carry: escapes of lone and paired surrogates, overlong,
# surrogate, out-of-range and cut UTF-8 sequences, stray continuation bytes, valid characters
PIECES = [b"\\ud800", b"\\udc00", b"\\udbff\\udfff", b"\\ud83d\\ude00", b"\\u00e9", b"\\ud800\\u0041", b"\\ud800\\\\",
          b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80",
          b"\xf8\x88\x80\x80\x80", b"\xe6\x97", b"\xf0\x9f\x98", b"\x80", b"\xbf", b"\xfe", b"\xff",
          "\u00e9".encode(), "\u65e5".encode(), "\U0001f600".encode(), "\u2028".encode(), b"\\\\", b'\\"',
          b"\\n", b"\\u0000", b"a", b" ", b"%s", b"%b\\\\c"]
# raw bytes that keep a JSON string body a string body (no quote, backslash or control byte)
body_bytes = st.binary(max_size=10).map(lambda b: bytes(c for c in b if c >= 0x20 and c not in (0x22, 0x5C)))
wild = st.lists(st.one_of(st.sampled_from(PIECES), body_bytes), max_size=8).map(b"".join)
# matrix values inside KEY="..." (no quote, backslash, $, backquote or line break)
value_bytes = st.lists(st.one_of(st.sampled_from([p for p in PIECES if b"\\" not in p]),
                                 st.binary(max_size=10).map(lambda b: bytes(c for c in b if c not in b'"\\$`\n\r'))),
                       max_size=6).map(b"".join)
clean_name = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="/\\\""),
                     min_size=1, max_size=8).filter(lambda s: any(ord(c) > 127 for c in s))


@st.composite
def matrix_bytes(draw: st.DrawFn, lock: bytes | None) -> bytes:
    lines = []
    for i in range(draw(st.integers(0, 3))):
        lines.append(o.ALERT.encode() + b"A%d=\"" % i + draw(value_bytes) + b'"')
    for i in range(draw(st.integers(0, 2))):
        lines.append(o.PHEROMONE.encode() + b'REPO_%d_1="/repo/' % i + draw(value_bytes) + b" | " + draw(value_bytes)
                     + b' | actor:bob | ts:2099-01-01T00:00:00Z"')
    if draw(st.booleans()):
        lines.append(draw(st.binary(max_size=30)).replace(b"\n", b" "))
    if lock is not None:
        lines.append(lock)
    return b"\n".join(draw(st.permutations(lines))) + b"\n"


@pytest.mark.parametrize("role", ["pre_tool", "prompt", "stop"])
def test_output_always_utf8(rendered, behind_awk, interps, awk_dirs, shells, tmp_path, request, role):
    """Arbitrary bytes in the payload and the matrix: stdout empty or one strictly decodable
    JSON object, stderr valid UTF-8, and the deny for a locked non-ASCII path still there."""
    tag(request, kind="fuzz")
    make = runner(rendered, behind_awk, interps, awk_dirs)
    seen: Counter[str] = Counter()

    @fuzz(60)
    @given(vendor=st.sampled_from(VENDORS), data=st.data())
    def prop(vendor: str, data: st.DataObject) -> None:
        cwd = data.draw(st.sampled_from([b"/repo", b"/repo", b"/repo/\xc3\xa9", b"/repo/\xff"]))
        lock = None
        target = None
        if role == "pre_tool":
            if data.draw(st.booleans()):
                target = "/repo/src/" + data.draw(clean_name) + ".py"
                path = js(target, data.draw(st.booleans()))
                holder = b"bob" + data.draw(value_bytes)[:12]
                lock = o.LOCK.encode() + o.suffix(target).encode() + b'="' + holder + b'"'
            else:
                path = b"/repo/src/" + data.draw(wild)
                lock = o.LOCK.encode() + b'REPO_SRC="bob' + data.draw(value_bytes)[:12] + b'"'
            payload = tool_event(vendor, path, data.draw(wild), data.draw(wild), cwd)
        elif role == "prompt":
            payload = prompt_event(vendor, data.draw(wild), data.draw(wild), cwd)
        else:
            payload = stop_event(vendor, data.draw(wild), data.draw(wild), cwd)
        matrix = data.draw(matrix_bytes(lock))
        env = {**data.draw(st.sampled_from(LOCALES)), "PD_SUGGESTIBILITY": "enforce"}
        mode = data.draw(st.sampled_from(["direct", "direct", "gate"]))
        sh = data.draw(st.sampled_from(shells))
        awk = data.draw(st.sampled_from(awk_order(awk_dirs)))
        r = make(sh, awk, mode).invoke(role, payload, home_with(tmp_path, matrix), vendor, env)
        where = (sh.name, awk, mode, env["LANG"], r.brief())
        assert r.code == 0, where
        obj = check_output(vendor, role, r.out, r.err)
        if target is not None:
            assert obj is not None and parse_stdout(vendor, role, r.out)[1] in BLOCKING, where
            assert target in reason_of(obj, vendor, role), where
            seen["deny"] += 1
        seen[f"{sh.name}/{awk}"] += 1

    prop()
    tag(request, fuzz=f"output always UTF-8, {role}: {sum(v for k, v in seen.items() if '/' in k)} examples "
                      f"({seen['deny']} non-ASCII denies)")
