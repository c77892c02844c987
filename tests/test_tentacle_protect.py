"""Protected control files ([protect]): the agent's edit tools and shell commands may not change,
move or remove the harness home's control files or the dial files, at all times; reading them is
allowed. The dial walk and relative joins take the vendor's own cwd, never a tool argument."""

from __future__ import annotations

import copy
import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tests.conformance.kit import allow_answer
from tests.gatekit import NAMES, Rig
from tests.scratch import short_root
from tests.shapes import GATE, GATE_AWK, PROJECT_READS, PROJECT_SHAPES, PROTECT_SHAPES
from tests.shells import AWK_PREFER, CORE, DIST, FAST, InTurn
from tests.tentaclekit import (
    DASH,
    MSG,
    SPEC,
    SPEC_PATH,
    VENDORS,
    Pd,
    Shell,
    assert_silent,
    block_msg,
    by_vendor,
    halt_msg,
    p_edit,
    p_shell,
    p_tool,
    seed_suffix,
    tool_block,
)

from hookshape.spec.model import Spec
from hookshape.spec.profiles import ProfileError, builtin_dir, load_profile
from hookshape.spec.protect import Protect

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms


@pytest.fixture
def sh() -> Shell:
    """The protect rules are awk: dash only (see tests.tentaclekit.DASH)."""
    return DASH


# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
HOME = "~/.port-daddy"  # the default home: these commands run with PD_HOME unset
DEFAULT_HOME = {"PD_HOME": None}


def protect_msg(path: str | Path) -> str:
    return MSG["protect_block"].format(path=path)


def default_home(pd: Pd) -> Path:
    home = pd.root / "userhome" / ".port-daddy"
    home.mkdir(exist_ok=True)
    return home


# The vendor decides where its payload keeps the path or command, its cwd and the shape of the
# block; the protect rule itself is vendor-blind. So each name and command runs once, the vendors
# in turn (by_vendor); the tests crossed with VEND keep every vendor's shapes and cwd.

# -- edit tools -----------------------------------------------------------------------------------

HOME_FILES = ["HALT", "DISTRESS", "hooks.disabled", "daemon.ready", "daemon.pid", "heartbeat", "matrix.env",
              "squid/projects", "squid/debug", "squid/health/pd-hook-pre-tool", "bin/pd-hook-pre-tool",
              "bin/squid/pd-hook-stop"]
DIAL_FILES = ["agent.config.json", ".portdaddy/suggestibility.json", ".portdaddy/sitrep.json",
              ".portdaddy/project.json", "deep/sub/agent.config.json"]


@pytest.mark.parametrize(("vendor", "name", "halted"), by_vendor([(n, h) for h in (False, True) for n in HOME_FILES]))
def test_edit_of_a_home_control_file_is_blocked(pd: Pd, vendor: str, name: str, halted: bool) -> None:
    if halted:
        pd.halt("drill")
    target = pd.home / name
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, protect_msg(target))


@pytest.mark.parametrize(("vendor", "name"), by_vendor(DIAL_FILES))
def test_edit_of_a_dial_file_is_blocked(pd: Pd, vendor: str, name: str) -> None:
    target = pd.proj / name
    r = pd.run("pre_tool", p_edit(vendor, name, pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, protect_msg(target))


@VEND
@pytest.mark.parametrize("name", ["src/a.ts", "HALT.md", "notes/agent.config.json.bak", "portdaddy/x.json",
                                  ".portdaddy/notes.txt"])
def test_edit_of_other_files_passes(pd: Pd, vendor: str, name: str) -> None:
    assert_silent(pd.run("pre_tool", p_edit(vendor, name, pd.proj), env={"PD_HOOK_PROVIDER": vendor}))


@VEND
def test_sentinel_and_matrix_moved_by_env_are_protected(pd: Pd, vendor: str) -> None:
    halt, matrix = pd.root / "ops" / "STOP", pd.root / "ops" / "m.env"
    halt.parent.mkdir()
    matrix.write_text("")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_HALT_FILE": str(halt), "PD_MATRIX_FILE": str(matrix)}
    for target in (halt, matrix):
        r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env)
        assert r.json == tool_block(vendor, protect_msg(target))


# -- shell commands -------------------------------------------------------------------------------

