"""`hookshape test`: a harness's own cases through its rendered gates, as every vendor sends the
event, read back by simulate's reader. The examples' cases pass (through the command, under the
default shell; every installed shell in the slow tier); a failing expectation shows each vendor's
raw answer and exits 1, and passes once the hook is fixed; the case's event reaches the hook's
view on every vendor; the tests file is validated like the spec; skips say why; --junit."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.clikit import hookshape
from tests.shells import CORE, FAST, ROOT

from hookshape.plan import outputs
from hookshape.spec.profiles import load_profiles

PROFILES = load_profiles()
VENDORS = sorted(PROFILES)
EXAMPLES = ROOT / "examples"
NAMES = ("minimal", "goal-and-audit", "divineos")
# the first vendor of each shape of deny answer in the profiles
DENY_DIALECTS = tuple({json.dumps(outputs.of(PROFILES[v], "deny").stdout, sort_keys=True): v
                       for v in reversed(VENDORS)}.values())
SUMMARY = re.compile(r"^(\d+) cases?: (\d+) ok, (\d+) failed(, \d+ not run)?; \d+ runs? "
                     r"\(\d+ vendors? x \d+ shells?(, \d+ skipped)?\) in \d+\.\d s$")


def hs(*args: str | Path, cwd: Path | None = None,
       home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env: dict[str, str | None] = {"HOOKSHAPE_HOME": None, "HOOKSHAPE_SPEC": None}
    if home is not None:
        env["HOME"] = str(home)
    return hookshape("test", *args, cwd=cwd, env=env)


def lines_of(out: str) -> tuple[list[str], str]:
    """The case lines (with what is under them) and the summary line."""
    lines = out.splitlines()
    assert SUMMARY.match(lines[-1]), lines[-1]
    return lines[:-1], lines[-1]


# ------------------------------------------------------------------------ the examples --


@pytest.mark.parametrize("name", NAMES)
def test_the_examples_cases_pass(name: str) -> None:
    """Every case of examples/NAME.tests.toml, found beside the spec, passes on every vendor,
    under dash, busybox sh and bash (where the shell reads the event and prints the answer);
    divineos's Python hooks under dash alone (its answers are crossed with the shells in
    test_hook_examples.py, and each run starts a Python); fast mode: dash alone, fewer vendors."""
    shells = [s.name for s in CORE if s.available][:1 if name == "divineos" or FAST else None]
    # fast mode: minimal on one vendor of each deny answer, the Python examples on two of them
    vendors = () if not FAST else DENY_DIALECTS if name == "minimal" else \
        DENY_DIALECTS[NAMES.index(name) % 2::2]
    done = hs("--spec", EXAMPLES / f"{name}.toml", *(w for s in shells for w in ("--shell", s)),
              *(w for v in vendors for w in ("--vendor", v)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    cases, summary = lines_of(done.stdout)
    ran = [line for line in cases if not line.startswith("--    ")]
    assert ran and all(line.startswith("ok    ") for line in ran), done.stdout
    assert f" x {', '.join(shells)}" in cases[0], cases[0]
    assert summary.startswith(f"{len(cases)} cases: {len(ran)} ok, 0 failed")


@pytest.mark.slow
def test_the_minimal_examples_cases_pass_under_every_shell() -> None:
    """--all-shells: every installed shell of the matrix, one vendor of each deny answer (the
    shell reads the event and prints the answer the awk made; the hooks here are sh -c)."""
    args = [w for v in DENY_DIALECTS for w in ("--vendor", v)]
    done = hs("--spec", EXAMPLES / "minimal.toml", "--all-shells", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    cases, _ = lines_of(done.stdout)
    ran = [line for line in cases if not line.startswith("--    ")]
    assert ran and all(line.startswith("ok    ") for line in ran), done.stdout
    assert "x dash, busybox, bash" in cases[0], cases[0]


# ------------------------------------------------------------- a harness of our own --

SPEC_HEAD = """[harness]
name = "acme"
prefix = "ac"

[gate]
readiness = false
armed_roots = false

