"""A `*` in a hook's `match` is a glob over the vendor's raw tool name (`mcp__gh__*` takes
`mcp__gh__create_issue`): in the matcher written into the vendor's config, and in the adapter's
own matcher, through the gate. The adapter's awk program decides, the same under every shell, so
the awks are crossed (each vendor once, the awks in turn) and the shell is dash."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from tests.hookkit import (
    PROFILES,
    VENDORS,
    Box,
    Tree,
    assert_allowed,
    edit_doc,
    probe,
    raw,
    render,
    tool_doc,
    write_spec,
)
from tests.shells import crossed

from hookshape.plan.matchers import group_matcher
from hookshape.spec.load import load

pytest_plugins = ["tests.hookkit", "tests.tentaclekit"]  # fixtures: interps, box, awk_paths

GLOBS = {"issue-any": "*create_issue", "double-under": "mcp__gh__*", "middle": "*gh*issue",
         "two-stars": "*g**_issue", "suffix-miss": "*create", "prefix-miss": "create*",
         "literal": "mcp__gh__create_issue", "every": "*"}
AWKS = ("awk=mawk", "busybox-only", "awk=original-awk", "awk=gawk")


def mcp_name(vendor: str, server: str) -> str:
    return PROFILES[vendor].tools.mcp_format.replace("{server}", server).replace("{tool}", "create_issue")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    base = tmp_path_factory.mktemp("globs")
    hooks = [probe(name, "pre_tool", match=[glob]) for name, glob in GLOBS.items()]
    return render(write_spec(base / "spec", hooks), base / "dist")


@pytest.mark.parametrize(("vendor", "awk"), crossed(VENDORS, AWKS, keep=1, everywhere=True))
def test_a_glob_runs_its_hook_on_the_tools_it_names(vendor: str, awk: str, box: Box, tree: Tree,
                                                     awk_paths: dict[str, str]) -> None:
    if awk not in awk_paths:
        pytest.skip(f"{awk}: not installed")
    calls = [mcp_name(vendor, "gh"), mcp_name(vendor, "other"), PROFILES[vendor].tools.edit[0]]
    for tool in calls:
        (box.marks / "ran").unlink(missing_ok=True)
        doc = edit_doc(vendor, "a.py", box.project) if tool in PROFILES[vendor].tools.edit else \
            tool_doc(vendor, "pre_tool", tool, {"title": "a bug"}, box.project)
        r = box.run(tree, "pre_tool", raw(doc), vendor, path=awk_paths[awk])
        assert_allowed(r, vendor, "pre_tool")
        assert box.ran() == [n for n, g in GLOBS.items() if fnmatchcase(tool, g)], tool


def one_hook_spec(folder: Path, glob: str) -> Path:
    return write_spec(folder, [probe("mcp-gh", "pre_tool", match=[glob])])


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_vendor_matcher_takes_what_the_glob_names(vendor: str, tmp_path: Path) -> None:
    """The entry's matcher, read as the vendor reads it (an anchored regex here), takes the MCP
    tools of that server and nothing else; a vendor of exact names takes every tool (the adapter
    picks)."""
    profile = PROFILES[vendor]
    glob = profile.tools.mcp_format.replace("{server}", "gh").replace("{tool}", "*")
    loaded = load(one_hook_spec(tmp_path, glob))
    matcher = group_matcher(loaded.spec, profile, loaded.spec.groups()[0])
    if profile.matcher.syntax == "exact":
        assert matcher is None
        return
    assert matcher is not None
    assert re.fullmatch(matcher, mcp_name(vendor, "gh")), matcher
    for tool in (mcp_name(vendor, "other"), *profile.tools.edit, *profile.tools.shell):
        assert not re.search(matcher, tool), (matcher, tool)


def test_a_glob_is_written_into_the_config(tmp_path: Path) -> None:
    tree = render(one_hook_spec(tmp_path / "spec", "mcp__gh__*"), tmp_path / "dist")
    settings = (tree.out / "config" / "claude" / "settings.json").read_text()
    assert '"matcher": "^(mcp__gh__.*)$"' in settings, settings
