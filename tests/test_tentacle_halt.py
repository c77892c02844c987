"""The halt sentinel: pre-tool blocks the harness CLI (through launchers and chains), its MCP
tools and daemon starts; prompt prepends the notice and drops the SITREP contract; stop never
blocks; SEEN / COMPLIED bookkeeping in the distress file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.gatekit import Rig
from tests.shapes import EVERYDAY, HALT_SHAPES
from tests.shells import AWK_PREFER, CORE, FAST, InTurn
from tests.tentaclekit import (
    DASH,
    ISO_RE,
    MCP_TOOL,
    MSG,
    ON_CORE,
    SPEC,
    VENDORS,
    Pd,
    Shell,
    assert_silent,
    block_msg,
    by_vendor,
    context,
    halt_msg,
    p_edit,
    p_prompt,
    p_shell,
    p_stop,
    p_tool,
    tool_block,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms


@pytest.fixture
def sh() -> Shell:
    """The halt rules are awk: dash only (see tests.tentaclekit.DASH)."""
    return DASH


# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
REASON = "maintenance window"

BLOCKED = [
    "pd start",
    "port-daddy stop",
    "pd",
    "pd status --json",
    "pd --help start",
    "sudo pd start",
    "sudo -u root pd start",
    "doas port-daddy start",
    "env FOO=1 pd start",
    "env -i PATH=/bin pd start",
    "FOO=1 BAR=2 pd start",
    "npx port-daddy start",
    "npx -y port-daddy@1.2.3 start",
    "bunx port-daddy start",
    "pnpm dlx pd start",
    "npm exec pd start",
    "yarn pd start",
    "command pd start",
    "exec pd start",
    "nohup pd start &",
    "echo x | xargs pd start",
    "timeout 5 pd start",
    "nice -n 10 pd start",
    "stdbuf -oL pd start",
    "time pd start",
    'sh -c "pd start"',
    "bash -c 'port-daddy start'",
    "bash -lc 'cd /x && pd start'",
    "/usr/local/bin/pd start",
    "./node_modules/.bin/port-daddy start",
    "~/.local/bin/pd start",
    "ls; pd start",
    "true && pd start",
    "false || pd start",
    "ls | pd start",
    "echo $(pd status)",
    "echo `pd status`",
    "(pd start)",
    "{ pd start; }",
    "cd /tmp\npd start",
    "if true; then pd start; fi",
    "for i in 1 2; do pd start; done",
    "while sleep 1; do port-daddy start; done",
    "until pd start; do :; done",
    "! pd start",
    "true && ! pd start",
    ">log pd start",
    "2>/dev/null pd start",
    "time -p pd start",
    '"pd" start',
    "\\pd start",
    "pd\tstart",
    "sudo env FOO=1 npx port-daddy start",
    "launchctl load ~/Library/LaunchAgents/com.portdaddy.daemon.plist",
    "launchctl load -w /Library/LaunchAgents/port-daddy.plist",
    "launchctl start com.portdaddy.daemon",
    "launchctl kickstart -k gui/501/com.portdaddy.daemon",
    "launchctl bootstrap gui/501 ~/Library/LaunchAgents/port-daddy.plist",
    "launchctl enable gui/501/com.portdaddy.daemon",
    "sudo launchctl load /Library/LaunchDaemons/com.portdaddy.daemon.plist",
    "brew services start port-daddy",
    "brew services restart port-daddy",
    "brew services run port-daddy",
    "ls && brew services start port-daddy",
    # the harness CLI named as a word anywhere, whatever runs it
    "setsid pd start",
    "x=pd; $x start",
    "x=/usr/local/bin/port-daddy; \"$x\" start",
    "exec -a foo pd start",
    'busybox sh -c "pd start"',
    'su -c "pd start"',
    'script -c "pd start" /dev/null',
    "flock lockfile pd start",
    "chrt 1 pd start",
    "taskset 1 pd start",
    "node $(which pd) start",
    "ssh localhost pd start",
    "parallel pd ::: start",
    "find . -exec pd start \\;",
    "unshare -r pd start",
    "pd --version; pd start",
    "pd --version start",
    # decoded text into a shell
    "$'\\x70\\x64' start",
    # named as a word, so blocked now (allowed by the launcher scanner before)
    "ls pd",
    "echo pd start",
    "grep -r port-daddy .",
    "launchctl list | grep port-daddy",
    "brew services stop port-daddy",
    "brew info port-daddy",
]

# blocked as commands that cannot be read without running them (halt_unread)
UNREADABLE = [
    "pd${IFS}start",
    "pd$IFS'start'",
    "echo cGQgc3RhcnQ= | base64 -d | sh",
    "echo cGQgc3RhcnQ= | base64 --decode | bash -s",
    "echo 706420737461727400 | xxd -r -p | sh",
    "openssl enc -d -base64 -in x.b64 | sh",
    "printf '\\x70\\x64 start' | sh",
    "printf '\\160\\144 start' | dash",
    'sh -c "$(echo cGQgc3RhcnQ= | base64 -d)"',
    'eval "$(base64 -d <<< cGQgc3RhcnQ=)"',
    'eval "pd start"',
    "eval ls",
    "$x start",
    "sudo $x start",
    "p? start",
    "{a,b}c start",
    "'pd start",
]

ALLOWED = [
    "pd --help",
    "pd -h",
    "pd --version",
    "pd -V",
    "pd help",
    "pd version",
    "port-daddy --version",
    "sudo pd --help",
    "npx port-daddy --version",
    "npm test",
    "cat port-daddy.log",
    "pdf2text a.pdf",
    "pdsh -w host uptime",
    "launchctl list",
    "launchctl unload ~/Library/LaunchAgents/com.portdaddy.daemon.plist",
    "launchctl stop com.portdaddy.daemon",
    "launchctl load ~/Library/LaunchAgents/com.other.plist",
    "brew services list",
    "git commit -m wip",
    "",
    "ls pd-notes",
    "echo pd-notes",
    "git status",
    "cat README.md",
    "cat pd.log pd-notes/x",
    "echo $HOME $IFS",
    "x=1; echo $x",
    "base64 -d in.b64 > out.bin",
    "echo hi | sh",
    "printf '%s\\n' a | sort",
    "pd --version | head -1",
    "echo pd --version",
    # quoted text is data unless a shell or a runner is handed it
    'git commit -m "docs: explain pd start"',
    "grep -rn 'pd start' docs/",
    "echo 'pd start' > notes.txt",
    "cat <<'EOF'\npd start\nEOF",
    "bash -c 'printf \"\\x1b[1mbold\\x1b[0m\\n\"'",
    "sh -c 'echo \"$HOME\"'",
    "xargs -I{} cp {} dest/ < list.txt",
    "sudo make install",
    "timeout 5 npm test",
]


# The vendor decides where its payload keeps the command and the shape of the block; the scan of
# the command is one vendor-blind rule. So each command runs once, the vendors in turn
# (by_vendor); every vendor meets every command kind through the tests crossed with VEND below,
# and test_every_shape_under_every_awk runs every command again under every awk.


def halted(pd: Pd, vendor: str) -> dict[str, str]:
    pd.halt(REASON)
    return {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}


@pytest.mark.parametrize(("vendor", "command"), by_vendor(BLOCKED))
def test_blocked_commands(pd: Pd, vendor: str, command: str) -> None:
    r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=halted(pd, vendor))
    assert r.json == tool_block(vendor, halt_msg(REASON))
    assert r.json is not None
    reason = r.json.get("reason") or r.json["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(MSG["halt_header"])


def unread_msg(reason: str) -> str:
    return MSG["halt_unread"].format(reason=reason)


def halt_answers(vendor: str) -> list[dict[str, object] | None]:
    """Either block of the halt: the CLI named, or a command that cannot be read."""
    return [tool_block(vendor, halt_msg(REASON)), tool_block(vendor, unread_msg(REASON))]


@pytest.mark.parametrize(("vendor", "command"), by_vendor(UNREADABLE))
def test_unreadable_commands(pd: Pd, vendor: str, command: str) -> None:
    """A command word (or a word behind a launcher) with an expansion, a substitution, a glob or
    a brace, eval, decoded text into a shell, an open quote: it cannot be read without running
    it, so under halt it is blocked with its own reason."""
    r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=halted(pd, vendor))
    assert r.json == tool_block(vendor, unread_msg(REASON))


@pytest.mark.parametrize(("vendor", "command"), by_vendor(ALLOWED))
def test_allowed_commands(pd: Pd, vendor: str, command: str) -> None:
    assert_silent(pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=halted(pd, vendor)))


@VEND
@pytest.mark.parametrize("command", BLOCKED[:6])
def test_commands_pass_without_halt(pd: Pd, vendor: str, command: str) -> None:
    assert_silent(pd.run("pre_tool", p_shell(vendor, command, pd.proj),
                         env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}))


@pytest.mark.parametrize(("argv", "blocked"), [
    (["pd", "start"], True),
    (["/usr/local/bin/port-daddy", "start"], True),
    (["bash", "-lc", "pd start"], True),
    (["sudo", "pd", "start"], True),
    (["pd", "--version"], False),
    (["bash", "-lc", "npm test"], False),
    (["x"] * 20_000 + ["ls"], True),
    (["setsid", "pd", "start"], True),
])
def test_codex_argv_commands(pd: Pd, argv: list[str], blocked: bool) -> None:
    r = pd.run("pre_tool", p_shell("codex", argv, pd.proj), env=halted(pd, "codex"))
    if blocked:
        assert r.json == tool_block("codex", halt_msg(REASON))
    else:
        assert_silent(r)


@VEND
def test_mcp_tools_of_the_harness_are_blocked(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    for tool in (MCP_TOOL[vendor], MCP_TOOL[vendor].replace("lock", "status")):
        r = pd.run("pre_tool", p_tool(vendor, tool, {"x": 1}, pd.proj), env=env)
        assert r.json == tool_block(vendor, halt_msg(REASON)), tool


@VEND
@pytest.mark.parametrize("tool", ["mcp__other__lock", "mcp_other_lock", "mcp__port-daddyx__lock",
                                  "mcp_port-daddyx_lock", "port-daddy", "mcp__port_daddy__lock"])
def test_other_mcp_tools_pass(pd: Pd, vendor: str, tool: str) -> None:
    assert_silent(pd.run("pre_tool", p_tool(vendor, tool, {"x": 1}, pd.proj), env=halted(pd, vendor)))


@VEND
def test_mcp_tools_pass_without_halt(pd: Pd, vendor: str) -> None:
    r = pd.run("pre_tool", p_tool(vendor, MCP_TOOL[vendor], {}, pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert_silent(r)


@VEND
def test_edits_are_still_lock_checked_under_halt(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    target = pd.proj / "a.ts"
    assert_silent(pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env))
    pd.lock(target, "bob")
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj), env=env)
    assert r.json == tool_block(vendor, block_msg(target, "bob"))


@VEND
@pytest.mark.parametrize("content", ["", "\n", "\n\nlater lines\n"])
def test_empty_reason_uses_the_halt_body(pd: Pd, vendor: str, content: str) -> None:
    pd.halt_file.write_text(content)
    r = pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj), env={"PD_HOOK_PROVIDER": vendor})
    assert r.json == tool_block(vendor, halt_msg(MSG["halt_body"]))


@ON_CORE
@VEND
def test_halt_sentinel_directory_and_env(pd: Pd, vendor: str) -> None:
    """Any existing sentinel halts (a directory too: no reason then); PD_HALT_FILE moves it."""
    other = pd.root / "elsewhere-HALT"
    other.mkdir()
    r = pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj),
               env={"PD_HOOK_PROVIDER": vendor, "PD_HALT_FILE": str(other)})
    assert r.json == tool_block(vendor, halt_msg(MSG["halt_body"]))
    pd.halt("default place")  # ignored when PD_HALT_FILE names another path
    missing = pd.root / "no-halt-here"
    assert_silent(pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj),
                         env={"PD_HOOK_PROVIDER": vendor, "PD_HALT_FILE": str(missing)}))


@ON_CORE
@VEND
def test_reason_is_data(pd: Pd, vendor: str) -> None:
    reason = 'stop "now" \\ $(touch CANARY) `touch CANARY` %s\tx'
    pd.halt_file.write_text(reason + "\n")
    r = pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj), env={"PD_HOOK_PROVIDER": vendor}, cwd=pd.root)
    assert r.json == tool_block(vendor, halt_msg(reason))
    assert not (pd.root / "CANARY").exists()


# -- prompt under halt ----------------------------------------------------------------------------


def notice(reason: str) -> str:
    return MSG["halt_header"] + "\n" + reason + "\n" + MSG["halt_body"]


@VEND
def test_prompt_notice_and_no_sitrep(pd: Pd, vendor: str) -> None:
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env=halted(pd, vendor))
    assert r.json == context(vendor, notice(REASON))


@VEND
def test_prompt_notice_before_coordination(pd: Pd, vendor: str) -> None:
    pd.alert("OPS", "db migration at noon")
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env=halted(pd, vendor))
    want = notice(REASON) + "\n\n" + MSG["coordination_header"] + "\nALERT OPS: db migration at noon"
    assert r.json == context(vendor, want)


@VEND
def test_prompt_notice_with_sitrep_off(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env={**env, "PD_SITREP": "off"})
    assert r.json == context(vendor, notice(REASON))


def seen_lines(pd: Pd) -> list[str]:
    if not pd.distress.exists():
        return []
    return [ln for ln in pd.distress.read_text().splitlines() if ln.startswith(MSG["halt_header"]) is False
            and ln.startswith("control SEEN")]


def complied_lines(pd: Pd) -> list[str]:
    if not pd.distress.exists():
        return []
    return [ln for ln in pd.distress.read_text().splitlines() if ln.startswith("control COMPLIED")]


@VEND
def test_seen_once_per_session(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    for _ in range(3):
        pd.run("prompt", p_prompt(vendor, pd.proj, session="s-one"), env=env)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s-two"), env=env)
    lines = seen_lines(pd)
    assert len(lines) == 2, lines
    for line, key in zip(lines, ("s-one", "s-two"), strict=True):
        assert re.fullmatch(rf"control SEEN session:{key} provider:{vendor} ts:{ISO_RE}", line), line


@VEND
def test_seen_provider_from_payload_shape(pd: Pd, vendor: str) -> None:
    pd.halt(REASON)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s-sniff"), env={})
    assert [ln.split(" ts:")[0] for ln in seen_lines(pd)] == [f"control SEEN session:s-sniff provider:{vendor}"]


@ON_CORE
@VEND
def test_seen_session_key_sanitised(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    session = "a/b c$(touch CANARY)\n" + "x" * 100
    pd.run("prompt", p_prompt(vendor, pd.proj, session=session), env=env, cwd=pd.root)
    key = re.sub(r"[^A-Za-z0-9._:-]", "_", session)[:64]
    lines = seen_lines(pd)
    assert len(lines) == 1 and lines[0].startswith(f"control SEEN session:{key} provider:{vendor} ts:")
    assert not (pd.root / "CANARY").exists()


@ON_CORE
@VEND
def test_distress_file_env(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    other = pd.root / "distress.log"
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env={**env, "PD_DISTRESS_FILE": str(other)})
    assert not pd.distress.exists()
    assert other.read_text().startswith("control SEEN session:s1 ")


@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
def test_stop_never_blocks_under_halt(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    for i in range(2):
        assert_silent(pd.run("stop", p_stop(vendor, "no table here", pd.proj, session=f"s{i}"), env=env))
    assert not (pd.state / "stop-blocks").exists() or not any((pd.state / "stop-blocks").iterdir())


@ON_CORE
@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_complied_after_a_clean_cycle(pd: Pd, vendor: str, provider: str) -> None:
    env = halted(pd, vendor)
    if provider == "sniffed":
        env.pop("PD_HOOK_PROVIDER")
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    assert_silent(pd.run("pre_tool", p_shell(vendor, "npm test", pd.proj, session="s1"), env=env))
    assert_silent(pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env))
    assert_silent(pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env))
    assert complied_lines(pd) == [f"control COMPLIED session:s1 provider:{vendor}"]


@ON_CORE
@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
def test_no_complied_after_a_blocked_call(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    r = pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj, session="s1"), env=env)
    assert r.json == tool_block(vendor, halt_msg(REASON))
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    assert complied_lines(pd) == []
    # the next cycle is clean: one COMPLIED
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    assert complied_lines(pd) == [f"control COMPLIED session:s1 provider:{vendor}"]
    assert len(seen_lines(pd)) == 1


@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
def test_blocked_call_of_another_session_does_not_spoil_the_cycle(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s2"), env=env)
    pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj, session="s2"), env=env)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s2"), env=env)
    assert complied_lines(pd) == [f"control COMPLIED session:s1 provider:{vendor}"]


@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
def test_no_complied_without_a_prompt(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    assert complied_lines(pd) == []


@ON_CORE
@VEND
def test_lifting_the_halt(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    pd.halt_file.unlink()
    from tests.tentaclekit import SITREP_CONTRACT

    r = pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    assert r.json == context(vendor, SITREP_CONTRACT)
    assert_silent(pd.run("pre_tool", p_shell(vendor, "pd start", pd.proj, session="s1"), env=env))
    # halted again: the session is seen again
    pd.halt(REASON)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    assert len(seen_lines(pd)) == 2


def test_agy_prompt_under_halt_only_first_invocation(pd: Pd) -> None:
    env = halted(pd, "agy")
    r = pd.run("prompt", p_prompt("agy", pd.proj, session="c1", invocation=0), env=env)
    assert r.json == context("agy", notice(REASON))
    assert_silent(pd.run("prompt", p_prompt("agy", pd.proj, session="c1", invocation=3), env=env))
    assert len(seen_lines(pd)) == 1


# -- bounded scan ---------------------------------------------------------------------------------

SCAN_MAX = SPEC["halt"]["scan_max_bytes"]


@VEND
def test_80k_chain_before_the_cli_is_blocked(pd: Pd, vendor: str) -> None:
    """`x;` 40,000 times then `pd start` (80 KB): blocked, not slow enough to be cut."""
    r = pd.run("pre_tool", p_shell(vendor, "x;" * 40_000 + "pd start", pd.proj), env=halted(pd, vendor))
    assert r.json == tool_block(vendor, halt_msg(REASON))


@VEND
@pytest.mark.parametrize("filler", ["x;", "a ", '"', "$(", "x=1 ", "\\"])
def test_command_at_the_scan_cap(pd: Pd, vendor: str, filler: str) -> None:
    """Up to scan_max_bytes a command is scanned; one byte more is blocked unscanned."""
    env = halted(pd, vendor)
    tail = " pd start"
    body = (filler * SCAN_MAX)[: SCAN_MAX - len(tail)]
    if filler == "\\":
        body = body[:-1] + "x"  # an odd run of backslashes would escape the blank before pd
    r = pd.run("pre_tool", p_shell(vendor, body + tail, pd.proj), env=env)
    assert r.json in halt_answers(vendor)
    harmless = ("echo " + "a" * SCAN_MAX)[:SCAN_MAX]
    assert_silent(pd.run("pre_tool", p_shell(vendor, harmless, pd.proj), env=env))
    r = pd.run("pre_tool", p_shell(vendor, harmless + "a", pd.proj), env=env)
    assert r.json == tool_block(vendor, halt_msg(REASON))


@pytest.mark.parametrize("tail", [["pd", "start"], ["true"]])
def test_codex_argv_past_the_value_bound_is_blocked(pd: Pd, tail: list[str]) -> None:
    """An argv of more than json_max_values words is cut unread: under halt the rest may name
    the CLI, so it is blocked whatever it ends with; without halt the rest may reach a control
    file, so the protect rule blocks it too (naming the harness home)."""
    argv = ["x"] * SPEC["harness"]["json_max_values"] + tail
    payload = p_shell("codex", argv, pd.proj)
    r = pd.run("pre_tool", payload, env={"PD_HOOK_PROVIDER": "codex", "PD_ACTOR": "alice"})
    assert r.json == tool_block("codex", MSG["protect_block"].format(path=str(pd.home)))
    r = pd.run("pre_tool", payload, env=halted(pd, "codex"))
    assert r.json == tool_block("codex", halt_msg(REASON))


@VEND
def test_long_commands_pass_without_halt(pd: Pd, vendor: str) -> None:
    r = pd.run("pre_tool", p_shell(vendor, "x;" * 40_000 + "pd start", pd.proj),
               env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"})
    assert_silent(r)


@pytest.mark.parametrize("vendor", VENDORS)
def test_80k_chain_through_the_gate_keeps_the_halt(tmp_path: Path, vendor: str) -> None:
    """Three 80 KB calls through the real gate are verdicts, not failures: the breaker stays
    shut and a plain `pd start` is still blocked."""
    rig = Rig(tmp_path)
    rig.write(SPEC["halt"]["sentinel_default"], REASON + "\n")
    big = json.dumps(p_shell(vendor, "x;" * 40_000 + "pd start", rig.project))
    for _ in range(3):
        res = rig.run("pre_tool", big, vendor=vendor)
        assert json.loads(res.out) == tool_block(vendor, halt_msg(REASON))
    res = rig.run("pre_tool", json.dumps(p_shell(vendor, "pd start", rig.project)), vendor=vendor)
    assert json.loads(res.out) == tool_block(vendor, halt_msg(REASON))


# fast mode: the preferred awk only (the tentacles run it on the full PATH too)
@pytest.mark.parametrize("awk", [f"awk={AWK_PREFER[0]}"] if FAST else
                         ["busybox-only", "awk=original-awk", "awk=mawk", "awk=gawk"])
def test_every_shape_under_every_awk(pd: Pd, awk_paths: dict[str, str], awk: str) -> None:
    """(fast mode: every fourth shape of each corpus: the other tests run them all under the
    same awk, on the full PATH)"""
    pd.env["PATH"] = awk_paths[awk]
    env = halted(pd, "claude")
    step = 4 if FAST else 1
    for command in [*BLOCKED[::step], "x;" * 40_000 + "pd start"]:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env)
        assert r.json == tool_block("claude", halt_msg(REASON)), command
    for command in UNREADABLE[::step]:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env)
        assert r.json == tool_block("claude", unread_msg(REASON)), command
    for _cls, command, _runs in HALT_SHAPES[::step]:
        r = pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env)
        assert r.json in halt_answers("claude"), command
    for command in ALLOWED[::step]:
        assert_silent(pd.run("pre_tool", p_shell("claude", command, pd.proj), env=env))


# --- the listening watch is heard from any tentacle ------------------------------------------
# A vendor whose prompt event does not fire still records its sessions: whichever tentacle sees
# a session first under halt appends its SEEN line (once per session); stop with no prompt
# before it writes SEEN but never COMPLIED.


def first_calls(vendor: str, pd: Pd, session: str) -> dict[str, dict[str, object]]:
    return {
        "pre_tool": p_shell(vendor, "npm test", pd.proj, session=session),
        "pre_tool-blocked": p_shell(vendor, "pd start", pd.proj, session=session),
        "post_tool": p_edit(vendor, str(pd.proj / "a.py"), pd.proj, session=session, post=True),
        "stop": p_stop(vendor, "done", pd.proj, session=session),
        "prompt": p_prompt(vendor, pd.proj, session=session),
    }


def role_of(kind: str) -> str:
    return kind.split("-")[0]


@VEND
@pytest.mark.parametrize("first", ["pre_tool", "pre_tool-blocked", "post_tool", "stop"])
def test_seen_from_the_first_tentacle_of_a_session(pd: Pd, vendor: str, first: str) -> None:
    env = halted(pd, vendor)
    calls = first_calls(vendor, pd, "s-first")
    pd.run(role_of(first), calls[first], env=env, code=None)
    lines = seen_lines(pd)
    assert len(lines) == 1, lines
    assert re.fullmatch(rf"control SEEN session:s-first provider:{vendor} ts:{ISO_RE}", lines[0]), lines[0]
    # every later tentacle of the session, the prompt included, adds nothing
    for kind, payload in calls.items():
        pd.run(role_of(kind), payload, env=env, code=None)
    assert seen_lines(pd) == lines


@VEND
def test_stop_without_a_prompt_is_seen_but_never_complied(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    for _ in range(2):
        assert_silent(pd.run("stop", p_stop(vendor, "done", pd.proj, session="s-stop"), env=env))
    assert [ln.split(" ts:")[0] for ln in seen_lines(pd)] == [f"control SEEN session:s-stop provider:{vendor}"]
    assert complied_lines(pd) == []


@VEND
def test_seen_from_pre_tool_with_the_provider_sniffed(pd: Pd, vendor: str) -> None:
    pd.halt(REASON)
    assert_silent(pd.run("pre_tool", p_shell(vendor, "npm test", pd.proj, session="s-sniff"), env={}))
    assert [ln.split(" ts:")[0] for ln in seen_lines(pd)] == [f"control SEEN session:s-sniff provider:{vendor}"]


@VEND
def test_seen_from_post_tool_keeps_the_trail(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    target = pd.proj / "a.py"
    assert_silent(pd.run("post_tool", p_edit(vendor, str(target), pd.proj, session="s-post", post=True), env=env))
    assert len(seen_lines(pd)) == 1
    assert str(target) in pd.matrix.read_text()


@VEND
def test_seen_sessions_apart_and_the_distress_env(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    other = pd.root / "distress.log"
    env = {**env, "PD_DISTRESS_FILE": str(other)}
    pd.run("pre_tool", p_shell(vendor, "npm test", pd.proj, session="s1"), env=env)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s2"), env=env)
    pd.run("post_tool", p_edit(vendor, str(pd.proj / "a.py"), pd.proj, session="s3", post=True), env=env)
    pd.run("pre_tool", p_shell(vendor, "npm test", pd.proj, session=""), env=env)
    assert not pd.distress.exists()
    got = [ln.split(" ts:")[0] for ln in other.read_text().splitlines()]
    assert got == [f"control SEEN session:s{i} provider:{vendor}" for i in (1, 2, 3)]


@VEND
def test_no_seen_bookkeeping_without_halt(pd: Pd, vendor: str) -> None:
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}
    for kind, payload in first_calls(vendor, pd, "s-calm").items():
        pd.run(role_of(kind), payload, env=env, code=None)
    assert not pd.distress.exists()
    assert not (pd.state / "halt").exists()


@VEND
def test_stop_first_then_a_clean_cycle_complies_once(pd: Pd, vendor: str) -> None:
    env = halted(pd, vendor)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    pd.run("prompt", p_prompt(vendor, pd.proj, session="s1"), env=env)
    pd.run("stop", p_stop(vendor, "done", pd.proj, session="s1"), env=env)
    assert len(seen_lines(pd)) == 1
    assert complied_lines(pd) == [f"control COMPLIED session:s1 provider:{vendor}"]



from tests.scratch import short_root  # noqa: E402
from tests.shells import MATRIX, shell  # noqa: E402


@pytest.mark.parametrize("shell_name", [s.name for s in MATRIX])
def test_seen_from_any_tentacle_in_every_shell(squid: Path, shell_name: str) -> None:

    sh = shell(shell_name)
    if not sh.available:
        pytest.fail(f"{shell_name} is not installed")
    with short_root() as root:
        pd = Pd(root, squid, sh)
        env = halted(pd, "claude")
        pd.run("stop", p_stop("claude", "done", pd.proj, session="s-stop"), env=env)
        pd.run("pre_tool", p_shell("claude", "npm test", pd.proj, session="s-pre"), env=env)
        pd.run("post_tool", p_edit("claude", str(pd.proj / "a.py"), pd.proj, session="s-post", post=True), env=env)
        for session in ("s-stop", "s-pre", "s-post"):
            pd.run("prompt", p_prompt("claude", pd.proj, session=session), env=env)
        got = [ln.split(" ts:")[0] for ln in seen_lines(pd)]
        assert got == [f"control SEEN session:{s} provider:claude" for s in ("s-stop", "s-pre", "s-post")]
        assert complied_lines(pd) == []


# --- the corpora: every halt shape blocked, everyday commands allowed -------------------------
# tests/shapes.py holds the corpora as data. Each class of halt shapes runs as one test (the
# shapes in turn over the vendors), so a failure names its class and every shape that passed.

HALT_CLASSES = sorted({cls for cls, _c, _r in HALT_SHAPES})


def shapes_of(cls: str) -> list[str]:
    return [command for c, command, _runs in HALT_SHAPES if c == cls]


def runs_the_cli(tmp: Path, command: str) -> bool:
    """Whether bash, running command in a sandbox whose bin/ (first on PATH) holds fake `pd`
    and `port-daddy`, calls one of them."""
    import subprocess
    import time

    (tmp / "bin").mkdir(exist_ok=True)
    for name in SPEC["halt"]["cli"]:
        fake = tmp / "bin" / name
        fake.write_text('#!/bin/sh\necho "$0 $*" >> "$CALLED"\n')
        fake.chmod(0o755)
    called = tmp / "called"
    called.unlink(missing_ok=True)
    subprocess.run(["bash", "-c", command], cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                   env={"PATH": f"{tmp}/bin:/usr/bin:/bin", "HOME": str(tmp), "CALLED": str(called)},
                   timeout=20, check=False)
    end = time.monotonic() + 3
    while not called.exists() and time.monotonic() < end:  # setsid, nohup: the call may come later
        time.sleep(0.02)
    return called.exists()


@pytest.mark.parametrize("cls", HALT_CLASSES)
def test_every_halt_shape_of_a_class_is_blocked(pd: Pd, tmp_path: Path, cls: str) -> None:
    """No strawman: each shape marked RUNS really calls the CLI when bash runs it; and under
    halt each shape of the class is blocked (the shapes in turn over the vendors)."""
    assert len(HALT_SHAPES) >= 127 and len({c for _k, c, _r in HALT_SHAPES}) == len(HALT_SHAPES)
    assert len(shapes_of(cls)) >= 4, cls
    silent = [c for k, c, runs in HALT_SHAPES if k == cls and runs and not runs_the_cli(tmp_path, c)]
    assert not silent, f"{cls}: shapes that never called the CLI: {silent!r}"
    passed = []
    for i, command in enumerate(shapes_of(cls)):
        vendor = VENDORS[i % len(VENDORS)]
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=halted(pd, vendor))
        if r.json not in halt_answers(vendor):
            passed.append(command)
    assert not passed, f"{cls}: {len(passed)} of {len(shapes_of(cls))} shapes passed: {passed!r}"


@pytest.mark.parametrize("halt", [True, False], ids=["halted", "free"])
def test_everyday_commands_are_allowed(pd: Pd, halt: bool) -> None:
    """The everyday corpus: none blocked without halt, at most one under halt (the counts are in
    the message)."""
    env = halted(pd, "claude") if halt else {"PD_HOOK_PROVIDER": "claude", "PD_ACTOR": "alice"}
    blocked = []
    for i, command in enumerate(EVERYDAY):
        vendor = VENDORS[i % len(VENDORS)]
        env["PD_HOOK_PROVIDER"] = vendor
        r = pd.run("pre_tool", p_shell(vendor, command, pd.proj), env=env)
        if r.out:
            blocked.append(command[:120])
    mode = "halted" if halt else "free"
    report = f"{len(blocked)} of {len(EVERYDAY)} everyday commands blocked ({mode}): {blocked!r}"
    print(report)
    assert len(EVERYDAY) >= 140
    assert len(blocked) <= (1 if halt else 0), report


# Through the rendered gate, as a vendor runs it: each class of halt shapes under dash, busybox
# sh and bash (the whole class under dash, its first shapes under the others: the awk decides).

@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
@pytest.mark.parametrize("cls", HALT_CLASSES)
def test_halt_classes_through_the_gate(tmp_path: Path, sh: Shell, cls: str) -> None:
    rig = Rig(tmp_path)
    rig.write(SPEC["halt"]["sentinel_default"], REASON + "\n")
    shapes = shapes_of(cls) if sh.name == "dash" else shapes_of(cls)[:2]
    passed = []
    for i, command in enumerate(shapes):
        vendor = VENDORS[i % len(VENDORS)]
        res = rig.run("pre_tool", json.dumps(p_shell(vendor, command, rig.project)), vendor=vendor, sh=sh)
        if not res.out or json.loads(res.out) not in halt_answers(vendor):
            passed.append(command)
    assert not passed, f"{cls} under {sh.name}: {passed!r}"


@pytest.mark.slow  # the whole corpus twice through the gate; test_everyday_commands_are_allowed runs it in every tier
def test_everyday_commands_through_the_gate(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    for halt in (False, True):
        if halt:
            rig.write(SPEC["halt"]["sentinel_default"], REASON + "\n")
        blocked = [c for c in EVERYDAY
                   if rig.run("pre_tool", json.dumps(p_shell("claude", c, rig.project)), vendor="claude").out]
        assert len(blocked) <= (1 if halt else 0), (halt, blocked)