[halt]
enabled = false
"""


def harness(folder: Path, hooks: str, tests: str, vendors: list[str] = VENDORS,
            files: dict[str, str] | None = None) -> Path:
    """A spec of these hooks and vendors with its cases beside it (acme.toml, acme.tests.toml)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    spec = folder / "acme.toml"
    spec.write_text(SPEC_HEAD + hooks + "".join(f"[vendors.{v}]\n" for v in vendors), encoding="utf-8")
    (folder / "acme.tests.toml").write_text(tests, encoding="utf-8")
    return spec


SAYS_NO = """[[hooks]]
name = "guard"
event = "pre_tool"
run = ["sh", "-c", "echo 'no edits today' >&2; exit 2"]
"""
ALLOWS = SAYS_NO.replace("echo 'no edits today' >&2; exit 2", "exit 0")
EDIT_GOES_THROUGH = """[[tests]]
name = "an edit goes through"
event = "pre_tool"
paths = ["src/app.py"]
expect = "allow"
"""


def deny_answer(vendor: str, text: str) -> tuple[int, str, str]:
    """What a gate prints for a deny on this vendor: exit code, stdout, stderr (per its profile)."""
    prof = PROFILES[vendor]
    if outputs.on_stderr(prof, "deny", "pre_tool"):
        return 2, "(empty)", text
    return 0, outputs.stdout_text(prof, "deny", text, "pre_tool"), "(empty)"


def test_a_failing_case_shows_each_vendors_raw_answer_then_passes_once_fixed(tmp_path: Path) -> None:
    spec = harness(tmp_path, SAYS_NO, EDIT_GOES_THROUGH)
    done = hs("--spec", spec)
    assert done.returncode == 1, done.stdout + done.stderr
    lines, summary = lines_of(done.stdout)
    assert lines[0] == f"FAIL  an edit goes through: {', '.join(VENDORS)} x sh"
    assert summary.startswith("1 case: 0 ok, 1 failed; 9 runs (9 vendors x 1 shell) in ")
    blocks = re.split(r"\n(?=      \S)", "\n".join(lines[1:]))
    for vendor, block in zip(VENDORS, blocks, strict=True):
        prof = PROFILES[vendor]
        code, out, err = deny_answer(vendor, "no edits today")
        tool = json.loads((ROOT / "generator/hookshape/examples" / vendor / "pre_tool.json").read_text())
        head = block.strip().splitlines()
        assert head[0].startswith(f"{vendor} x sh: expected allow, got deny: {prof.vendor.display} "
                                  "blocks the "), head
        assert head[0].endswith(" call and shows the agent: no edits today"), head
        assert head[1:] == [f"        exit code: {code}", f"        stdout: {out}",
                            f"        stderr: {err}"], block
        assert tool  # the event the vendor sent was its example's shape
    spec.write_text(spec.read_text().replace(SAYS_NO, ALLOWS), encoding="utf-8")
    done = hs("--spec", spec)
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith(f"ok    an edit goes through: {', '.join(VENDORS)} x sh\n")


CHECK_VIEW = """#!/bin/sh
# the view the adapter gave this hook against the WANT_* the case set: exit 2 saying what differs
bad=
for key in TOOL_CLASS TOOL PATHS COMMAND SESSION MESSAGE STOP_ACTIVE CWD; do
  eval "want=\\${WANT_$key-<unset>} got=\\${AC_$key-}"
  [ "$want" = "<unset>" ] || [ "$want" = "$got" ] || bad="$bad $key=[$got] not [$want];"
done
if [ -n "${WANT_STDIN-}" ]; then
  grep -F -q -- "$WANT_STDIN" || bad="$bad stdin lacks [$WANT_STDIN];"
fi
[ -z "$bad" ] || { echo "view:$bad" >&2; exit 2; }
echo "view ok"
"""
VIEW_HOOKS = "".join(f"""[[hooks]]
name = "view-{e.replace('_', '-')}"
event = "{e}"
run = ["sh", "{{dir}}/check.sh"]
files = ["check.sh"]
""" for e in ("pre_tool", "post_tool", "stop", "prompt"))


