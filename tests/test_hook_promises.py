"""The promises a gate of user hooks keeps, whatever its hooks and the agent do.

One answer, always (a fail-open hook's failures never double, weaken or reorder a fail-closed
hook's answer, and the breaker's notice rides inside the one answer); no silent cuts (the view
names every field it cut, and a fail-closed hook is not handed a cut view it has not said it can
judge); fail closed stays closed (an unreadable event, a missing awk program, a job killed
from inside or outside: a fail-closed hook's gate refuses); each hook in a process group of its
own; stop loops end (the vendor's flag, or a counter where it has none); and the debug log keeps
what each hook did, for `hookshape status`.

The answers are made by the gate's awk program, the same under every shell: dash meets every
vendor, busybox sh and bash one vendor of each output dialect, in turn.
"""

from __future__ import annotations

import json
import re
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
    probe,
    raw,
    render,
    says,
    shell_doc,
    stop_doc,
    write_spec,
)
from tests.installkit import hs
from tests.shells import CORE, FAST, InTurn, Shell
from tests.tentaclekit import patch_body

from hookshape.diagnose import health
from hookshape.plan import outputs

pytest_plugins = ["tests.hookkit"]  # fixtures: interps, box

VENDOR_IN_TURN = InTurn("vendor", VENDORS)
CUT_MAX = 32768  # contract.value_max_bytes of the shipped spec


def deny_cases() -> list[tuple[Shell, str]]:
    """(sh, vendor): dash with every vendor, busybox sh and bash one vendor per dialect of the deny
    (fast mode: dash, one vendor, in turn)."""
    if FAST:
        return [(CORE[0], v) for v in VENDOR_IN_TURN.take()]
    return [(sh, v) for sh in CORE for v in by_dialect(sh, ("deny", "pre_tool"), ("context", "pre_tool"))]


def stop_cases() -> list[tuple[Shell, str]]:
    if FAST:
        return [(CORE[0], v) for v in VENDOR_IN_TURN.take()]
    return [(sh, v) for sh in CORE for v in by_dialect(sh, ("stop", "stop"),
                                                      more=lambda v: PROFILES[v].output.stop_guard)]


def ids(value: Any) -> str:
    return value.name if isinstance(value, Shell) else str(value)


GUARD = """set -f
IFS='
'
for p in $PD_PATHS; do
  case ${p##*/} in .env*) echo "secrets: ${p##*/}" >&2; exit 2 ;; esac
done
"""


def tree_of(tmp_path: Path, hooks: list[dict[str, Any]], files: dict[str, str] | None = None,
            contract: dict[str, Any] | None = None) -> Tree:
    spec = write_spec(tmp_path / "spec", hooks, files={"guard.sh": GUARD, **(files or {})}, contract=contract)
    return render(spec, tmp_path / "dist")


def guard(**more: Any) -> dict[str, Any]:
    return {"name": "guard", "event": "pre_tool", "run": ["sh", "{dir}/guard.sh"], "files": ["guard.sh"],
            "failure": "closed", "deadline_ms": 5000, **more}


def one_answer(r: Run) -> None:
    """stdout is nothing or exactly one JSON object on one line."""
    if r.out:
        assert r.out.endswith(b"\n") and r.out.count(b"\n") == 1, r.brief()
        assert isinstance(json.loads(r.out), dict), r.brief()


def denied(r: Run, vendor: str) -> str:
    one_answer(r)
    text = answer(r, vendor, "deny", "pre_tool")
    assert text, r.brief()
    return text