SHELL_BLOCKED = [
    (f"rm -f {HOME}/HALT", "HALT"),
    (f"touch {HOME}/hooks.disabled", "hooks.disabled"),
    ("rm -f $HOME/.port-daddy/HALT", "HALT"),
    ("rm ${HOME}/.port-daddy/daemon.ready", "daemon.ready"),
    ('rm "$HOME/.port-daddy/daemon.pid"', "daemon.pid"),
    (f"echo 1 > {HOME}/daemon.pid", "daemon.pid"),
    (f"echo 1>{HOME}/daemon.pid", "daemon.pid"),
    (f"printf x >> {HOME}/matrix.env", "matrix.env"),
    (f"mv {HOME}/matrix.env /tmp/m", "matrix.env"),
    (f"sed -i d {HOME}/matrix.env", "matrix.env"),
    (f"cp /dev/null {HOME}/squid/projects", "squid/projects"),
    (f"touch {HOME}/squid/debug", "squid/debug"),
    (f"ln -sf /dev/null {HOME}/HALT", "HALT"),
    (f"truncate -s0 {HOME}/HALT", "HALT"),
    (f"cd /tmp && rm {HOME}/HALT", "HALT"),
    ('true; rm -f "$HOME/.port-daddy"/HALT', "HALT"),
    (f"rm -rf {HOME}", ""),
    (f"rm -rf {HOME}/", ""),
    (f"rm -rf {HOME}/*", "HALT"),
    (f"chmod 000 {HOME}/squid", "squid"),
    (f"cat /dev/null > {HOME}/HALT", "HALT"),
]
SHELL_ALLOWED = [
    f"cat {HOME}/HALT",
    f"ls -la {HOME}",
    f"head -1 {HOME}/matrix.env",
    f"cat {HOME}/HALT > /tmp/copy-of-halt",
    f"grep LOCK {HOME}/matrix.env | wc -l",
    "cat agent.config.json",
    "grep level .portdaddy/sitrep.json",
    "git status",
    "rm -rf build",
    "echo HALT",
    "touch HALT.md",
    "npm test",
    "",
]


@pytest.mark.parametrize(("vendor", "command", "name"), by_vendor(SHELL_BLOCKED))
def test_shell_writes_of_home_control_files_are_blocked(pd: Pd, vendor: str, command: str, name: str) -> None:
    home = default_home(pd)
    target = home / name if name else home
    r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, protect_msg(str(target).rstrip("/")))


@pytest.mark.parametrize(("vendor", "command"), by_vendor(SHELL_ALLOWED))
def test_shell_reads_pass(pd: Pd, vendor: str, command: str) -> None:
    default_home(pd)
    assert_silent(pd.run("pre_tool", p_shell(vendor, command, pd.proj),
                         env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor}))


@VEND
@pytest.mark.parametrize("command", ['rm -f "$PD_HOME/HALT"', "touch ${PD_HOME}/hooks.disabled",
                                     "rm HALT", "echo > hooks.disabled", "rm -rf squid"])
def test_home_env_var_and_cwd_relative(pd: Pd, vendor: str, command: str) -> None:
    """The home env var names the home; a relative word joins the event's cwd (here the home)."""
    r = pd.run("pre_tool", p_shell(vendor, command, pd.home), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json is not None and MSG["protect_block"].split("{path}")[1] in json.dumps(r.json)


SHELL_DIALS = [
    ("echo '{\"suggestibility\":\"advisory\"}' > agent.config.json", "agent.config.json"),
    ("tee agent.config.json < /tmp/x", "agent.config.json"),
    ("mv /tmp/x .portdaddy/suggestibility.json", ".portdaddy/suggestibility.json"),
    ("rm -rf .portdaddy", ".portdaddy"),
    ("cp /tmp/x sub/agent.config.json", "sub/agent.config.json"),
]


@pytest.mark.parametrize(("vendor", "command", "name"), by_vendor(SHELL_DIALS))
def test_shell_writes_of_dial_files_are_blocked(pd: Pd, vendor: str, command: str, name: str) -> None:
    r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, protect_msg(pd.proj / name))