def view_cases(project_marker: str) -> str:
    """Cases whose env says what the hook must see; a mismatch is the hook's exit 2."""
    return f"""[[tests]]
name = "a shell call"
event = "pre_tool"
command = "ls -la 'my dir' | wc -l"
session = "s-42"
expect = "allow"
env = {{ WANT_TOOL_CLASS = "shell", WANT_COMMAND = "ls -la 'my dir' | wc -l", WANT_SESSION = "s-42" }}

[[tests]]
name = "an edit of a relative path"
event = "pre_tool"
paths = ["src/app.py"]
cwd = "{project_marker}"
expect = "allow"
env = {{ WANT_TOOL_CLASS = "edit" }}

[[tests]]
name = "a read"
event = "post_tool"
tool = "read"
vendors = [{', '.join(f'"{v}"' for v in VENDORS if PROFILES[v].tools.read)}]
expect = "allow"
env = {{ WANT_TOOL_CLASS = "read" }}

[[tests]]
name = "an MCP call"
event = "pre_tool"
tool = "mcp:gh"
vendors = [{', '.join(f'"{v}"' for v in VENDORS if PROFILES[v].tools.mcp_format.index("{server}") > 0)}]
expect = "allow"
env = {{ WANT_TOOL_CLASS = "mcp:gh" }}

[[tests]]
name = "a stop with a message"
event = "stop"
message = "All done: tests pass."
stop_active = true
expect = "allow"
env = {{ WANT_MESSAGE = "All done: tests pass.", WANT_STOP_ACTIVE = "1" }}

[[tests]]
name = "a prompt"
event = "prompt"
prompt = "fix the parser, please"
expect = "allow"
env = {{ WANT_STDIN = "fix the parser, please" }}
"""


def test_the_cases_event_reaches_the_hooks_view_on_every_vendor(tmp_path: Path) -> None:
    """Each neutral key lands where the vendor's profile puts it: the adapter's view (tool class,
    command, session, message, stop flag) and the stdin of the hook say what the case said. A
    vendor that cannot send a key is skipped, saying why."""
    spec = harness(tmp_path, VIEW_HOOKS, view_cases("sub/dir"), files={"check.sh": CHECK_VIEW})
    done = hs("--spec", spec)
    assert done.returncode == 0, done.stdout + done.stderr
    lines, _ = lines_of(done.stdout)
    assert [line.split(":")[0] for line in lines] == [
        "ok    a shell call", "ok    an edit of a relative path", "ok    a read", "ok    an MCP call",
        "ok    a stop with a message", "ok    a prompt"], done.stdout
    stop = lines[4]
    for vendor in VENDORS:
        p = PROFILES[vendor].payload
        display = PROFILES[vendor].vendor.display
        if not p.stop_text:
            assert f"{vendor}: {display} sends no last assistant message on stop" in stop, stop
        elif not p.stop_active:
            assert f"{vendor}: {display} has no stop_hook_active flag" in stop, stop
        else:
            assert f" {vendor}," in stop.split(" x ")[0] + ",", stop


SUBAGENT_HOOKS = """[[hooks]]
name = "sub"
event = "pre_tool"
match = ["subagent"]
run = ["sh", "-c", '''
[ "$AC_TOOL_CLASS $AC_SUBAGENT" = "subagent explorer" ] ||
  { echo "class [$AC_TOOL_CLASS] type [$AC_SUBAGENT]" >&2; exit 2; }
case $AC_TOOL_INPUT in
  *'"prompt":"map the parser"'*) ;;
  *) echo "input [$AC_TOOL_INPUT]" >&2; exit 2 ;;
esac''']

[[hooks]]
name = "reads-transcript"
event = "stop"
run = ["sh", "-c", '''
[ "$AC_TRANSCRIPT" = "$AC_CWD/logs/t.jsonl" ] && grep -q said-7 "$AC_TRANSCRIPT" ||
  { echo "transcript [$AC_TRANSCRIPT]" >&2; exit 2; }''']
"""
SUBAGENT_CASES = """[[tests]]
name = "a subagent call"
event = "pre_tool"
subagent = "explorer"
tool_input = { prompt = "map the parser" }
expect = "allow"

[[tests]]
name = "a stop with a transcript"
event = "stop"
transcript = "logs/t.jsonl"
files = { "logs/t.jsonl" = '{"said": "said-7"}' }
expect = "allow"
"""


