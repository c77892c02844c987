"""pre-tool (the edit gate): targets, locks, and the suggestibility answers per vendor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.gatekit import Rig
from tests.scratch import short_root
from tests.shapes import LOCK_READS, LOCK_SHAPES
from tests.shells import AWK_PREFER, CORE, FAST, MATRIX, InTurn, Shell
from tests.tentaclekit import (
    CODES,
    DASH,
    FIXTURES,
    MSG,
    ON_CORE,
    PROFILES,
    SPEC,
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
    seed_suffix,
    suffix,
    tool_block,
    warn_msg,
)

from hookshape.plan import outputs

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms


@pytest.fixture
def sh() -> Shell:
    """Paths and lock matching are awk: dash only (see tests.tentaclekit.DASH)."""
    return DASH


# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
# where the vendor changes what is asserted, every vendor in every mode
EVERY_VENDOR = pytest.mark.parametrize("vendor", VENDORS)
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


@ON_CORE
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
    """A plain path keeps today's key; any other path gets the hashed form."""
    assert suffix("/repo/src/auth.ts") == "REPO_SRC_AUTH_TS"
    assert suffix("/home/dev/proj/src/retry.ts") == "HOME_DEV_PROJ_SRC_RETRY_TS"
    key = suffix("/a//b--c/ü.x_")
    assert key.startswith("A_B_C_X__") and len(key) == len("A_B_C_X__") + 14


@ON_CORE
def test_deny_goes_to_stdout_not_exit_2(pd: Pd) -> None:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    for vendor in VENDORS:
        r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
        assert r.code == 0 and r.err == b""


@ON_CORE
@VEND
def test_verdict_env_leaves_json_channels_alone(pd: Pd, vendor: str) -> None:
    """Under the gate (PD_GATE_VERDICT set) a JSON deny is still the same JSON, and the exit
    code tells the gate a verdict was written: on stdout (the gate exits 0 for it) or on
    stderr (the verdict code, the gate's exit 2)."""
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    on_err = outputs.on_stderr(PROFILES[vendor], "deny", "pre_tool")
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), code=None,
               env={"PD_HOOK_PROVIDER": vendor, **ME, "PD_GATE_VERDICT": str(CODES["verdict"])})
    assert r.code == CODES["verdict" if on_err else "said"]
    if on_err:
        assert block_msg(target, "bob") in r.stderr
    else:
        assert r.json == tool_block(vendor, block_msg(target, "bob"))


# -- lock keys: distinct paths never share one (docs/default-harness.md, "Lock keys") ----------------------------

MAX = SPEC["matrix"]


@VEND
def test_plain_key_of_today_still_locks(pd: Pd, vendor: str) -> None:
    """A matrix written with today's key of a plain path still blocks it."""
    target = "/repo/src/auth.ts"
    pd.add_matrix('PD_LOCK_REPO_SRC_AUTH_TS="bob"')
    r = gate(pd, vendor, p_edit(vendor, target, pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_long_path_key_is_hashed_within_suffix_max(pd: Pd, vendor: str) -> None:
    target = pd.proj / ("d" * 60) / ("f" * 60 + ".ts")
    key = suffix(str(target))
    assert len(key) <= MAX["suffix_max"] and "__" in key
    pd.add_matrix(f'PD_LOCK_{key}="bob"')
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))
    # the seed writer's key of the same path: cut at suffix_max, it blocks too
    pd.matrix.write_text(f'PD_LOCK_{seed_suffix(str(target))}="bob"\n')
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_long_siblings_do_not_share_a_lock(pd: Pd, vendor: str) -> None:
    """Keys cut at suffix_max made every file of a deep directory share one lock: a lock under
    the hashed key holds one file."""
    base = pd.proj / "packages" / "web-app" / "src" / "features" / "dashboard" / "components"
    locked, other = base / "Button.tsx", base / "Other.tsx"
    pd.lock(locked, "bob", form="hashed")
    assert suffix(str(locked)) != suffix(str(other))
    assert_silent(gate(pd, vendor, p_edit(vendor, str(other), pd.proj)))
    r = gate(pd, vendor, p_edit(vendor, str(locked), pd.proj))
    assert r.json == tool_block(vendor, block_msg(locked, "bob"))