@VEND
def test_advisory_dial_written_by_the_agent_would_have_lifted_the_lock(pd: Pd, vendor: str) -> None:
    """The attack of the issue end to end: the write is blocked, so the lock still holds."""
    (pd.proj / ".portdaddy").mkdir()
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}
    cmd = "echo '{\"suggestibility\":\"advisory\"}' > agent.config.json"
    r = pd.run("pre_tool", p_shell(vendor, cmd, pd.proj), env=env)
    assert r.json == tool_block(vendor, protect_msg(pd.proj / "agent.config.json"))
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env)
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
@pytest.mark.parametrize("halt", [False, True])
def test_a_cd_moves_relative_names_into_the_home(pd: Pd, vendor: str, halt: bool) -> None:
    """A cd earlier in the command moves a relative word: it is read in the directory the cd
    goes to, with or without halt."""
    if halt:
        pd.halt("drill")
    home = default_home(pd)
    env = {**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor}
    r = pd.run("pre_tool", p_shell(vendor, f"cd {HOME} && rm HALT", pd.proj), env=env)
    assert r.json == tool_block(vendor, protect_msg(home / "HALT"))


@VEND
def test_halt_block_wins_over_protect(pd: Pd, vendor: str) -> None:
    pd.halt("drill")
    r = pd.run("pre_tool", p_shell(vendor, f"pd stop; rm {pd.home}/HALT", pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, halt_msg("drill"))


@VEND
def test_long_commands_are_checked_for_protected_names(pd: Pd, vendor: str) -> None:
    cap = SPEC["protect"]["scan_max_bytes"]
    pad = "x;" * cap
    env = {"PD_HOOK_PROVIDER": vendor}
    r = pd.run("pre_tool", p_shell(vendor, pad + f"rm {pd.home}/HALT", pd.proj), env=env)
    assert r.json is not None and MSG["protect_block"].split("{path}")[1] in json.dumps(r.json)
    # the names are matched as path tails, not bare words: bin, squid, HOME pass
    assert_silent(pd.run("pre_tool", p_shell(vendor, pad + "make build; rm -rf bin; echo $HOME", pd.proj), env=env))


@VEND
def test_shell_protect_holds_without_halt_and_passes_other_tools(pd: Pd, vendor: str) -> None:
    r = pd.run("pre_tool", p_tool(vendor, "SomeOtherTool", {"command": f"rm {pd.home}/HALT"}, pd.proj),
               env={"PD_HOOK_PROVIDER": vendor})
    assert_silent(r)


# -- the cwd is the vendor's, never a tool argument ----------------------------------------------


def test_agy_args_cwd_does_not_move_the_dial_walk(pd: Pd) -> None:
    elsewhere = pd.root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "agent.config.json").write_text('{"suggestibility":"advisory"}')
    (pd.proj / ".portdaddy").mkdir()
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    args = {"TargetFile": str(target), "CodeContent": "x", "Cwd": str(elsewhere)}
    r = pd.run("pre_tool", p_tool("agy", "write_to_file", args, pd.proj),
               env={"PD_HOOK_PROVIDER": "agy", "PD_ACTOR": "alice"})
    assert r.json == tool_block("agy", block_msg(target, "bob"))


def test_a_profile_cwd_inside_tool_input_is_rejected(tmp_path: Path) -> None:
    src = builtin_dir() / "agy.toml"
    bad = tmp_path / "agy.toml"
    shutil.copy(src, bad)
    text = bad.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("cwd = "))
    bad.write_text(text.replace(line, 'cwd = ["toolCall.args.Cwd", "workspacePaths.0"]'))
    with pytest.raises(ProfileError, match="tool_input"):
        load_profile(bad)


@pytest.mark.parametrize("vendor", VENDORS)
def test_builtin_profiles_take_cwd_from_the_vendor(vendor: str) -> None:
    profile = load_profile(builtin_dir() / f"{vendor}.toml")
    assert all(not c.startswith(profile.payload.tool_input + ".") for c in profile.payload.cwd)


# -- the spec -------------------------------------------------------------------------------------


def spec_data() -> dict[str, Any]:
    return copy.deepcopy(tomllib.loads(SPEC_PATH.read_text()))


def test_default_protect_covers_every_control_file() -> None:
    Spec.model_validate(spec_data())