def test_a_subagent_call_and_a_transcript_reach_the_hooks_view(tmp_path: Path) -> None:
    """`subagent` makes a call of the vendor's subagent tool with that type where its profile
    puts it (the view's _SUBAGENT), `tool_input` adds keys to the call's input, `transcript` is a
    file of the scratch project whose path goes where the vendor sends one; a vendor with no
    subagent tool, no type field or no transcript is skipped, saying why."""
    done = hs("--spec", harness(tmp_path, SUBAGENT_HOOKS, SUBAGENT_CASES))
    assert done.returncode == 0, done.stdout + done.stderr
    lines, _ = lines_of(done.stdout)
    sub, stop = lines
    assert sub.startswith("ok    a subagent call: ") and stop.startswith("ok    a stop with a transcript: "), lines
    for vendor in VENDORS:
        prof = PROFILES[vendor]
        display = prof.vendor.display
        if not prof.tools.subagent:
            assert f"{vendor}: {display} has no subagent tool" in sub, sub
        elif not prof.payload.subagent_arg:
            assert f"{vendor}: the profile of {display} names no subagent type in a subagent call" in sub, sub
        else:
            assert f" {vendor}," in sub.split(" x ")[0] + ",", sub
        if not prof.payload.transcript:
            assert f"{vendor}: {display} sends no transcript path" in stop, stop
        elif prof.events.stop:
            assert f" {vendor}," in stop.split(" x ")[0] + ",", stop


def test_a_relative_path_is_joined_to_the_cases_cwd(tmp_path: Path) -> None:
    """The adapter joins a relative target to the event's cwd: the scratch project's sub/dir."""
    hook = """[[hooks]]
name = "paths"
event = "pre_tool"
run = ["sh", "-c", '''case "$AC_PATHS" in */project/sub/dir/src/app.py) exit 0 ;; esac
echo "paths [$AC_PATHS] cwd [$AC_CWD]" >&2; exit 2''']
"""
    tests = EDIT_GOES_THROUGH + 'cwd = "sub/dir"\n'
    done = hs("--spec", harness(tmp_path, hook, tests))
    assert done.returncode == 0, done.stdout


def test_files_are_laid_out_in_the_scratch_project(tmp_path: Path) -> None:
    hook = """[[hooks]]
name = "needs-file"
event = "pre_tool"
run = ["sh", "-c", '[ -f "$AC_CWD/notes/goal.txt" ] || { echo "no goal" >&2; exit 2; }']
"""
    tests = EDIT_GOES_THROUGH + 'files = { "notes/goal.txt" = "ship it" }\n' + \
        EDIT_GOES_THROUGH.replace("an edit goes through", "without it, blocked").replace(
            '"allow"', '"deny"\nreason_contains = "no goal"')
    done = hs("--spec", harness(tmp_path, hook, tests))
    assert done.returncode == 0, done.stdout
    lines, _ = lines_of(done.stdout)
    assert [line[:4] for line in lines] == ["ok  ", "ok  "]


def test_a_payload_file_is_sent_as_it_is(tmp_path: Path) -> None:
    hook = """[[hooks]]
name = "marker"
event = "pre_tool"
run = ["sh", "-c", 'grep -q "payload-marker-7" || { echo "not the file" >&2; exit 2; }']
"""
    (tmp_path / "events").mkdir(parents=True)
    event = json.loads((ROOT / "generator/hookshape/examples/claude/pre_tool.json").read_text())
    event["tool_input"]["content"] = "payload-marker-7"
    (tmp_path / "events" / "write.json").write_text(json.dumps(event))
    tests = """[[tests]]
name = "the file as it is"
event = "pre_tool"
vendors = ["claude"]
payload = "events/write.json"
expect = "allow"
"""
    done = hs("--spec", harness(tmp_path, hook, tests))
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("ok    the file as it is: claude x sh\n")


