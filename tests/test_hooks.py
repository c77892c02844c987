"""User hooks ([[hooks]]) through their gate, on every vendor profile: the event on stdin as it
came, the normalized view in env, exit 0/2 said once in the vendor's dialect, spec order with the
first verdict ending the run, matchers, fail-open and fail-closed failures and the breaker.

The behaviours a shell can change (stdin passthrough, the env view, a verdict, a timeout's kill)
run under every installed shell of the matrix (HOOKSHAPE_FAST=1: dash only); the rest under dash.
A vendor is skipped only for an event its profile does not have, and then CAPABILITIES must say
so. See tests/hookkit.py for the probe hook and the helpers.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.hookkit import (
    PROFILES,
    SHELLS,
    VENDORS,
    Box,
    Run,
    Tree,
    answer,
    assert_allowed,
    edit_doc,
    event_doc,
    mcp_class,
    mcp_doc,
    mcp_tool,
    probe,
    raw,
    render,
    says,
    shell_doc,
    shells_by_dialect,
    stop_doc,
    tool_doc,
    tool_input_of,
    write_spec,
)
from tests.installkit import hs
from tests.shells import ROOT, InTurn, Shell, crossed, wait_gone
from tests.test_spec import assert_user_error, hookshape

from hookshape.diagnose import health
from hookshape.plan import outputs
from hookshape.spec.load import load
from hookshape.spec.types import EVENTS, Event

pytest_plugins = ["tests.hookkit"]  # fixtures: interps, box

EVERY = tuple(EVENTS)
# where the vendor only changes the dialect the answer is said in (the expected answer is computed
# from its profile either way): in fast mode each test takes one vendor, the vendors in turn
VENDOR_IN_TURN = InTurn("vendor", VENDORS)
HANG_MS = 600  # the deadline of the hooks that hang
SHELL_IDS = [s.name for s in SHELLS]

# the scenarios: name -> the hooks of its spec
SCENARIOS: dict[str, list[dict[str, Any]]] = {
    # one probe on every event
    "probe": [probe(f"probe-{e.replace('_', '-')}", e) for e in EVERY],
    # order, first verdict, matchers
    "chain": [probe("first", "pre_tool"), probe("second", "pre_tool"),
              probe("shell-only", "pre_tool", match=["shell"]),
              probe("mcp-only", "pre_tool", match=[f"mcp:{'gh'}"]),
              probe("tip-one", "prompt"), probe("tip-two", "prompt")],
    # fail open: a hook that crashes or hangs, then one that runs after it
    "open": [probe("flaky", "pre_tool", deadline_ms=HANG_MS), probe("after", "pre_tool"),
             probe("flaky-stop", "stop", deadline_ms=HANG_MS)],
    # fail closed on the events that block (prompt: where the vendor can refuse a prompt), and on
    # post_tool, which cannot
    "closed": [probe("guard", "pre_tool", failure="closed", deadline_ms=HANG_MS),
               probe("after", "pre_tool"),
               probe("stop-guard", "stop", failure="closed", deadline_ms=HANG_MS),
               probe("closed-tip", "prompt", failure="closed", deadline_ms=HANG_MS),
               probe("closed-note", "post_tool", failure="closed", deadline_ms=HANG_MS)],
    # commands that are not there: an absolute path and a name not on PATH
    "missing": [{"name": "gone", "event": "pre_tool", "run": ["/nonexistent/hookshape-test-hook"]},
                {"name": "nameless", "event": "pre_tool", "run": ["hookshape-test-no-such-command"]},
                probe("after", "pre_tool")],
    "missing-closed": [{"name": "gone", "event": "pre_tool", "failure": "closed",
                        "run": ["/nonexistent/hookshape-test-hook"]},
                       probe("after", "pre_tool"),
                       {"name": "gone-stop", "event": "stop", "failure": "closed",
                        "run": ["hookshape-test-no-such-command", "--flag"]}],
}


@pytest.fixture(scope="session")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Tree]:
    """The scenario trees, each rendered once per worker on first use."""
    cache: dict[str, Tree] = {}

    def get(name: str) -> Tree:
        if name not in cache:
            base = tmp_path_factory.mktemp(name)
            cache[name] = render(write_spec(base / "spec", SCENARIOS[name]), base / "dist")
        return cache[name]

    return get


def has_event(tree: Tree, vendor: str, event: str) -> bool:
    """Whether the vendor has this event; when it has not, CAPABILITIES must say unsupported."""
    if PROFILES[vendor].events.of(event):  # type: ignore[arg-type]
        return True
    cell = tree.cell(event, vendor)
    assert cell["level"] == "unsupported", cell
    return False


def closed_text(tree: Tree, hook: str, why: str) -> str:
    return tree.loaded.spec.contract.closed_message.format(hook=hook, why=why)


# --------------------------------------------------------------------- stdin and the view --


def expected_view(box: Box, tree: Tree, vendor: str, event: str, hook: str,
                  **values: str) -> dict[str, str]:
    prompt = "do it" if event == "prompt" and PROFILES[vendor].payload.prompt else ""
    view = {"EVENT": event, "VENDOR": vendor, "TOOL": "", "TOOL_CLASS": "", "PATHS": "",
            "COMMAND": "", "CWD": str(box.project), "SESSION": "sess-1", "MESSAGE": "",
            "STOP_ACTIVE": "", "TOOL_INPUT": "", "TOOL_RESPONSE": "", "TRANSCRIPT": "", "PROMPT": prompt,
            "SOURCE": "", "NOTIFICATION": "", "SUBAGENT": "", "CUT": "", "HOOK": hook,
            "HOOK_DIR": str(tree.hook_dir(hook))}
    view.update(values)
    return view


@VENDOR_IN_TURN
@pytest.mark.parametrize("sh", SHELLS, ids=SHELL_IDS)
def test_stdin_and_view_of_tool_calls_and_stop(sh: Shell, vendor: str, box: Box,
                                                trees: Callable[[str], Tree]) -> None:
    """Per call: the hook's stdin is the event byte for byte, and the view names the call."""
    tree = trees("probe")
    prof = PROFILES[vendor]
    command = """ls -la 'my dir' && echo "$HOME" | grep -c x; rm -rf build/"""
    message = "Done: it works.\nSecond line, with a \"quote\" and a $dollar."
    calls: list[tuple[str, Event, dict[str, Any], dict[str, str]]] = [
        ("edit", "pre_tool", edit_doc(vendor, "src/app.py", box.project, content="h\u00e9llo \u2028 \"q\""),
         {"TOOL": prof.tools.edit[0], "TOOL_CLASS": "edit", "PATHS": f"{box.project}/src/app.py"}),
        ("shell", "pre_tool", shell_doc(vendor, command, box.project),
         {"TOOL": prof.tools.shell[0], "TOOL_CLASS": "shell", "COMMAND": command}),
        ("mcp", "pre_tool", mcp_doc(vendor, box.project),
         {"TOOL": mcp_tool(vendor), "TOOL_CLASS": mcp_class(vendor)}),
        ("stop", "stop", stop_doc(vendor, message, box.project, active=True),
         {"MESSAGE": message if prof.payload.stop_text else "",
          "STOP_ACTIVE": "1" if prof.payload.stop_active else ""}),
    ]
    for label, event, doc, want in calls:
        hook = f"probe-{event.replace('_', '-')}"
        if event == "pre_tool":
            want = {**want, "TOOL_INPUT": tool_input_of(vendor, doc)}
        data = raw(doc)
        r = box.run(tree, event, data, vendor, sh)
        assert_allowed(r, vendor, event)
        assert box.stdin(hook) == data, f"{label}: the hook's stdin is not the event as it came"
        assert box.view(hook) == expected_view(box, tree, vendor, event, hook, **want), label