# -- one answer, always ------------------------------------------------------------------------


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
def test_a_failing_open_hook_never_doubles_or_weakens_a_closed_deny(tmp_path: Path, box: Box, sh: Shell,
                                                                    vendor: str) -> None:
    """A fail-open hook that exits 7 on every call, then a fail-closed guard: its failures open
    the breaker after three calls, and from then on only the guard runs; every answer is one
    document, the guard's deny stands on every call, and the breaker's notice rides in the
    context of the first call that finds it open (where the vendor has a channel), saying
    truly that the fail-closed hooks still run."""
    tree = tree_of(tmp_path, [probe("flaky", "pre_tool", deadline_ms=5000), guard()])
    box.do("flaky", exit=7)
    ok = raw(edit_doc(vendor, "ok.txt", box.project))
    env = raw(edit_doc(vendor, ".env", box.project))
    for _ in range(3):
        r = box.run(tree, "pre_tool", ok, vendor, sh)
        assert_allowed(r, vendor, "pre_tool")
    breaker = health.read_breaker(tree.loaded.spec, box.home.path, tree.group("pre_tool"))
    assert (breaker.state, breaker.failures) == ("open", 3)
    r = box.run(tree, "pre_tool", ok, vendor, sh)
    one_answer(r)
    notice = tree.loaded.spec.messages.breaker_notice_closed
    if says(vendor, "context", "pre_tool"):
        said = answer(r, vendor, "context", "pre_tool")
        assert said and "fail-closed ones still run" in said and "nothing is blocked" not in said, r.brief()
        assert notice.split("{")[0] in said
    else:
        assert_allowed(r, vendor, "pre_tool")
    for _ in range(3):
        r = box.run(tree, "pre_tool", env, vendor, sh)
        assert denied(r, vendor) == "secrets: .env"
    assert box.ran().count("flaky") == 3, "the paused fail-open hook never ran again"


# -- no silent cuts ----------------------------------------------------------------------------


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
def test_a_closed_hook_is_never_handed_a_cut_view(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """A command past the bound of a value: the view says `command tool_input` were cut; the
    fail-closed hook that has not said it can judge that is not run, the gate refuses for it; one
    that says judges_cut = true gets the cut view and its flag, and judges."""
    tree = tree_of(tmp_path, [probe("watch", "pre_tool"), guard()])
    long = "echo " + "y" * 40_000 + "; rm -rf /"
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, long, box.project)), vendor, sh)
    reason = denied(r, vendor)
    assert reason == tree.loaded.spec.contract.cut_message.format(hook="guard", cut="command tool_input")
    assert box.ran() == ["watch"] and box.view("watch")["CUT"] == "command tool_input"
    assert len(box.view("watch")["COMMAND"].encode()) == CUT_MAX
    judged = tree_of(tmp_path / "judges", [guard(judges_cut=True)],
                     files={"guard.sh": 'echo "saw cut: $PD_CUT" >&2\nexit 2\n'})
    r = box.run(judged, "pre_tool", raw(shell_doc(vendor, long, box.project)), vendor, sh)
    assert denied(r, vendor) == "saw cut: command tool_input"


@pytest.mark.parametrize("case", ["65 targets", "long path"])
def test_a_cut_list_of_targets_is_named(case: str, tmp_path: Path, box: Box) -> None:
    """Codex: a patch of 65 files (one past matrix.targets_max); a path past matrix.path_max:
    the paths were cut, and the view says so."""
    tree = tree_of(tmp_path, [probe("watch", "pre_tool")])
    if case == "65 targets":
        body = patch_body(*[("Update", f"f{i}.py") for i in range(64)], ("Update", ".env"))
        doc = edit_doc("codex", "x.py", box.project)
        doc["tool_input"] = {"command": body}
    else:
        doc = edit_doc("claude", "d/" * 2100 + ".env", box.project)
    r = box.run(tree, "pre_tool", raw(doc), "codex" if case == "65 targets" else "claude")
    assert r.code == 0, r.brief()
    view = box.view("watch")
    assert "paths" in view["CUT"].split(), view["CUT"]
    assert ".env" not in view["PATHS"]