def test_the_users_home_is_never_used(tmp_path: Path) -> None:
    """Every run gets a scratch HOME and harness home: the hook's writes land there."""
    home = tmp_path / "home"
    home.mkdir()
    hook = """[[hooks]]
name = "writer"
event = "pre_tool"
run = ["sh", "-c", 'echo x >"$HOME/touched"; echo x >"$AC_HOME/touched"']
"""
    done = hs("--spec", harness(tmp_path / "spec", hook, EDIT_GOES_THROUGH), home=home)
    assert done.returncode == 0, done.stdout
    assert list(home.iterdir()) == []


def test_a_vendor_that_cannot_send_the_event_is_skipped_and_none_is_a_failure(tmp_path: Path) -> None:
    hook = """[[hooks]]
name = "sub"
event = "subagent_stop"
run = ["true"]
"""
    tests = """[[tests]]
name = "subagents stop"
event = "subagent_stop"
expect = "allow"
"""
    done = hs("--spec", harness(tmp_path / "a", hook, tests, ["claude", "gemini"]))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[0] == ("ok    subagents stop: claude x sh (skipped gemini: "
                                           "Gemini CLI has no subagent_stop event)")
    done = hs("--spec", harness(tmp_path / "b", hook, tests, ["agy", "gemini"]))
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines()[0].startswith("FAIL  subagents stop: no vendor could send it "
                                                  "(skipped agy: Antigravity has no subagent_stop")


def test_an_ask_is_read_where_the_vendor_can_ask(tmp_path: Path) -> None:
    """A hook's ask is the vendor's ask where its profile has one; elsewhere the case fails,
    saying the vendor has none (the gate said contract.ask_fallback instead)."""
    ask = r"""["sh", "-c", 'echo "{\"decision\": \"ask\", \"reason\": \"sure?\"}"']"""
    asks = ALLOWS.replace('["sh", "-c", "exit 0"]', ask)
    tests = EDIT_GOES_THROUGH.replace('expect = "allow"', 'expect = "ask"')
    done = hs("--spec", harness(tmp_path, asks, tests, ["claude", "codex"]))
    assert done.returncode == 1, done.stdout
    assert "claude x sh" not in done.stdout.split("FAIL", 1)[1].split("\n", 1)[1], done.stdout
    assert "      codex x sh: expected ask (Codex CLI has no ask answer in its profile), got deny: " \
           in done.stdout, done.stdout


def test_context_after_a_tool_call_is_read_where_the_vendor_takes_it(tmp_path: Path) -> None:
    """A post_tool hook's exit 2 reason is context where the vendor's profile has a context
    answer on post_tool; elsewhere the call simply went on."""
    hook = """[[hooks]]
name = "lint"
event = "post_tool"
run = ["sh", "-c", "echo 'lint: 2 warnings in src/app.py' >&2; exit 2"]
"""
    takes = [v for v in VENDORS if outputs.resolved(PROFILES[v], "context", "post_tool")]
    others = [v for v in VENDORS if v not in takes]
    assert takes and others
    tests = f"""[[tests]]
name = "the lint result reaches the model"
event = "post_tool"
paths = ["src/app.py"]
vendors = {json.dumps(takes)}
expect = "context"
context_contains = "2 warnings in src/app.py"

[[tests]]
name = "elsewhere the call went on"
event = "post_tool"
paths = ["src/app.py"]
vendors = {json.dumps(others)}
expect = "allow"
"""
    done = hs("--spec", harness(tmp_path, hook, tests))
    assert done.returncode == 0, done.stdout
    lines, _ = lines_of(done.stdout)
    assert lines == [f"ok    the lint result reaches the model: {', '.join(takes)} x sh",
                     f"ok    elsewhere the call went on: {', '.join(others)} x sh"]


