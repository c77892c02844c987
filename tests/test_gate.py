"""The gate wrapper (dist/bin/<name>), run as a subprocess in front of stub tentacles.

Every test copies dist/ into a scratch dir, replaces the tentacle with a stub, and runs the gate
with a scratch harness home holding a fresh lease and an armed project. The full set runs under
dash, busybox sh and bash; a smaller one under posh, yash, mksh, ksh93 and zsh. No timing
assertion is tighter than "killed within the deadline plus a generous margin".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tomlkit
from tests.gatekit import (
    CORE,
    CRASH,
    DOUBLE_FORK,
    EXIT2,
    EXTRA,
    GATE,
    HUNG,
    NAMES,
    OK,
    PROFILES,
    ROLES,
    SILENT,
    SPEC,
    STUBBORN,
    SYNTAX,
    VENDOR_IDS,
    VERDICT,
    Rig,
    many,
    notice_json,
    slow,
)
from tests.shells import DIST, MATRIX, ROOT, fixture, pipe_holders, run, wait_gone
from tests.tentaclekit import render

from hookshape.diagnose import health
from hookshape.plan import outputs
from hookshape.plan.artifacts import script_artifacts
from hookshape.spec.load import load

SPEC_FILE = ROOT / "hookshape.toml"

CORE_IDS = [s.name for s in CORE]
EXTRA_IDS = [s.name for s in EXTRA]
DEADLINE = "500"          # ms, for the hung tentacles
MARGIN_S = 10.0           # generous: a loaded CI box forks slowly; the hung child sleeps 60 s
FAST_COOLDOWN = "1000"    # ms


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return Rig(tmp_path)


def trip(rig: Rig, role: str, **env: str) -> None:
    """Open the breaker with crashing calls (threshold as configured, default from the spec)."""
    rig.stub(role, CRASH)
    threshold = int(env.get(GATE.threshold_env, GATE.failure_threshold))
    for _ in range(threshold):
        res = rig.run(role, **env)
        assert (res.code, res.out) == (0, "")
    assert rig.breaker(role).state == "open"


# --- the healthy path ---------------------------------------------------------------------


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_healthy_child_gets_stdin_and_its_output_passes_through(rig: Rig, sh) -> None:
    rig.stub("pre_tool", OK)
    payload = '{"tool_name":"Write","tool_input":{"file_path":"/x y/$(z)"}}\n'
    res = rig.run("pre_tool", payload, sh=sh, vendor="claude")
    assert (res.code, res.out) == (0, "out\n")
    assert (rig.marks / "stdin").read_text() == payload
    assert rig.state("pre_tool") is None, "the healthy path writes no breaker state"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_large_event_reaches_the_child_whole(rig: Rig, sh) -> None:
    rig.stub("prompt", OK)
    payload = '{"prompt":"' + "x" * 300_000 + '"}'
    res = rig.run("prompt", payload, sh=sh)
    assert res.code == 0
    assert (rig.marks / "stdin").read_text() == payload


def test_closed_stdin_still_runs_the_child(rig: Rig) -> None:
    rig.stub("prompt", OK)
    env = {"PATH": os.environ["PATH"], **rig.env()}
    proc = subprocess.run(["dash", "-c", 'exec dash "$0" <&-', str(rig.gate("prompt"))],
                          capture_output=True, env=env, cwd=rig.project, timeout=30, check=False)
    assert proc.returncode == 0
    assert rig.runs() == 1


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_real_tentacle_through_the_gate(rig: Rig, sh) -> None:
    """The rendered prompt tentacle, not a stub: the halt notice reaches the agent via the gate."""
    rig.write(SPEC.halt.sentinel_default, "maintenance window\n")
    res = rig.run("prompt", fixture("claude", "prompt"), sh=sh, vendor="claude")
    assert res.code == 0
    doc = json.loads(res.out)
    assert SPEC.messages.halt_header in doc["hookSpecificOutput"]["additionalContext"]


def _dwellers(cwd: Path) -> list[str]:
    """Command lines of the processes whose working directory is cwd (the watchdog and its
    sleep inherit the gate's, and every rig has a project of its own)."""
    found = []
    for pid in Path("/proc").glob("[0-9]*"):
        try:  # processes come and go while we look: a vanished one lives nowhere
            if os.readlink(pid / "cwd") == str(cwd):
                found.append((pid / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_watchdog_and_its_sleep_end_with_the_child(rig: Rig, sh) -> None:
    """A tentacle that ends at once leaves no watchdog or sleep behind for long, even when the
    stand-down TERM is lost (mksh drops one that lands while the subshell starts: a dozen quick
    runs meet that window), and far sooner than the deadline."""
    if not Path("/proc/self/cwd").exists():
        pytest.skip("needs /proc")
    rig.stub("stop", SILENT)
    deadline = 30_000  # ms: a watchdog that only slept the deadline would still be here
    for _ in range(12):
        assert rig.run("stop", sh=sh, **{GATE.deadline_env: str(deadline)}).code == 0
    bound = GATE.watch_poll_ms / 1000 + 3  # one nap, and a loaded CI box
    end = time.monotonic() + bound
    while (left := _dwellers(rig.project)) and time.monotonic() < end:
        time.sleep(0.05)
    assert left == []
    assert rig.runs() == 12


@pytest.mark.parametrize("body", [SILENT, HUNG], ids=["healthy", "timeout"])
@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_no_gate_process_keeps_the_vendor_stdout_open(rig: Rig, sh, body: str) -> None:
    """The vendor waits for EOF on the hook's stdout: once the gate has exited, no watchdog
    (a process running the gate script) may still hold it, even while its ladder runs."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc")
    rig.stub("stop", body)
    proc = rig.popen("stop", sh=sh, **{GATE.deadline_env: DEADLINE})
    try:
        assert proc.stdout is not None
        proc.wait(timeout=30)
        holders = [h for h in pipe_holders(proc.stdout.fileno()) if str(rig.gate("stop")) in h]
        assert holders == []
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def test_healthy_path_forks_only_child_watchdog_and_sleep(rig: Rig) -> None:
    """With a warm readiness cache: the tentacle, the watchdog and its sleep, nothing else; the
    execs are the sleep and the watchdog's rm of the capture files (the tentacle is read by the
    child's own shell, the capture files are named by the kernel's random id: no mktemp). (A
    cache refresh, once per heartbeat window, costs more by design: the best of 3 runs counts.)"""
    strace = shutil.which("strace")
    if not strace:
        pytest.skip("strace not installed")
    rig.stub("prompt", SILENT)
    assert rig.run("prompt").code == 0  # warms the readiness cache
    log = rig.root / "strace.log"
    env = {"PATH": os.environ["PATH"], **rig.env()}
    argv = [strace, "-f", "-qq", "-o", str(log), "-e", "trace=fork,vfork,clone,clone3,execve",
            "dash", str(rig.gate("prompt"))]
    counts = []
    execs = []
    for _ in range(3):
        proc = subprocess.run(argv, input=b"{}", capture_output=True, env=env, cwd=rig.project,
                              timeout=30, check=False)
        if proc.returncode != 0 or not log.exists():
            pytest.skip(f"strace cannot trace here: {proc.stderr.decode()[:200]}")
        lines = log.read_text().splitlines()
        counts.append(len([ln for ln in lines
                           if re.search(r"\b(clone3?|v?fork)\(", ln) and "resumed" not in ln]))
        # every successful execve but the first (the gate's own dash)
        execs.append(len([ln for ln in lines if re.search(r"execve(\(| resumed>).*= 0$", ln)]) - 1)
    # 2 when the tentacle ends before the watchdog has started its sleep
    assert 2 <= min(counts) <= 3, counts
    assert min(execs) <= 2, execs


# --- exit mapping and failure kinds -----------------------------------------------------------


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_verdict_is_exit_2_with_stderr_and_never_trips(rig: Rig, sh) -> None:
    rig.stub("pre_tool", VERDICT)
    for _ in range(5):
        res = rig.run("pre_tool", sh=sh, vendor="claude")
        assert res.code == 2
        assert "nope: reason for the block" in res.err
        assert res.out == ""
    assert rig.runs() == 5
    assert rig.state("pre_tool") is None
    assert rig.breaker("pre_tool").state == "closed"


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_crash_counts_one_failure_and_exits_0(rig: Rig, sh) -> None:
    rig.stub("stop", CRASH)
    res = rig.run("stop", sh=sh)
    assert (res.code, res.out) == (0, "")
    b = rig.breaker("stop")
    assert (b.state, b.failures, b.last_kind, b.problem) == ("closed", 1, "crash", None)


@pytest.mark.parametrize("body", [SYNTAX, EXIT2], ids=["syntax-error", "exit-2"])
@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_a_broken_tentacle_exiting_2_is_a_crash_not_a_block(rig: Rig, sh, body: str) -> None:
    rig.stub("pre_tool", body)
    res = rig.run("pre_tool", sh=sh, vendor="claude")
    assert (res.code, res.out) == (0, "")
    assert rig.breaker("pre_tool").last_kind == "crash"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_slow_tentacle_counts_a_failure(rig: Rig, sh) -> None:
    rig.stub("prompt", slow(0.5))
    res = rig.run("prompt", sh=sh, **{GATE.slow_env: "100", GATE.deadline_env: "5000"})
    assert (res.code, res.out) == (0, "")
    b = rig.breaker("prompt")
    assert (b.failures, b.last_kind) == (1, "slow")


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_hung_tentacle_and_its_child_are_killed_by_the_deadline(rig: Rig, sh) -> None:
    rig.stub("stop", HUNG)
    t0 = time.monotonic()
    res = rig.run("stop", sh=sh, timeout=30, **{GATE.deadline_env: DEADLINE})
    took = time.monotonic() - t0
    assert (res.code, res.out, res.err) == (0, "", "")
    assert took < int(DEADLINE) / 1000 + MARGIN_S
    assert wait_gone(rig.kid(), MARGIN_S), "the tentacle's child outlived the kill ladder"
    b = rig.breaker("stop")
    assert (b.failures, b.last_kind) == (1, "timeout")


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_term_ignoring_tree_gets_killed_after_the_grace(rig: Rig, sh) -> None:
    rig.stub("stop", STUBBORN)
    t0 = time.monotonic()
    res = rig.run("stop", sh=sh, timeout=30, **{GATE.deadline_env: DEADLINE})
    assert res.code == 0
    assert time.monotonic() - t0 < int(DEADLINE) / 1000 + GATE.kill_grace_ms / 1000 + MARGIN_S
    assert wait_gone(rig.kid(), MARGIN_S), "a TERM-proof descendant survived the KILL"
    assert rig.breaker("stop").last_kind == "timeout"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_stale_inherited_epochrealtime_does_not_break_the_deadline(rig: Rig, sh) -> None:
    rig.stub("stop", SILENT)
    res = rig.run("stop", sh=sh, EPOCHREALTIME="1")
    assert res.code == 0
    assert rig.state("stop") is None, "a fast tentacle must not look slow or timed out"
    rig.stub("stop", HUNG)
    t0 = time.monotonic()
    res = rig.run("stop", sh=sh, EPOCHREALTIME="1", **{GATE.deadline_env: DEADLINE})
    assert res.code == 0
    assert time.monotonic() - t0 < int(DEADLINE) / 1000 + MARGIN_S
    assert wait_gone(rig.kid(), MARGIN_S)
    assert rig.breaker("stop").last_kind == "timeout"


def test_tentacle_sees_the_inherited_epochrealtime_unchanged(rig: Rig) -> None:
    rig.stub("prompt", 'printf %s "$EPOCHREALTIME" > "$MARKS/ert"\n')
    assert rig.run("prompt", EPOCHREALTIME="123.456").code == 0
    assert (rig.marks / "ert").read_text() == "123.456"


@pytest.mark.parametrize("mode", ["absent", "not-executable"])
def test_missing_tentacle_is_a_failure(rig: Rig, mode: str) -> None:
    if mode == "absent":
        rig.tentacle("post_tool").unlink()
    else:
        rig.stub("post_tool", SILENT, mode=0o644)
    res = rig.run("post_tool")
    assert (res.code, res.out) == (0, "")
    assert rig.runs() == 0
    assert rig.breaker("post_tool").last_kind == "missing"


def test_hook_shell_runs_the_tentacle_with_that_interpreter(rig: Rig) -> None:
    rig.stub("post_tool", SILENT, mode=0o644)
    res = rig.run("post_tool", **{SPEC.harness.shell_env: "dash"})
    assert res.code == 0
    assert rig.runs() == 1
    assert rig.state("post_tool") is None


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_a_tentacle_read_by_its_gate_starts_clean(rig: Rig, sh) -> None:
    """Without an interpreter named, the child reads the tentacle into its own shell: the
    tentacle gets no arguments, the verdict code in its environment, and its exit status is its
    own (the gate's EXIT trap, which allows, is gone)."""
    rig.stub("pre_tool", f'printf "%s %s" "$#" "${GATE.verdict_env}" > "$MARKS/v"\n'
                         f'echo "refused" >&2\nexit {GATE.verdict_code}\n')
    res = rig.run("pre_tool", sh=sh)
    assert (res.code, res.out, res.err) == (2, "", "refused\n"), res
    assert (rig.marks / "v").read_text() == f"0 {GATE.verdict_code}"


def test_no_tentacle_defines_a_function_of_its_gate_s_child(rig: Rig) -> None:
    """The functions on the child's stack when it reads its tentacle are the gate's; a tentacle
    that defined one of them would replace it while it runs."""
    p = f"_{SPEC.harness.prefix}"
    stack = {f"{p}_main", f"{p}_run", f"{p}_spawn"}
    for role, name in NAMES.items():
        gate = set(re.findall(r"^(_\w+)\(\) *\{", (DIST / "bin" / name).read_text(), re.M))
        assert stack <= gate, role
        tentacle = (DIST / "bin" / SPEC.harness.tentacle_dir / name).read_text()
        assert stack.isdisjoint(re.findall(r"^(_\w+)\(\) *\{", tentacle, re.M)), role


def test_verdict_env_is_given_to_the_tentacle(rig: Rig) -> None:
    rig.stub("prompt", f'printf %s "${GATE.verdict_env}" > "$MARKS/v"\n')
    assert rig.run("prompt").code == 0
    assert (rig.marks / "v").read_text() == str(GATE.verdict_code)


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_a_shell_error_inside_the_gate_fails_open(rig: Rig, sh) -> None:
    """dash/busybox/yash exit 2 on a set -u error; the gate's EXIT trap turns it into 0."""
    gate = rig.gate("pre_tool")
    p = SPEC.harness.prefix
    text = gate.read_text()
    assert text.endswith(f"_{p}_main\n")
    gate.write_text(text[: -len(f"_{p}_main\n")] + f': "$_{p}_never_set"\n_{p}_main\n')
    res = rig.run("pre_tool", sh=sh)
    # posh exits 1 on this error without running the trap: still not a block.
    assert res.code == (1 if sh.name == "posh" else 0)


# --- breaker ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sh", CORE + EXTRA, ids=CORE_IDS + EXTRA_IDS)
def test_three_failures_open_the_circuit_and_skip_the_child(rig: Rig, sh) -> None:
    rig.stub("pre_tool", CRASH)
    for n in range(1, GATE.failure_threshold + 1):
        assert rig.run("pre_tool", sh=sh).code == 0
        assert rig.breaker("pre_tool").failures == n
    assert rig.breaker("pre_tool").state == "open"
    before = rig.runs()
    res = rig.run("pre_tool", sh=sh, vendor="claude")
    assert res.code == 0
    assert rig.runs() == before, "an open circuit must not start the tentacle"
    expected = notice_json("claude", "pre_tool", GATE.failure_threshold, GATE.cooldown_ms)
    assert json.loads(res.out) == expected


def test_success_resets_a_non_zero_count(rig: Rig) -> None:
    rig.stub("stop", CRASH)
    rig.run("stop")
    rig.run("stop")
    assert rig.breaker("stop").failures == 2
    rig.stub("stop", SILENT)
    assert rig.run("stop").code == 0
    assert rig.state("stop") is None


@pytest.mark.parametrize("vendor", VENDOR_IDS)
@pytest.mark.parametrize("role", ROLES)
def test_breaker_notice_once_per_trip_through_the_context_channel(rig: Rig, vendor: str,
                                                                  role: str) -> None:
    env = {GATE.threshold_env: "1", GATE.cooldown_env: "60000"}
    trip(rig, role, **env)
    first = rig.run(role, vendor=vendor, **env)
    second = rig.run(role, vendor=vendor, **env)
    assert first.code == second.code == 0
    expected = notice_json(vendor, role, 1, 60000)
    # a skipped call of a vendor with an allow answer (profile output.allow) still says allow
    allow = outputs.stdout_text(PROFILES[vendor], "allow", "", role) if role == "pre_tool" else ""
    quiet = allow + "\n" if allow else ""
    if expected is None:
        assert first.out == quiet
    else:
        assert first.out.endswith("\n") and first.out.count("\n") == 1
        assert json.loads(first.out) == expected
    assert second.out == quiet, "the notice is told once per trip"
    assert rig.breaker(role).told


def test_no_notice_without_a_known_vendor(rig: Rig) -> None:
    trip(rig, "prompt")
    assert rig.run("prompt").out == ""
    assert rig.breaker("prompt").told


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_cooldown_expiry_elects_exactly_one_probe(rig: Rig, sh) -> None:
    cooldown = "2000"  # the elected probe holds the circuit half-open for its deadline (30 s)
    env = {GATE.threshold_env: "1", GATE.cooldown_env: cooldown,
           GATE.slow_env: "29000", GATE.deadline_env: "30000"}
    trip(rig, "stop", **env)
    time.sleep(int(cooldown) / 1000 + 0.2)
    # The probe runs until every other caller has decided (and exited).
    rig.stub("stop", 'echo ran >> "$MARKS/ran"\nwhile [ ! -e "$MARKS/release" ]; do sleep 0.02; done\n')
    before = rig.runs()
    procs = [rig.popen("stop", sh=sh, **env) for _ in range(12)]
    try:
        # every other caller has decided, and the probe has started (under load it may still be
        # on its way to its tentacle when the others are gone: it does more before it runs)
        end = time.monotonic() + 60
        while (sum(p.poll() is not None for p in procs) < len(procs) - 1
               or rig.runs() == before) and time.monotonic() < end:
            time.sleep(0.02)
        assert rig.runs() - before == 1, "exactly one caller may probe"
    finally:
        (rig.marks / "release").write_text("")
    with many(procs) as results:
        assert all(code == 0 and out == b"" for code, out, _ in results)
    assert rig.runs() - before == 1
    assert rig.state("stop") is None, "a successful probe closes the circuit"
    assert not (rig.health / f"{NAMES['stop']}{health.PROBE_EXT}").exists()


def test_probe_failure_reopens(rig: Rig) -> None:
    env = {GATE.threshold_env: "1", GATE.cooldown_env: FAST_COOLDOWN}
    trip(rig, "prompt", **env)
    time.sleep(int(FAST_COOLDOWN) / 1000 + 0.2)
    before = rig.runs()
    assert rig.run("prompt", **env).code == 0   # the probe (still crashing)
    assert rig.runs() == before + 1
    b = rig.breaker("prompt")
    assert (b.state, b.failures) == ("open", 2)
    assert b.retry_at is not None and b.retry_at > time.time()
    assert rig.run("prompt", **env).code == 0
    assert rig.runs() == before + 1, "reopened: the next call skips again"


def test_probe_success_closes(rig: Rig) -> None:
    env = {GATE.threshold_env: "1", GATE.cooldown_env: FAST_COOLDOWN}
    trip(rig, "prompt", **env)
    time.sleep(int(FAST_COOLDOWN) / 1000 + 0.2)
    rig.stub("prompt", OK)
    res = rig.run("prompt", vendor="gemini", **env)
    assert (res.code, res.out) == (0, "out\n")
    assert rig.state("prompt") is None
    assert rig.run("prompt", **env).out == "out\n"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_thirty_parallel_failures_leave_a_parseable_open_state(rig: Rig, sh) -> None:
    rig.stub("pre_tool", CRASH)
    procs = [rig.popen("pre_tool", sh=sh) for _ in range(30)]
    with many(procs, timeout=120) as results:
        assert all(code == 0 and out == b"" for code, out, _ in results)
    text = rig.state("pre_tool")
    assert text is not None and text.count("\n") == 1
    fields = health.parse_state(text)
    assert fields["state"] == "open"
    # every crash counted once, those of calls that started before the trip too
    assert fields["failures"] == rig.runs() >= GATE.failure_threshold
    leftovers = [p.name for p in rig.health.iterdir() if p.name.startswith(NAMES["pre_tool"])]
    assert leftovers == [f"{NAMES['pre_tool']}{health.STATE_EXT}"], "no lock, probe, temp left"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_sixty_concurrent_failures_are_counted_exactly(rig: Rig, sh) -> None:
    """Sixty gates failing at once on two cores: each failure counted once in the state file,
    none lost to the lock (it is never broken while its holder runs), nothing left behind."""
    env = {GATE.threshold_env: "1000"}
    rig.stub("pre_tool", CRASH)
    procs = [rig.popen("pre_tool", sh=sh, **env) for _ in range(60)]
    with many(procs, timeout=180) as results:
        assert all(code == 0 and out == b"" for code, out, _ in results)
    text = rig.state("pre_tool")
    assert text is not None
    fields = health.parse_state(text)
    assert (fields["state"], fields["failures"], rig.runs()) == ("closed", 60, 60)
    leftovers = [p.name for p in rig.health.iterdir() if p.name.startswith(NAMES["pre_tool"])]
    assert leftovers == [f"{NAMES['pre_tool']}{health.STATE_EXT}"], "no lock, token, temp left"


# posh is the slowest to start a command: its gates widen every window of the lock the most
LOCK_SHELLS = (*CORE, *(s for s in MATRIX if s.name == "posh" and s.available))


@pytest.mark.parametrize("sh", LOCK_SHELLS, ids=[s.name for s in LOCK_SHELLS])
def test_many_failures_on_the_shortest_lock_wait_are_each_counted_once(tmp_path: Path, sh) -> None:
    """The shortest lock wait a spec allows (kill_grace_ms 10: one try) under 150 gates failing
    at once, each reaped as it ends: most find the lock held and leave their token. Each failure
    is still counted exactly once, in the state or among the tokens the next holder folds in, and
    the state file always parses: no waiter breaks a holder that runs (nor the lock of the holder
    after one that just ended), and no holder's rename puts a lock over the state."""
    doc = tomlkit.parse((ROOT / "hookshape.toml").read_text())
    doc["gate"]["kill_grace_ms"] = 10  # type: ignore[index]
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(tomlkit.dumps(doc))
    render(tmp_path / "render", spec)
    rig = Rig(tmp_path / "rig", source=tmp_path / "render")
    rig.stub("pre_tool", CRASH)
    gates = 150
    env = {GATE.threshold_env: "1000"}
    with ThreadPoolExecutor(max_workers=gates) as pool:  # each gate reaped the moment it ends
        results = list(pool.map(lambda _: rig.run("pre_tool", sh=sh, timeout=120, **env), range(gates)))
    assert all((r.code, r.out) == (0, "") for r in results)
    state = rig.health / f"{NAMES['pre_tool']}{health.STATE_EXT}"
    counted = health.parse_state(state.read_text())["failures"]
    assert (counted + len(health.pending(state)), rig.runs()) == (gates, gates)
    assert rig.breaker("pre_tool").failures == gates
    left = {p.name for p in rig.health.iterdir() if p.name.startswith(NAMES["pre_tool"])}
    assert left == {state.name} | {p.name for p in health.pending(state)}, "no lock or temp left"


@pytest.mark.parametrize("sh", LOCK_SHELLS, ids=[s.name for s in LOCK_SHELLS])
def test_a_token_name_already_taken_is_passed_over(rig: Rig, sh) -> None:
    """A failure whose token name (<state>.f.<pid>) is already taken, by a token a gate of a pid
    now reused left: the gate takes the next name and counts both, and goes on to its end (its
    debug line) rather than ending its shell on the refused redirection."""
    rig.stub("stop", CRASH)
    rig.health.mkdir(parents=True, exist_ok=True)
    rig.write(GATE.debug_switch_file, "")
    state = rig.health / f"{NAMES['stop']}{health.STATE_EXT}"
    plant = rig.root / "plant"  # the gate keeps this shell's pid: exec
    plant.write_text(f"#!/bin/sh\n: >{shlex.quote(str(state))}.f.$$\n"
                     f"exec {shlex.join(sh.argv)} {shlex.quote(str(rig.gate('stop')))}\n")
    plant.chmod(0o755)
    res = run(plant, b"{}", env=rig.env(), cwd=rig.project)
    assert (res.code, res.out) == (0, ""), res
    assert health.parse_state(rig.state("stop") or "")["failures"] == 2
    assert health.pending(state) == []
    assert [e.outcome for e in health.events(SPEC, rig.home)] == ["crash"]


def test_a_lock_held_by_a_running_gate_is_never_broken(rig: Rig) -> None:
    """A failure that finds the state locked by a live holder past its wait leaves the state
    alone (a second writer would lose the holder's update) and is still counted: its token
    stays until the next holder counts it, and status counts it meanwhile."""
    rig.health.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(["sleep", "60"])
    lock = rig.health / f"{NAMES['stop']}{health.LOCK_EXT}"
    try:
        lock.write_text(f"{holder.pid}\n")
        rig.stub("stop", CRASH)
        assert rig.run("stop").code == 0
        assert lock.read_text() == f"{holder.pid}\n", "the live holder's lock was broken"
        assert rig.state("stop") is None
        assert rig.breaker("stop").failures == 1
    finally:
        holder.kill()
        holder.wait()
    assert rig.run("stop").code == 0  # its holder gone, the lock is broken at once
    assert health.parse_state(rig.state("stop") or "")["failures"] == 2
    assert not lock.exists()


def test_a_probe_still_running_holds_the_circuit_past_one_cooldown(rig: Rig) -> None:
    """The probe holds the circuit half-open for as long as it may run (its deadline), not one
    cooldown: a call after the cooldown while it still runs does not probe a second time."""
    cooldown = 500
    env = {GATE.threshold_env: "1", GATE.cooldown_env: str(cooldown),
           GATE.slow_env: "29000", GATE.deadline_env: "30000"}
    trip(rig, "stop", **env)
    time.sleep(cooldown / 1000 + 0.2)
    rig.stub("stop", 'echo ran >> "$MARKS/ran"\nwhile [ ! -e "$MARKS/release" ]; do sleep 0.02; done\n')
    before = rig.runs()
    probe = rig.popen("stop", **env)
    try:
        end = time.monotonic() + 60
        while rig.runs() == before and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(cooldown / 1000 + 0.3)  # one cooldown on: the probe still runs
        late = rig.popen("stop", **env)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a second probe waits, too
            late.wait(timeout=30)
        assert rig.runs() - before == 1, "a second probe while the first still runs"
    finally:
        (rig.marks / "release").write_text("")
    assert late.wait(timeout=60) == probe.wait(timeout=60) == 0
    assert rig.state("stop") is None, "the probe's success closes the circuit"


def test_stale_lock_is_broken_after_a_bounded_wait(rig: Rig) -> None:
    """A lock left by a gate killed between creating it and writing its pid (no pid in it, and
    older than any transaction can last): the next failure waits a bounded time, breaks it, and
    still records."""
    rig.health.mkdir(parents=True, exist_ok=True)
    lock = rig.health / f"{NAMES['stop']}{health.LOCK_EXT}"
    lock.write_text("")
    old = time.time() - 600
    os.utime(lock, (old, old))
    rig.stub("stop", CRASH)
    assert rig.run("stop").code == 0
    assert rig.breaker("stop").failures == 1
    assert health.parse_state(rig.state("stop") or "")["failures"] == 1
    assert not lock.exists()


def test_a_fresh_lock_naming_no_pid_is_never_broken(rig: Rig) -> None:
    """A lock that names no pid yet may be a live holder's (between creating it and writing its
    pid, however long the waiter waited on the holders before it): while it is fresh it is left
    alone and the failure still counts (its token); once stale, the next failure breaks it and
    folds the waiting failure in."""
    rig.health.mkdir(parents=True, exist_ok=True)
    lock = rig.health / f"{NAMES['stop']}{health.LOCK_EXT}"
    lock.write_text("")
    rig.stub("stop", CRASH)
    assert rig.run("stop").code == 0
    assert lock.exists() and lock.read_text() == "", "a fresh lock with no pid was broken"
    assert rig.state("stop") is None
    assert rig.breaker("stop").failures == 1
    old = time.time() - 600
    os.utime(lock, (old, old))
    assert rig.run("stop").code == 0
    assert health.parse_state(rig.state("stop") or "")["failures"] == 2
    assert not lock.exists()
    assert health.pending(rig.health / f"{NAMES['stop']}{health.STATE_EXT}") == []


def test_stale_probe_dir_is_cleared_and_the_next_call_probes(rig: Rig) -> None:
    env = {GATE.threshold_env: "1", GATE.cooldown_env: FAST_COOLDOWN}
    trip(rig, "prompt", **env)
    probe = rig.health / f"{NAMES['prompt']}{health.PROBE_EXT}"
    probe.mkdir()
    old = time.time() - 600
    os.utime(probe, (old, old))
    time.sleep(int(FAST_COOLDOWN) / 1000 + 0.2)
    rig.stub("prompt", SILENT)
    before = rig.runs()
    assert rig.run("prompt", **env).code == 0
    assert rig.runs() == before, "this call found the election taken"
    assert not probe.exists(), "...and cleared the dead one"
    assert rig.run("prompt", **env).code == 0
    assert rig.runs() == before + 1
    assert rig.state("prompt") is None


def test_malformed_state_counts_as_closed_and_a_success_clears_it(rig: Rig) -> None:
    rig.health.mkdir(parents=True, exist_ok=True)
    rig.state_file("stop").write_text("breaker/1 open 09 crash x y z 7\n")
    rig.stub("stop", SILENT)
    assert rig.run("stop").code == 0
    assert rig.runs() == 1
    assert rig.state("stop") is None


def test_env_overrides_must_be_plain_numbers(rig: Rig) -> None:
    rig.stub("stop", CRASH)
    rig.run("stop", **{GATE.threshold_env: "1x"})
    assert rig.breaker("stop").state == "closed", "a non-numeric threshold falls back to the spec's"
    rig.run("stop", **{GATE.threshold_env: "02"})
    assert rig.breaker("stop").state == "open", "02 means 2 (leading zeros are not octal)"


def test_state_files_are_private(rig: Rig) -> None:
    shutil.rmtree(rig.health, ignore_errors=True)
    rig.stub("stop", CRASH)
    rig.run("stop")
    assert rig.health.stat().st_mode & 0o777 == 0o700
    assert rig.state_file("stop").stat().st_mode & 0o777 == 0o600


# --- checks before the breaker ------------------------------------------------------------


def _skipped(rig: Rig, role: str = "prompt", **env: str) -> None:
    rig.stub(role, OK)
    res = rig.run(role, vendor="claude", **env)
    assert (res.code, res.out, res.err) == (0, "", "")
    assert rig.runs() == 0
    assert rig.state(role) is None


def test_kill_switch_file(rig: Rig) -> None:
    rig.write(GATE.kill_switch_file, "")
    shutil.rmtree(rig.health, ignore_errors=True)
    _skipped(rig)
    assert not rig.health.exists(), "the kill switch does no I/O beyond its own test"


def test_kill_switch_env(rig: Rig) -> None:
    _skipped(rig, **{GATE.kill_switch_env: GATE.kill_switch_off_value})
    rig.stub("prompt", SILENT)
    assert rig.run("prompt", **{GATE.kill_switch_env: "1"}).code == 0
    assert rig.runs() == 1


@pytest.mark.parametrize("case", ["no-ready", "no-pid", "mismatch", "not-numeric", "ready-symlink",
                                  "pid-symlink", "no-heartbeat", "stale-heartbeat"])
@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_readiness_lease(rig: Rig, sh, case: str) -> None:
    ready, pid = rig.path(GATE.ready_file), rig.path(GATE.pid_file)
    beat = rig.path(GATE.heartbeat_file)
    if case == "no-ready":
        ready.unlink()
    elif case == "no-pid":
        pid.unlink()
    elif case == "mismatch":
        rig.lease("4242", "4243")
    elif case == "not-numeric":
        rig.lease("abc")
    elif case in ("ready-symlink", "pid-symlink"):
        target = ready if case == "ready-symlink" else pid
        real = rig.root / "real"
        real.write_text("4242\n")
        target.unlink()
        target.symlink_to(real)
    elif case == "no-heartbeat":
        beat.unlink()
    else:
        old = time.time() - GATE.heartbeat_max_age_s - 60
        os.utime(beat, (old, old))
    rig.stub("prompt", OK)
    res = rig.run("prompt", sh=sh, vendor="claude")
    assert (res.code, res.out) == (0, "")
    assert rig.runs() == 0


def test_fresh_lease_runs_repeatedly_from_the_cache(rig: Rig) -> None:
    rig.stub("prompt", SILENT)
    for _ in range(3):
        assert rig.run("prompt").code == 0
    assert rig.runs() == 3


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_armed_roots(rig: Rig, sh) -> None:
    sibling = rig.root / "projectX"
    sub = rig.project / "deep" / "er"
    for d in (sibling, sub):
        d.mkdir(parents=True)
    rig.stub("prompt", SILENT)
    rig.arm("relative/ignored", str(rig.project) + "/")
    assert rig.run("prompt", sh=sh, cwd=sub).code == 0
    assert rig.runs() == 1
    assert rig.run("prompt", sh=sh, cwd=sibling).code == 0
    assert rig.runs() == 1, "/a/b arms /a/b/... but not /a/bc"
    rig.arm(rig.root / "elsewhere")
    assert rig.run("prompt", sh=sh).code == 0
    assert rig.runs() == 1


def test_armed_root_matches_the_physical_cwd(rig: Rig) -> None:
    link = rig.root / "link"
    link.symlink_to(rig.project)
    rig.stub("prompt", SILENT)
    env = {"PATH": os.environ["PATH"], "PWD": str(link), **rig.env()}
    proc = subprocess.run(["dash", str(rig.gate("prompt"))], input=b"{}", env=env, cwd=link,
                          capture_output=True, timeout=30, check=False)
    assert proc.returncode == 0
    assert rig.runs() == 1


def test_no_armed_roots_file(rig: Rig) -> None:
    rig.path(GATE.armed_roots_file).unlink()
    _skipped(rig)


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_halt_skips_readiness_but_runs_the_child(rig: Rig, sh) -> None:
    for f in (GATE.ready_file, GATE.pid_file, GATE.heartbeat_file):
        rig.path(f).unlink()
    rig.stub("prompt", SILENT)
    assert rig.run("prompt", sh=sh).code == 0
    assert rig.runs() == 0, "no daemon, no halt: skipped"
    halt = rig.root / "halt-elsewhere"
    halt.write_text("stop\n")
    assert rig.run("prompt", sh=sh, **{SPEC.halt.sentinel_env: str(halt)}).code == 0
    assert rig.runs() == 1


# --- debug log ------------------------------------------------------------------------------


def test_debug_log_records_calls_without_payload(rig: Rig) -> None:
    rig.write(GATE.debug_switch_file, "")
    rig.stub("pre_tool", OK)
    assert rig.run("pre_tool", '{"secret":"hunter2"}', vendor="codex").code == 0
    rig.stub("pre_tool", CRASH)
    assert rig.run("pre_tool", vendor="codex").code == 0
    text = rig.path(GATE.debug_log).read_text()
    assert "hunter2" not in text
    assert len(text.splitlines()) == 4
    got = health.events(SPEC, rig.home)
    assert [(e.outcome, e.exit, e.vendor, e.phase) for e in got] == [
        ("healthy", 0, "codex", "PD EDIT"), ("crash", 0, "codex", "PD EDIT")]
    assert all(e.ms is not None and e.ms >= 0 for e in got)


def test_debug_log_rotates(rig: Rig) -> None:
    rig.write(GATE.debug_switch_file, "")
    log = rig.write(GATE.debug_log, "x" * (GATE.debug_log_max_bytes + 1) + "\n")
    rig.stub("stop", SILENT)
    assert rig.run("stop").code == 0
    rotated = log.with_name(log.name + ".1")
    assert rotated.exists() and rotated.stat().st_size > GATE.debug_log_max_bytes
    assert not log.exists() or log.stat().st_size < 1024


def test_debug_log_off_writes_nothing(rig: Rig) -> None:
    rig.stub("stop", CRASH)
    rig.run("stop")
    assert not rig.path(GATE.debug_log).exists()


def test_profiles_cover_every_vendor() -> None:
    assert set(PROFILES) == set(SPEC.enabled_vendors())


def test_notice_text_is_escaped_at_render_time(tmp_path: Path) -> None:
    """A spec message with quotes, backslashes, control characters and shell syntax stays data."""
    hostile = 'It\'s "{phase}" \\ $(touch pwned) `x` %s\ttab\nline {count}x/{cooldown_s}s \u00e9'
    doc = tomlkit.parse(SPEC_FILE.read_text())
    doc["messages"]["breaker_notice"] = hostile  # type: ignore[index]
    spec = tmp_path / "hookshape.toml"
    spec.write_text(tomlkit.dumps(doc))
    rig = Rig(tmp_path / "rig")
    for art in script_artifacts(load(spec)):
        target = rig.dist / art.path
        target.write_bytes(art.data)
        target.chmod(art.mode)
    env = {GATE.threshold_env: "1", GATE.cooldown_env: "2500"}
    trip(rig, "prompt", **env)
    res = rig.run("prompt", vendor="claude", **env)
    expected = hostile.format(phase=SPEC.tentacle("prompt").phase, count=1, cooldown_s=3)
    assert json.loads(res.out)["hookSpecificOutput"]["additionalContext"] == expected
    assert not (rig.project / "pwned").exists()


# --- the gate runs only its own files ----------------------------------------------------------

ALL = CORE + EXTRA
ALL_IDS = CORE_IDS + EXTRA_IDS
# the shells that look a slash-less script operand up on PATH (`bash name`)
PATH_LOOKUP = tuple(s for s in ALL if s.name in ("bash", "bash-posix", "ksh93", "zsh"))
# what a gate or a tentacle may run by name: a planted copy of any of these must never run (the
# shells of the matrix are left out: the test itself starts them by name on that PATH)
PLANTED = ("mawk", "awk", "gawk", "nawk", "original-awk", "head", "date", "sleep", "rm", "mv",
           "mkdir", "rmdir", "cat", "printf", "ps", "wc", "kill", "env", "tr", "sed", "dd", "touch",
           "ln", "ls", "stat", "sort", "mktemp", "od", "cut", "jq", "python3")


def plant(folder: Path, marks: Path, *names: str) -> None:
    """Executables that only record that they ran (in marks/planted)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        p = folder / name
        p.write_text(f'#!/bin/sh\necho "$0" >> "{marks}/planted"\nexit 1\n')
        p.chmod(0o755)


def planted(rig: Rig) -> list[str]:
    p = rig.marks / "planted"
    return p.read_text().splitlines() if p.exists() else []


@pytest.mark.parametrize("sh", PATH_LOOKUP, ids=[s.name for s in PATH_LOOKUP])
def test_a_gate_found_on_path_runs_its_own_tentacle_not_the_projects(rig: Rig, sh) -> None:
    """`bash pd-hook-x` finds the gate on PATH and $0 has no slash: the tentacle next to the gate
    runs, never ./squid/pd-hook-x of the project."""
    rig.stub("prompt", SILENT)
    plant(rig.project / SPEC.harness.tentacle_dir, rig.marks, NAMES["prompt"])
    path = f"{rig.dist / 'bin'}:{os.environ['PATH']}"
    res = rig.run("prompt", sh=sh, argv0=NAMES["prompt"], PATH=path)
    assert res.code == 0
    assert planted(rig) == []
    assert rig.runs() == 1


@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_a_slashless_gate_not_on_path_does_nothing(rig: Rig, sh) -> None:
    """`dash pd-hook-x` run from a directory that holds it: no absolute home for the gate, so no
    tentacle runs at all (fail open)."""
    here = rig.dist / "bin"
    rig.arm(here)
    rig.stub("prompt", OK)
    res = rig.run("prompt", sh=sh, argv0=NAMES["prompt"], cwd=here)
    assert (res.code, res.out, res.err) == (0, "", "")
    assert rig.runs() == 0


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_a_relative_gate_path_runs_its_tentacle_in_the_callers_cwd(rig: Rig, sh) -> None:
    rig.arm(rig.root)
    rig.stub("prompt", SILENT + 'pwd -P > "$MARKS/cwd"\n')
    res = rig.run("prompt", sh=sh, argv0=f"dist/bin/{NAMES['prompt']}", cwd=rig.root)
    assert res.code == 0
    assert rig.runs() == 1
    assert (rig.marks / "cwd").read_text().strip() == str(rig.root.resolve())


def _dirty_path(rig: Rig) -> str:
    """PATH with relative and empty entries, each holding planted tools."""
    plant(rig.project / "node_modules" / ".bin", rig.marks, *PLANTED)
    plant(rig.project, rig.marks, *PLANTED)
    return f"node_modules/.bin::{os.environ['PATH']}:.:"


@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_relative_path_entries_run_nothing_in_the_gate_or_the_tentacles(rig: Rig, sh) -> None:
    path = _dirty_path(rig)
    edit = json.dumps({"session_id": "s1", "cwd": str(rig.project), "hook_event_name": "PreToolUse",
                       "tool_name": "Write", "tool_input": {"file_path": str(rig.project / "a.py"),
                                                            "content": "x"}})
    # the real pre-tool tentacle, with a cold readiness cache (date -r)
    res = rig.run("pre_tool", edit, sh=sh, vendor="claude", PATH=path)
    assert (res.code, res.out) == (0, "")
    # the tentacles run standalone clean their PATH too
    for role in ROLES:
        assert run(rig.tentacle(role), edit, sh=sh, env=rig.env("claude", PATH=path),
                   cwd=rig.project).code in (0, 2)
    # failures: state writes, the breaker's trip and notice
    trip(rig, "stop", PATH=path)
    assert rig.run("stop", sh=sh, vendor="claude", PATH=path).code == 0
    # the kill ladder (ps, awk, sleep)
    rig.stub("prompt", HUNG)
    assert rig.run("prompt", sh=sh, PATH=path, **{GATE.deadline_env: DEADLINE}).code == 0
    assert wait_gone(rig.kid(), MARGIN_S)
    assert planted(rig) == []


@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_an_inherited_ifs_does_not_change_how_the_gate_reads_its_state(rig: Rig, sh) -> None:
    """posh imports IFS from the environment: the state line must still split on blanks."""
    rig.stub("pre_tool", CRASH)
    for n in range(1, GATE.failure_threshold + 1):
        assert rig.run("pre_tool", sh=sh, IFS=":").code == 0
        assert rig.breaker("pre_tool").failures == n
    assert rig.breaker("pre_tool").state == "open"


# --- the gate's exit ends the vendor's wait -----------------------------------------------------


def _kill_kid(rig: Rig) -> None:
    p = rig.marks / "kid"
    if p.exists() and p.read_text().strip().isdigit():
        with contextlib.suppress(OSError):
            os.kill(int(p.read_text().strip()), signal.SIGKILL)


@pytest.mark.parametrize("verdict", [False, True], ids=["healthy", "verdict"])
@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_a_double_forked_grandchild_does_not_hold_the_vendor_pipes(rig: Rig, sh,
                                                                   verdict: bool) -> None:
    """The vendor reads stdout and stderr to EOF: a grandchild that left the tentacle's process
    tree with both still open must not keep it waiting once the gate has exited."""
    body = DOUBLE_FORK + (f'echo "nope" >&2\nexit "${GATE.verdict_env}"\n' if verdict else "")
    rig.stub("pre_tool", body)
    try:
        res = rig.run("pre_tool", sh=sh, vendor="claude", timeout=5)
        if verdict:
            assert (res.code, res.out, res.err) == (2, "out\n", "err\nnope\n")
        else:
            assert (res.code, res.out, res.err) == (0, "out\n", "err\n")
    finally:
        _kill_kid(rig)


@pytest.mark.parametrize("stderr", [True, False], ids=["both", "stdout-only"])
@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_the_answer_passes_through_byte_for_byte(rig: Rig, sh, stderr: bool) -> None:
    """Both streams (one cat each), or stdout alone (the gate execs its cat). The stub runs in
    the gate's own shell: its 300 KB come from head, not from an argument (posh and mksh have no
    printf builtin, and one argument of an exec is at most 128 KB)."""
    big = "x" * 300_000
    rig.stub("prompt", "printf 'a\\000b\\377c' ; head -c 300000 </dev/zero | tr '\\000' x\n"
             + ("printf 'e\\377' >&2\n" if stderr else ""))
    proc = rig.popen("prompt", sh=sh)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert out == b"a\0b\xffc" + big.encode()
    assert err == (b"e\xff" if stderr else b"")


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_a_timed_out_or_crashed_tentacle_says_nothing(rig: Rig, sh) -> None:
    rig.stub("stop", 'echo "{\\"partial\\":"\necho oops >&2\n' + HUNG)
    res = rig.run("stop", sh=sh, **{GATE.deadline_env: DEADLINE})
    assert (res.code, res.out, res.err) == (0, "", "")
    rig.stub("stop", 'echo "{\\"partial\\":"\necho oops >&2\nexit 3\n')
    res = rig.run("stop", sh=sh)
    assert (res.code, res.out, res.err) == (0, "", "")


@pytest.mark.parametrize("where", ["health", "runtime", "relative-runtime"])
@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_capture_files_are_removed(rig: Rig, sh, where: str) -> None:
    """The answer goes through two files, mode 0600, named by the kernel's random id, in
    $XDG_RUNTIME_DIR (absolute) or the health dir; the watchdog removes them when it leaves."""
    runtime = rig.root / "run"
    runtime.mkdir(mode=0o700)
    env = {"XDG_RUNTIME_DIR": {"health": "", "runtime": str(runtime), "relative-runtime": "run"}[where]}
    rig.arm(rig.root)
    rig.stub("prompt", OK + f'stat -c "%a %n" "{runtime}"/io.* > "$MARKS/runtime" 2>/dev/null || :\n'
                            f'stat -c "%a %n" "{rig.health}"/io.* > "$MARKS/health" 2>/dev/null || :\n')
    for _ in range(3):
        assert rig.run("prompt", sh=sh, cwd=rig.root, **env).out == "out\n"
    seen = {d: (rig.marks / d).read_text().split() for d in ("runtime", "health")}
    here = "runtime" if where == "runtime" else "health"
    # (a run dir of the run before may still be there: its watchdog removes it after the gate
    # has answered)
    files = list(zip(seen[here][::2], seen[here][1::2], strict=False))
    uuid = r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    name = re.compile(rf"io\.{re.escape(NAMES['prompt'])}\.{uuid}\.job\.[12]")
    assert files and all(mode == "600" and name.fullmatch(Path(f).name) for mode, f in files), seen
    assert seen["health" if here == "runtime" else "runtime"] == [], seen
    rig.stub("prompt", HUNG)
    assert rig.run("prompt", sh=sh, cwd=rig.root, **env, **{GATE.deadline_env: DEADLINE}).code == 0
    end = time.monotonic() + MARGIN_S

    def left() -> list[str]:
        return [p.name for d in (rig.health, runtime) for p in d.iterdir()
                if p.name != "lease.cache" and not p.name.endswith(health.STATE_EXT)]
    while left() and time.monotonic() < end:
        time.sleep(0.05)
    assert left() == []


def test_an_unusable_health_dir_still_runs_the_tentacle(rig: Rig) -> None:
    """No place for the capture files: the tentacle answers on the gate's own stdout."""
    shutil.rmtree(rig.health, ignore_errors=True)
    rig.health.write_text("not a dir\n")
    rig.stub("prompt", OK)
    res = rig.run("prompt")
    assert (res.code, res.out) == (0, "out\n")
    assert rig.runs() == 1


# --- armed roots through symlinks ---------------------------------------------------------------


@pytest.mark.parametrize("sh", ALL, ids=ALL_IDS)
def test_an_armed_root_reached_through_a_symlink_arms(rig: Rig, sh) -> None:
    link = rig.root / "link"
    link.symlink_to(rig.project)
    rig.stub("prompt", SILENT + 'printf %s "$PWD" > "$MARKS/pwd"\n')
    rig.arm(link)
    # the physical cwd under a root written as a symlink
    assert rig.run("prompt", sh=sh).code == 0
    assert rig.runs() == 1
    # the logical cwd (the vendor's PWD) under that root
    res = run(rig.gate("prompt"), b"{}", sh=sh, env=rig.env(PWD=str(link)), cwd=link)
    assert res.code == 0
    assert rig.runs() == 2
    # posh sets PWD to the physical path at start: there is no logical name left to keep
    if sh.name != "posh":
        assert (rig.marks / "pwd").read_text() == str(link), "the tentacle keeps the logical PWD"
    # an armed root elsewhere still does not arm
    rig.arm(rig.root / "elsewhere", "/nonexistent/dir")
    assert rig.run("prompt", sh=sh).code == 0
    assert rig.runs() == 2


# --- under halt ---------------------------------------------------------------------------------


def _halt(rig: Rig) -> dict[str, str]:
    halt = rig.root / "HALT"
    halt.write_text("operator drill\n")
    return {SPEC.halt.sentinel_env: str(halt)}


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_under_halt_an_open_breaker_never_skips_the_pre_tool_check(rig: Rig, sh) -> None:
    trip(rig, "pre_tool")
    before = rig.state("pre_tool")
    halt = _halt(rig)
    rig.stub("pre_tool", VERDICT)
    res = rig.run("pre_tool", sh=sh, vendor="claude", **halt)
    assert res.code == 2
    assert rig.runs() == GATE.failure_threshold + 1
    assert rig.state("pre_tool") == before, "nothing counted, nothing told"


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_under_halt_pre_tool_failures_are_allowed_but_never_counted(rig: Rig, sh) -> None:
    halt = _halt(rig)
    rig.stub("pre_tool", HUNG)
    for _ in range(GATE.failure_threshold):
        res = rig.run("pre_tool", sh=sh, vendor="claude", **halt, **{GATE.deadline_env: DEADLINE})
        assert (res.code, res.out, res.err) == (0, "", ""), "a timeout under halt allows"
    rig.stub("pre_tool", CRASH)
    assert rig.run("pre_tool", sh=sh, **halt).code == 0
    assert rig.state("pre_tool") is None
    assert rig.runs() == GATE.failure_threshold + 1


def test_under_halt_other_tentacles_keep_their_breaker(rig: Rig) -> None:
    trip(rig, "prompt")
    before = rig.runs()
    assert rig.run("prompt", **_halt(rig)).code == 0
    assert rig.runs() == before


@pytest.mark.parametrize("sh", CORE, ids=CORE_IDS)
def test_under_halt_the_real_pre_tool_blocks_the_cli_with_the_breaker_open(rig: Rig, sh) -> None:
    shutil.copy2(DIST / "bin" / SPEC.harness.tentacle_dir / NAMES["pre_tool"], rig.tentacle("pre_tool"))
    rig.health.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    rig.state_file("pre_tool").write_text(f"breaker/1 open 3 timeout {now} {now + 3600} 0 1\n")
    assert rig.breaker("pre_tool").state == "open"
    event = json.dumps({"session_id": "s1", "cwd": str(rig.project), "hook_event_name": "PreToolUse",
                        "tool_name": "Bash", "tool_input": {"command": f"{SPEC.halt.cli[0]} start"}})
    res = rig.run("pre_tool", event, sh=sh, vendor="claude", **_halt(rig))
    assert res.code == 0
    assert json.loads(res.out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_relative_hook_shell_is_ignored(rig: Rig) -> None:
    plant(rig.project / "bin", rig.marks, "sh")
    rig.stub("prompt", SILENT)
    assert rig.run("prompt", **{SPEC.harness.shell_env: "bin/sh"}).code == 0
    assert planted(rig) == []
    assert rig.runs() == 1