@VEND
@pytest.mark.parametrize(("locked", "edited"), [
    ("src/a-b.py", "src/a_b.py"),
    ("src/a/py", "src/a.py"),
    ("src/a.b.c", "src/a/b.c"),
    ("src/.env", "src/env"),
    ("src/Button.tsx", "src/button.tsx"),
])
def test_collapsing_paths_do_not_share_a_lock(pd: Pd, vendor: str, locked: str, edited: str) -> None:
    """Under the hashed key; under the seed writer's key they collide, and that only blocks
    (test_seed_key_collisions_only_block)."""
    pd.lock(pd.proj / locked, "bob", form="hashed")
    assert suffix(str(pd.proj / locked)) != suffix(str(pd.proj / edited))
    assert_silent(gate(pd, vendor, p_edit(vendor, edited, pd.proj)))
    r = gate(pd, vendor, p_edit(vendor, locked, pd.proj))
    assert r.json == tool_block(vendor, block_msg(pd.proj / locked, "bob"))


@VEND
@pytest.mark.parametrize("name", ["Button.tsx", "a b.py", "été.md", "a\tb", "x" * 300, "q\"$`.sh", "Makefile"])
def test_awk_and_python_agree_on_hashed_keys(pd: Pd, vendor: str, name: str) -> None:
    """The tentacle's key of a non-plain path is the one tests/tentaclekit.suffix() computes."""
    target = pd.proj / "src" / name
    pd.lock(target, "bob", form="hashed")
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


# -- Codex patch headers: the blanks Codex's parser trims -------------------------------------

@pytest.mark.parametrize("pad", ["  ", "\t", " \t ", "\u00a0", "\u3000 "])
@pytest.mark.parametrize("trail", ["", "  ", "\t", "\u00a0", "\r"])
def test_codex_patch_header_with_blanks_is_seen(pd: Pd, pad: str, trail: str) -> None:
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    body = f"*** Begin Patch\n{pad}*** Update File: src/a.py{trail}\n@@\n-x\n+y\n*** End Patch\n"
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": body}, pd.proj))
    assert r.json == tool_block("codex", block_msg(target, "bob"))


def test_codex_patch_body_lines_are_not_headers(pd: Pd) -> None:
    """A body line that adds or removes header text does not name a target."""
    pd.lock(pd.proj / "src" / "b.py", "bob")
    body = ("*** Begin Patch\n*** Update File: src/a.py\n@@\n-*** Update File: src/b.py\n"
            "+ *** Add File: src/b.py\n*** End Patch\n")
    assert_silent(gate(pd, "codex", p_tool("codex", "apply_patch", {"command": body}, pd.proj)))


# -- the oversize rule: an edit whose target the gate cannot see ------------------------------

UNCHECKED = MSG["unchecked"]
FIELDS = {"claude": ("Write", "file_path", "content"), "gemini": ("write_file", "file_path", "content"),
          "codex": ("Write", "file_path", "content"), "agy": ("write_to_file", "TargetFile", "CodeContent")}


def late_path(vendor: str, path: str, cwd: Path, content: str) -> dict[str, Any]:
    """An edit whose path field comes after a big content field."""
    tool, field, body = FIELDS[vendor]
    return p_tool(vendor, tool, {body: content, field: path}, cwd)