def test_a_permission_refused_for_the_user_is_read_where_the_vendor_takes_it(tmp_path: Path) -> None:
    """A permission_request hook's exit 2 denies the call for the user where the vendor lets a
    hook answer for the user; on a vendor whose event only observes (Kimi) the call goes on to
    the vendor's own question; a vendor without the event is skipped."""
    hook = """[[hooks]]
name = "no-builds"
event = "permission_request"
match = ["shell"]
run = ["sh", "-c", "echo 'no builds on Friday' >&2; exit 2"]
"""
    refuse = [v for v in VENDORS if outputs.resolved(PROFILES[v], "refuse", "permission_request")]
    observe = [v for v in VENDORS if PROFILES[v].events.permission_request and v not in refuse]
    assert refuse and observe
    tests = f"""[[tests]]
name = "builds are denied for the user"
event = "permission_request"
command = "npm run build"
vendors = {json.dumps(refuse)}
expect = "deny"
reason_contains = "no builds on Friday"

[[tests]]
name = "elsewhere the vendor asks as it would"
event = "permission_request"
command = "npm run build"
vendors = {json.dumps(observe)}
expect = "allow"
"""
    done = hs("--spec", harness(tmp_path, hook, tests))
    assert done.returncode == 0, done.stdout
    lines, _ = lines_of(done.stdout)
    assert lines == [f"ok    builds are denied for the user: {', '.join(refuse)} x sh",
                     f"ok    elsewhere the vendor asks as it would: {', '.join(observe)} x sh"]


def test_vendor_and_shell_options(tmp_path: Path) -> None:
    spec = harness(tmp_path, ALLOWS, EDIT_GOES_THROUGH + EDIT_GOES_THROUGH.replace(
        "an edit goes through", "on codex").replace('expect', 'vendors = ["codex"]\nexpect'))
    done = hs("--spec", spec, "--vendor", "claude", "--shell", "dash", "--shell", "sh")
    assert done.returncode == 0, done.stdout + done.stderr
    lines, summary = lines_of(done.stdout)
    assert lines == ["ok    an edit goes through: claude x dash, sh",
                     "--    on codex: not run (none of its vendors is among --vendor)"]
    assert summary.startswith("2 cases: 1 ok, 0 failed, 1 not run; 2 runs (1 vendor x 2 shells) in ")
    for args, said in ((("--shell", "fish"), "hookshape: error: unknown shell 'fish' (known: sh, dash, "),
                       (("--shell", "dash", "--all-shells"),
                        "hookshape: error: --shell and --all-shells exclude each other: pass one"),
                       (("--vendor", "claud"), "hookshape: error: unknown vendor 'claud' (did you mean")):
        done = hs("--spec", spec, *args)
        assert done.returncode == 1 and done.stdout == "", args
        assert done.stderr.startswith(said), done.stderr


def test_junit(tmp_path: Path) -> None:
    tests = EDIT_GOES_THROUGH + """
[[tests]]
name = "subagents"
event = "subagent_stop"
expect = "allow"
"""
    hooks = SAYS_NO + '[[hooks]]\nname = "sub"\nevent = "subagent_stop"\nrun = ["true"]\n'
    spec = harness(tmp_path, hooks, tests, ["claude", "gemini"])
    report = tmp_path / "out" / "report.xml"
    report.parent.mkdir()
    done = hs("--spec", spec, "--junit", report)
    assert done.returncode == 1
    top = ET.parse(report).getroot()
    assert (top.tag, top.get("tests"), top.get("failures"), top.get("skipped")) == \
        ("testsuites", "4", "2", "1")
    suite = top.find("testsuite")
    assert suite is not None and suite.get("name") == str(tmp_path / "acme.tests.toml")
    cases = [(c.get("classname"), c.get("name"), [x.tag for x in c]) for c in suite]
    assert cases == [("an edit goes through", "claude x sh", ["failure"]),
                     ("an edit goes through", "gemini x sh", ["failure"]),
                     ("subagents", "claude x sh", []), ("subagents", "gemini x sh", ["skipped"])]
    failure = suite[0].find("failure")
    assert failure is not None and (failure.get("message") or "").startswith("expected allow, got deny")
    assert "no edits today" in (failure.text or "")


