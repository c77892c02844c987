"""A hook's JSON answer, said in each vendor's dialect through the gate.

A hook may print one JSON object, {"decision", "reason", "context", "input"}: a deny, an ask, a
rewrite of the tool's input, context for the model. The gate says it in the vendor's dialect,
or, where the vendor cannot do what it asks, falls back toward safety as the profiles say: a
rewrite it cannot apply is a refusal, an ask is contract.ask_fallback, context with no channel
is dropped. A JSON answer that is not one object of these keys is a failure of the hook.

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
    edit_doc,
    event_doc,
    raw,
    render,
    says,
    shell_doc,
    tool_input_of,
    write_spec,
)
from tests.shells import CORE, FAST, InTurn, Shell
from tests.test_spec import assert_user_error, hookshape

from hookshape.diagnose import health
from hookshape.plan import outputs

pytest_plugins = ["tests.hookkit"]  # fixtures: interps, box

VENDOR_IN_TURN = InTurn("vendor", VENDORS)


def cases(*cells: tuple[outputs.Kind, Any]) -> list[tuple[Shell, str]]:
    if FAST:
        return [(CORE[0], v) for v in VENDOR_IN_TURN.take()]
    return [(sh, v) for sh in CORE for v in by_dialect(sh, *cells)]


def ids(value: Any) -> str:
    return value.name if isinstance(value, Shell) else str(value)


def answering(tmp_path: Path, event: str, obj: Any, **more: Any) -> Tree:
    """A spec whose one hook on `event` prints `obj` (a JSON answer, or any text) and exits 0."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    hook = {"name": "answer", "event": event, "run": ["sh", "{dir}/answer.sh"], "files": ["answer.sh", "answer.json"],
            "deadline_ms": 5000, **more}
    spec = write_spec(tmp_path / "spec", [hook], files={"answer.sh": 'cat "$PD_HOOK_DIR/answer.json"\n',
                                                        "answer.json": text})
    return render(spec, tmp_path / "dist")


def one_answer(r: Run) -> None:
    if r.out:
        assert r.out.endswith(b"\n") and r.out.count(b"\n") == 1, r.brief()
        assert isinstance(json.loads(r.out), dict), r.brief()


@pytest.mark.parametrize(("sh", "vendor"), cases(("deny", "pre_tool")), ids=ids)
def test_a_json_deny_is_the_vendors_deny(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    tree = answering(tmp_path, "pre_tool", {"decision": "deny", "reason": "not this file \u2013 ask Zo\u00eb"})
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor, sh)
    one_answer(r)
    assert answer(r, vendor, "deny", "pre_tool") == "not this file \u2013 ask Zo\u00eb"


@pytest.mark.parametrize("event", ["pre_tool", "post_tool"])
@pytest.mark.parametrize(("sh", "vendor"), cases(("context", "pre_tool"), ("context", "post_tool")), ids=ids)
def test_context_on_tool_events_takes_the_one_channel_that_reaches_the_model(
        event: str, tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    tree = answering(tmp_path, event, {"context": "the formatter runs after every edit"})
    r = box.run(tree, event, raw(edit_doc(vendor, "a.py", box.project, event)), vendor, sh)  # type: ignore[arg-type]
    one_answer(r)
    if says(vendor, "context", event):  # type: ignore[arg-type]
        assert answer(r, vendor, "context", event) == "the formatter runs after every edit"  # type: ignore[arg-type]
        assert tree.cell(event, vendor, "context")["level"] in ("enforced", "best-effort")
    else:
        assert_allowed(r, vendor, event)
        assert tree.cell(event, vendor, "context")["level"] == "unsupported"


@pytest.mark.parametrize(("sh", "vendor"), cases(("ask", "pre_tool"), ("deny", "pre_tool")), ids=ids)
def test_an_ask_is_the_vendors_ask_or_the_contracts_fallback(tmp_path: Path, box: Box, sh: Shell,
                                                             vendor: str) -> None:
    tree = answering(tmp_path, "pre_tool", {"decision": "ask", "reason": "this deletes a branch"})
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "git branch -D old", box.project)), vendor, sh)
    one_answer(r)
    if says(vendor, "ask", "pre_tool"):
        assert answer(r, vendor, "ask", "pre_tool") == "this deletes a branch"
    else:
        fallback = tree.loaded.spec.contract.ask_message.format(hook="answer", vendor=vendor)
        assert answer(r, vendor, "deny", "pre_tool") == fallback + "\nthis deletes a branch"


@VENDOR_IN_TURN
def test_an_ask_falls_back_to_allow_when_the_contract_says_so(tmp_path: Path, box: Box, vendor: str) -> None:
    spec_dir = tmp_path / "spec"
    hook = {"name": "answer", "event": "pre_tool", "run": ["sh", "-c", 'echo \'{"decision": "ask"}\'']}
    tree = render(write_spec(spec_dir, [hook], contract={"ask_fallback": "allow"}), tmp_path / "dist")
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "ls", box.project)), vendor)
    if not says(vendor, "ask", "pre_tool"):
        assert_allowed(r, vendor, "pre_tool")