# the read tools of each vendor and the field that names what they read
READS = {v: (PROFILES[v].tools.read[0], PROFILES[v].payload.path_fields[0]) for v in VENDORS if PROFILES[v].tools.read}
READS.update({"agy": ("view_file", "AbsolutePath"), "gemini": ("list_directory", "dir_path")})


@pytest.mark.parametrize(("vendor", "sh"), [(v, SHELLS[i % len(SHELLS)]) for i, v in enumerate(READS)],
                         ids=[f"{v}-{SHELLS[i % len(SHELLS)].name}" for i, v in enumerate(READS)])
def test_view_of_a_read_names_its_paths(vendor: str, sh: Shell, box: Box, trees: Callable[[str], Tree]) -> None:
    """A read tool's targets are in the view (a secrets guard sees `Read .env`), on every vendor
    with read tools (Codex reads through its shell)."""
    tree = trees("probe")
    tool, field = READS[vendor]
    doc = tool_doc(vendor, "pre_tool", tool, {field: ".env"}, box.project)
    r = box.run(tree, "pre_tool", raw(doc), vendor, sh)
    assert_allowed(r, vendor, "pre_tool")
    want = {"TOOL": tool, "TOOL_CLASS": "read", "PATHS": f"{box.project}/.env",
            "TOOL_INPUT": tool_input_of(vendor, doc)}
    assert box.view("probe-pre-tool") == expected_view(box, tree, vendor, "pre_tool", "probe-pre-tool", **want)


