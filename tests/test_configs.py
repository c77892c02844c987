"""The exact shape of every vendor config block in dist/config (and of a fresh in-memory render,
so a stale dist/ and a wrong builder are told apart).

The expected shapes are written out literally here, from the vendors' documented contracts,
not derived from the generator's own code."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hookshape.plan.artifacts import config_artifacts
from hookshape.plan.configs import file_name
from hookshape.spec.load import load

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
DIST = ROOT / "dist"
HOME = "$HOME/.port-daddy"
HANDLER_KEYS = ["type", "command", "timeout"]

# the vendors' tool names a pre-tool matcher must catch (edit tools, shell tool) and the harness's
# MCP tools as the vendor names them; and tools it must let through without running the gate
TOOLS = {
    "claude": (["Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"], "mcp__port-daddy__",
               ["Read", "Glob", "WebFetch", "mcp__other__tool"]),
    "gemini": (["write_file", "replace", "run_shell_command"], "mcp_port-daddy_",
               ["read_file", "glob", "mcp_other_tool"]),
    "codex": (["apply_patch", "Edit", "Write", "Bash"], "mcp__port-daddy__",
              ["Read", "mcp__other__tool"]),
    "agy": (["write_to_file", "replace_file_content", "multi_replace_file_content", "run_command"],
            "mcp_port-daddy_", ["view_file", "mcp_other_tool"]),
}


def fresh() -> dict[str, bytes]:
    return {a.path: a.data for a in config_artifacts(load(SPEC))}


def committed() -> dict[str, bytes]:
    folder = DIST / "config"
    assert folder.is_dir(), "dist/config is missing: run `make render`"
    return {p.relative_to(DIST).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(params=["dist", "fresh"])
def configs(request: pytest.FixtureRequest) -> dict[str, bytes]:
    return committed() if request.param == "dist" else fresh()


def command(vendor: str, gate: str) -> str:
    return f'PD_HOOK_PROVIDER={vendor} "{HOME}/bin/{gate}"'


def handler(vendor: str, gate: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "command": command(vendor, gate), "timeout": timeout}


def check_handler(h: dict[str, Any]) -> None:
    assert list(h) == HANDLER_KEYS, f"handler keys {list(h)}: strict parsers drop unknown keys"
    assert h["type"] == "command"
    assert isinstance(h["timeout"], int) and not isinstance(h["timeout"], bool)
    assert "/bin/squid/" not in h["command"], "config points at a tentacle, not its gate"
    assert re.fullmatch(r'PD_HOOK_PROVIDER=[a-z]+ "\$HOME/\.port-daddy/bin/pd-hook-[a-z-]+"',
                        h["command"]), h["command"]


def check_pre_tool_matcher(vendor: str, matcher: str) -> None:
    rx = re.compile(matcher)  # must compile as a Python regex
    edits_and_shell, mcp, others = TOOLS[vendor]
    for tool in [*edits_and_shell, mcp + "begin_session", mcp + "x"]:
        assert rx.search(tool), f"{vendor}: matcher {matcher!r} misses {tool}"
        assert rx.fullmatch(tool), f"{vendor}: matcher {matcher!r} only partly matches {tool}"
    for tool in others:
        assert not rx.search(tool), f"{vendor}: matcher {matcher!r} runs the gate for {tool}"


def test_the_config_files(configs: dict[str, bytes]) -> None:
    """One file per vendor the spec enables, named like the vendor's project file."""
    loaded = load(SPEC)
    assert sorted(configs) == sorted(f"config/{p.id}/{file_name(loaded.spec, p)}" for p in loaded.vendors)
    for data in configs.values():
        text = data.decode("utf-8")
        assert text.endswith("\n") and not text.endswith("\n\n")
        assert "\r" not in text


def hooks_json_expected(vendor: str, events: tuple[str, str, str], timeout: int,
                        matcher: str) -> dict[str, Any]:
    prompt, pre_tool, stop = events
    return {"hooks": {
        prompt: [{"hooks": [handler(vendor, "pd-hook-prompt", timeout)]}],
        pre_tool: [{"matcher": matcher, "hooks": [handler(vendor, "pd-hook-pre-tool", timeout)]}],
        stop: [{"hooks": [handler(vendor, "pd-hook-stop", timeout)]}],
    }}


@pytest.mark.parametrize(("vendor", "events", "timeout"), [
    ("claude", ("UserPromptSubmit", "PreToolUse", "Stop"), 5),        # seconds
    ("gemini", ("BeforeAgent", "BeforeTool", "AfterAgent"), 5000),    # milliseconds
])
def test_hooks_json_shape(configs: dict[str, bytes], vendor: str, events: tuple[str, str, str],
                          timeout: int) -> None:
    data = json.loads(configs[f"config/{vendor}/settings.json"])
    matcher = data["hooks"][events[1]][0]["matcher"]
    assert data == hooks_json_expected(vendor, events, timeout, matcher)
    assert list(data["hooks"]) == list(events)  # role order, stable
    for groups in data["hooks"].values():
        for group in groups:
            assert set(group) <= {"matcher", "hooks"}
            for h in group["hooks"]:
                check_handler(h)
    # lifecycle events take no matcher; post-tool is staged, not registered
    assert "matcher" not in data["hooks"][events[0]][0]
    assert "matcher" not in data["hooks"][events[2]][0]
    assert not {"PostToolUse", "AfterTool"} & set(data["hooks"])
    check_pre_tool_matcher(vendor, matcher)


