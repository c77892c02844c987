"""Fault injection: garbage, empty, truncated, binary, deeply nested and 5 MB stdin; hostile
paths, sessions and homes (nothing executes, JSON stays valid); the fail-open outer layer and
the verdict exit code (through a test-only vendor whose block channel is exit 2 + stderr)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from tests.shells import FAST, InTurn, crossed
from tests.tentaclekit import (
    FIXTURES,
    MSG,
    ON_CORE,
    ON_DASH,
    ROLES,
    SPEC_PATH,
    STOP_DIRECTIVE,
    VENDORS,
    Pd,
    assert_silent,
    block_msg,
    context,
    halt_msg,
    p_edit,
    p_prompt,
    p_shell,
    p_stop,
    p_tool,
    render,
    stdout_object,
    suffix,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
# where the vendor changes what is asserted, every vendor in every mode
EVERY_VENDOR = pytest.mark.parametrize("vendor", VENDORS)
ROLE = pytest.mark.parametrize("role", ROLES)
MB5 = 5 * 1024 * 1024


def _fixture_bytes() -> bytes:
    return (FIXTURES / "claude" / "pre-tool-Write.json").read_bytes()


GARBAGE = {
    "empty": b"",
    "blank": b"  \n\t\n",
    "text": b"not json at all\n",
    "open-brace": b"{",
    "open-key": b'{"session_id":',
    "close-only": b"}}]]",
    "array": b"[]",
    "string": b'"just a string"',
    "null": b"null",
    "number": b"42",
    "truncated-fixture": _fixture_bytes()[: len(_fixture_bytes()) // 2],
    "truncated-in-escape": b'{"session_id":"a\\',
    "binary": random.Random(7).randbytes(8192),
    "nul-bytes": b'{"session_id":"a\x00b","cwd":"/\x00","hook_event_name":"Stop","last_assistant_message":"x\x00"}',
    "bad-utf8": b'{"session_id":"\xff\xfe","cwd":"/p/\xc3","hook_event_name":"PreToolUse","tool_name":"Write",'
                b'"tool_input":{"file_path":"/p/\xed\xa0\x80"}}',
    "lone-surrogate": b'{"session_id":"\\ud800","hook_event_name":"Stop","last_assistant_message":"\\udc00x"}',
    "bad-escape": b'{"session_id":"\\q","hook_event_name":"Stop"}',
    "deep-arrays": b"[" * 3000,
    "deep-objects": b'{"a":' * 3000 + b"1" + b"}" * 3000,
    "many-keys": ("{" + ",".join(f'"k{i}":{i}' for i in range(50000)) + "}").encode(),
    "duplicate-keys": b'{"hook_event_name":"Stop","hook_event_name":"PreToolUse","tool_name":"Write",'
                      b'"tool_input":{"file_path":1},"tool_input":{"file_path":"/p/a.ts"}}',
    "bom": b"\xef\xbb\xbf" + _fixture_bytes(),
    "utf16": _fixture_bytes().decode().encode("utf-16"),
    "crlf-pretty": json.dumps(json.loads(_fixture_bytes()), indent=2).replace("\n", "\r\n").encode(),
    "nan": b'{"session_id":NaN,"hook_event_name":Infinity}',
    "wrong-types": b'{"session_id":["x"],"cwd":{"a":1},"hook_event_name":7,"tool_name":null,"tool_input":"str",'
                   b'"stop_hook_active":"yes","last_assistant_message":{"t":1},"toolCall":[],"conversationId":5}',
    "5mb-garbage": b"x" * MB5,
    "5mb-quotes": b'"' * MB5,
    "5mb-backslashes": b'{"a":"' + b"\\" * MB5,
    "5mb-newlines": b"\n" * MB5,
}


def loaded(pd: Pd) -> None:
    """A busy harness: locks on the usual targets, alerts, trails."""
    for p in ("/p/a.ts", "/home/dev/proj/src/retry.ts", str(pd.proj / "a.ts")):
        pd.lock(p, "bob")
    pd.alert("OPS", "busy")
    pd.trail(pd.proj / "t.ts")


BIG = [n for n in GARBAGE if n.startswith("5mb-")]
SMALL = [n for n in GARBAGE if n not in BIG]


def _fails_open(pd: Pd, role: str, name: str, provider: str | None) -> None:
    loaded(pd)
    r = pd.run(role, GARBAGE[name], env={"PD_HOOK_PROVIDER": provider, "PD_ACTOR": "alice"})
    assert r.code == 0
    # stdout_object() already proved: empty or one JSON object; an unparsable event never denies
    # (the few inputs above that are valid JSON events may get a real answer)
    obj = r.json
    if obj is not None and name not in ("duplicate-keys", "bom", "crlf-pretty", "lone-surrogate"):
        assert "decision" not in obj and "permissionDecision" not in json.dumps(obj), obj


# The parser is awk, the same program under every shell: the inputs are crossed with the roles
# and the providers (each reads other fields of what was parsed) under dash only; in fast mode
# each input is read once, the roles and the providers in turn.
@ON_DASH
@pytest.mark.parametrize(("name", "role", "provider"), crossed(SMALL, ROLES, [*VENDORS, None]))
def test_garbage_stdin_fails_open(pd: Pd, name: str, role: str, provider: str | None) -> None:
    _fails_open(pd, role, name, provider)


# A 5 MB stdin is cut at harness.stdin_max_bytes by head -c and parsed as an oversize event: a
# configured vendor (claude) and the sniffed one (none set) take the two paths of the vendor pick;
# the other vendors only look for other field names, which no garbage input holds.
@ON_DASH
@pytest.mark.parametrize(("role", "name", "provider"), crossed(ROLES, BIG, ["claude", None], keep=2))
def test_5mb_garbage_stdin_fails_open(pd: Pd, role: str, name: str, provider: str | None) -> None:
    _fails_open(pd, role, name, provider)


# The shell reads stdin and runs the fail-open outer layer: every core shell meets one small
# and one 5 MB garbage input in every role.
@ROLE
@pytest.mark.parametrize("name", ["binary", "5mb-garbage"])
@pytest.mark.parametrize("provider", ["claude", None])
def test_garbage_stdin_fails_open_under_every_shell(pd: Pd, role: str, name: str, provider: str | None) -> None:
    _fails_open(pd, role, name, provider)


@ROLE
@pytest.mark.parametrize("name", ["text", "binary", "deep-objects", "5mb-garbage", "truncated-fixture"])
def test_garbage_stdin_under_halt(pd: Pd, role: str, name: str) -> None:
    loaded(pd)
    pd.halt("halted")
    r = pd.run(role, GARBAGE[name], env={"PD_HOOK_PROVIDER": "claude"})
    assert r.code == 0


def test_crlf_and_bom_payloads_parse(pd: Pd) -> None:
    """Whitespace is whitespace: a pretty-printed CRLF payload is a payload."""
    pd.lock("/home/dev/proj/src/retry.ts", "bob")
    r = pd.run("pre_tool", GARBAGE["crlf-pretty"], env={"PD_HOOK_PROVIDER": "claude"})
    assert r.json == tool_block("claude", block_msg("/home/dev/proj/src/retry.ts", "bob"))


def test_deep_nesting_inside_the_bound_is_parsed_in_bounded_memory(pd: Pd) -> None:
    """A payload under the stdin bound whose tail nests 60000 levels deep: the path before it
    must still be found, within 768 MB of address space (a parser that stores the full path of
    every level needs O(depth^2) bytes: ~7 GB here, and 70 GB at the 256 KiB bound)."""
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    head = json.dumps(p_tool("claude", "Write", {"file_path": str(target)}, pd.proj))[:-1]
    payload = head + ', "x": ' + "[" * 60000 + "]" * 60000 + "}"
    assert len(payload) < 262144
    r = pd.run("pre_tool", payload, env={"PD_HOOK_PROVIDER": "claude"}, mem_limit=768 << 20, timeout=120)
    assert r.json == tool_block("claude", block_msg(target, "bob"))


# -- 5 MB events ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("vendor", "tool", "field"), [
    ("claude", "Write", "file_path"), ("gemini", "write_file", "file_path"), ("codex", "Write", "file_path"),
    ("agy", "write_to_file", "TargetFile"),
])
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_5mb_write_of_a_locked_file_still_blocks(pd: Pd, vendor: str, tool: str, field: str, provider: str) -> None:
    target = pd.proj / "big.bin"
    pd.lock(target, "bob")
    content = "CodeContent" if vendor == "agy" else "content"
    payload = p_tool(vendor, tool, {field: str(target), content: "z" * MB5}, pd.proj)
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    r = pd.run("pre_tool", payload, env=env)
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


def test_big_codex_patch_of_a_locked_file_still_blocks(pd: Pd) -> None:
    """The patch body is one JSON string longer than the stdin bound; its first paths are
    complete before the cut."""
    target = pd.proj / "big.ts"
    pd.lock(target, "bob")
    body = "*** Begin Patch\n*** Update File: big.ts\n" + "+x\n" * (400 * 1024) + "*** End Patch\n"
    r = pd.run("pre_tool", p_tool("codex", "apply_patch", {"command": body}, pd.proj),
               env={"PD_HOOK_PROVIDER": "codex"})
    assert r.json == tool_block("codex", block_msg(target, "bob"))


def test_big_shell_command_under_halt_still_blocks(pd: Pd) -> None:
    pd.halt("halted")
    cmd = "pd start; cat <<'EOF'\n" + "y" * (300 * 1024) + "\nEOF\n"
    r = pd.run("pre_tool", p_shell("claude", cmd, pd.proj), env={"PD_HOOK_PROVIDER": "claude"})
    assert r.json == tool_block("claude", halt_msg("halted"))


@VEND
def test_5mb_prompt_and_post_tool(pd: Pd, vendor: str) -> None:
    payload = p_prompt(vendor, pd.proj)
    payload["prompt" if vendor != "agy" else "userPrompt"] = "p" * MB5
    r = pd.run("prompt", payload, env={"PD_HOOK_PROVIDER": vendor})
    assert r.json in (None, context(vendor, MSG["sitrep_contract"] + "\n" + MSG["sitrep_header"]))
    post = p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True)
    post["tool_response" if vendor != "agy" else "stepIdx"] = "r" * MB5
    assert_silent(pd.run("post_tool", post, env={"PD_HOOK_PROVIDER": vendor}))


# -- hostile paths --------------------------------------------------------------------------------

HOSTILE = {
    "space": "my dir/a b.ts",
    "dquote": 'q"uo"te.ts',
    "squote": "it's.ts",
    "tab": "ta\tb.ts",
    "newline": "new\nline.ts",
    "cr": "c\rr.ts",
    "dollar-paren": "$(touch CANARY).ts",
    "backtick": "`touch CANARY`.ts",
    "dollar-var": "${HOME}$PATH.ts",
    "percent": "%s%n%d%%.ts",
    "backslash-c": "a\\cb\\n.ts",
    "leading-dash": "-n",
    "leading-dashes": "--help",
    "glob": "*?[a].ts",
    "semicolon": "a; touch CANARY.ts",
    "unicode": "ünï €😀.ts",
    "ctrl": "bell\x07esc\x1b.ts",
    "equals": "a=b.ts",
    "pipes": "a | b | c.ts",
}


def _hostile_path(pd: Pd, vendor: str, name: str, form: str) -> None:
    rel = HOSTILE[name]
    if vendor == "codex" and name in ("newline", "cr"):
        rel = rel.replace("\n", "_").replace("\r", "_")  # patch bodies are line-based
    target = f"{pd.proj}/{rel}"
    pd.lock(target, "bob")
    path = target if form == "absolute" else rel
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "al'ice $(touch CANARY)"}
    r = pd.run("pre_tool", p_edit(vendor, path, pd.proj), env=env, cwd=pd.root)
    assert r.json == tool_block(vendor, block_msg(target, "bob"))
    r = pd.run("pre_tool", p_edit(vendor, path, pd.proj), env={**env, "PD_SUGGESTIBILITY": "warn"}, cwd=pd.root)
    if vendor in ("claude", "gemini"):
        assert r.json == context(vendor, warn_msg(target, "bob"), role="pre_tool")
    r = pd.run("post_tool", p_edit(vendor, path, pd.proj, post=True), env=env, cwd=pd.root)
    assert_silent(r)
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env={**env, "PD_SITREP": "off"}, cwd=pd.root)
    assert r.json is not None and "mutated via" in json.dumps(r.json)
    assert not list(pd.root.rglob("CANARY*"))


# Where a vendor keeps the path and how a relative one is joined is awk logic: every vendor, name
# and form under dash. The shell holds the path in variables and prints it: every core shell
# meets every name (absolute, through one vendor). In fast mode each name and form once, the
# vendors in turn (each still meets both forms and the names with a newline).
@ON_DASH
@pytest.mark.parametrize(("name", "form", "vendor"), crossed(list(HOSTILE), ["absolute", "relative"], VENDORS, keep=2))
def test_hostile_paths_block_exactly(pd: Pd, vendor: str, name: str, form: str) -> None:
    _hostile_path(pd, vendor, name, form)


@ON_CORE
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_paths_block_exactly_under_every_shell(pd: Pd, name: str) -> None:
    _hostile_path(pd, "claude", name, "absolute")


@VEND
def test_hostile_holder(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    holder = 'bo"b $(touch CANARY) `id` \\c %s\ttab'
    pd.lock(target, holder)
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env={"PD_HOOK_PROVIDER": vendor}, cwd=pd.root)
    assert r.json == tool_block(vendor, block_msg(target, holder))
    assert not list(pd.root.rglob("CANARY*"))


@ROLE
@EVERY_VENDOR
def test_hostile_home_cwd_and_session(pd: Pd, role: str, vendor: str) -> None:
    home = pd.root / "h $(touch CANARY) 'q' \"d\" `id`"
    cwd = pd.root / "c $(touch CANARY) 'q' `id`"
    cwd.mkdir()
    session = "s $(touch CANARY) `id` ../../x"
    payloads = {
        "prompt": p_prompt(vendor, cwd, session=session),
        "pre_tool": p_edit(vendor, str(cwd / "a.ts"), cwd, session=session),
        "post_tool": p_edit(vendor, str(cwd / "a.ts"), cwd, session=session, post=True),
        "stop": p_stop(vendor, "no table", cwd, session=session),
    }
    env = {"PD_HOOK_PROVIDER": vendor, "PD_HOME": str(home), "PD_ACTOR": "alice"}
    home.mkdir()
    (home / "matrix.env").write_text(f'PD_LOCK_{suffix(str(cwd / "a.ts"))}="bob"\n')
    r = pd.run(role, payloads[role], env=env, cwd=pd.root)
    if role == "pre_tool":
        assert r.json == tool_block(vendor, block_msg(cwd / "a.ts", "bob"))
    if role == "post_tool":
        assert "mutated via" in (home / "matrix.env").read_text()
    if role == "stop" and vendor != "agy":
        assert r.json is not None and STOP_DIRECTIVE in json.dumps(r.json, ensure_ascii=False).replace("\\n", "\n")
    assert not list(pd.root.rglob("CANARY*"))
    assert not (pd.root / "x.blocked").exists()


# -- fail-open outer layer ------------------------------------------------------------------------


BREAKAGES = ["home-is-file", "no-home", "matrix-is-dir", "state-is-file", "halt-is-dir",
             "halt-unreadable-dir-path", "verdict-env-garbage"]


def _broken_environment(pd: Pd, role: str, vendor: str, breakage: str) -> None:
    payloads = {
        "prompt": p_prompt(vendor, pd.proj),
        "pre_tool": p_edit(vendor, str(pd.proj / "a.ts"), pd.proj),
        "post_tool": p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True),
        "stop": p_stop(vendor, "no table", pd.proj),
    }
    env: dict[str, str | None] = {"PD_HOOK_PROVIDER": vendor}
    if breakage == "home-is-file":
        f = pd.root / "home-file"
        f.write_text("x")
        env["PD_HOME"] = str(f)
    elif breakage == "no-home":
        env["PD_HOME"] = None
        env["HOME"] = None
    elif breakage == "matrix-is-dir":
        pd.matrix.mkdir()
    elif breakage == "state-is-file":
        pd.state.write_text("x")
    elif breakage == "halt-is-dir":
        pd.halt_file.mkdir()
    elif breakage == "halt-unreadable-dir-path":
        env["PD_HALT_FILE"] = str(pd.root / "nodir" / "HALT")
    else:
        env["PD_GATE_VERDICT"] = "abc"
    r = pd.run(role, payloads[role], env=env)
    assert r.code == 0
    if breakage in ("no-home",):
        assert_silent(r)


# The outer layer is shell: every core shell meets every breakage in every role (one vendor);
# the other vendors (which parts of a tentacle run depends on the vendor's answers) under dash.
@ROLE
@pytest.mark.parametrize("breakage", BREAKAGES)
def test_broken_environment_fails_open(pd: Pd, role: str, breakage: str) -> None:
    _broken_environment(pd, role, "claude", breakage)


# (fast mode: each role once, the breakages and the vendors in turn; the test above has them all)
@ON_DASH
@pytest.mark.parametrize(("role", "breakage", "vendor"),
                         crossed(ROLES, BREAKAGES, [v for v in VENDORS if v != "claude"]))
def test_broken_environment_fails_open_every_vendor(pd: Pd, role: str, vendor: str, breakage: str) -> None:
    _broken_environment(pd, role, vendor, breakage)


def test_no_home_at_all_is_silent_everywhere(pd: Pd) -> None:
    pd.lock(pd.proj / "a.ts", "bob")
    for vendor in VENDORS:
        for role, payload in (("pre_tool", p_edit(vendor, str(pd.proj / "a.ts"), pd.proj)),
                              ("prompt", p_prompt(vendor, pd.proj)), ("stop", p_stop(vendor, "x", pd.proj))):
            assert_silent(pd.run(role, payload, env={"PD_HOOK_PROVIDER": vendor, "PD_HOME": None, "HOME": None}))


def test_home_default_is_under_home(pd: Pd) -> None:
    userhome = Path(pd.env["HOME"])
    (userhome / ".port-daddy").mkdir()
    target = pd.proj / "a.ts"
    (userhome / ".port-daddy" / "matrix.env").write_text(f'PD_LOCK_{suffix(str(target))}="bob"\n')
    r = pd.run("pre_tool", p_edit("claude", str(target), pd.proj), env={"PD_HOOK_PROVIDER": "claude", "PD_HOME": None})
    assert r.json == tool_block("claude", block_msg(target, "bob"))


# -- a verdict channel by exit code: a test-only vendor -------------------------------------------


@pytest.fixture(scope="session")
def exit2_squid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tentacles rendered with one more vendor, `testx`: Claude's payloads, but its blocks
    go through exit 2 + stderr (the other dialect the profiles allow)."""
    base = tmp_path_factory.mktemp("testx")
    prof = base / "profiles"
    prof.mkdir()
    src = (Path(__file__).resolve().parents[1] / "generator/hookshape/vendors/claude.toml").read_text()
    hso_deny = ('stdout = { hookSpecificOutput = { hookEventName = "{event}", permissionDecision = "deny", '
                'permissionDecisionReason = "{text}" } }')
    swaps = {'id = "claude"': 'id = "testx"', hso_deny: "stderr = true",
             'stdout = { decision = "block", reason = "{text}" }': "stderr = true",
             "[output.warn]\ncontext = true": "[output.warn]\nstderr = true",
             'stdout = { systemMessage = "{text}" }': "stderr = true",
             "sniff_keys = []": 'sniff_keys = ["testx_marker"]', "sniff_priority = 10": "sniff_priority = 60"}
    for a, b in swaps.items():
        assert a in src, a
        src = src.replace(a, b)
    (prof / "testx.toml").write_text(src)
    spec = base / "hookshape.toml"
    spec.write_text(SPEC_PATH.read_text() + "\n[vendors.testx]\nenabled = true\ntimeout_ms = 5000\n")
    return render(base / "out", spec, [prof])