# fast mode: each event once, the vendors in turn
@pytest.mark.parametrize(("event", "vendor"), crossed(EVERY, VENDORS))
def test_every_event_reaches_its_hook(event: Event, vendor: str, box: Box,
                                      trees: Callable[[str], Tree]) -> None:
    """Each of the eight events runs its gate's hook with the event and its name in the view;
    a vendor without the event is unsupported in CAPABILITIES."""
    tree = trees("probe")
    if not has_event(tree, vendor, event):
        pytest.skip(f"{vendor} has no {event} event")
    hook = f"probe-{event.replace('_', '-')}"
    data = raw(event_doc(vendor, event, box.project))
    r = box.run(tree, event, data, vendor)
    assert_allowed(r, vendor, event)
    assert box.ran() == [hook]
    assert box.stdin(hook) == data
    assert box.view(hook) == expected_view(box, tree, vendor, event, hook)


@VENDOR_IN_TURN
def test_stdin_is_bounded_and_the_view_says_cut(vendor: str, box: Box,
                                                trees: Callable[[str], Tree]) -> None:
    tree = trees("probe")
    bound = tree.loaded.spec.harness.stdin_max_bytes
    data = raw(shell_doc(vendor, "echo " + "y" * (bound + 5000), box.project))
    r = box.run(tree, "pre_tool", data, vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.stdin("probe-pre-tool") == data[:bound]
    # the cut fields, by name: the event passed the stdin bound, and the command (and the tool's
    # input as JSON) passed the bound of a value
    assert box.view("probe-pre-tool")["CUT"] == "event command tool_input"


def test_contract_renames_the_view(tmp_path: Path, box: Box) -> None:
    """[contract] names an env var: the hook gets that name, not the default one."""
    hook = {"name": "named", "event": "pre_tool",
            "run": ["sh", "-c", 'printf "%s|%s|%s" "${WHICH_TOOL-}" "${PD_TOOL-unset}" "$AGENT" >"$MARKS/seen"']}
    spec = write_spec(tmp_path / "spec", [hook], contract={"tool": "WHICH_TOOL", "vendor": "AGENT"})
    tree = render(spec, tmp_path / "dist")
    r = box.run(tree, "pre_tool", raw(shell_doc("claude", "ls", box.project)), "claude")
    assert_allowed(r, "claude", "pre_tool")
    assert (box.marks / "seen").read_text() == f"{PROFILES['claude'].tools.shell[0]}|unset|claude"


ODD_WORDS = ["a\\$HOME b", "it's", "x\\", "`id`", "$(id)", "{dir}/x", "\\'\\"]


def test_run_words_reach_the_command_as_they_are(tmp_path: Path, box: Box) -> None:
    """Words holding quotes, backslashes and expansions are data: the command gets each as it
    is, and the rendered adapter stays free of shellcheck findings."""
    hook = {"name": "odd", "event": "pre_tool",
            "run": ["sh", "-c", 'printf "%s|" "$@" >"$MARKS/argv"', "odd", *ODD_WORDS]}
    tree = render(write_spec(tmp_path / "spec", [hook]), tmp_path / "dist")
    r = box.run(tree, "pre_tool", raw(shell_doc("claude", "ls", box.project)), "claude")
    assert_allowed(r, "claude", "pre_tool")
    words = [w.replace("{dir}", str(tree.hook_dir("odd"))) for w in ODD_WORDS]
    assert (box.marks / "argv").read_text() == "".join(f"{w}|" for w in words)
    shellcheck = ROOT / ".venv" / "bin" / "shellcheck"
    if shellcheck.exists():
        found = subprocess.run([str(shellcheck), "-s", "sh", str(tree.gate("pre_tool"))],
                               capture_output=True, text=True, check=False)
        assert found.returncode == 0, found.stdout[:2000]


# ---------------------------------------------------------------------------- the verdicts --


@pytest.mark.parametrize(("sh", "vendor"), shells_by_dialect(VENDOR_IN_TURN, ("deny", "pre_tool")),
                         ids=lambda v: v.name if isinstance(v, Shell) else str(v))
def test_exit_2_on_pre_tool_is_the_vendors_deny(sh: Shell, vendor: str, box: Box,
                                                trees: Callable[[str], Tree]) -> None:
    """The reason is the hook's stderr as it is (any UTF-8, several lines; on a dialect that
    takes it on stderr, one line)."""
    tree = trees("probe")
    reason = "BLOCKED: app.py is frozen until Friday \u2013 ask Zo\u00eb \"first\".\nThen edit app_next.py."
    box.do("probe-pre-tool", exit=2, err=reason + "\n")
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "app.py", box.project)), vendor, sh)
    one_line = outputs.on_stderr(PROFILES[vendor], "deny", "pre_tool")
    assert answer(r, vendor, "deny", "pre_tool") == (reason.replace("\n", " ") if one_line else reason), r.brief()
    assert tree.cell("pre_tool", vendor)["level"] in ("enforced", "best-effort")


