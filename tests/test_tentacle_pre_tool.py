"""pre-tool (the edit gate): targets, locks, and the suggestibility answers per vendor."""

from __future__ import annotations

import json

import pytest
from tests.tentaclekit import (
    FIXTURES,
    VENDORS,
    Pd,
    assert_silent,
    assert_warn,
    block_msg,
    expected_targets,
    p_edit,
    p_shell,
    p_tool,
    patch_body,
    suffix,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

VEND = pytest.mark.parametrize("vendor", VENDORS)
ME = {"PD_ACTOR": "alice"}


def gate(pd: Pd, vendor: str, payload: dict, **env: str | None):
    return pd.run("pre_tool", payload, env={"PD_HOOK_PROVIDER": vendor, **ME, **env})


@VEND
def test_no_matrix_allows_silently(pd: Pd, vendor: str) -> None:
    assert_silent(gate(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj)))


@VEND
def test_empty_matrix_allows_silently(pd: Pd, vendor: str) -> None:
    pd.matrix.write_text("")
    assert_silent(gate(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj)))


@VEND
def test_lock_on_another_file_allows(pd: Pd, vendor: str) -> None:
    pd.lock(pd.proj / "b.ts", "bob")
    pd.lock(pd.proj / "a.tsx", "bob")
    assert_silent(gate(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj)))


@VEND
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_foreign_lock_blocks_by_default(pd: Pd, vendor: str, provider: str) -> None:
    target = pd.proj / "src" / "auth.ts"
    pd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env={**ME, **env})
    assert r.json == tool_block(vendor, block_msg(target, "bob"))
    assert r.err == b""


@VEND
def test_enforce_from_env(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj), PD_SUGGESTIBILITY="enforce")
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_warn(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj), PD_SUGGESTIBILITY="warn")
    assert_warn(vendor, r, warn_msg(target, "bob"))