@pytest.mark.parametrize(("key", "value", "error"), [
    ("home", ["DISTRESS", "hooks.disabled", "daemon.ready", "daemon.pid", "heartbeat", "matrix.env", "squid"],
     "halt.sentinel_default"),
    ("home", ["HALT", "DISTRESS", "daemon.ready", "daemon.pid", "heartbeat", "matrix.env", "squid"],
     "gate.kill_switch_file"),
    ("anywhere", ["agent.config.json"], ".portdaddy/project.json"),
])
def test_protect_must_cover_the_control_files(key: str, value: list[str], error: str) -> None:
    data = spec_data()
    data["protect"][key] = value
    with pytest.raises(ValidationError, match=error.replace(".", r"\.")):
        Spec.model_validate(data)


@pytest.mark.parametrize(("argv", "blocked"), [
    (["bash", "-lc", "rm ~/.port-daddy/HALT"], True),
    (["cat", "~/.port-daddy/HALT"], False),
    (["x"] * 4_000 + ["rm", "~/.port-daddy/HALT"], True),
    (["x"] * 4_000 + ["make"], False),
    # past harness.json_max_values the rest of the argv is unseen: blocked whatever it ends with
    (["x"] * 20_000 + ["rm", "~/.port-daddy/HALT"], True),
    (["x"] * 20_000 + ["make"], True),
])
def test_codex_argv_commands(pd: Pd, argv: list[str], blocked: bool) -> None:
    default_home(pd)
    r = pd.run("pre_tool", p_shell("codex", argv, pd.proj), env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": "codex"})
    if blocked:
        assert r.json is not None and "PROTECTED" in json.dumps(r.json)
    else:
        assert_silent(r)


# fast mode: the preferred awk only (the tentacles run it on the full PATH too)
@pytest.mark.parametrize("awk", [f"awk={AWK_PREFER[0]}"] if FAST else
                         ["busybox-only", "awk=original-awk", "awk=mawk", "awk=gawk"])
def test_every_shape_under_every_awk(pd: Pd, awk_paths: dict[str, str], awk: str) -> None:
    pd.env["PATH"] = awk_paths[awk]
    home = default_home(pd)
    env = {**DEFAULT_HOME, "PD_HOOK_PROVIDER": "claude"}
    for command, name in SHELL_BLOCKED:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env)
        assert r.json == tool_block("claude", protect_msg(home / name if name else home)), command
    for command in SHELL_ALLOWED:
        assert_silent(pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env))
    for _cls, command, _name in PROTECT_SHAPES:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env)
        assert is_protect_block("claude", r.json), command
    r = pd.run("pre_tool", p_edit("claude", "agent.config.json", pd.proj), env=env)
    assert r.json == tool_block("claude", protect_msg(pd.proj / "agent.config.json"))


@VEND
def test_a_long_protected_path_is_echoed_cut(pd: Pd, vendor: str) -> None:
    cap = SPEC["protect"]["echo_max_bytes"]
    target = str(pd.home / "squid") + "/" + "\u00e9" * 400 + "/x.json"
    r = pd.run("pre_tool", p_edit(vendor, target, pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    shown = target.encode()[:cap].decode("utf-8", "ignore") + "..."
    assert r.json == tool_block(vendor, protect_msg(shown))


@VEND
@pytest.mark.parametrize("command", [f"D={HOME}; rm $D/HALT", "rm -f ./build/../HALT",
                                     "cp x /elsewhere/hooks.disabled"])
def test_under_halt_a_protected_name_is_blocked_wherever_it_points(pd: Pd, vendor: str, command: str) -> None:
    pd.halt("drill")
    r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json is not None and "PROTECTED" in json.dumps(r.json)


# -- the corpus: shell shapes that change a control file -----------------------------------------
# tests/shapes.py: each class runs as one test (the shapes in turn over the vendors), with and
# without halt; the shapes name the default home (~/.port-daddy) and run in a project.

PROTECT_CLASSES = sorted({cls for cls, _c, _n in PROTECT_SHAPES})



def is_protect_block(vendor: str, out: dict[str, Any] | None) -> bool:
    text = json.dumps(out)
    return out is not None and MSG["protect_block"].split("{path}")[1][:40] in text


@pytest.mark.parametrize("halt", [False, True], ids=["free", "halted"])
def test_every_protect_shape_is_blocked(pd: Pd, halt: bool) -> None:
    """Every class of the corpus, with and without halt; the message says what passed, by class."""
    default_home(pd)
    if halt:
        (pd.root / "userhome" / ".port-daddy" / "HALT").write_text("drill\n")
    passed: dict[str, list[str]] = {}
    for i, (cls, command, _name) in enumerate(PROTECT_SHAPES):
        vendor = VENDORS[i % len(VENDORS)]
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor})
        # under halt a shape that also reads as the halt's business may get the halt's reason
        if not is_protect_block(vendor, r.json) and not (halt and r.json is not None and "HALT" in json.dumps(r.json)):
            passed.setdefault(cls, []).append(command)
    assert not passed, f"passed, by class: {passed!r}"