@VENDOR_IN_TURN
def test_a_long_reason_is_cut_at_the_contract_bound(vendor: str, box: Box,
                                                    trees: Callable[[str], Tree]) -> None:
    tree = trees("probe")
    cap = tree.loaded.spec.contract.reason_max_bytes
    reason = "".join(f"{i:05d} " for i in range(cap))[: cap * 2]
    box.do("probe-pre-tool", exit=2, err=reason)
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "app.py", box.project)), vendor)
    assert answer(r, vendor, "deny", "pre_tool") == reason[:cap].rstrip("\n")


@VENDOR_IN_TURN
def test_exit_2_without_a_reason_gives_the_default_reason(vendor: str, box: Box,
                                                          trees: Callable[[str], Tree]) -> None:
    tree = trees("probe")
    box.do("probe-pre-tool", exit=2)
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "app.py", box.project)), vendor)
    want = tree.loaded.spec.contract.default_reason.format(hook="probe-pre-tool")
    assert answer(r, vendor, "deny", "pre_tool") == want


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("event", ["stop", "subagent_stop"])
def test_exit_2_on_stop_keeps_the_agent_working(event: Event, vendor: str, box: Box,
                                                trees: Callable[[str], Tree]) -> None:
    tree = trees("probe")
    if not has_event(tree, vendor, event):
        pytest.skip(f"{vendor} has no {event} event")
    reason = "The tests were not run: run them and show the output."
    box.do(f"probe-{event.replace('_', '-')}", exit=2, err=reason)
    r = box.run(tree, event, raw(stop_doc(vendor, "done", box.project, event)), vendor)
    assert answer(r, vendor, "stop", event) == reason, r.brief()


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("event", ["prompt", "session_start"])
def test_stdout_of_exit_0_is_context(event: Event, vendor: str, box: Box,
                                     trees: Callable[[str], Tree]) -> None:
    """prompt and session_start: what an allowing hook prints is context, where the vendor has
    a context channel for the event (else nothing, and CAPABILITIES says the context answer is
    unsupported there)."""
    tree = trees("probe")
    if not has_event(tree, vendor, event):
        pytest.skip(f"{vendor} has no {event} event")
    text = "Reminder: the release branch is frozen.\nAsk before you touch it."
    box.do(f"probe-{event.replace('_', '-')}", out=text + "\n")
    r = box.run(tree, event, raw(event_doc(vendor, event, box.project)), vendor)
    if says(vendor, "context", event):
        assert answer(r, vendor, "context", event) == text, r.brief()
        assert tree.cell(event, vendor, "context")["level"] in ("enforced", "best-effort")
    else:
        assert_allowed(r, vendor, event)
        assert tree.cell(event, vendor, "context")["level"] == "unsupported"


@VENDOR_IN_TURN
@pytest.mark.parametrize("event", ["pre_tool", "post_tool", "stop"])
def test_stdout_of_exit_0_is_dropped_where_it_is_not_context(event: Event, vendor: str, box: Box,
                                                             trees: Callable[[str], Tree]) -> None:
    """A hook's own stdout never reaches the vendor as it is: a text is context on prompt and
    session_start only, and only a JSON object is an answer."""
    tree = trees("probe")
    box.do(f"probe-{event.replace('_', '-')}", out='decision: block, reason: raw {"x": 1}\n')
    doc = stop_doc(vendor, "done", box.project) if event == "stop" else \
        edit_doc(vendor, "a.py", box.project, event)
    assert_allowed(box.run(tree, event, raw(doc), vendor), vendor, event)


# fast mode: each event once, the vendors in turn
@pytest.mark.parametrize(("event", "vendor"),
                         crossed(["session_start", "post_tool", "pre_compact", "session_end"], VENDORS))