@VEND
def test_path_after_the_stdin_cap_is_blocked_as_unchecked(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    r = gate(pd, vendor, late_path(vendor, str(target), pd.proj, "z" * (300 * 1024)))
    assert r.json == tool_block(vendor, UNCHECKED)


@VEND
def test_unchecked_edit_follows_the_dial(pd: Pd, vendor: str) -> None:
    pd.lock(pd.proj / "src" / "a.py", "bob")
    payload = late_path(vendor, str(pd.proj / "src" / "a.py"), pd.proj, "z" * (300 * 1024))
    assert_warn(vendor, gate(pd, vendor, payload, PD_SUGGESTIBILITY="warn"), UNCHECKED)
    assert_silent(gate(pd, vendor, payload, PD_SUGGESTIBILITY="advisory"))


@VEND
def test_unchecked_edit_without_foreign_locks_is_allowed(pd: Pd, vendor: str) -> None:
    """Nothing to protect: no lock, or only the actor's own."""
    payload = late_path(vendor, str(pd.proj / "src" / "a.py"), pd.proj, "z" * (300 * 1024))
    assert_silent(gate(pd, vendor, payload))
    pd.lock(pd.proj / "src" / "b.py", "alice")
    pd.lock(pd.proj / "src" / "c.py", "")
    assert_silent(gate(pd, vendor, payload))


@VEND
def test_path_cut_by_the_stdin_cap_is_unchecked(pd: Pd, vendor: str) -> None:
    """The cut falls inside the path: its prefix is not the target."""
    pd.lock(pd.proj / "zz", "bob")
    tool, field, body = FIELDS[vendor]
    head = json.dumps(p_tool(vendor, tool, {body: "x", field: ""}, pd.proj))
    cut = head.index('"' + field + '": "') + len(field) + 5
    text = head[:cut] + str(pd.proj) + "/" + "z" * (300 * 1024) + head[cut:]
    r = gate(pd, vendor, text)
    assert r.json == tool_block(vendor, UNCHECKED)


@VEND
def test_path_behind_deep_nesting_is_blocked_as_unchecked(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    tool, field, _body = FIELDS[vendor]
    text = json.dumps(p_tool(vendor, tool, {"x": "@", field: str(target)}, pd.proj))
    text = text.replace('"@"', "[" * 200 + "]" * 200)
    r = gate(pd, vendor, text)
    assert r.json == tool_block(vendor, UNCHECKED)


@VEND
def test_path_before_the_cut_keeps_its_lock_reason(pd: Pd, vendor: str) -> None:
    """A big write whose path comes first is checked as usual: allowed when unlocked."""
    pd.lock(pd.proj / "src" / "other.py", "bob")
    tool, field, body = FIELDS[vendor]
    payload = p_tool(vendor, tool, {field: str(pd.proj / "src" / "a.py"), body: "z" * (300 * 1024)}, pd.proj)
    assert_silent(gate(pd, vendor, payload))


def test_cut_codex_patch_is_unchecked(pd: Pd) -> None:
    """A patch body cut by the bound may name more files after the cut."""
    pd.lock(pd.proj / "late.py", "bob")
    body = ("*** Begin Patch\n*** Update File: early.py\n" + "+x\n" * (100 * 1024)
            + "*** Update File: late.py\n+y\n*** End Patch\n")
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": body}, pd.proj))
    assert r.json == tool_block("codex", UNCHECKED)


# -- adversarial sizes: bounded work, capped answers ------------------------------------------

@VEND
def test_dotted_path_of_60000_dots_is_unchecked_with_a_short_reason(pd: Pd, vendor: str) -> None:
    """src/a + 60,000 dots + py once mapped to the key of src/a.py, with a 120 KB reason."""
    pd.lock(pd.proj / "src" / "a.py", "bob")
    r = gate(pd, vendor, p_edit(vendor, "src/a" + "." * 60000 + "py", pd.proj))
    assert r.json == tool_block(vendor, UNCHECKED)


@VEND
def test_huge_holder_name_is_capped(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "a.py"
    holder = "h\\$" * 7000  # 21 KB in the matrix, full of escapes
    pd.lock(target, holder)
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    shown = holder[: MAX["holder_max"]]
    assert r.json == tool_block(vendor, block_msg(target, shown))


@EVERY_VENDOR
def test_reason_is_capped(pd: Pd, vendor: str) -> None:
    """Many locked targets with long paths: one line each, cut at reason_max bytes."""
    names = [f"{'d' * 200}/f{i}.py" for i in range(40)]
    for n in names:
        pd.lock(pd.proj / n, "bob")
    if vendor == "codex":
        args = {"command": patch_body(*[("Update", n) for n in names])}
        payload = p_tool("codex", "apply_patch", args, pd.proj)
    else:
        payload = p_edit(vendor, names[0], pd.proj)
    r = gate(pd, vendor, payload)
    obj = r.json
    assert obj is not None
    reason = obj.get("reason") or obj["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(block_msg(pd.proj / names[0], "bob"))
    assert len(reason.encode()) <= MAX["reason_max"]


VALUES_MAX = SPEC["harness"]["json_max_values"]
MANY = {"numbers": [1], "strings": ["x"], "arrays": [[]], "objects": [{}]}


@VEND
@pytest.mark.parametrize("kind", MANY)
def test_path_behind_many_values_is_blocked_as_unchecked(pd: Pd, vendor: str, kind: str) -> None:
    """A path after more than json_max_values tiny values (each one awk statement) is unseen:
    the event counts as cut, and the oversize rule applies."""
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    tool, field, _body = FIELDS[vendor]
    payload = p_tool(vendor, tool, {"x": MANY[kind] * VALUES_MAX, field: str(target)}, pd.proj)
    assert len(json.dumps(payload)) < SPEC["harness"]["stdin_max_bytes"]
    assert gate(pd, vendor, payload).json == tool_block(vendor, UNCHECKED)


@VEND
def test_path_before_many_values_keeps_its_lock_reason(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "a.py"
    tool, field, _body = FIELDS[vendor]
    payload = p_tool(vendor, tool, {field: str(target), "x": [1] * VALUES_MAX}, pd.proj)
    pd.lock(pd.proj / "src" / "other.py", "bob")
    assert_silent(gate(pd, vendor, payload))
    pd.lock(target, "bob")
    assert gate(pd, vendor, payload).json == tool_block(vendor, block_msg(target, "bob"))


def test_values_just_under_the_bound_are_read(pd: Pd) -> None:
    """json_max_values counts the values of the whole event: a path after fewer is checked."""
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    payload = p_tool("claude", "Write", {"x": [1] * (VALUES_MAX - 20), "file_path": str(target)}, pd.proj)
    assert gate(pd, "claude", payload).json == tool_block("claude", block_msg(target, "bob"))


def test_duplicate_container_keys_count_against_the_bound(pd: Pd) -> None:
    """A repeated key drops the subtree of the value it replaces; that scan is work too, so
    thousands of distinct keys and then thousands of repeats end at the bound, not in seconds."""
    target = pd.proj / "src" / "a.py"
    pd.lock(target, "bob")
    keys = ",".join(f'"k{i}":0' for i in range(VALUES_MAX // 2))
    dups = ",".join(['"d":{}'] * (VALUES_MAX // 2))
    doc = json.dumps(p_tool("claude", "Write", {"file_path": "@"}, pd.proj))
    text = doc.replace('{"file_path": "@"}', "{" + keys + "," + dups + ',"file_path":"' + str(target) + '"}')
    assert gate(pd, "claude", text).json == tool_block("claude", UNCHECKED)


def test_too_many_targets_is_unchecked(pd: Pd) -> None:
    pd.lock(pd.proj / "zz.py", "bob")
    names = [f"f{i}.py" for i in range(MAX["targets_max"] + 1)]
    body = patch_body(*[("Add", n) for n in names])
    r = gate(pd, "codex", p_tool("codex", "apply_patch", {"command": body}, pd.proj))
    assert r.json == tool_block("codex", UNCHECKED)


@pytest.mark.parametrize("shell", MATRIX, ids=[s.name for s in MATRIX])
def test_adversarial_sizes_every_shell(squid: Path, shell: Shell) -> None:
    """The result protocol and the caps under every shell of the matrix: a capped holder, the
    oversize rule, a capped reason, and a warn answer behind a block answer."""
    if not shell.available:
        pytest.fail(f"{shell.name} is not installed (the conformance matrix is required)")
    with short_root() as root:
        pd = Pd(root, squid, shell)
        target = pd.proj / "src" / "a.py"
        holder = "h\\$" * 7000
        pd.lock(target, holder)
        r = gate(pd, "claude", p_edit("claude", str(target), pd.proj))
        assert r.json == tool_block("claude", block_msg(target, holder[: MAX["holder_max"]]))
        r = gate(pd, "claude", p_edit("claude", "src/a" + "." * 60000 + "py", pd.proj))
        assert r.json == tool_block("claude", UNCHECKED)
        r = gate(pd, "gemini", late_path("gemini", str(target), pd.proj, "z" * (300 * 1024)))
        assert r.json == tool_block("gemini", UNCHECKED)
        r = gate(pd, "agy", p_tool("agy", "write_to_file", {"x": [1] * VALUES_MAX, "TargetFile": str(target)}, pd.proj))
        assert r.json == tool_block("agy", UNCHECKED)
        names = [f"{'d' * 200}/f{i}.py" for i in range(40)]
        for n in names:
            pd.lock(pd.proj / n, "bob")
        payload = p_tool("codex", "apply_patch", {"command": patch_body(*[("Update", n) for n in names])}, pd.proj)
        obj = gate(pd, "codex", payload).json
        assert obj is not None
        reason = obj["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason.startswith(block_msg(pd.proj / names[0], "bob")) and len(reason) <= MAX["reason_max"]
        r = gate(pd, "codex", payload, PD_SUGGESTIBILITY="warn")
        assert r.out == b"" and r.stderr.startswith(warn_msg(pd.proj / names[0], "bob"))


# -- locks written by the seed harness --------------------------------------------------------
# The seed harness's daemon writes PD_LOCK_<SUFFIX> by its own rule (CONTRACTS.md Part 2): each
# run of non-alphanumerics one "_", trimmed, upper-cased, cut at suffix_max. Pd.lock writes that
# form (tests/tentaclekit.seed_suffix); a lock under it blocks whatever the path holds.

SEED_PATHS = ["src/auth-service.ts", "src/Button.tsx", "src/my_module.py", ".env", "Makefile", "src/.eslintrc.json",
              "docs/READ ME.md", "src/été.md", "a/b--c/d.e.f", "x" * 90 + "/deep/file.ts", "src/a.test.ts"]


@VEND
@pytest.mark.parametrize("rel", SEED_PATHS)
def test_a_lock_in_the_seed_form_blocks(pd: Pd, vendor: str, rel: str) -> None:
    target = pd.proj / rel
    pd.lock(target, "bob")  # the seed writer's key
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
def test_either_form_blocks_and_own_locks_allow(pd: Pd, vendor: str) -> None:
    target = pd.proj / "src" / "auth-service.ts"
    for form, other in (("seed", "hashed"), ("hashed", "seed")):
        pd.matrix.write_text("")
        pd.lock(target, "alice", form=other)  # the actor's own lock, in the other form
        assert_silent(gate(pd, vendor, p_edit(vendor, str(target), pd.proj)))
        pd.lock(target, "bob", form=form)
        r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
        assert r.json == tool_block(vendor, block_msg(target, "bob")), form


@VEND
@pytest.mark.parametrize(("locked", "edited"), [("src/a-b.py", "src/a_b.py"), ("src/a.py", "src/A.py"),
                                                ("src/a/py", "src/a.py"), ("src/a.py", "src.a.py"),
                                                ("src/a.py", "src/a..py"), ("src/a.py", "src/a" + "." * 600 + "py")])
def test_seed_key_collisions_only_block(pd: Pd, vendor: str, locked: str, edited: str) -> None:
    """Two paths that share the seed writer's key: a lock on one blocks the other (never an
    unlock: the key of a locked path is the same on every call)."""
    assert seed_suffix("/repo/src/auth.ts") == "REPO_SRC_AUTH_TS" == suffix("/repo/src/auth.ts")
    assert seed_suffix("/home/dev/my-app/src/Button.tsx") == "HOME_DEV_MY_APP_SRC_BUTTON_TSX"
    assert seed_suffix("/a//b--c/ü.x_") == "A_B_C_X"
    assert len(seed_suffix("/" + "x" * 200)) == MAX["suffix_max"]
    assert seed_suffix(str(pd.proj / locked)) == seed_suffix(str(pd.proj / edited))
    pd.lock(pd.proj / locked, "bob")
    r = gate(pd, vendor, p_edit(vendor, edited, pd.proj))
    assert r.json == tool_block(vendor, block_msg(pd.proj / edited, "bob"))


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
def test_seed_locks_through_the_gate(sh: Shell) -> None:
    with short_root() as root:
        seed_locks_through_the_gate(Rig(root), sh)


def seed_locks_through_the_gate(rig: Rig, sh: Shell) -> None:
    for i, rel in enumerate(SEED_PATHS if sh.name == "dash" else SEED_PATHS[:3]):
        vendor = VENDORS[i % len(VENDORS)]
        target = rig.project / rel
        rig.write("matrix.env", f'PD_LOCK_{seed_suffix(str(target))}="bob"\n')
        res = rig.run("pre_tool", json.dumps(p_edit(vendor, str(target), rig.project)), vendor=vendor, **ME)
        assert json.loads(res.out) == tool_block(vendor, block_msg(target, "bob")), rel


# -- locks see the shell ----------------------------------------------------------------------
# With another actor's lock on src/auth.ts and the dial at enforce, shell commands that write it
# are blocked like an edit tool (warned under warn, free under advisory); reads stay free.

LOCK_CLASSES = sorted({cls for cls, _c in LOCK_SHAPES})


def locked_auth(pd: Pd) -> Path:
    target = pd.proj / "src" / "auth.ts"
    target.parent.mkdir(exist_ok=True)
    pd.lock(target, "bob")
    return target


@pytest.mark.parametrize("cls", LOCK_CLASSES)
def test_shell_writes_of_a_locked_file(pd: Pd, cls: str) -> None:
    target = locked_auth(pd)
    passed = []
    for i, command in enumerate(c for k, c in LOCK_SHAPES if k == cls):
        vendor = VENDORS[i % len(VENDORS)]
        r = gate(pd, vendor, p_shell(vendor, command, pd.proj))
        if r.json != tool_block(vendor, block_msg(target, "bob")):
            passed.append(command)
    assert not passed, f"{cls}: {passed!r}"


# fast mode: the preferred awk only
@pytest.mark.parametrize("awk", [f"awk={AWK_PREFER[0]}"] if FAST else
                         ["busybox-only", "awk=original-awk", "awk=mawk", "awk=gawk"])
def test_shell_writes_under_every_awk(pd: Pd, awk_paths: dict[str, str], awk: str) -> None:
    pd.env["PATH"] = awk_paths[awk]
    target = locked_auth(pd)
    for _cls, command in LOCK_SHAPES:
        r = gate(pd, "claude", p_shell("claude", command, pd.proj))
        assert r.json == tool_block("claude", block_msg(target, "bob")), command
    for command in LOCK_READS:
        assert_silent(gate(pd, "claude", p_shell("claude", command, pd.proj)))


@VEND
def test_shell_writes_follow_the_dial_and_reads_stay_free(pd: Pd, vendor: str) -> None:
    """A shell write answers through the dial like an edit; reads, and what the shell reader
    leaves to the lock (a glob, a variable of unknown value, another interpreter's code, a
    subcommand that is no writer: README, "How the rendered scripts work"), stay free; a read
    tool's paths are never targets."""
    target = locked_auth(pd)
    payload = p_shell(vendor, "sed -i s/a/b/ src/auth.ts", pd.proj)
    assert gate(pd, vendor, payload).json == tool_block(vendor, block_msg(target, "bob"))
    assert_warn(vendor, gate(pd, vendor, payload, PD_SUGGESTIBILITY="warn"), warn_msg(target, "bob"))
    assert_silent(gate(pd, vendor, payload, PD_SUGGESTIBILITY="advisory"))
    left = ["rm src/*.ts", "rm \"$F\"", "python3 -c 'open(\"src/auth.ts\",\"w\")'", "git checkout -- src/auth.ts",
            "echo ok > src/other.ts"]
    for command in [*LOCK_READS, *left]:
        assert_silent(gate(pd, vendor, p_shell(vendor, command, pd.proj)))
    prof = PROFILES[vendor]
    for path in (str(target), str(pd.home / "HALT")) if prof.tools.read else ():
        args = {field: path for field in prof.payload.path_fields}
        assert_silent(gate(pd, vendor, p_tool(vendor, prof.tools.read[0], args, pd.proj)))
    pd.matrix.write_text(f'PD_LOCK_{seed_suffix(str(target))}="alice"\n')
    assert_silent(gate(pd, vendor, payload))


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
def test_shell_writes_through_the_gate(sh: Shell) -> None:
    """Under a short root: the seed writer's keys of a deep path are cut at suffix_max, and every
    file of a deep directory would share one."""
    with short_root() as root:
        shell_writes_through_the_gate(Rig(root), sh)


def shell_writes_through_the_gate(rig: Rig, sh: Shell) -> None:
    target = rig.project / "src" / "auth.ts"
    rig.write("matrix.env", f'PD_LOCK_{seed_suffix(str(target))}="bob"\n')
    shapes = [c for _k, c in LOCK_SHAPES] if sh.name == "dash" else [c for _k, c in LOCK_SHAPES][:4]
    for i, command in enumerate(shapes):
        vendor = VENDORS[i % len(VENDORS)]
        res = rig.run("pre_tool", json.dumps(p_shell(vendor, command, rig.project)), vendor=vendor, sh=sh, **ME)
        assert res.out and json.loads(res.out) == tool_block(vendor, block_msg(target, "bob")), command
    read = json.dumps(p_shell("claude", "cat src/auth.ts", rig.project))
    res = rig.run("pre_tool", read, vendor="claude", sh=sh, **ME)
    assert res.out == ""


# -- MCP tools' path arguments ---------------------------------------------------------------


def mcp(vendor: str, server: str, tool: str) -> str:
    return PROFILES[vendor].tools.mcp_format.format(server=server, tool=tool)


MCP_VENDORS = [v for v in VENDORS if mcp(v, "fs", "x").split("fs")[0]]  # a format with a prefix


@pytest.mark.parametrize("vendor", MCP_VENDORS)
def test_an_mcp_write_of_a_locked_file_is_blocked(pd: Pd, vendor: str) -> None:
    target = locked_auth(pd)
    for tool, args in [("write_file", {"path": str(target), "content": "x"}),
                       ("edit_file", {"path": "src/auth.ts", "edits": []}),
                       ("move_file", {"source": str(target), "destination": "/tmp/x"})]:
        r = gate(pd, vendor, p_tool(vendor, mcp(vendor, "filesystem", tool), args, pd.proj))
        assert r.json == tool_block(vendor, block_msg(target, "bob")), tool
    for tool in ("read_file", "read_multiple_files", "list_directory", "get_file_info", "search_files"):
        args = {"path": str(target), "paths": [str(target)]}
        assert_silent(gate(pd, vendor, p_tool(vendor, mcp(vendor, "filesystem", tool), args, pd.proj)))
    # the harness's own server locks and unlocks paths: its tools are no writes
    own = mcp(vendor, SPEC["halt"]["mcp_servers"][0], "lock")
    assert_silent(gate(pd, vendor, p_tool(vendor, own, {"path": str(target)}, pd.proj)))


@pytest.mark.parametrize("vendor", MCP_VENDORS)
def test_an_mcp_write_of_a_control_file_is_protected(pd: Pd, vendor: str) -> None:
    target = pd.home / "hooks.disabled"
    r = gate(pd, vendor, p_tool(vendor, mcp(vendor, "filesystem", "write_file"), {"path": str(target)}, pd.proj))
    assert r.json == tool_block(vendor, MSG["protect_block"].format(path=target))


# -- the matrix reader decodes only the lines it needs ------------------------------------------


@VEND
def test_a_matrix_full_of_escaped_trails_still_locks(pd: Pd, vendor: str) -> None:
    """Trails (pheromones) and alerts are never decoded by the edit gate: thousands of lines full
    of escapes before the lock cost one read, and the lock still blocks."""
    target = pd.proj / "src" / "a-b.ts"
    pd.add_matrix(*[f'PD_PHEROMONE_X_{i}="{chr(92)}"{chr(92) * 40}" | note | actor:bob"' for i in range(2000)])
    pd.add_matrix(f'PD_ALERT_1="{chr(92)}"{chr(92)}"x"', f'export PD_LOCK_{seed_suffix(str(target))}="bob"',
                  f'  PD_LOCK_{suffix(str(pd.proj / "b.ts"))}="carol"')
    r = gate(pd, vendor, p_edit(vendor, str(target), pd.proj))
    assert r.json == tool_block(vendor, block_msg(target, "bob"))
    r = gate(pd, vendor, p_edit(vendor, str(pd.proj / "b.ts"), pd.proj))
    assert r.json == tool_block(vendor, block_msg(pd.proj / "b.ts", "carol"))


@VEND
def test_unchecked_edit_counts_undecoded_locks_by_their_value(pd: Pd, vendor: str) -> None:
    """The reader decodes only the lock lines of the checked paths; another lock is another
    actor's by its value as written: an escaped holder counts, the actor's own and an empty one
    do not."""
    payload = late_path(vendor, str(pd.proj / "src" / "a.py"), pd.proj, "z" * (300 * 1024))
    pd.add_matrix('PD_LOCK_OTHER_A="alice"', "PD_LOCK_OTHER_B=''", "PD_LOCK_OTHER_C=alice")
    assert_silent(gate(pd, vendor, payload))
    pd.add_matrix('PD_LOCK_OTHER_D="b\\\\\\"o\\$b"')
    assert gate(pd, vendor, payload).json == tool_block(vendor, UNCHECKED)