# ---------------------------------------------------------------- the tests file's errors --

GOOD = EDIT_GOES_THROUGH


@pytest.mark.parametrize(("text", "said"), [
    (GOOD.replace("expect =", "expct ="), "tests[0].expct: unknown key; did you mean 'expect'?"),
    (GOOD.replace('"pre_tool"', '"PreToolUse"'), "tests[0].event: 'PreToolUse' is what vendors "
     "call pre_tool ("),
    (GOOD.replace('"allow"', '"block"'), "tests[0].expect: 'block' is for stop and "
     "subagent_stop; a pre_tool answer is deny"),
    (GOOD.replace('"allow"', '"allowed"'), "tests[0].expect: Input should be 'allow', 'deny', "),
    (GOOD + 'prompt = "hi"\n', "tests[0].prompt: the pre_tool event has none (only prompt)"),
    (GOOD + 'payload = "e.json"\n', "tests[0].payload: the event is the payload file as it is: "
     "leave out paths"),
    (GOOD + 'vendors = ["kimi"]\n', "tests[0].vendors: 'kimi' is not enabled in "),
    (GOOD.replace('"pre_tool"', '"stop"').replace('paths = ["src/app.py"]\n', ""),
     "tests[0].event: the spec has no hook or tentacle on stop, so no vendor runs one there "
     "(its events: pre_tool)"),
    (GOOD + GOOD, "tests: duplicate name(s) 'an edit goes through'"),
    ("[[tests]]\nname = 'x'\n", "tests[0].event: required key is missing"),
    ("tests = 1\n", "tests: Input should be a valid list"),
    (GOOD + 'cwd = "../.."\n', "tests[0].cwd: '../..' has a '..' segment: a relative cwd stays "
     "inside the scratch project"),
    (GOOD + 'tool = "any"\n', "tests[0].tool: a call has one tool: a class (edit, shell, read, subagent), "
     "mcp:<server> or a raw name"),
    (GOOD + 'subagent = "explorer"\n', "tests[0].subagent: a subagent call has no paths"),
    (GOOD.replace('paths = ["src/app.py"]', 'transcript = "/etc/passwd"'), "tests[0].transcript: "),
], ids=["unknown-key", "vendor-event-name", "block-on-pre-tool", "expect-typo", "prompt-on-pre-tool",
        "payload-and-paths", "vendor-not-enabled", "event-without-gate", "duplicate-names",
        "missing-key", "not-a-list", "cwd-outside", "tool-any", "subagent-with-paths",
        "transcript-absolute"])
def test_a_bad_tests_file_is_one_located_line_per_problem(text: str, said: str, tmp_path: Path) -> None:
    spec = harness(tmp_path, ALLOWS, text, ["claude"])
    report = tmp_path / "report.xml"
    done = hs("--spec", spec, "--junit", report)
    assert done.returncode == 1 and done.stdout == "", done.stdout
    head = f"hookshape: error: {tmp_path / 'acme.tests.toml'}: "
    assert all(line.startswith(head) for line in done.stderr.splitlines()), done.stderr
    assert any(line.startswith(head + said) for line in done.stderr.splitlines()), done.stderr
    assert not report.exists()


def test_no_tests_file_says_where_it_was_looked_for(tmp_path: Path) -> None:
    spec = harness(tmp_path, ALLOWS, GOOD)
    (tmp_path / "acme.tests.toml").unlink()
    done = hs("--spec", spec)
    assert done.returncode == 1
    assert done.stderr == (f"hookshape: error: {tmp_path / 'acme.tests.toml'}: no such tests file: "
                           "write acme.tests.toml beside the spec, or pass --tests FILE\n")
    other = tmp_path / "elsewhere.toml"
    other.write_text(GOOD)
    done = hs("--spec", spec, "--tests", other)
    assert done.returncode == 0, done.stdout + done.stderr