# the shapes whose block names the file as the home spells it (not a name found in a
# substitution, a word of unknown value, another case)
NAMED = [(c, n) for _k, c, n in PROTECT_SHAPES
         if n and not any(x in c for x in ("$x", "$(", "PORT", "Port", "| cat "))]


def test_protect_shapes_name_the_control_file(pd: Pd) -> None:
    """The block names the control file the command reaches, as the home spells it."""
    home = default_home(pd)
    wrong = []
    for i, (command, name) in enumerate(NAMED):
        vendor = VENDORS[i % len(VENDORS)]
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor})
        if r.json != tool_block(vendor, protect_msg(home / name)):
            wrong.append((command, r.json))
    assert not wrong, wrong


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
@pytest.mark.parametrize("cls", PROTECT_CLASSES)
def test_protect_classes_through_the_gate(tmp_path: Path, sh: Shell, cls: str) -> None:
    """Each class through the rendered gate, the default home ~/.port-daddy under a scratch HOME
    (the whole class under dash, its first shapes under busybox sh and bash)."""
    rig, env = home_rig(tmp_path)
    shapes = [c for k, c, _n in PROTECT_SHAPES if k == cls]
    passed = []
    for i, command in enumerate(shapes if sh.name == "dash" else shapes[:2]):
        vendor = VENDORS[i % len(VENDORS)]
        res = rig.run("pre_tool", json.dumps(p_shell(vendor, command, rig.project)), vendor=vendor, sh=sh, **env)
        if not is_protect_block(vendor, json.loads(res.out) if res.out else None):
            passed.append(command)
    assert not passed, f"{cls} under {sh.name}: {passed!r}"


def home_rig(tmp_path: Path, ready: bool = True) -> tuple[Rig, dict[str, str]]:
    """A Rig whose harness home is the default one, ~/.port-daddy of a scratch HOME (lease and
    armed roots there); the env to run its gates with."""
    rig = Rig(tmp_path)
    user = tmp_path / "user"
    rig.home = user / ".port-daddy"
    rig.home.mkdir(parents=True)
    if ready:
        rig.lease()
    rig.arm(rig.project)
    return rig, {"PD_HOME": "", "HOME": str(user)}


# -- control files protected in every state ---------------------------------------------------


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
@pytest.mark.parametrize("state", ["no-lease", "unarmed"])
def test_protect_runs_without_the_lease_or_the_armed_roots(tmp_path: Path, sh: Shell, state: str) -> None:
    """The daemon stopped (no readiness lease) or a project not armed: the gate skips the lock
    checks, never the protect rule (it needs no daemon)."""
    rig, env = home_rig(tmp_path, ready=state != "no-lease")
    if state == "unarmed":
        rig.arm("/nowhere")
    for vendor in VENDORS if sh.name == "dash" else VENDORS[:2]:
        edit = p_edit(vendor, str(rig.home / "hooks.disabled"), rig.project)
        res = rig.run("pre_tool", json.dumps(edit), vendor=vendor, sh=sh, **env)
        assert json.loads(res.out) == tool_block(vendor, protect_msg(rig.home / "hooks.disabled")), vendor
        cmd = p_shell(vendor, "touch ~/.port-daddy/hooks.disabled", rig.project)
        res = rig.run("pre_tool", json.dumps(cmd), vendor=vendor, sh=sh, **env)
        assert is_protect_block(vendor, json.loads(res.out) if res.out else None), vendor
    # the lock checks stay off without the lease: another actor's lock does not block
    target = rig.project / "src" / "a.ts"
    rig.write("matrix.env", f'PD_LOCK_{seed_suffix(str(target))}="bob"\n')
    res = rig.run("pre_tool", json.dumps(p_edit("claude", str(target), rig.project)), vendor="claude", sh=sh, **env)
    assert res.out == "" and res.code == 0