def toml_body(text: str) -> tuple[list[str], str]:
    lines = text.splitlines()
    assert lines[0].startswith("# generated by hookshape ")
    assert re.fullmatch(r"# content sha256:[0-9a-f]{16,64}", lines[1]), lines[1]
    return lines, "\n".join(lines[2:]) + "\n"


def test_codex_hooks_json_shape(configs: dict[str, bytes]) -> None:
    """Codex reads hooks.json (a shape error there loses that file's hooks, where one in
    config.toml stops codex): Claude's shape, and no top-level key but `hooks`."""
    data = json.loads(configs["config/codex/hooks.json"])
    assert list(data) == ["hooks"]
    matcher = data["hooks"]["PreToolUse"][0]["matcher"]
    assert data == hooks_json_expected("codex", ("UserPromptSubmit", "PreToolUse", "Stop"), 5, matcher)
    for groups in data["hooks"].values():
        for group in groups:
            for h in group["hooks"]:
                check_handler(h)
    check_pre_tool_matcher("codex", matcher)


def test_toml_block_shape(configs: dict[str, bytes]) -> None:
    text = configs["config/kimi/config.toml"].decode()
    lines, _ = toml_body(text)
    start = "# >>> hookshape giant-squid hooks (managed: edit hookshape.toml, not this block) >>>"
    end = "# <<< hookshape giant-squid hooks <<<"
    assert lines.count(start) == 1 and lines.count(end) == 1
    assert lines.index(start) < lines.index(end)
    assert lines[-1] == end, "the end fence closes the block"
    data = tomllib.loads(text)
    assert [h["event"] for h in data["hooks"]] == ["UserPromptSubmit", "PreToolUse", "Stop"]


def test_toml_block_merges_into_a_user_config(configs: dict[str, bytes]) -> None:
    """The block is appendable as-is: user TOML + the block still parses, keys intact."""
    block = configs["config/kimi/config.toml"].decode()
    user = 'default_model = "k2"\n\n[loop_control]\nmax_steps_per_turn = 100\n\n'
    data = tomllib.loads(user + block)
    assert data["default_model"] == "k2" and data["loop_control"]["max_steps_per_turn"] == 100
    assert [h["event"] for h in data["hooks"]] == ["UserPromptSubmit", "PreToolUse", "Stop"]


def test_agy_hooks_json_shape(configs: dict[str, bytes]) -> None:
    data = json.loads(configs["config/agy/hooks.json"])
    assert list(data) == ["giant-squid"], "top-level key is the harness name"
    tree = data["giant-squid"]
    assert list(tree) == ["PreInvocation", "PreToolUse", "Stop"]
    matcher = tree["PreToolUse"][0]["matcher"]
    assert tree == {
        # lifecycle events: a flat handler list (a matcher group there never fires)
        "PreInvocation": [handler("agy", "pd-hook-prompt", 5)],
        "PreToolUse": [{"matcher": matcher, "hooks": [handler("agy", "pd-hook-pre-tool", 5)]}],
        "Stop": [handler("agy", "pd-hook-stop", 5)],
    }
    check_handler(tree["PreInvocation"][0])
    check_handler(tree["Stop"][0])
    check_handler(tree["PreToolUse"][0]["hooks"][0])
    check_pre_tool_matcher("agy", matcher)


def test_timeouts_keep_the_gate_margin(configs: dict[str, bytes]) -> None:
    """Every configured timeout, in the vendor's unit, leaves the gate deadline + margin."""
    spec = load(SPEC).spec
    floor_ms = spec.gate.deadline_ms + spec.gate.vendor_margin_ms
    profiles = load(SPEC).profiles
    for path, data in configs.items():
        profile = profiles[path.split("/")[1]]
        unit = 1 if profile.config.timeout_unit == "ms" else 1000
        key = profile.config.handler.timeout
        text = data.decode()
        if path.endswith(".toml"):
            timeouts = [int(t) for t in re.findall(rf"^{key} = (\d+)$", text, re.M)]
        else:
            timeouts = [int(t) for t in re.findall(rf'"{key}": (\d+)', text)]
        assert timeouts, path
        for t in timeouts:
            assert t * unit >= floor_ms, f"{path}: timeout {t} is below the gate floor"


def test_dist_configs_equal_a_fresh_build() -> None:
    assert committed() == fresh(), "dist/config is stale: run `make render`"