@pytest.fixture
def px(exit2_squid: Path, pd: Pd) -> Pd:
    pd.squid = exit2_squid
    return pd


@pytest.mark.parametrize(("verdict", "code"), [(None, 2), ("86", 86), ("abc", 2), ("", 2)])
def test_exit_code_verdict(px: Pd, verdict: str | None, code: int) -> None:
    target = px.proj / "a.ts"
    px.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": "testx", "PD_GATE_VERDICT": verdict}
    r = px.run("pre_tool", p_edit("claude", str(target), px.proj), env=env, code=code)
    assert r.out == b""
    assert r.stderr == block_msg(target, "bob") + "\n"
    r = px.run("stop", p_stop("claude", "no table", px.proj, session=f"s{verdict}"), env=env, code=code)
    assert r.out == b""
    assert r.stderr == STOP_DIRECTIVE.replace("\n", " ") + "\n"
    px.halt("halted")
    r = px.run("pre_tool", p_shell("claude", "pd start", px.proj), env=env, code=code)
    assert r.stderr == halt_msg("halted") + "\n"


def test_exit_code_vendor_allows_with_0(px: Pd) -> None:
    env = {"PD_HOOK_PROVIDER": "testx", "PD_GATE_VERDICT": "86"}
    assert_silent(px.run("pre_tool", p_edit("claude", str(px.proj / "a.ts"), px.proj), env=env))
    px.lock(px.proj / "a.ts", "bob")
    r = px.run("pre_tool", p_edit("claude", str(px.proj / "a.ts"), px.proj), env={**env, "PD_SUGGESTIBILITY": "warn"})
    assert r.out == b"" and r.stderr == warn_msg(px.proj / "a.ts", "bob") + "\n"
    r = px.run("stop", p_stop("claude", "no table", px.proj), env={**env, "PD_SITREP": "suggest"})
    assert r.out == b"" and r.stderr == (MSG["stop_suggest"] + " " + MSG["sitrep_header"]) + "\n"
    for name in ("text", "binary", "empty", "5mb-garbage"):
        for role in ROLES:
            px.run(role, GARBAGE[name], env=env, code=0)