# -- the vendors' hook configs ---------------------------------------------------------------


def vendor_config_paths(pd: Pd) -> list[Path]:
    user = pd.root / "userhome"
    return [user / ".claude" / "settings.json", user / ".gemini" / "settings.json",
            user / ".codex" / "hooks.json", user / ".codex" / "config.toml",
            pd.proj / ".claude" / "settings.json", pd.proj / ".claude" / "settings.local.json",
            pd.proj / ".gemini" / "settings.json", pd.proj / ".codex" / "hooks.json",
            pd.proj / ".codex" / "config.toml"]


@VEND
def test_vendor_configs_are_protected_by_default(pd: Pd, vendor: str) -> None:
    """Halt is on in the default spec, so the enabled vendors' hook configs are control files:
    an agent cannot rewrite the entries that run the gates (Claude's disableAllHooks included)."""
    env = {"PD_HOOK_PROVIDER": vendor}
    for target in vendor_config_paths(pd):
        r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env)
        assert r.json == tool_block(vendor, protect_msg(target)), target
    for command in ["echo '{}' > ~/.claude/settings.json", "rm ~/.codex/config.toml",
                    "sed -i s/hooks/x/ .gemini/settings.json", "rm -rf .claude"]:
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=env)
        assert is_protect_block(vendor, r.json), command
    for command in ["cat ~/.claude/settings.json", "jq . .gemini/settings.json"]:
        assert_silent(pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=env))


def with_protect(tmp_path: Path, key: str, value: Any) -> Path:
    """The default spec with one protect setting changed, rendered: its tentacle dir."""
    import tomlkit
    from tests.tentaclekit import render

    doc = tomlkit.parse(SPEC_PATH.read_text())
    doc["protect"][key] = value
    spec = tmp_path / "hookshape.toml"
    spec.write_text(tomlkit.dumps(doc))
    return render(tmp_path / "out", spec)


def test_vendor_configs_follow_the_spec(tmp_path: Path) -> None:
    """protect.vendor_configs = false leaves them free; its default is on when halt is enabled
    or a hook fails closed, else off."""
    squid = with_protect(tmp_path, "vendor_configs", False)
    with short_root() as root:
        pd = Pd(root, squid, DASH)
        target = pd.root / "userhome" / ".claude" / "settings.json"
        assert_silent(pd.run("pre_tool", p_edit("claude", str(target), pd.proj), env={"PD_HOOK_PROVIDER": "claude"}))
    data = spec_data()
    assert Spec.model_validate(data).protects_vendor_configs()
    data["halt"]["enabled"] = False
    assert not Spec.model_validate(data).protects_vendor_configs()
    data["hooks"] = [{"name": "guard", "event": "pre_tool", "run": ["true"], "failure": "closed"}]
    assert Spec.model_validate(data).protects_vendor_configs()


# -- physical names and case ---------------------------------------------------------------


@VEND
def test_the_home_by_its_physical_name(pd: Pd, vendor: str) -> None:
    """A harness home reached through a symlink is protected by its physical name too."""
    real = pd.root / "real-home"
    real.mkdir()
    link = pd.root / "link-home"
    link.symlink_to(real)
    env = {"PD_HOOK_PROVIDER": vendor, "PD_HOME": str(link)}
    for target in (link / "hooks.disabled", real / "hooks.disabled", real / "HALT"):
        r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env)
        assert r.json == tool_block(vendor, protect_msg(target)), target
    r = pd.run("pre_tool", p_shell(vendor, f"rm -f {real}/HALT", pd.proj), env=env)
    assert r.json == tool_block(vendor, protect_msg(real / "HALT"))


