"""The four more events (notification, permission_request, post_tool_failure, subagent_start)
and the vendors' own events (`claude:PostCompact`), through the gate.

Each new event is wired on the vendors whose profile names it, its view is read off the vendor's
own example of it (generator/hookshape/examples/<vendor>/<event>.json), and its answers are said
in the vendor's dialect: a permission granted or refused for the user, context where the vendor
has a channel. A vendor's own event runs its hooks behind a gate of its own, wired for that
vendor alone, and only observes.

The answers are made by the gate's awk program, the same under every shell: dash meets every
vendor, busybox sh and bash one vendor of each dialect of the answer, in turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conformance.kit import by_dialect
from tests.hookkit import (
    PROFILES,
    VENDORS,
    Box,
    Run,
    Tree,
    answer,
    assert_allowed,
    compact,
    event_doc,
    probe,
    raw,
    render,
    says,
    tool_doc,
    write_spec,
)
from tests.shells import CORE, FAST, InTurn, Shell
from tests.test_spec import assert_user_error, hookshape

from hookshape.diagnose.events import example_path, get
from hookshape.plan import outputs
from hookshape.plan.entries import entries
from hookshape.spec.load import load
from hookshape.spec.types import Event

pytest_plugins = ["tests.hookkit"]  # fixtures: interps, box

NEW: tuple[Event, ...] = ("notification", "permission_request", "post_tool_failure", "subagent_start")
VENDOR_IN_TURN = InTurn("vendor", VENDORS)


def having(event: Event) -> list[str]:
    return [v for v in VENDORS if PROFILES[v].events.of(event)]


def cases(event: Event, *kinds: outputs.Kind) -> list[tuple[Shell, str]]:
    """(sh, vendor) among the vendors with the event: dash with each, busybox sh and bash one
    vendor of each dialect of these answers (fast mode: dash, the vendors in turn)."""
    if FAST:
        return [(CORE[0], v) for v in InTurn("vendor", having(event)).take()][:1]
    cells = [(kind, event) for kind in kinds]
    return [(sh, v) for sh in CORE for v in by_dialect(sh, *cells) if PROFILES[v].events.of(event)]


def ids(value: Any) -> str:
    return value.name if isinstance(value, Shell) else str(value)


ANSWER_SH = """[ ! -f "$PD_HOOK_DIR/err" ] || cat "$PD_HOOK_DIR/err" >&2
cat "$PD_HOOK_DIR/answer.json"
exit "$(cat "$PD_HOOK_DIR/code")"
"""


def answering(tmp_path: Path, event: str, **more: Any) -> Tree:
    """A spec whose one hook on `event` prints answer.json, says err on stderr and exits with
    code: files of its installed dir, which a test rewrites between runs."""
    hook = {"name": "answer", "event": event, "run": ["sh", "{dir}/answer.sh"],
            "files": ["answer.sh", "answer.json", "code"], "deadline_ms": 5000, **more}
    spec = write_spec(tmp_path / "spec", [hook],
                      files={"answer.sh": ANSWER_SH, "answer.json": "", "code": "0\n"})
    return render(spec, tmp_path / "dist")


def says_next(tree: Tree, out: Any = "", code: int = 0, err: str | None = None) -> None:
    """What the answering hook does on its next run."""
    d = tree.hook_dir("answer")
    (d / "answer.json").write_text(out if isinstance(out, str) else json.dumps(out))
    (d / "code").write_text(f"{code}\n")
    (d / "err").unlink(missing_ok=True)
    if err is not None:
        (d / "err").write_text(err)


def one_answer(r: Run) -> None:
    if r.out:
        assert r.out.endswith(b"\n") and r.out.count(b"\n") == 1, r.brief()
        assert isinstance(json.loads(r.out), dict), r.brief()


def shell_call(vendor: str, event: Event, command: str, cwd: Path) -> dict[str, Any]:
    prof = PROFILES[vendor]
    doc = tool_doc(vendor, event, prof.tools.shell[0], {prof.payload.command_field: command}, cwd)
    if event == "post_tool_failure":
        put_at(doc, prof.payload.tool_error[0], "exit code 1: 3 tests failed")
    return doc


def put_at(doc: dict[str, Any], dotted: str, value: Any) -> None:
    node = doc
    *head, last = dotted.split(".")
    for step in head:
        node = node.setdefault(step, {})
    node[last] = value


# -- permission_request: allowed or denied for the user ------------------------------------------


@pytest.mark.parametrize(("sh", "vendor"), cases("permission_request", "grant", "refuse"), ids=ids)
def test_a_permission_request_is_granted_or_refused_for_the_user(tmp_path: Path, box: Box, sh: Shell,
                                                                 vendor: str) -> None:
    """A fail-closed hook on permission_request, matched on shell calls: {"decision": "allow"}
    grants the permission, {"decision": "deny"} and exit 2 refuse it with the reason, a crash
    refuses it with the closed reason, where the vendor lets a hook answer for the user; where it
    does not (Kimi's event only observes), nothing is said and the closed hook fails open."""
    tree = answering(tmp_path, "permission_request", match=["shell"], failure="closed")
    call = raw(shell_call(vendor, "permission_request", "npm run build", box.project))
    grants, refuses = says(vendor, "grant", "permission_request"), says(vendor, "refuse", "permission_request")
    says_next(tree, {"decision": "allow", "context": "builds are fine"})
    r = box.run(tree, "permission_request", call, vendor, sh)
    one_answer(r)
    if grants:
        assert answer(r, vendor, "grant", "permission_request") == "", r.brief()
    else:
        assert_allowed(r, vendor, "permission_request")
    closed = tree.loaded.spec.contract.closed_message.format(hook="answer", why="it crashed with exit 7")
    for out, code, err, reason in [({"decision": "deny", "reason": "no builds on Friday"}, 0, None,
                                    "no builds on Friday"),
                                   ("", 2, "not on this branch\n", "not on this branch"),
                                   ("", 7, None, closed)]:
        says_next(tree, out, code, err)
        r = box.run(tree, "permission_request", call, vendor, sh)
        one_answer(r)
        if refuses:
            assert answer(r, vendor, "refuse", "permission_request") == reason, r.brief()
        else:
            assert_allowed(r, vendor, "permission_request")
    for kind in ("grant", "refuse"):
        level = tree.cell("permission_request", vendor, kind)["level"]
        assert level == ("enforced" if says(vendor, kind, "permission_request") else "unsupported")
    assert tree.cell("permission_request", vendor)["level"] == ("enforced" if refuses else "observe-only")


@VENDOR_IN_TURN
def test_a_permission_hook_runs_only_on_the_tools_it_matches(tmp_path: Path, box: Box, vendor: str) -> None:
    if not PROFILES[vendor].events.permission_request:
        pytest.skip(f"{vendor} has no permission_request event")
    tree = render(write_spec(tmp_path / "spec", [probe("perm", "permission_request", match=["edit"])]),
                  tmp_path / "dist")
    r = box.run(tree, "permission_request", raw(shell_call(vendor, "permission_request", "ls", box.project)),
                vendor)
    assert_allowed(r, vendor, "permission_request")
    assert box.ran() == []


# -- the view of each new event, from each vendor's own example ----------------------------------


def view_of(vendor: str, event: Event, doc: dict[str, Any]) -> dict[str, str]:
    """What the view holds of the event, read off the example with the profile's paths."""
    p = PROFILES[vendor].payload

    def first(paths: list[str]) -> str:
        for path in paths:
            value = get(doc, path)
            if isinstance(value, str) and value:
                return value
            if value not in (None, ""):
                return compact(value)
        return ""

    tool = get(doc, p.tool_name) if event in ("permission_request", "post_tool_failure") else None
    tool_input = get(doc, p.tool_input_on.get(event, p.tool_input)) if tool else None
    return {"TOOL": tool or "", "TOOL_INPUT": compact(tool_input) if tool_input is not None else "",
            "TOOL_RESPONSE": first(p.tool_error) if event == "post_tool_failure" else "",
            "NOTIFICATION": first(p.notification) if event == "notification" else "",
            "SUBAGENT": first(p.subagent) if event == "subagent_start" else "",
            "TRANSCRIPT": first(p.transcript), "SESSION": first(p.session), "CWD": first(p.cwd)}


EXAMPLES = [(e, v) for e in NEW for v in having(e)]


@pytest.fixture(scope="module")
def every_event(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    base = tmp_path_factory.mktemp("new-events")
    return render(write_spec(base / "spec", [probe(f"on-{e.replace('_', '-')}", e) for e in NEW]),
                  base / "dist")


@pytest.mark.parametrize(("event", "vendor"), EXAMPLES if not FAST else [(e, having(e)[0]) for e in NEW])
def test_the_view_of_each_new_event_as_the_vendor_sends_it(event: Event, vendor: str, box: Box,
                                                           every_event: Tree) -> None:
    """The vendor's example of the event runs the hook with the event on stdin, and the view
    holds its tool, tool input, error, notification text, subagent type, transcript, session."""
    if not PROFILES[vendor].events.of(event):
        pytest.skip(f"{vendor} has no {event} event")
    data = Path(str(example_path(vendor, event))).read_bytes()
    doc = json.loads(data)
    hook = f"on-{event.replace('_', '-')}"
    r = box.run(every_event, event, data, vendor)
    assert_allowed(r, vendor, event)
    assert box.ran() == [hook] and box.stdin(hook) == data
    view = box.view(hook)
    assert view["EVENT"] == event and view["VENDOR"] == vendor and view["CUT"] == ""
    want = view_of(vendor, event, doc)
    assert {k: view[k] for k in want} == want
    assert all(want[k] for k in {"notification": ["NOTIFICATION"], "subagent_start": ["SUBAGENT"],
                                 "post_tool_failure": ["TOOL", "TOOL_RESPONSE"],
                                 "permission_request": ["TOOL", "TOOL_INPUT"]}[event]), want


def context_cases() -> list[tuple[Shell, str, Event]]:
    events: tuple[Event, ...] = ("post_tool_failure", "notification", "subagent_start")
    if FAST:
        return [(CORE[0], v, e) for e in events for v in having(e)[:1]]
    return [(sh, v, e) for e in events for sh, v in cases(e, "context")]


@pytest.mark.parametrize(("sh", "vendor", "event"), context_cases(), ids=ids)
def test_context_on_the_new_events_takes_the_vendors_channel(tmp_path: Path, box: Box, sh: Shell,
                                                              vendor: str, event: Event) -> None:
    """{"context": ...} and the reason of exit 2 (these events cannot refuse) reach the model
    through the vendor's channel on that event, or are dropped where it has none, as
    CAPABILITIES says."""
    tree = answering(tmp_path, event)
    data = raw(shell_call(vendor, event, "npm test", box.project) if event == "post_tool_failure"
               else event_doc(vendor, event, box.project))
    for out, code, err, text in [({"context": "retry with --runInBand"}, 0, None, "retry with --runInBand"),
                                 ("", 2, "the suite is flaky\n", "the suite is flaky")]:
        says_next(tree, out, code, err)
        r = box.run(tree, event, data, vendor, sh)
        one_answer(r)
        if says(vendor, "context", event):
            assert answer(r, vendor, "context", event) == text, r.brief()
        else:
            assert_allowed(r, vendor, event)
    level = tree.cell(event, vendor, "context")["level"]
    assert level == ("enforced" if says(vendor, "context", event) else "unsupported"), level


# -- wiring -------------------------------------------------------------------------------------


def test_each_new_event_is_wired_on_the_vendors_that_have_it(tmp_path: Path) -> None:
    """One entry per new event in each vendor's config, under the vendor's name of it, with a
    tool matcher where its entries take one (permission_request, post_tool_failure); no entry
    where the vendor has no such event."""
    hooks = [probe(f"on-{e.replace('_', '-')}", e, **({"match": ["shell"]} if e in (
        "permission_request", "post_tool_failure") else {})) for e in NEW]
    loaded = load(write_spec(tmp_path, hooks))
    for vendor in VENDORS:
        prof = PROFILES[vendor]
        found = {e.role: e for e in entries(loaded.spec, prof)}
        assert set(found) == {e for e in NEW if prof.events.of(e)}, vendor
        for event, entry in found.items():
            assert entry.event == prof.events.of(event)  # type: ignore[arg-type]
            takes = event in prof.matcher.roles
            assert (entry.matcher is not None) == takes, (vendor, event, entry.matcher)
            if takes:
                assert entry.matcher and prof.tools.shell[0] in entry.matcher


# -- a vendor's own event -------------------------------------------------------------------------


def test_a_vendors_own_event_has_its_own_gate_wired_for_that_vendor_alone(tmp_path: Path, box: Box) -> None:
    """`claude:PostCompact`: a gate of its own, in Claude Code's config only, its hooks seeing
    the event as it came and its name in the view; they only observe: exit 2 or a JSON answer
    says nothing to the vendor."""
    tree = render(write_spec(tmp_path / "spec", [probe("compacted", "claude:PostCompact"),
                                                 probe("tip", "prompt")]), tmp_path / "dist")
    group = tree.group("claude:PostCompact")
    assert group.name == "giant-squid-claude-post-compact"
    for vendor in VENDORS:
        names = [e.event for e in entries(tree.loaded.spec, PROFILES[vendor])]
        assert ("PostCompact" in names) == (vendor == "claude"), (vendor, names)
        cell = tree.cell("claude:PostCompact", vendor)
        assert cell["level"] == ("observe-only" if vendor == "claude" else "unsupported"), cell
    settings = json.loads((tree.out / "config" / "claude" / "settings.json").read_text())
    [entry] = settings["hooks"]["PostCompact"]
    assert entry["hooks"][0]["command"].endswith(f'/bin/{group.name}"')
    doc = {"session_id": "s-1", "cwd": str(box.project), "hook_event_name": "PostCompact",
           "trigger": "auto", "compact_summary": "a summary"}
    for how in ("exit", "json"):
        if how == "exit":
            box.do("compacted", exit=2, err="stop compacting")
        else:
            box.do("compacted", exit=0, out='{"decision": "deny", "reason": "no", "context": "c"}')
        r = box.run(tree, "claude:PostCompact", raw(doc), "claude")
        assert (r.code, r.out, r.err) == (0, b"", b""), r.brief()
    assert box.stdin("compacted") == raw(doc)
    view = box.view("compacted")
    assert (view["EVENT"], view["VENDOR"], view["SESSION"]) == ("claude:PostCompact", "claude", "s-1")


@pytest.mark.parametrize(("event", "error"), [
    ("claude:PostCompat", "Claude Code has no hook event 'PostCompat': did you mean claude:PostCompact?"),
    ("claude:PreToolUse", 'PreToolUse is Claude Code\'s pre_tool: write event = "pre_tool" with vendors = ["claude"]'),
    ("zed:Foo", "'zed': no such vendor in [vendors]"),
    ("gemini:PostCompact", "Gemini CLI has no hook event 'PostCompact'"),
])
def test_a_vendors_own_event_must_be_one_its_profile_lists(event: str, error: str, tmp_path: Path) -> None:
    spec = write_spec(tmp_path, [probe("x", event)])
    assert_user_error(hookshape("validate", "--spec", str(spec)), spec, r"hooks\[0\]\.event", error)


@pytest.mark.parametrize(("hook", "key", "error"), [
    (probe("x", "claude:PostCompact", vendors=["codex"]), "vendors", "claude's alone"),
    (probe("x", "claude:PostCompact", match=["edit"]), "match", "takes no tool matcher"),
    (probe("x", "claude:post compact"), "event", "<vendor>:<its event>"),
    (probe("x", "notification", match=["shell"]), "match", "takes no tool matcher (only pre_tool, "
                                                           "post_tool, permission_request and post_tool_failure)"),
])
def test_the_event_keys_are_checked_at_validation(hook: dict[str, Any], key: str, error: str,
                                                  tmp_path: Path) -> None:
    spec = write_spec(tmp_path, [hook])
    assert_user_error(hookshape("validate", "--spec", str(spec)), spec, rf"hooks\[0\]\.{key}", error)