# -- fail closed stays closed ------------------------------------------------------------------


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
@pytest.mark.parametrize("how", ["toolName", "garbage", "empty"])
@pytest.mark.parametrize("match", ["any", "classes"])
def test_an_event_no_one_can_read_is_refused_for_a_closed_hook(how: str, match: str, tmp_path: Path,
                                                               box: Box, sh: Shell, vendor: str) -> None:
    """Also for a guard that names the tools it takes (its classes and paths): with no tool to
    match, it cannot be shown not to take the call."""
    only = {"match": ["edit", "read"], "paths": ["**/.env*"]} if match == "classes" else {}
    tree = tree_of(tmp_path, [probe("watch", "pre_tool"), guard(**only)])
    doc = edit_doc(vendor, ".env", box.project)
    if how == "toolName":
        # the key of the tool's name in another case style than the vendor's (tool_name as
        # toolName, toolName as tool_name, toolCall as tool_call)
        top = PROFILES[vendor].payload.tool_name.split(".")[0]
        other = re.sub(r"_(.)", lambda m: m.group(1).upper(), top) if "_" in top else \
            re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), top)
        data = json.dumps({(other if k == top else k): v for k, v in doc.items()}).encode()
    else:
        data = b"\x00{not json" if how == "garbage" else b""
    r = box.run(tree, "pre_tool", data, vendor, sh)
    reason = denied(r, vendor)
    assert "guard" in reason and "could not be read" in reason
    assert "guard" not in box.ran()


KILLER = 'kill -9 "$PPID"\nsleep 5\n'


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
def test_a_closed_hook_that_kills_its_job_is_refused(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    tree = tree_of(tmp_path, [guard(run=["sh", "{dir}/killer.sh"], files=["killer.sh"])],
                   files={"killer.sh": KILLER})
    held: list[str] = []
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "ok.txt", box.project)), vendor, sh, held=held)
    reason = denied(r, vendor)
    assert reason == tree.loaded.spec.contract.closed_message.format(
        hook=tree.group("pre_tool").name, why="its gate could not finish the run")
    assert r.err == b"" or not answer_on_stderr(vendor)
    # the hook sleeps on, its watchdog with it: neither holds the vendor's pipes once the gate
    # has answered (a copy of stderr kept for a call's redirection once did, until the deadline)
    assert held == []


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
def test_a_gate_given_no_stderr_refuses_as_with_one(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """A vendor that starts the gate with fd 2 closed: the same exit code and stdout as with one
    (the gate keeps stderr aside while its job runs only where it is open)."""
    tree = tree_of(tmp_path, [guard()])
    doc = raw(edit_doc(vendor, ".env", box.project))
    given, none = (box.run(tree, "pre_tool", doc, vendor, sh, no_stderr=closed) for closed in (False, True))
    assert (none.code, none.out) == (given.code, given.out), none.brief()
    assert none.err == b""
    assert denied(given, vendor) == "secrets: .env"


def answer_on_stderr(vendor: str) -> bool:
    return outputs.on_stderr(PROFILES[vendor], "deny", "pre_tool")


@pytest.mark.parametrize(("sh", "vendor"), deny_cases(), ids=ids)
def test_a_hooks_kill_0_kills_that_hook_alone(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """Each hook leads a process group of its own: `kill 0` in a fail-open hook ends that hook
    (a failure), and the fail-closed guard after it still runs and refuses."""
    tree = tree_of(tmp_path, [{"name": "wild", "event": "pre_tool", "run": ["sh", "-c", "kill 0; sleep 5"],
                               "deadline_ms": 5000}, guard()])
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, ".env", box.project)), vendor, sh)
    assert denied(r, vendor) == "secrets: .env"


# -- stop loops end ----------------------------------------------------------------------------

STOPPER = 'echo "not yet: finish the table" >&2\nexit 2\n'