@VEND
@pytest.mark.parametrize("spelling", [".PORT-DADDY/HALT", ".Port-Daddy/hooks.DISABLED", ".port-daddy/Matrix.Env"])
def test_case_spellings_of_control_files(pd: Pd, vendor: str, spelling: str) -> None:
    """A case-insensitive volume folds case: another spelling of a control file is the file."""
    default_home(pd)
    target = pd.root / "userhome" / spelling
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env={**DEFAULT_HOME, "PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, protect_msg(target))


# -- a project setup (install --scope project) -------------------------------------------------
# The scripts a team commits in harness.project_dir and the vendors' project configs that run
# them: an agent working in the project may read them, never change them (else it switches the
# guard off for every later call). The gate that runs is the project's own copy.

PROJECT_DIR = SPEC["harness"]["project_dir"]
# each vendor's project config as install --scope project writes it (docs/hooks.md); agy's and
# kimi's setups run at user scope only, but agy's project file is a hook config all the same
PROJECT_CONFIGS = {"claude": ".claude/settings.json", "gemini": ".gemini/settings.json",
                   "codex": ".codex/hooks.json", "copilot": ".github/hooks/giant-squid.json",
                   "qwen": ".qwen/settings.json", "cursor": ".cursor/hooks.json",
                   "factory": ".factory/hooks.json", "agy": ".agents/hooks.json"}
PROJECT_FILES = [*PROJECT_CONFIGS.values(), ".codex/config.toml", ".claude/settings.local.json"]
PROJECT_CLASSES = sorted({cls for cls, _w, _c in PROJECT_SHAPES})


def plant_setup(project: Path) -> None:
    """A project holding a committed setup: the rendered scripts in harness.project_dir, every
    vendor's project config, and a subdirectory src."""
    shutil.copytree(DIST / "bin", project / PROJECT_DIR / "bin", symlinks=True)
    for rel in PROJECT_FILES:
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("{}\n")
    (project / "src").mkdir()


def setup_rig(tmp_path: Path) -> tuple[Rig, dict[str, str], str]:
    """A home rig whose project holds a committed setup; the env and the project's gate."""
    rig, env = home_rig(tmp_path)
    plant_setup(rig.project)
    return rig, env, str(rig.project / PROJECT_DIR / "bin" / NAMES["pre_tool"])


def run_in_setup(rig: Rig, env: dict[str, str], gate: str, sh: Shell, vendor: str, payload: dict[str, Any],
                 where: str) -> dict[str, Any] | None:
    """The project's gate on one event, run in the project (or its subdirectory where): its
    answer, None when it allowed (nothing, or the vendor's allow answer)."""
    cwd = rig.project / where
    res = rig.run("pre_tool", json.dumps(payload), vendor=vendor, sh=sh, argv0=gate, cwd=cwd, **env)
    assert res.code == 0, res.err
    return json.loads(res.out) if res.out and res.out != allow_answer(vendor, "pre_tool").decode() else None


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
def test_project_setup_edits_are_blocked(tmp_path: Path, sh: Shell) -> None:
    """An edit tool may not write the setup's gate, the awk beside it or the vendor's project
    config, named from the project's root or from a subdirectory (every vendor under dash, two
    under busybox sh and bash)."""
    rig, env, gate = setup_rig(tmp_path)
    wrong = []
    for vendor in VENDORS if sh.name == "dash" else VENDORS[:2]:
        for rel in (GATE, GATE_AWK, PROJECT_CONFIGS.get(vendor, ".claude/settings.json")):
            for where, name in (("", rel), ("src", "../" + rel)):
                cwd = rig.project / where
                out = run_in_setup(rig, env, gate, sh, vendor, p_edit(vendor, name, cwd), where)
                if out != tool_block(vendor, protect_msg(rig.project / rel)):
                    wrong.append((vendor, where, name, out))
    assert not wrong, wrong


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
@pytest.mark.parametrize("cls", PROJECT_CLASSES)
def test_project_setup_shell_writes_are_blocked(tmp_path: Path, sh: Shell, cls: str) -> None:
    """Each class of tests/shapes.py's PROJECT_SHAPES through the project's gate, in the project
    or a subdirectory of it (the whole class under dash, its first shapes under busybox sh and
    bash)."""
    rig, env, gate = setup_rig(tmp_path)
    shapes = [(w, c) for k, w, c in PROJECT_SHAPES if k == cls]
    passed = []
    for i, (where, command) in enumerate(shapes if sh.name == "dash" else shapes[:2]):
        vendor = VENDORS[i % len(VENDORS)]
        out = run_in_setup(rig, env, gate, sh, vendor, p_shell(vendor, command, rig.project / where), where)
        if not is_protect_block(vendor, out):
            passed.append((where, command))
    assert not passed, f"{cls} under {sh.name}: {passed!r}"


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
@pytest.mark.parametrize("halt", [False, True], ids=["free", "halted"])
def test_project_setup_reads_pass(tmp_path: Path, sh: Shell, halt: bool) -> None:
    """Reading the setup and its configs stays free (cat, grep, jq, git diff, git log, ...), with
    or without halt (every read under dash, the first ones under busybox sh and bash)."""
    rig, env, gate = setup_rig(tmp_path)
    if halt:
        (rig.home / "HALT").write_text("drill\n")
    blocked = []
    for i, (where, command) in enumerate(PROJECT_READS if sh.name == "dash" else PROJECT_READS[:3]):
        vendor = VENDORS[i % len(VENDORS)]
        out = run_in_setup(rig, env, gate, sh, vendor, p_shell(vendor, command, rig.project / where), where)
        if out is not None:
            blocked.append((where, command, out))
    assert not blocked, blocked


# fast mode: the preferred awk only. An awk that dies reading a directory (mawk) must never be
# handed one: a glob standing for a config's directory was allowed that way.
@pytest.mark.parametrize("awk", [f"awk={AWK_PREFER[0]}"] if FAST else
                         ["busybox-only", "awk=original-awk", "awk=mawk", "awk=gawk"])
def test_project_setup_globs_under_every_awk(pd: Pd, awk_paths: dict[str, str], awk: str) -> None:
    pd.env["PATH"] = awk_paths[awk]
    plant_setup(pd.proj)
    passed = []
    for i, (where, command) in enumerate((w, c) for k, w, c in PROJECT_SHAPES if k in ("glob", "cd")):
        vendor = VENDORS[i % len(VENDORS)]
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj / where), env={"PD_HOOK_PROVIDER": vendor})
        if not is_protect_block(vendor, r.json):
            passed.append(command)
    assert not passed, passed
    for where, command in PROJECT_READS[:4]:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj / where), env={"PD_HOOK_PROVIDER": "claude"})
        assert_silent(r)


