"""Async observers: `async = true` on a hook of an event that cannot block.

The async hooks of an event run behind a gate of their own. A vendor with a handler key for it
(Claude Code, Qwen Code: `async`) runs that gate in the background itself, and the gate
runs its hooks as any other. On every other vendor the gate answers at once, with nothing, and
runs again in the background on the same event, in a session of its own: its hooks run under
their deadlines, its run dir is removed when it ends, and nothing they print reaches the vendor's
pipes (the test's communicate() returns while the hook still runs, which it could not do if
anything held them).

Whether the vendor's pipes are left open is the shell's business (saved copies of redirected fds
differ between dash, busybox sh and bash), so the detached run is crossed with those shells, the
vendors without the key in turn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.hookkit import (
    PROFILES,
    VENDORS,
    Box,
    Tree,
    assert_allowed,
    edit_doc,
    event_doc,
    probe,
    raw,
    render,
    write_spec,
)
from tests.shells import CORE, FAST, crossed, wait_gone, wait_until
from tests.test_spec import assert_user_error, hookshape

from hookshape.plan.entries import entries

pytest_plugins = ["tests.hookkit"]  # fixtures: interps, box

NATIVE = tuple(v for v in VENDORS if PROFILES[v].config.handler.async_key)
DETACHING = tuple(v for v in VENDORS if v not in NATIVE)

# the hook of the detached run: it waits for the test's go before it records anything
WAITER = """i=0
while [ ! -e "$MARKS/go" ] && [ "$i" -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
echo "noise on stdout"
echo "noise on stderr" >&2
exec sh "$PD_HOOK_DIR/probe.sh"
"""


def logbook(**more: Any) -> dict[str, Any]:
    return {"name": "logbook", "event": "post_tool", "async": True, "run": ["sh", "{dir}/waiter.sh"],
            "files": ["waiter.sh", "probe.sh"], "deadline_ms": 20_000, **more}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    base = tmp_path_factory.mktemp("async")
    hooks = [logbook(), probe("lint", "post_tool"), probe("hanging", "notification", deadline_ms=1000,
                                                          **{"async": True})]
    return render(write_spec(base / "spec", hooks, files={"waiter.sh": WAITER}), base / "dist")


def run_dirs(box: Box, tree: Tree, gate: str) -> list[Path]:
    health = box.home.path / tree.loaded.spec.gate.health_dir
    return sorted(health.glob(f"io.{gate}.*")) if health.is_dir() else []


@pytest.mark.parametrize(("vendor", "sh"), crossed(DETACHING, CORE, everywhere=True),
                         ids=lambda v: getattr(v, "name", v))
def test_an_async_hook_runs_detached_where_the_vendor_has_no_async(tree: Tree, box: Box, sh: Any,
                                                                   vendor: str) -> None:
    """The gate answers at once with nothing, before the hook has done anything (it waits for
    the test's go); the hook then runs with the event on stdin and its view, and the run dir of
    the detached run is gone once it ends."""
    gate = tree.group("post_tool", detached=True).name
    data = raw(edit_doc(vendor, "a.py", box.project, event="post_tool"))
    r = box.run(tree, "post_tool", data, vendor, sh, detached=True)
    assert (r.code, r.out, r.err) == (0, b"", b""), r.brief()
    assert box.ran() == [], "the gate waited for its async hook"
    (box.marks / "go").write_text("")
    # the run dir goes when the run ends, after its hook (which ran after the run dir was made)
    assert wait_until(lambda: box.ran() == ["logbook"] and not run_dirs(box, tree, gate), 20), \
        (box.ran(), run_dirs(box, tree, gate))
    assert box.stdin("logbook") == data
    view = box.view("logbook")
    assert (view["EVENT"], view["VENDOR"], view["PATHS"]) == ("post_tool", vendor, f"{box.project}/a.py")


@pytest.mark.parametrize("vendor", DETACHING if not FAST else DETACHING[:1])
def test_a_detached_hook_is_killed_at_its_deadline(tree: Tree, box: Box, vendor: str) -> None:
    if not PROFILES[vendor].events.notification:
        pytest.skip(f"{vendor} has no notification event")
    box.do("hanging", hang=True)
    r = box.run(tree, "notification", raw(event_doc(vendor, "notification", box.project)), vendor,
                detached=True)
    assert (r.code, r.out, r.err) == (0, b"", b""), r.brief()
    pids = box.pids("hanging")
    assert all(wait_gone(pid, 15) for pid in pids), "the detached hook outlived its deadline"


@pytest.mark.parametrize("vendor", NATIVE)
def test_a_vendor_with_async_runs_the_gate_in_the_background_itself(tree: Tree, box: Box, vendor: str) -> None:
    """The async gate's entry carries the vendor's key (and the other gate's does not); the gate
    runs its hooks as it runs any: they are done when it returns."""
    prof = PROFILES[vendor]
    found = {e.gate: e for e in entries(tree.loaded.spec, prof)}
    gate = tree.group("post_tool").name
    assert found[tree.group("post_tool", detached=True).name].detached and not found[gate].detached
    text = next(p for p in (tree.out / "config" / vendor).iterdir()).read_text()
    key = prof.config.handler.async_key
    assert (f'"{key}": true' in text) or (f"{key} = true" in text), text
    assert len(re.findall(rf"\b{key}\b\W+true", text)) == sum(e.detached for e in found.values()), text
    (box.marks / "go").write_text("")
    r = box.run(tree, "post_tool", raw(edit_doc(vendor, "a.py", box.project, event="post_tool")), vendor,
                detached=True)
    assert_allowed(r, vendor, "post_tool")
    assert box.ran() == ["logbook"]


def test_the_cells_of_an_async_gate_say_what_each_vendor_does(tree: Tree) -> None:
    cells = json.loads((tree.out / "CAPABILITIES.json").read_text())["capabilities"]
    gate = tree.group("post_tool", detached=True).name
    for vendor in VENDORS:
        [cell] = [c for c in cells if c["tentacle"] == gate and c["vendor"] == vendor and "answer" not in c]
        assert cell["level"] == "observe-only"
        assert ("in the background (async: true)" in cell["reason"]) == (vendor in NATIVE), cell
        assert ("runs the hooks detached" in cell["reason"]) == (vendor not in NATIVE), cell


@pytest.mark.parametrize(("hook", "error"), [
    (probe("x", "pre_tool", **{"async": True}), "async: a pre_tool hook can refuse, so the agent must wait"),
    (probe("x", "stop", **{"async": True}), "async: a stop hook can refuse"),
    (probe("x", "prompt", **{"async": True}), "async: a prompt hook can refuse"),
    (probe("x", "permission_request", **{"async": True}), "async: a permission_request hook can refuse"),
    (probe("x", "subagent_stop", **{"async": True}), "async: a subagent_stop hook can refuse"),
    (probe("x", "post_tool", failure="closed", **{"async": True}), "async: a fail-closed hook must answer"),
    ({"name": "x", "event": "post_tool", "job": "trace", "async": True}, "async: a built-in job takes"),
])
def test_async_is_refused_on_a_hook_that_can_block_or_fails_closed(hook: dict[str, Any], error: str,
                                                                   tmp_path: Path) -> None:
    spec = write_spec(tmp_path, [hook])
    assert_user_error(hookshape("validate", "--spec", str(spec)), spec, r"hooks\[0\](\.async)?", error)