def test_exit_2_where_nothing_blocks_is_context(event: Event, vendor: str, box: Box,
                                                trees: Callable[[str], Tree]) -> None:
    tree = trees("probe")
    if not has_event(tree, vendor, event):
        pytest.skip(f"{vendor} has no {event} event")
    reason = "Note: the formatter changed 3 files."
    box.do(f"probe-{event.replace('_', '-')}", exit=2, err=reason)
    doc = edit_doc(vendor, "a.py", box.project, event) if event == "post_tool" else \
        event_doc(vendor, event, box.project)
    r = box.run(tree, event, raw(doc), vendor)
    if says(vendor, "context", event):
        assert answer(r, vendor, "context", event) == reason, r.brief()
    else:
        assert_allowed(r, vendor, event)


@pytest.mark.parametrize("vendor", VENDORS)
def test_exit_2_on_prompt_refuses_it_where_the_vendor_can(vendor: str, box: Box,
                                                          trees: Callable[[str], Tree]) -> None:
    """A prompt hook's exit 2 refuses the prompt, the reason shown, on a vendor that can refuse
    one ([output.block]); elsewhere the reason is context, where the prompt has a channel."""
    tree = trees("probe")
    reason = "Not now: the release branch is frozen."
    box.do("probe-prompt", exit=2, err=reason)
    r = box.run(tree, "prompt", raw(event_doc(vendor, "prompt", box.project)), vendor)
    if says(vendor, "block", "prompt"):
        assert answer(r, vendor, "block", "prompt") == reason, r.brief()
        assert tree.cell("prompt", vendor, "block")["level"] in ("enforced", "best-effort")
    elif says(vendor, "context", "prompt"):
        assert answer(r, vendor, "context", "prompt") == reason, r.brief()
    else:
        assert_allowed(r, vendor, "prompt")


# ------------------------------------------------------------------- order and matchers --


@VENDOR_IN_TURN
def test_hooks_run_in_spec_order_and_the_first_verdict_ends_the_run(
        vendor: str, box: Box, trees: Callable[[str], Tree]) -> None:
    tree = trees("chain")
    data = raw(edit_doc(vendor, "a.py", box.project))
    r = box.run(tree, "pre_tool", data, vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["first", "second"]
    (box.marks / "ran").unlink()
    box.do("first", exit=2, err="first says no")
    box.do("second", exit=2, err="second says no")
    r = box.run(tree, "pre_tool", data, vendor)
    assert box.ran() == ["first"]
    assert answer(r, vendor, "deny", "pre_tool") == "first says no"


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_matcher_picks_the_calls_its_hook_runs_on(vendor: str, box: Box,
                                                    trees: Callable[[str], Tree]) -> None:
    """match = ["shell"] runs on a shell call only; match = ["mcp:gh"] on that server's tools,
    where the vendor's tool names tell the server."""
    tree = trees("chain")
    cases = [(edit_doc(vendor, "a.py", box.project), ["first", "second"]),
             (shell_doc(vendor, "ls", box.project), ["first", "second", "shell-only"]),
             (mcp_doc(vendor, box.project),
              ["first", "second", *(["mcp-only"] if mcp_class(vendor) != "other" else [])])]
    for doc, want in cases:
        (box.marks / "ran").unlink(missing_ok=True)
        r = box.run(tree, "pre_tool", raw(doc), vendor)
        assert_allowed(r, vendor, "pre_tool")
        assert box.ran() == want


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_context_of_two_prompt_hooks_is_said_once_in_order(vendor: str, box: Box,
                                                               trees: Callable[[str], Tree]) -> None:
    tree = trees("chain")
    box.do("tip-one", out="one\n")
    box.do("tip-two", out="two\n")
    r = box.run(tree, "prompt", raw(event_doc(vendor, "prompt", box.project)), vendor)
    assert box.ran() == ["tip-one", "tip-two"]
    if says(vendor, "context", "prompt"):
        assert answer(r, vendor, "context", "prompt") == "one\ntwo", r.brief()
    else:
        assert_allowed(r, vendor, "prompt")


# ------------------------------------------------------------------------------ fail open --


def assert_one_failure(box: Box, tree: Tree, event: str) -> None:
    b = health.read_breaker(tree.loaded.spec, box.home.path, tree.group(event))
    assert b.problem is None, b.problem
    assert (b.state, b.failures) == ("closed", 1), b


@VENDOR_IN_TURN
def test_a_crashing_open_hook_allows_and_counts_a_failure(vendor: str, box: Box,
                                                          trees: Callable[[str], Tree]) -> None:
    tree = trees("open")
    box.do("flaky", exit=3, err="Traceback: boom")
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["flaky", "after"], "a failed open hook does not stop the next one"
    assert_one_failure(box, tree, "pre_tool")


@VENDOR_IN_TURN
def test_a_missing_open_command_allows_and_counts_a_failure(vendor: str, box: Box,
                                                            trees: Callable[[str], Tree]) -> None:
    tree = trees("missing")
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["after"]
    assert_one_failure(box, tree, "pre_tool")


@pytest.mark.parametrize("sh", SHELLS, ids=SHELL_IDS)
def test_a_hanging_open_hook_is_killed_at_its_deadline_and_allows(sh: Shell, box: Box,
                                                                  trees: Callable[[str], Tree]) -> None:
    tree = trees("open")
    vendor = VENDORS[SHELLS.index(sh) % len(VENDORS)]
    box.do("flaky", hang=True)
    gone: list[bool] = []

    def look() -> None:
        gone.extend(wait_gone(pid, 5) for pid in box.pids("flaky"))

    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor, sh,
                before_cleanup=look)
    assert_allowed(r, vendor, "pre_tool")
    assert gone == [True, True], "the hook and its child outlived the deadline"
    assert HANG_MS / 1000 <= r.seconds < 20, r.seconds
    assert box.ran() == ["flaky", "after"]
    assert_one_failure(box, tree, "pre_tool")