def test_project_setup_stays_protected_without_vendor_configs(tmp_path: Path) -> None:
    """protect.vendor_configs = false frees the vendors' configs, not the setup's scripts (like
    bin/ of the harness home, they are the harness's own)."""
    squid = with_protect(tmp_path, "vendor_configs", False)
    with short_root() as root:
        pd = Pd(root, squid, DASH)
        plant_setup(pd.proj)
        env = {"PD_HOOK_PROVIDER": "claude"}
        r = pd.run("pre_tool", p_edit("claude", GATE, pd.proj), env=env)
        assert r.json == tool_block("claude", protect_msg(pd.proj / GATE))
        assert_silent(pd.run("pre_tool", p_edit("claude", ".claude/settings.json", pd.proj), env=env))


def test_git_readers_follow_the_spec(tmp_path: Path) -> None:
    """protect.git_readers says which git subcommands only read: the others may not name a
    control file."""
    squid = with_protect(tmp_path, "git_readers", ["log"])
    with short_root() as root:
        pd = Pd(root, squid, DASH)
        plant_setup(pd.proj)
        env = {"PD_HOOK_PROVIDER": "claude"}
        assert_silent(pd.run("pre_tool", p_shell("claude", f"git log -p {GATE}", pd.proj), env=env))
        r = pd.run("pre_tool", p_shell("claude", f"git diff {GATE}", pd.proj), env=env)
        assert r.json == tool_block("claude", protect_msg(pd.proj / GATE))


def test_a_command_of_more_globs_than_protect_matches_is_blocked(tmp_path: Path) -> None:
    """Each glob word is matched against every protected path (about 60 microseconds a word):
    16 KB of `a*` took 0.3 s, and three such calls opened the breaker, which switched protect
    off. Past protect.glob_max patterns a command is blocked, naming the home (as a cut
    command is); up to it, it runs. Through the gate, a harness home of its own."""
    cap = Protect().glob_max
    rig, env = home_rig(tmp_path)
    home = rig.home

    def run(n: int) -> dict[str, Any] | None:
        command = "rm -f " + " ".join(f"x{i}*" for i in range(n))
        res = rig.run("pre_tool", json.dumps(p_shell("claude", command, rig.project)), vendor="claude", **env)
        return json.loads(res.out) if res.out else None

    assert run(cap) is None
    assert run(cap + 1) == tool_block("claude", protect_msg(home))