@VEND
def test_advisory_is_silent(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    assert_silent(gate(pd, vendor, p_edit(vendor, str(target), pd.proj), PD_SUGGESTIBILITY="advisory"))


@VEND
def test_own_lock_allows(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "alice")
    assert_silent(gate(pd, vendor, p_edit(vendor, str(target), pd.proj)))


@VEND
def test_lock_without_actor_is_foreign(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_empty_holder_is_no_lock(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.add_matrix(f'PD_LOCK_{suffix(str(target))}=""')
    assert_silent(gate(pd, vendor, p_edit(vendor, str(target), pd.proj)))


@VEND
def test_matrix_file_env(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    other = pd.root / "other.env"
    other.write_text(f'PD_LOCK_{suffix(str(target))}="carol"\n')
    pd.lock(target, "bob")  # the default matrix is ignored when PD_MATRIX_FILE is set
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj), PD_MATRIX_FILE=str(other))
    assert r.json == tool_block(vendor, block_msg(target, "carol"))


@VEND
@pytest.mark.parametrize("line", [
    'export PD_LOCK_{s}="bob"',
    "PD_LOCK_{s}='bob'",
    "  PD_LOCK_{s}=bob",
    'PD_LOCK_{s}="bob"\r',
])
def test_matrix_line_forms(pd: Pd, vendor: str, line: str) -> None:
    target = pd.proj / "a.ts"
    pd.add_matrix("# a comment", "", "garbage without equals", line.format(s=suffix(str(target))))
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_last_lock_line_wins(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    pd.lock(target, "alice")
    assert_silent(gate(pd, vendor, p_edit(vendor, str(target), pd.proj)))


@VEND
def test_long_path_suffix_cut_at_80(pd: Pd, vendor: str) -> None:
    target = pd.proj / ("d" * 60) / ("f" * 60 + ".ts")
    key = suffix(str(target))
    assert len(key) == 80
    pd.add_matrix(f'PD_LOCK_{key}="bob"')
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
@pytest.mark.parametrize("rel", ["src/a.ts", "./src/a.ts", "src/../src/./a.ts", "src//a.ts", "x/../../proj/src/a.ts"])
def test_relative_path_joined_to_cwd(pd: Pd, vendor: str, rel: str) -> None:
    target = pd.proj / "src" / "a.ts"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_edit(vendor, rel, pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_absolute_path_normalised(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "a.ts"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_edit(vendor, f"{pd.proj}/lib/../src//./a.ts", pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_relative_path_without_cwd_is_no_target(pd: Pd, vendor: str) -> None:
    pd.lock("/src/a.ts", "bob")
    pd.lock("src/a.ts", "bob")
    payload = p_edit(vendor, "src/a.ts", "not-absolute")
    assert_silent(gate(pd, vendor, payload))


@VEND
def test_shell_tool_has_no_targets(pd: Pd, vendor: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    assert_silent(gate(pd, vendor, p_shell(vendor, f"echo hi > {target}", pd.proj)))


@pytest.mark.parametrize(("vendor", "tool", "field"), [
    ("claude", "Edit", "file_path"), ("claude", "MultiEdit", "file_path"),
    ("claude", "NotebookEdit", "notebook_path"), ("claude", "Write", "path"),
    ("gemini", "replace", "file_path"), ("gemini", "write_file", "path"),
    ("codex", "Edit", "file_path"), ("codex", "Write", "path"),
    ("agy", "replace_file_content", "TargetFile"), ("agy", "multi_replace_file_content", "TargetFile"),
    ("agy", "write_to_file", "AbsolutePath"),
])
def test_every_edit_tool_and_path_field(pd: Pd, vendor: str, tool: str, field: str) -> None:
    target = pd.proj / "nb.ipynb"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_tool(vendor, tool, {field: str(target)}, pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@pytest.mark.parametrize(("vendor", "tool"), [
    ("claude", "Read"), ("claude", "write_file"), ("gemini", "read_file"), ("gemini", "Write"),
    ("codex", "Read"), ("agy", "view_file"), ("agy", "Write"),
])
def test_non_edit_tools_are_not_checked(pd: Pd, vendor: str, tool: str) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    field = "TargetFile" if vendor == "agy" else "file_path"
    assert_silent(gate(pd, vendor, p_tool(vendor, tool, {field: str(target)}, pd.proj)))


def test_nested_file_path_is_not_the_target(pd: Pd) -> None:
    """Trap: a greedy extractor takes the last "file_path" of the line."""
    target, decoy = pd.proj / "a.ts", pd.proj / "decoy.ts"
    pd.lock(decoy, "bob")
    payload = p_tool("claude", "Write", {"file_path": str(target), "meta": {"file_path": str(decoy)}}, pd.proj)
    assert_silent(gate(pd, "claude", payload))
    pd.lock(target, "carol")
    r = gate(pd, "claude", payload)
    assert r.json == tool_block("claude", block_msg(target, "carol"))


def test_agy_cwd_from_the_workspace_never_from_args(pd: Pd) -> None:
    """toolCall.args.Cwd is written by the model: relative targets join the workspace path."""
    (pd.proj / "sub").mkdir()
    pd.lock(pd.proj / "sub" / "a.ts", "bob")
    pd.lock(pd.proj / "a.ts", "carol")
    with_cwd = p_tool("agy", "write_to_file", {"TargetFile": "a.ts", "Cwd": str(pd.proj / "sub")}, pd.proj)
    r = gate(pd, "agy", with_cwd)
    assert r.json == tool_block("agy", block_msg(pd.proj / "a.ts", "carol"))
    r = gate(pd, "agy", p_tool("agy", "write_to_file", {"TargetFile": "a.ts"}, pd.proj))
    assert r.json == tool_block("agy", block_msg(pd.proj / "a.ts", "carol"))


# -- Codex patches ------------------------------------------------------------------------------

MULTI = [("Add", "new.ts"), ("Update", "src/up.ts"), ("Delete", "old.ts"), ("Update", "src/mv.ts"),
         ("Move", "src/moved.ts")]


@pytest.mark.parametrize("locked", [p for _, p in MULTI])
@pytest.mark.parametrize("form", ["string", "argv"])
def test_codex_multi_file_patch_each_path(pd: Pd, locked: str, form: str) -> None:
    body = patch_body(*MULTI)
    command = body if form == "string" else ["apply_patch", body]
    target = pd.proj / locked
    pd.lock(target, "bob")
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": command}, pd.proj))
    assert r.json == tool_block("codex", block_msg(target, "bob"))


@pytest.mark.parametrize("form", ["string", "argv"])
def test_codex_patch_two_locked_paths(pd: Pd, form: str) -> None:
    body = patch_body(*MULTI)
    command = body if form == "string" else ["apply_patch", body]
    pd.lock(pd.proj / "new.ts", "bob")
    pd.lock(pd.proj / "src/moved.ts", "carol")
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": command}, pd.proj))
    reason = block_msg(pd.proj / "new.ts", "bob") + "\n" + block_msg(pd.proj / "src/moved.ts", "carol")
    assert r.json == tool_block("codex", reason)
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": command}, pd.proj),
             PD_SUGGESTIBILITY="warn")
    assert r.out == b""
    assert r.stderr == (warn_msg(pd.proj / "new.ts", "bob") + " " + warn_msg(pd.proj / "src/moved.ts", "carol")
                        + "\n")


def test_codex_patch_crlf_and_absolute_paths(pd: Pd) -> None:
    target = pd.root / "elsewhere" / "x.ts"
    body = f"*** Begin Patch\r\n*** Update File: {target}\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n"
    pd.lock(target, "bob")
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": body}, pd.proj))
    assert r.json == tool_block("codex", block_msg(target, "bob"))


def test_codex_patch_shell_wrapped_argv(pd: Pd) -> None:
    """Codex may send the patch as argv of a shell tool (["bash", "-lc", "apply_patch <<EOF ..."])."""
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    cmd = ["bash", "-lc", "apply_patch <<'EOF'\n" + patch_body(("Update", "a.ts")) + "EOF\n"]
    r = gate(pd, "codex", p_tool("codex", "Bash", {"command": cmd}, pd.proj))
    assert r.json == tool_block("codex", block_msg(target, "bob"))


def test_codex_patch_own_and_foreign(pd: Pd) -> None:
    pd.lock(pd.proj / "new.ts", "alice")
    pd.lock(pd.proj / "old.ts", "bob")
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": patch_body(*MULTI)}, pd.proj))
    assert r.json == tool_block("codex", block_msg(pd.proj / "old.ts", "bob"))


def test_codex_text_mentioning_patch_heads_without_begin_is_no_target(pd: Pd) -> None:
    pd.lock(pd.proj / "a.ts", "bob")
    cmd = "printf '*** Update File: a.ts\\n'"
    assert_silent(gate(pd, "codex", p_tool("codex", "Bash", {"command": cmd}, pd.proj)))


def test_multiple_targets_warn_lists_each(pd: Pd) -> None:
    """Claude: a Write carrying file_path and path names two targets."""
    a, b = pd.proj / "a.ts", pd.proj / "b.ts"
    pd.lock(a, "bob")
    pd.lock(b, "carol")
    payload = p_tool("claude", "Write", {"file_path": str(a), "path": str(b)}, pd.proj)
    r = gate(pd, "claude", payload)
    assert r.json == tool_block("claude", block_msg(a, "bob") + "\n" + block_msg(b, "carol"))
    r = gate(pd, "claude", payload, PD_SUGGESTIBILITY="warn")
    assert_warn("claude", r, warn_msg(a, "bob") + "\n" + warn_msg(b, "carol"))


# -- the fixture corpus -------------------------------------------------------------------------

PRE_FIXTURES = sorted((v, p.stem) for v in VENDORS for p in (FIXTURES / v).glob("*.json")
                      if p.stem.startswith("pre-tool") or p.stem in ("live-PreToolUse", "live-BeforeTool"))


def test_pre_fixture_corpus_is_covered() -> None:
    assert len(PRE_FIXTURES) >= 10
    assert {v for v, _ in PRE_FIXTURES} == set(VENDORS)


@pytest.mark.parametrize(("vendor", "name"), PRE_FIXTURES)
@pytest.mark.parametrize("dial", ["enforce", "warn", "advisory", "default"])
def test_fixture_payloads(pd: Pd, vendor: str, name: str, dial: str) -> None:
    payload = json.loads((FIXTURES / vendor / f"{name}.json").read_text())
    targets = expected_targets(vendor, payload)
    for t in targets:
        pd.lock(t, "bob")
    pd.lock("/home/dev/proj", "bob")  # a lock on a directory is not a lock on its files
    env = {} if dial == "default" else {"PD_SUGGESTIBILITY": dial}
    r = gate(pd, vendor, payload, **env)
    if not targets or dial == "advisory":
        assert_silent(r)
    elif dial in ("enforce", "default"):
        assert r.json == tool_block(vendor, "\n".join(block_msg(t, "bob") for t in targets))
    else:
        assert_warn(vendor, r, ("\n" if vendor != "codex" else " ").join(warn_msg(t, "bob") for t in targets))


@pytest.mark.parametrize(("vendor", "name"), PRE_FIXTURES)
def test_fixture_payloads_own_lock(pd: Pd, vendor: str, name: str) -> None:
    payload = json.loads((FIXTURES / vendor / f"{name}.json").read_text())
    for t in expected_targets(vendor, payload):
        pd.lock(t, "alice")
    assert_silent(gate(pd, vendor, payload))


def test_expected_targets_of_the_fixtures() -> None:
    """The independent target rule agrees with the documented examples."""
    load = lambda v, n: json.loads((FIXTURES / v / f"{n}.json").read_text())  # noqa: E731
    assert expected_targets("claude", load("claude", "pre-tool-Write")) == ["/home/dev/proj/src/retry.ts"]
    assert expected_targets("codex", load("codex", "pre-tool-apply_patch")) == ["/home/dev/proj/src/fetch.ts"]
    assert expected_targets("codex", load("codex", "live-PreToolUse")) == [
        "/scratch/codex-json-deny-hooks/work/target.txt"]
    assert expected_targets("agy", load("agy", "pre-tool-write_to_file")) == ["/home/dev/proj/src/retry.ts"]
    assert expected_targets("claude", load("claude", "pre-tool-Bash")) == []


def test_path_in_matrix_key_is_suffix_of_fixture_example() -> None:
    assert suffix("/repo/src/auth.ts") == "REPO_SRC_AUTH_TS"
    assert suffix("/a//b--c/ü.x_") == "A_B_C_X"


def test_deny_goes_to_stdout_not_exit_2(pd: Pd) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    for vendor in VENDORS:
        r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
        assert r.code == 0 and r.err == b""


@VEND
def test_verdict_env_leaves_json_channels_alone(pd: Pd, vendor: str) -> None:
    """Under the gate (PD_GATE_VERDICT set) a JSON deny is still a JSON deny with exit 0."""
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj), PD_GATE_VERDICT="86")
    assert r.json == tool_block(vendor, block_msg(target, "bob"))