@VENDOR_IN_TURN
def test_failing_open_hooks_trip_the_breaker(vendor: str, box: Box,
                                             trees: Callable[[str], Tree]) -> None:
    """failure_threshold failed runs open the gate's breaker: the next call runs none of its
    (fail-open) hooks and allows."""
    tree = trees("open")
    box.do("flaky", exit=3)
    data = raw(edit_doc(vendor, "a.py", box.project))
    threshold = {"PD_HOOK_FAILURE_THRESHOLD": "2"}
    for _ in range(2):
        assert_allowed(box.run(tree, "pre_tool", data, vendor, **threshold), vendor, "pre_tool")
    b = health.read_breaker(tree.loaded.spec, box.home.path, tree.group("pre_tool"))
    assert (b.problem, b.state, b.failures) == (None, "open", 2), b
    (box.marks / "ran").unlink()
    r = box.run(tree, "pre_tool", data, vendor, **threshold)
    assert box.ran() == []
    assert r.code == 0 and r.err == b"", r.brief()


@VENDOR_IN_TURN
def test_a_crashing_open_stop_hook_lets_the_turn_end(vendor: str, box: Box,
                                                     trees: Callable[[str], Tree]) -> None:
    tree = trees("open")
    box.do("flaky-stop", exit=1, err="boom")
    r = box.run(tree, "stop", raw(stop_doc(vendor, "done", box.project)), vendor)
    assert_allowed(r, vendor, "stop")
    assert_one_failure(box, tree, "stop")


# ---------------------------------------------------------------------------- fail closed --


@VENDOR_IN_TURN
def test_a_closed_hook_that_crashes_or_hangs_blocks(vendor: str, box: Box,
                                                    trees: Callable[[str], Tree]) -> None:
    tree = trees("closed")
    data = raw(edit_doc(vendor, "a.py", box.project))
    box.do("guard", exit=3, err="Traceback: boom")
    r = box.run(tree, "pre_tool", data, vendor)
    assert answer(r, vendor, "deny", "pre_tool") == closed_text(tree, "guard", "it crashed with exit 3")
    assert box.ran() == ["guard"], "a closed failure is a verdict: the run ends"
    (box.marks / "guard.exit").unlink()
    box.do("guard", hang=True)
    r = box.run(tree, "pre_tool", data, vendor)
    assert answer(r, vendor, "deny", "pre_tool") == closed_text(tree, "guard", f"it timed out after {HANG_MS} ms")


@VENDOR_IN_TURN
def test_a_closed_hook_whose_command_is_missing_blocks(vendor: str, box: Box,
                                                       trees: Callable[[str], Tree]) -> None:
    tree = trees("missing-closed")
    why = "its command was not found or cannot run"
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    assert answer(r, vendor, "deny", "pre_tool") == closed_text(tree, "gone", why)
    assert box.ran() == []
    r = box.run(tree, "stop", raw(stop_doc(vendor, "done", box.project)), vendor)
    assert answer(r, vendor, "stop", "stop") == closed_text(tree, "gone-stop", why)


@VENDOR_IN_TURN
def test_a_closed_stop_hook_that_crashes_keeps_the_agent_working(vendor: str, box: Box,
                                                                 trees: Callable[[str], Tree]) -> None:
    tree = trees("closed")
    box.do("stop-guard", exit=1)
    r = box.run(tree, "stop", raw(stop_doc(vendor, "done", box.project)), vendor)
    assert answer(r, vendor, "stop", "stop") == closed_text(tree, "stop-guard", "it crashed with exit 1")