def test_exit_code_vendor_sniffed_by_its_key(px: Pd) -> None:
    target = px.proj / "a.ts"
    px.lock(target, "bob")
    payload = p_edit("claude", str(target), px.proj)
    payload["testx_marker"] = True
    r = px.run("pre_tool", payload, env={}, code=2)
    assert r.stderr == block_msg(target, "bob") + "\n"


# -- every fixture through every tentacle ---------------------------------------------------------

ALL_FIXTURES = sorted((v, p.stem) for v in VENDORS for p in (FIXTURES / v).glob("*.json"))


# tests/conformance runs every fixture through every tentacle under every shell of the matrix
# (exact answers, clean and busy); here the halted state joins in, under dash
# (test_big_shell_command_under_halt_still_blocks prints a halt answer under every core shell).
# In fast mode each fixture is read once, the tentacles, the states and the two providers in turn
# (each tentacle's own fixtures give exact answers in its own test file).
@ON_DASH
@pytest.mark.parametrize(("fixture", "role", "state", "providers"),
                         crossed(ALL_FIXTURES, ROLES, ["clean", "busy", "halted"],
                                 [("configured", "sniffed")] if not FAST else [("configured",), ("sniffed",)]),
                         ids=lambda v: "-".join(v) if isinstance(v, tuple) else str(v))
def test_every_stdout_is_empty_or_one_json_object(pd: Pd, fixture: tuple[str, str], role: str, state: str,
                                                  providers: tuple[str, ...]) -> None:
    vendor, name = fixture
    payload = (FIXTURES / vendor / f"{name}.json").read_bytes()
    if state != "clean":
        loaded(pd)
        for t in ("/home/dev/proj/src/fetch.ts", "/scratch/claude-json-deny-hooks/work/target.txt",
                  "/scratch/codex-json-deny-hooks/work/target.txt", "/scratch/gemini-json-deny-hooks/work/target.txt"):
            pd.lock(t, "bob")
    if state == "halted":
        pd.halt("stop everything")
    for kind in providers:
        provider = vendor if kind == "configured" else None
        r = pd.run(role, payload, env={"PD_HOOK_PROVIDER": provider, "PD_ACTOR": "alice"})
        assert r.code == 0
        assert stdout_object(r.out) == r.json
        if r.json is not None:
            assert len(r.json) == 1 or set(r.json) == {"decision", "reason"}


def test_shells_present() -> None:
    for s in ("dash", "busybox", "bash"):
        assert shutil.which(s), s
