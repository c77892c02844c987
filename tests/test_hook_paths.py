"""The matchers a harness needs, through the gate: `paths` (globs over the targets of an edit or
a read), the `subagent` tool class on every vendor, and `vendors` (a hook for some vendors only).

A glob becomes an awk ERE at render time and the gate's awk program matches it, so the awks are
crossed with the vendors (each vendor once, the awks in turn) under dash; `vendors` is a flag the
awk program sets, and a fail-closed hook's flag the shell sets when the event cannot be read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.hookkit import (
    PROFILES,
    VENDORS,
    Box,
    Tree,
    answer,
    assert_allowed,
    edit_doc,
    probe,
    raw,
    render,
    shell_doc,
    tool_doc,
    write_spec,
)
from tests.shells import FAST, InTurn, crossed
from tests.test_spec import assert_user_error, hookshape

from hookshape.plan.entries import entries
from hookshape.plan.matchers import group_matcher, path_re

pytest_plugins = ["tests.hookkit", "tests.tentaclekit"]  # fixtures: interps, box, awk_paths

AWKS = ("awk=mawk", "busybox-only", "awk=original-awk", "awk=gawk")
VENDOR_IN_TURN = InTurn("vendor", VENDORS)

# each glob, and the targets (relative to the project) it takes among TARGETS
GLOBS: dict[str, tuple[str, set[str]]] = {
    "py": ("*.py", {"app.py", "src/deep/util.py"}),
    "env": ("**/.env*", {".env", "cfg/.env.local"}),
    "ts": ("src/**/*.ts", {"src/a.ts", "src/deep/b.ts"}),
    "src-top": ("src/*.ts", {"src/a.ts"}),
    "docs": ("docs/**", {"docs/a/b.md", "docs/readme"}),
    "one-char": ("notes?.txt", {"notes1.txt"}),
    "plus": ("c++.h", {"c++.h"}),
    "abs": ("/**/cfg/.env.*", {"cfg/.env.local"}),
}
TARGETS = ("app.py", "src/deep/util.py", ".env", "cfg/.env.local", "src/a.ts", "src/deep/b.ts",
           "docs/a/b.md", "docs/readme", "notes1.txt", "notes12.txt", "c++.h", "cxx.h", "envy.py.bak")


@pytest.fixture(scope="module")
def globbed(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    base = tmp_path_factory.mktemp("globs")
    hooks = [probe(name, "pre_tool", paths=[glob]) for name, (glob, _) in GLOBS.items()]
    return render(write_spec(base / "spec", hooks), base / "dist")


# each vendor once, the awks in turn (fast mode: each awk once, with one vendor each)
@pytest.mark.parametrize(("vendor", "awk"), crossed(VENDORS, AWKS, keep=1, everywhere=True) if not FAST
                         else list(zip(VENDORS, AWKS, strict=False)))
def test_a_hook_with_paths_runs_only_on_a_target_a_glob_takes(vendor: str, awk: str, box: Box,
                                                               globbed: Tree, awk_paths: dict[str, str]) -> None:
    if awk not in awk_paths:
        pytest.skip(f"{awk}: not installed")
    for target in TARGETS:
        (box.marks / "ran").unlink(missing_ok=True)
        r = box.run(globbed, "pre_tool", raw(edit_doc(vendor, target, box.project)), vendor, path=awk_paths[awk])
        assert_allowed(r, vendor, "pre_tool")
        assert box.ran() == [n for n, (_, takes) in GLOBS.items() if target in takes], target


def test_a_glob_is_an_ere_of_brackets_and_anchors() -> None:
    """No backslash ever (awk strings would eat it); a name glob takes a name at any depth."""
    assert path_re("*.py") == "a/[^/]*[.]py$"
    assert path_re("**/.env*") == "a/[.]env[^/]*$"
    assert path_re("src/**/*.ts") == "r^src/(.*/)?[^/]*[.]ts$"
    assert path_re("/etc/*") == "a^/etc/[^/]*$"
    for name, (glob, takes) in GLOBS.items():
        ere = path_re(glob)
        assert "\\" not in ere
        for target in TARGETS:
            subject = target if ere[0] == "r" else "/project/" + target
            assert bool(re.search(ere[1:], subject)) == (target in takes), (name, target)


@VENDOR_IN_TURN
def test_paths_take_the_targets_of_reads_too(vendor: str, box: Box, tmp_path: Path) -> None:
    """A read of a secrets file: its path is in the view, and a `paths` hook runs on it."""
    prof = PROFILES[vendor]
    if not prof.tools.read:
        pytest.skip(f"{vendor} has no read tool that reaches hooks")
    tree = render(write_spec(tmp_path / "spec", [probe("secrets", "pre_tool", match=["read"],
                                                       paths=["**/.env*"])]), tmp_path / "dist")
    doc = tool_doc(vendor, "pre_tool", prof.tools.read[0], {prof.payload.path_fields[0]: "cfg/.env"},
                   box.project)
    r = box.run(tree, "pre_tool", raw(doc), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["secrets"]
    view = box.view("secrets")
    assert (view["TOOL_CLASS"], view["PATHS"]) == ("read", f"{box.project}/cfg/.env")


@VENDOR_IN_TURN
def test_a_paths_hook_skips_a_call_without_targets_and_runs_on_a_cut_list(vendor: str, box: Box,
                                                                          tmp_path: Path) -> None:
    """A shell call has no targets: the hook does not run. A target past matrix.path_max is cut
    from the list: the one it hides could be the one a glob takes, so the hook runs, and its
    view says `paths` were cut."""
    tree = render(write_spec(tmp_path / "spec", [probe("py", "pre_tool", paths=["*.py"])]), tmp_path / "dist")
    r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "python3 app.py", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == []
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "d/" * 2100 + "x.txt", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    assert box.ran() == ["py"] and "paths" in box.view("py")["CUT"].split()


# -- the subagent tool class -----------------------------------------------------------------------


def test_the_subagent_class_takes_each_vendors_subagent_tools(box: Box, tmp_path: Path) -> None:
    """On every vendor: match = ["subagent"] runs the hook on each of its subagent tools (Task,
    Agent, spawn_agent, task, agent, invoke_agent, ...) with the class in the view and the
    subagent the call starts (where its input names one), never on an edit; the vendor's entry
    matches those tools."""
    tree = render(write_spec(tmp_path / "spec", [probe("agents", "pre_tool", match=["subagent"])]),
                  tmp_path / "dist")
    for vendor in VENDORS:
        prof = PROFILES[vendor]
        matcher = group_matcher(tree.loaded.spec, prof, tree.group("pre_tool"))
        if prof.matcher.syntax != "exact" and prof.tools.subagent:
            assert matcher is not None and all(re.fullmatch(matcher, t) for t in prof.tools.subagent), matcher
            assert not any(re.fullmatch(matcher, t) for t in prof.tools.edit + prof.tools.shell), matcher
        for tool in prof.tools.subagent:
            (box.marks / "ran").unlink(missing_ok=True)
            args: dict[str, Any] = {"description": "look around", "prompt": "find the fetch helper",
                                    "subagent_type": "explore", "agent_name": "explore",
                                    "agent_type": "explore"}
            r = box.run(tree, "pre_tool", raw(tool_doc(vendor, "pre_tool", tool, args, box.project)), vendor)
            assert_allowed(r, vendor, "pre_tool")
            assert box.ran() == ["agents"], (vendor, tool)
            view = box.view("agents")
            assert (view["TOOL"], view["TOOL_CLASS"]) == (tool, "subagent"), vendor
            assert view["SUBAGENT"] == ("explore" if prof.payload.subagent_arg else ""), (vendor, tool)
        (box.marks / "ran").unlink(missing_ok=True)
        r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
        assert_allowed(r, vendor, "pre_tool")
        assert box.ran() == [], vendor
    # every vendor with a subagent tool names the subagent in its input
    assert {v for v in VENDORS if PROFILES[v].payload.subagent_arg} == {
        v for v in VENDORS if PROFILES[v].tools.subagent}


# -- vendors = [...] -------------------------------------------------------------------------------


def by_vendor_hooks() -> list[dict[str, Any]]:
    return [probe("claude-qwen", "pre_tool", vendors=["claude", "qwen"]), probe("everyone", "pre_tool"),
            probe("claude-guard", "pre_tool", vendors=["claude"], failure="closed", deadline_ms=5000),
            probe("claude-tip", "prompt", vendors=["claude"])]


@VENDOR_IN_TURN
def test_a_hook_runs_only_on_its_vendors(vendor: str, box: Box, tmp_path: Path) -> None:
    """Its match flag is 0 on any other vendor, through one gate; a gate whose hooks are all for
    other vendors is not wired into that vendor's config (CAPABILITIES says why); a fail-closed
    hook of other vendors never refuses an event no one could read."""
    tree = render(write_spec(tmp_path / "spec", by_vendor_hooks()), tmp_path / "dist")
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "a.py", box.project)), vendor)
    assert_allowed(r, vendor, "pre_tool")
    want = {"claude": ["claude-qwen", "everyone", "claude-guard"], "qwen": ["claude-qwen", "everyone"]}
    assert box.ran() == want.get(vendor, ["everyone"])
    wired = [e.role for e in entries(tree.loaded.spec, PROFILES[vendor])]
    assert ("prompt" in wired) == (vendor == "claude"), wired
    if vendor != "claude":
        assert tree.cell("prompt", vendor) == {
            "tentacle": "giant-squid-prompt", "role": "prompt", "vendor": vendor, "level": "unsupported",
            "reason": f"none of its hooks runs on {vendor} (their `vendors`)"}
    r = box.run(tree, "pre_tool", b"\x00{not json", vendor)
    if vendor == "claude":
        reason = answer(r, vendor, "deny", "pre_tool")
        assert reason and "claude-guard" in reason, r.brief()
    else:
        assert_allowed(r, vendor, "pre_tool")


@pytest.mark.parametrize(("hook", "key", "error"), [
    (probe("x", "pre_tool", vendors=["claude", "zed"]), "vendors", "'zed': no such vendor in [vendors]"),
    (probe("x", "permission_request", vendors=["gemini", "cursor"]), "vendors",
     "none of gemini, cursor has a permission_request event: the hook would never run"),
    (probe("x", "pre_tool", vendors=["claude", "claude"]), "vendors", "a vendor is named twice"),
    (probe("x", "prompt", paths=["*.py"]), "paths", "the prompt event has no tool call to take paths from"),
    (probe("x", "pre_tool", paths=["src//a.py"]), "paths", "no empty name"),
    (probe("x", "pre_tool", paths=["src/[ab].py"]), r"paths\[0\]", "must be a path glob"),
])
def test_the_matcher_keys_are_checked_at_validation(hook: dict[str, Any], key: str, error: str,
                                                    tmp_path: Path) -> None:
    spec = write_spec(tmp_path, [hook])
    assert_user_error(hookshape("validate", "--spec", str(spec)), spec, rf"hooks\[0\]\.{key}", error)