NEW_INPUT = {"command": "ls -la --color=never", "description": "list, plainly"}


@pytest.mark.parametrize(("sh", "vendor"), cases(("rewrite", "pre_tool"), ("deny", "pre_tool")), ids=ids)
def test_a_rewrite_is_the_vendors_whole_new_input_or_a_refusal(tmp_path: Path, box: Box, sh: Shell,
                                                               vendor: str) -> None:
    tree = answering(tmp_path, "pre_tool", {"input": NEW_INPUT}, rewrite=True)
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "ls -la", box.project)), vendor, sh)
    one_answer(r)
    prof = PROFILES[vendor]
    if says(vendor, "rewrite", "pre_tool"):
        want = outputs.stdout_object(prof, "rewrite", "", "pre_tool", NEW_INPUT)
        assert json.loads(r.out) == want, r.brief()
    else:
        msg = tree.loaded.spec.contract.rewrite_message.format(hook="answer", vendor=vendor)
        assert answer(r, vendor, "deny", "pre_tool") == msg


@VENDOR_IN_TURN
def test_a_rewrite_from_a_hook_that_did_not_say_rewrite_is_a_failure(tmp_path: Path, box: Box,
                                                                     vendor: str) -> None:
    tree = answering(tmp_path, "pre_tool", {"input": NEW_INPUT}, failure="closed")
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "ls", box.project)), vendor)
    reason = answer(r, vendor, "deny", "pre_tool")
    assert reason and "not this event's rewriter" in reason, r.brief()


@pytest.mark.parametrize("bad", ['{"decision": "deny"', '{"decision": "maybe"}', '{"additionalContext": "x"}',
                                 '{"reason": 3}'])
@pytest.mark.parametrize("failure", ["open", "closed"])
def test_a_bad_json_answer_is_a_failure_of_the_hook(bad: str, failure: str, tmp_path: Path, box: Box) -> None:
    """Not one object, a decision this event does not take, a key that is not one of the four
    (a vendor's own JSON among them), a reason that is not a string: a failure, open or closed
    as the hook says; never a second document on the vendor's stdout."""
    tree = answering(tmp_path, "pre_tool", bad, failure=failure)
    r = box.run(tree, "pre_tool", raw(edit_doc("claude", "a.py", box.project)), "claude")
    one_answer(r)
    if failure == "open":
        assert_allowed(r, "claude", "pre_tool")
        b = health.read_breaker(tree.loaded.spec, box.home.path, tree.group("pre_tool"))
        assert b.failures == 1
    else:
        reason = answer(r, "claude", "deny", "pre_tool")
        assert reason and "answer" in reason, r.brief()


@pytest.mark.parametrize(("sh", "vendor"), cases(("block", "prompt"), ("context", "prompt")), ids=ids)
def test_a_json_deny_on_prompt_refuses_it_where_the_vendor_can(tmp_path: Path, box: Box, sh: Shell,
                                                               vendor: str) -> None:
    tree = answering(tmp_path, "prompt", {"decision": "deny", "reason": "no deploys on Friday"})
    r = box.run(tree, "prompt", raw(event_doc(vendor, "prompt", box.project)), vendor, sh)
    one_answer(r)
    if says(vendor, "block", "prompt"):
        assert answer(r, vendor, "block", "prompt") == "no deploys on Friday"
    elif says(vendor, "context", "prompt"):
        assert answer(r, vendor, "context", "prompt") == "no deploys on Friday"


@VENDOR_IN_TURN
def test_the_view_holds_the_tools_input_as_json(tmp_path: Path, box: Box, vendor: str) -> None:
    tree = render(write_spec(tmp_path / "spec", [
        {"name": "see", "event": "pre_tool", "run": ["sh", "-c", 'printf %s "$PD_TOOL_INPUT" > "$MARKS/input"']}]),
        tmp_path / "dist")
    doc = edit_doc(vendor, "src/a.py", box.project, content="caf\u00e9 \"x\"\n\t\u2028")
    box.run(tree, "pre_tool", raw(doc), vendor)
    assert (box.marks / "input").read_text() == tool_input_of(vendor, doc)


@pytest.mark.parametrize(("hooks", "error"), [
    ([{"name": "a", "event": "pre_tool", "run": "true", "rewrite": True},
      {"name": "b", "event": "pre_tool", "run": "true", "rewrite": True}], "one rewriter per event"),
    ([{"name": "a", "event": "pre_tool", "run": "true", "rewrite": True},
      {"name": "b", "event": "pre_tool", "run": "true"}], "must be the last pre_tool hook"),
    ([{"name": "a", "event": "post_tool", "run": "true", "rewrite": True}], "only a pre_tool hook rewrites"),
    ([{"name": "a", "event": "pre_tool", "run": "true", "loop_guard": "own"}], "only stop and subagent_stop"),
])
def test_the_answer_keys_are_checked_at_validation(hooks: list[dict[str, Any]], error: str, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec", hooks)
    assert_user_error(hookshape("validate", "--spec", str(spec)), spec, None, error)