@pytest.mark.parametrize(("sh", "vendor"), stop_cases(), ids=ids)
def test_a_stop_hook_that_always_blocks_ends_its_loop(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """A stop hook that exits 2 every time: the vendor's stop_hook_active flag (the continuation
    a hook caused) lets the agent stop; on a vendor without the flag, a per-session counter of
    stop.counter_max_blocks does. Twelve stops in a row on one session block at most that often."""
    tree = tree_of(tmp_path, [{"name": "closer", "event": "stop", "run": ["sh", "{dir}/stop.sh"],
                               "files": ["stop.sh"]}], files={"stop.sh": STOPPER})
    if not PROFILES[vendor].events.stop:
        pytest.skip(f"{vendor} has no stop event")
    flag = PROFILES[vendor].output.stop_guard == "stop_hook_active"
    blocks = 0
    for i in range(12):
        r = box.run(tree, "stop", raw(stop_doc(vendor, "done", box.project, active=flag and i > 0)), vendor, sh)
        one_answer(r)
        blocks += answer(r, vendor, "stop", "stop") is not None
    assert blocks == (1 if flag else tree.loaded.spec.stop.counter_max_blocks), blocks


@VENDOR_IN_TURN
def test_a_hook_that_keeps_its_own_guard_is_said_each_time(tmp_path: Path, box: Box, vendor: str) -> None:
    tree = tree_of(tmp_path, [{"name": "closer", "event": "stop", "run": ["sh", "{dir}/stop.sh"],
                               "files": ["stop.sh"], "loop_guard": "own"}], files={"stop.sh": STOPPER})
    if not PROFILES[vendor].events.stop:
        pytest.skip(f"{vendor} has no stop event")
    flag = PROFILES[vendor].output.stop_guard == "stop_hook_active"
    for i in range(3):
        r = box.run(tree, "stop", raw(stop_doc(vendor, "done", box.project, active=flag and i > 0)), vendor)
        assert answer(r, vendor, "stop", "stop") == "not yet: finish the table", r.brief()


def test_a_crashing_closed_stop_hook_lets_a_continuation_end(tmp_path: Path, box: Box) -> None:
    """Codex puts no cap on stop blocks: a fail-closed stop hook that crashes blocks the first
    stop, and lets the continuation (stop_hook_active) end."""
    tree = tree_of(tmp_path, [{"name": "closer", "event": "stop", "run": ["sh", "-c", "exit 3"],
                               "failure": "closed"}])
    r = box.run(tree, "stop", raw(stop_doc("codex", "done", box.project)), "codex")
    assert answer(r, "codex", "stop", "stop"), r.brief()
    r = box.run(tree, "stop", raw(stop_doc("codex", "done", box.project, active=True)), "codex")
    assert_allowed(r, "codex", "stop")


# -- failures you can see ----------------------------------------------------------------------


def test_the_debug_log_and_status_say_what_each_hook_did(tmp_path: Path, box: Box) -> None:
    tree = tree_of(tmp_path, [{"name": "noisy", "event": "pre_tool", "run": ["sh", "-c", "echo boom >&2; exit 3"]},
                              guard(), {"name": "said", "event": "prompt", "run": ["echo", "hello"]}])
    debug = box.home.path / tree.loaded.spec.gate.debug_switch_file
    debug.parent.mkdir(parents=True, exist_ok=True)
    debug.write_text("")
    box.run(tree, "pre_tool", raw(edit_doc("claude", ".env", box.project)), "claude")
    box.run(tree, "prompt", raw(event_doc("claude", "prompt", box.project)), "claude")
    runs = health.hook_runs(tree.loaded.spec, box.home.path)
    assert [(r.outcome, r.stderr) for r in runs["noisy"]] == [("failed: it crashed with exit 3", "boom")]
    assert [r.outcome for r in runs["guard"]] == ["refused: exit 2"]
    assert [r.outcome for r in runs["said"]] == ["context"]
    done = hs("status", "--spec", str(tree.loaded.spec_path),
              env={tree.loaded.spec.harness.home_env: str(box.home.path)})
    assert done.code == 0, done
    assert "noisy via claude: failed: it crashed with exit 3; stderr: boom" in done.out
    assert "guard via claude: refused: exit 2" in done.out