@VENDOR_IN_TURN
def test_a_closed_hook_fails_open_where_its_event_cannot_block(vendor: str, box: Box,
                                                               trees: Callable[[str], Tree]) -> None:
    tree = trees("closed")
    box.do("closed-note", exit=3)
    r = box.run(tree, "post_tool", raw(edit_doc(vendor, "a.py", box.project, "post_tool")), vendor)
    assert_allowed(r, vendor, "post_tool")
    assert_one_failure(box, tree, "post_tool")
    assert "closed-note fails open here" in tree.cell("post_tool", vendor)["reason"]


@VENDOR_IN_TURN
def test_a_closed_prompt_hook_refuses_the_prompt_where_the_vendor_can(
        vendor: str, box: Box, trees: Callable[[str], Tree]) -> None:
    """A crash of a fail-closed prompt hook refuses the prompt on a vendor that can refuse one
    (its [output.block]); elsewhere it fails open, as CAPABILITIES says."""
    tree = trees("closed")
    box.do("closed-tip", exit=3)
    r = box.run(tree, "prompt", raw(event_doc(vendor, "prompt", box.project)), vendor)
    if says(vendor, "block", "prompt"):
        assert answer(r, vendor, "block", "prompt") == closed_text(tree, "closed-tip", "it crashed with exit 3")
        assert "closed-tip fails closed" in tree.cell("prompt", vendor)["reason"]
    else:
        assert_allowed(r, vendor, "prompt")
        assert_one_failure(box, tree, "prompt")
        assert "closed-tip fails open here" in tree.cell("prompt", vendor)["reason"]


@VENDOR_IN_TURN
@pytest.mark.parametrize("part", ["program", "lib"])
def test_a_gate_with_closed_hooks_refuses_when_its_awk_program_is_missing(
        part: str, vendor: str, box: Box, trees: Callable[[str], Tree], tmp_path: Path) -> None:
    tree = trees("closed").copy(tmp_path / "dist")
    sub = tree.out / "bin" / tree.loaded.spec.harness.tentacle_dir
    (sub / ("lib.awk" if part == "lib" else f"{tree.group('pre_tool').name}.awk")).unlink()
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    # with no awk program the gate cannot make the guard's own answer: it says its own
    why = "its gate could not make its answer (its awk program failed)"
    assert answer(r, vendor, "deny", "pre_tool") == closed_text(tree, tree.group("pre_tool").name, why)
    assert box.ran() == [], "no hook runs on an event no one read"
    # the same failure on a gate without closed hooks allows, and runs nothing
    open_tree = trees("open").copy(tmp_path / "open")
    (open_tree.out / "bin" / tree.loaded.spec.harness.tentacle_dir / "lib.awk").unlink()
    r = box.run(open_tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == []


@VENDOR_IN_TURN
def test_an_open_breaker_runs_only_the_closed_hooks(vendor: str, box: Box,
                                                    trees: Callable[[str], Tree]) -> None:
    tree = trees("closed")
    group = tree.group("pre_tool")
    state = health.state_path(tree.loaded.spec, box.home.path, group)
    state.parent.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    state.write_text(f"{health.STATE_TAG} open 3 crash {now} {now + 3600} 0 1\n")
    data = raw(edit_doc(vendor, "a.py", box.project))
    r = box.run(tree, "pre_tool", data, vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["guard"]
    box.do("guard", exit=2, err="no goal yet")
    r = box.run(tree, "pre_tool", data, vendor)
    assert answer(r, vendor, "deny", "pre_tool") == "no goal yet"


@pytest.mark.parametrize("sh", SHELLS, ids=SHELL_IDS)
def test_a_hanging_closed_hook_is_killed_and_blocks(sh: Shell, box: Box,
                                                    trees: Callable[[str], Tree]) -> None:
    tree = trees("closed")
    vendor = VENDORS[(SHELLS.index(sh) + 4) % len(VENDORS)]
    box.do("guard", hang=True)
    gone: list[bool] = []

    def look() -> None:
        gone.extend(wait_gone(pid, 5) for pid in box.pids("guard"))

    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor, sh,
                before_cleanup=look)
    assert answer(r, vendor, "deny", "pre_tool") == closed_text(tree, "guard", f"it timed out after {HANG_MS} ms")
    assert gone == [True, True]



# ------------------------------------------------------------------------------ the spec --


def bad_spec(tmp_path: Path, hooks: list[dict[str, Any]], contract: dict[str, Any] | None = None) -> Path:
    return write_spec(tmp_path / "spec", hooks, contract=contract)


ONE = {"name": "check", "event": "pre_tool", "run": ["true"]}
BAD_HOOKS: list[tuple[str, list[dict[str, Any]], dict[str, Any] | None, str, str]] = [
    ("relative-run-path", [{**ONE, "run": ["bin/check.sh"]}], None, r"hooks\[0\]\.run",
     "'bin/check.sh' is a relative path"),
    ("match-on-a-lifecycle-event", [{**ONE, "event": "stop", "match": ["shell"]}], None,
     r"hooks\[0\]\.match", "the stop event takes no tool matcher"),
    ("mixed-registered-on-one-event", [ONE, {**ONE, "name": "other", "registered": False}], None,
     r"hooks", "give them all the same `registered`"),
    ("unknown-placeholder-in-closed-message", [ONE], {"closed_message": "{hook} failed: {reason}"},
     r"contract\.closed_message", "unknown placeholder {reason} (allowed: hook, why)"),
    ("missing-file", [{**ONE, "files": ["nope.sh"]}], None, r"hooks\[0\]\.files",
     "nope.sh: no such file beside the spec"),
    ("run-string-unclosed-quote", [{**ONE, "run": "python3 'check.py"}], None, r"hooks\[0\]\.run",
     "No closing quotation"),
    ("run-string-of-shell-code", [{**ONE, "run": 'case "$P_PATHS" in *.env*) exit 2;; esac'}], None,
     r"hooks\[0\]\.run", "'case' is shell syntax, and a hook's words run without a shell: "
     'write run = ["sh", "-c", "..."] for shell code'),
]


@pytest.mark.parametrize("case", BAD_HOOKS, ids=[c[0] for c in BAD_HOOKS])
def test_a_bad_hook_is_one_located_line(case: tuple[str, list[dict[str, Any]], dict[str, Any] | None, str, str],
                                        tmp_path: Path) -> None:
    _, hooks, contract, key, fragment = case
    spec = bad_spec(tmp_path, hooks, contract)
    assert_user_error(hookshape("validate", "--spec", spec), spec, key, fragment)


def test_run_as_a_string_is_split_like_sh_words(tmp_path: Path) -> None:
    spec = bad_spec(tmp_path, [{**ONE, "run": """python3 '{dir}/my check.py' --why "a b" x\\ y"""}])
    assert load(spec).spec.hooks[0].run == ["python3", "{dir}/my check.py", "--why", "a b", "x y"]


# ------------------------------------------------------------------------------ simulate --


def simulated(*args: str) -> tuple[int, dict[str, str]]:
    """`hookshape simulate` in process: its exit code and the fields of its report."""
    result = hs("simulate", *args)
    fields = {}
    for line in result.out.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key in ("exit code", "stdout", "stderr", "verdict"):
            fields[key] = value
    return result.code, fields


def simulated_answer(fields: dict[str, str], vendor: str, kind: outputs.Kind, event: Event) -> str | None:
    code, out, err = int(fields["exit code"]), fields["stdout"], fields["stderr"]
    r = Run(code, b"" if out == "(empty)" else (out + "\n").encode(),
            b"" if err == "(empty)" else (err + "\n").encode(), 0.0)
    return answer(r, vendor, kind, event)


@pytest.mark.parametrize("vendor", VENDORS)
def test_simulate_runs_a_hook_with_its_files(vendor: str, tmp_path: Path) -> None:
    """Without a dist/ beside the spec, simulate renders one, with the files the hooks name."""
    hook = {"name": "deny-shell", "event": "pre_tool", "run": ["sh", "{dir}/deny.sh"],
            "files": ["deny.sh"]}
    spec = write_spec(tmp_path / "spec", [hook],
                      files={"deny.sh": 'echo "no $PD_TOOL_CLASS today" >&2\nexit 2\n'})
    payload = tmp_path / "event.json"
    payload.write_bytes(raw(shell_doc(vendor, "ls", "/")))
    for gate in (["--gate"], []):
        code, fields = simulated("--spec", str(spec), "--vendor", vendor, "--tentacle", "pre_tool",
                                 "--payload", str(payload), *gate)
        assert code == 0, fields
        assert simulated_answer(fields, vendor, "deny", "pre_tool") == "no shell today", fields
        assert fields["verdict"].startswith(f"{PROFILES[vendor].vendor.display} blocks"), fields
