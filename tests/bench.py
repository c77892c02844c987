"""make bench: how fast each tentacle and gate is, side by side with a bare shell in the same run.

Every case is timed by spawning the script with os.posix_spawn (stdin from a payload file,
stdout/stderr to /dev/null) and waiting for it. The hot paths (each tentacle alone, each through
its gate, a user hook's gate, the pre-tool gate over a 10 MB matrix) are measured interleaved:
every round spawns a bare `dash -c :` and then each case once, so load falls on all alike, and
each ratio is a median against the bare shell's median of the same rounds. With `--against DIR`
(a copy of an older dist/) each hot path of that tree runs in the same rounds, for a before and
after in one run (the user hook's gate too, when DIR lies in a checkout whose generator renders
its examples/minimal.toml). The other groups take warm-up runs, then enough runs for a stable median.
Fork and exec counts come from `strace -f -c` when it is installed. Results: a table on stdout
and build/bench/bench.json. Benchmarks never assert in `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the one copy of the lock key rule is in tests/
from tests.farms import farm  # noqa: E402
from tests.shells import MATRIX  # noqa: E402
from tests.tentaclekit import suffix  # noqa: E402

DIST = ROOT / "dist"
OUT = ROOT / "build" / "bench"
SQUID = DIST / "bin" / "squid"

# targets: ratio to the bare dash of the same run (None: reported, no target)
TARGET_PATH = 8.0
TARGET_TENTACLE = 4.0  # a tentacle alone: two execs (sh, awk) are its floor
TARGET_THROUGH_GATE = 5.0
TARGET_HOOK_ALLOW = 6.0  # a user hook's gate with an sh hook: three execs (sh, awk, the hook)
TARGET_HOOK_DENY = 7.0
TARGET_POST_FORKS = 4
TARGET_MATRIX_10MB_MS = 50.0
TARGET_GATE_ADDED = 3.0
TARGET_5MB = 50.0
TARGET_PROMPT_3000 = 15.0
TARGET_OVERSHOOT_MS = 50.0
SLOW_MS = 250.0  # gate.slow_ms of the default spec: three slower calls open the breaker


@dataclass
class Case:
    name: str
    argv: list[str]
    stdin: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    runs: int = 60
    target: float | None = None
    group: str = "tentacle"


@dataclass
class Row:
    name: str
    group: str
    median_ms: float
    p95_ms: float
    ratio: float
    target: float | None
    forks: int | None
    execs: int | None
    met: bool | None
    old_ms: float | None = None  # the same case in the --against tree, same rounds
    old_ratio: float | None = None
    old_forks: int | None = None
    target_text: str | None = None  # how the target reads when it is not a ratio
    cpu_ratio: float | None = None  # mean CPU time against the bare shell's (the hot paths)
    old_cpu_ratio: float | None = None


@dataclass
class Hot:
    """A hot path: measured interleaved with the bare shell, in this tree and (argv_old) the
    tree it is compared against."""
    name: str
    argv: list[str]
    stdin: Path | None
    env: dict[str, str]
    target: float | None = None  # ratio
    target_ms: float | None = None  # absolute, instead of the ratio
    max_forks: int | None = None
    argv_old: list[str] | None = None
    floor_of: tuple[str, ...] = ()  # the rows whose floor this one is (a floor has no target)


def which(cmd: str) -> str:
    found = shutil.which(cmd)
    if not found:
        raise SystemExit(f"bench: {cmd} not found")
    return found


def spawn_once(argv: list[str], env: dict[str, str], stdin: Path | None, cwd: Path) -> float:
    """Wall time of one run in ms: posix_spawn, wait."""
    return spawn_timed(argv, env, stdin, cwd)[0]


def subreaper() -> None:
    """Become the child subreaper (Linux): what a run leaves behind (a gate's watchdog ending
    after the gate) is reparented here, so spawn_timed can wait for it before the next run
    instead of letting it weigh on that run."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap() -> None:
    """Wait for every process a run left behind (reparented to us as the subreaper)."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def spawn_timed(argv: list[str], env: dict[str, str], stdin: Path | None, cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user and system, of the script and every child it waited for) of
    one run, in ms. CPU time hardly moves with the load of other work on the machine. What the
    run left behind is waited for after the clock stops (the vendor waits for the script's exit
    only)."""
    src = os.open(stdin or "/dev/null", os.O_RDONLY)
    null = os.open("/dev/null", os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, src, 0), (os.POSIX_SPAWN_DUP2, null, 1),
               (os.POSIX_SPAWN_DUP2, null, 2)]
    old = os.getcwd()
    os.chdir(cwd)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        usage = os.wait4(pid, 0)[2]
        timed = (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000
        reap()
        return timed
    finally:
        os.chdir(old)
        os.close(src)
        os.close(null)


def measure(case: Case, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    full = {**env, **case.env}
    for _ in range(max(3, case.runs // 10)):
        spawn_once(case.argv, full, case.stdin, cwd)
    times = sorted(spawn_once(case.argv, full, case.stdin, cwd) for _ in range(case.runs))
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return statistics.median(times), p95


def count_forks(case: Case, env: dict[str, str], cwd: Path) -> tuple[int | None, int | None]:
    strace = shutil.which("strace")
    if not strace:
        return None, None
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        with open(case.stdin or "/dev/null", "rb") as src:
            subprocess.run([strace, "-f", "-c", "-o", out.name, "-e",
                            "trace=fork,vfork,clone,clone3,execve", *case.argv],
                           stdin=src, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env={**env, **case.env}, cwd=cwd, check=False, timeout=60)
        forks = execs = 0
        for line in Path(out.name).read_text().splitlines():
            # % time, seconds, usecs/call, calls, [errors,] syscall
            parts = line.split()
            if len(parts) < 5 or not parts[3].isdigit():
                continue
            calls = int(parts[3])
            failed = int(parts[4]) if len(parts) == 6 and parts[4].isdigit() else 0
            if parts[-1] in ("fork", "vfork", "clone", "clone3"):
                forks += calls - failed
            if parts[-1] == "execve":
                # a shell tries each PATH entry in turn: only the execs that ran a program count
                execs += calls - failed
        # the first execve is the script's own interpreter
        return forks, max(0, execs - 1)


def interleaved(argvs: list[tuple[list[str], Path | None, dict[str, str]]], env: dict[str, str], cwd: Path,
                rounds: int, each_round: Callable[[], None]) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU times of each command, one run of each per round, in order, after a few
    warm-up rounds; each_round runs before every round (a heartbeat kept fresh)."""
    times: list[list[float]] = [[] for _ in argvs]
    cpus: list[list[float]] = [[] for _ in argvs]
    for r in range(rounds + 5):
        each_round()
        for i, (argv, stdin, extra) in enumerate(argvs):
            wall, cpu = spawn_timed(argv, {**env, **extra}, stdin, cwd)
            if r >= 5:
                times[i].append(wall)
                cpus[i].append(cpu)
    return times, cpus


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def hot_rows(hot: list[Hot], env: dict[str, str], cwd: Path, rounds: int, home: Path) -> tuple[list[Row], float]:
    """Every hot path and the bare shell, interleaved run by run; the bare median of these rounds."""
    dash = which("dash")
    argvs: list[tuple[list[str], Path | None, dict[str, str]]] = [([dash, "-c", ":"], None, {})]
    for h in hot:
        argvs.append((h.argv, h.stdin, h.env))
        if h.argv_old:
            argvs.append((h.argv_old, h.stdin, h.env))
    times, cpus = interleaved(argvs, env, cwd, rounds, lambda: os.utime(home / "heartbeat"))
    bare = statistics.median(times[0])
    bare_cpu = statistics.mean(cpus[0])
    rows: list[Row] = []
    k = 1
    for h in hot:
        median = statistics.median(times[k])
        forks, execs = count_forks(Case(h.name, h.argv, h.stdin, h.env), env, cwd)
        row = Row(h.name, "hot", median, p95(times[k]), median / bare, h.target, forks, execs, None,
                  cpu_ratio=statistics.mean(cpus[k]) / bare_cpu)
        k += 1
        if h.argv_old:
            row.old_ms = statistics.median(times[k])
            row.old_ratio = row.old_ms / bare
            row.old_cpu_ratio = statistics.mean(cpus[k]) / bare_cpu
            row.old_forks = count_forks(Case(h.name, h.argv_old, h.stdin, h.env), env, cwd)[0]
            k += 1
        met = []
        if h.target is not None:
            met.append(row.ratio <= h.target)
        if h.target_ms is not None:
            met.append(median <= h.target_ms)
            row.target_text = f"{h.target_ms:g} ms"
        if h.max_forks is not None:
            met.append(forks is None or forks <= h.max_forks)
            row.target_text = (row.target_text or f"{h.target:g}") + f", {h.max_forks} forks"
        row.met = all(met) if met else None
        rows.append(row)
    return rows, bare


def matrix_10mb(project: Path, target: str) -> str:
    """10 MB of the worst a trail or a lock holder can hold (quotes, backslashes and dollars, as
    an earlier writer escaped them), then the lock of the target."""
    nasty = '\\\"\\$' * 150
    line = 'PD_PHEROMONE_X_{i}="{p}/src/f{i}.ts {n} | edited | actor:b{n} | ts:2020-01-01T00:00:00Z"'
    lines, size, i = [], 0, 0
    while size < 10 * 1024 * 1024:
        text = line.format(i=i, p=project, n=nasty) if i % 2 else f'PD_LOCK_OTHER_{i}="{nasty}"'
        lines.append(text)
        size += len(text) + 1
        i += 1
    lines.append(f'PD_LOCK_{suffix(target)}="alice"')
    return "\n".join(lines) + "\n"


def hot_cases(tmp: Path, env: dict[str, str], project: Path, against: Path | None) -> list[Hot]:
    """The hot paths of the default harness, alone and through their gates (readiness lease and
    armed root in place), and the user hooks' gate of examples/minimal.toml."""
    dash = which("dash")
    pl = tmp / "payloads"
    free = str(project / "src" / "free.ts")
    locked = str(project / "src" / "locked.ts")

    def ev(kind: str, target: str = free, tag: str = "") -> Path:
        return write(pl / f"hot-{kind}{tag}.json", json.dumps(payload("claude", kind, target, project)))

    def both(rel: str) -> tuple[list[str], list[str] | None]:
        return [dash, str(DIST / rel)], ([dash, str(against / rel)] if against else None)

    base = {"PD_HOOK_PROVIDER": "claude"}
    trail = {**base, "PD_MATRIX_FILE": str(tmp / "hot-trail.env")}
    paths = [("pre-tool common", "pd-hook-pre-tool", ev("edit"), base, None),
             ("pre-tool block", "pd-hook-pre-tool", ev("edit", locked, "-locked"), base, None),
             ("pre-tool shell", "pd-hook-pre-tool", ev("shell"), base, None),
             ("prompt context (no daemon listening)", "pd-hook-prompt", ev("prompt"), base, None),
             ("stop suggest", "pd-hook-stop", ev("stop"), {**base, "PD_SITREP": "suggest"}, None),
             ("post-tool trace", "pd-hook-post-tool", ev("edit"), trail, TARGET_POST_FORKS)]
    out: list[Hot] = []
    for label, name, stdin, extra, forks in paths:
        argv, old = both(f"bin/squid/{name}")
        out.append(Hot(f"tentacle {label}", argv, stdin, extra, TARGET_TENTACLE, max_forks=forks, argv_old=old))
    for label, name, stdin, extra, _ in paths:
        argv, old = both(f"bin/{name}")
        out.append(Hot(f"through its gate: {label}", argv, stdin, extra, TARGET_THROUGH_GATE, argv_old=old))
    out += floors(paths)
    big = write(tmp / "matrix-10mb.env", matrix_10mb(project, locked))
    argv, old = both("bin/pd-hook-pre-tool")
    out.append(Hot("through its gate: pre-tool block, 10 MB matrix (ms)", argv, ev("edit", locked, "-locked"),
                   {**base, "PD_MATRIX_FILE": str(big)}, target_ms=TARGET_MATRIX_10MB_MS, argv_old=old))
    gate, block, ev_edit = user_hook_gate(tmp, project)
    # the same example rendered by the generator of the tree the old dist/ lies in, if it does
    old_gen = against.parent / "generator" if against else None
    old_gate = user_hook_gate(tmp, project, old_gen)[0] if old_gen and old_gen.is_dir() else None
    old = [dash, old_gate] if old_gate else None
    out.append(Hot("user hook's gate: sh hook allows", [dash, gate], ev_edit, {}, TARGET_HOOK_ALLOW, argv_old=old))
    out.append(Hot("user hook's gate: sh hook denies", [dash, gate], block, {}, TARGET_HOOK_DENY, argv_old=old))
    out.append(hook_floor(gate, ev_edit))
    return out


# what a deadline costs at the least: a timer started beside the work and ended after it
DEADLINE = 'sleep 5 & w=$!; {}; kill "$w"'


def floors(paths: list[tuple[str, str, Path, dict[str, str], int | None]]) -> list[Hot]:
    """The floors of each tentacle, alone and through its gate: the shell running mawk over the
    tentacle's two awk programs, with the same event and the environment the tentacle gives
    it, and nothing else (no script around it). awk compiles all it is given on every run; the
    event is read once, bounded (DESIGN: a separate process copies at most
    harness.stdin_max_bytes: awk cannot bound a record it reads); a gate runs its job under a
    deadline (a timer beside it). A target below its floor cannot be met by any script that
    runs these programs that way. The unbounded row (the shell exec'ing mawk: no fork) is the
    bare cost of the programs' compile and run."""
    dash, mawk = which("dash"), which("mawk")
    awk = 'LC_ALL=C _PD_V="$PD_HOOK_PROVIDER" _PD_MODE=main {}"$0" -f "$1" -f "$2" >/dev/null'
    bounded = f"head -c {stdin_cap()} | " + awk.format("")
    out: list[Hot] = []
    for label, name, stdin, extra, _ in paths:
        args = [mawk, str(SQUID / "lib.awk"), str(SQUID / f"{name}.awk")]
        out.append(Hot(f"floor: {label}", [dash, "-c", bounded, *args], stdin, extra,
                       floor_of=(f"tentacle {label}",)))
        out.append(Hot(f"floor under a deadline: {label}", [dash, "-c", DEADLINE.format(bounded), *args],
                       stdin, extra, floor_of=(f"through its gate: {label}",)))
        out.append(Hot(f"floor, unbounded: {label}", [dash, "-c", awk.format("exec "), *args], stdin, extra))
    return out


def hook_floor(gate: str, stdin: Path) -> Hot:
    """The floor of a user hook's gate: under a deadline, the event bounded into mawk over the
    gate's awk programs, then the cheapest sh hook (`sh -c :`): the three execs and the timer."""
    hooks = Path(gate).parent / "hooks"
    work = f"head -c {stdin_cap()} | LC_ALL=C \"$0\" -f \"$1\" -f \"$2\" >/dev/null; sh -c :"
    argv = [which("dash"), "-c", DEADLINE.format(work), which("mawk"), str(hooks / "lib.awk"),
            str(hooks / f"{Path(gate).name}.awk")]
    return Hot("floor under a deadline: user hook's gate", argv, stdin, {},
               floor_of=("user hook's gate: sh hook allows", "user hook's gate: sh hook denies"))


def stdin_cap() -> int:
    return int(tomllib.loads((ROOT / "hookshape.toml").read_text())["harness"]["stdin_max_bytes"])


def under_floor(rows: list[Row], hot: list[Hot]) -> list[str]:
    """The rows whose ratio target lies below the median of their floor, measured in the same rounds."""
    ratio = {r.name: r.ratio for r in rows}
    target = {r.name: r.target for r in rows}
    out = []
    for h in hot:
        for name in h.floor_of:
            goal = target.get(name)
            if goal is not None and h.name in ratio and ratio[h.name] > goal:
                out.append(f"{name} (target {goal:g}x, floor {ratio[h.name]:.2f}x)")
    return out


def user_hook_gate(tmp: Path, project: Path, generator: Path | None = None) -> tuple[str, Path, Path]:
    """examples/minimal.toml rendered (by this tree's generator, or another's): its pre-tool gate
    (the env guard, an sh hook), an edit it allows and one it denies."""
    sys.path.insert(0, str(ROOT / "generator"))
    from hookshape.spec.load import load

    spec_path = (ROOT if generator is None else generator.parent) / "examples" / "minimal.toml"
    out = tmp / ("minimal" if generator is None else "minimal-old")
    if not out.exists():
        subprocess.run([sys.executable, "-m", "hookshape", "render", "--spec", str(spec_path), "--out", str(out)],
                       check=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(generator or ROOT / "generator")})
    gate = str(out / "bin" / load(spec_path).spec.group_name("pre_tool"))
    ev = write(tmp / "payloads" / "hot-hooks-edit.json",
               json.dumps(payload("claude", "edit", str(project / "src" / "free.ts"), project)))
    block = write(tmp / "payloads" / "hot-hooks-env.json",
                  json.dumps(payload("claude", "edit", str(project / ".env"), project)))
    return gate, block, ev


# ---------------------------------------------------------------- scenario setup


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def lease(home: Path, project: Path) -> None:
    """A ready daemon (ready == pid, fresh heartbeat) and an armed project root."""
    write(home / "daemon.ready", "4242\n")
    write(home / "daemon.pid", "4242\n")
    write(home / "heartbeat", "")
    write(home / "squid" / "projects", f"{project}\n")


def payload(vendor: str, kind: str, target: str, cwd: Path, content: str = "x") -> dict[str, object]:
    """Synthetic events in each vendor's shape (see tests/fixtures/payloads)."""
    if vendor == "agy":
        base: dict[str, object] = {"conversationId": "bench-1", "workspacePaths": [str(cwd)]}
        if kind == "edit":
            args = {"TargetFile": target, "CodeContent": content}
            return {**base, "toolCall": {"name": "write_to_file", "args": args}}
        if kind == "shell":
            return {**base, "toolCall": {"name": "run_command", "args": {"CommandLine": "pd status", "Cwd": str(cwd)}}}
        if kind == "prompt":
            return {**base, "invocationNum": 0, "userPrompt": "go"}
        return {**base, "terminationReason": "NO_TOOL_CALL", "executionNum": 1}
    events = {"claude": ("UserPromptSubmit", "PreToolUse", "Stop", "Write", "Bash"),
              "gemini": ("BeforeAgent", "BeforeTool", "AfterAgent", "write_file", "run_shell_command"),
              "codex": ("UserPromptSubmit", "PreToolUse", "Stop", "apply_patch", "Bash")}[vendor]
    base = {"session_id": f"bench-{vendor}", "cwd": str(cwd), "transcript_path": None}
    if vendor == "codex":
        base["turn_id"] = "t1"
    if kind == "prompt":
        return {**base, "hook_event_name": events[0], "prompt": "go"}
    if kind == "stop":
        text_key = "prompt_response" if vendor == "gemini" else "last_assistant_message"
        return {**base, "hook_event_name": events[2], "stop_hook_active": False, text_key: "done, no table"}
    if kind == "shell":
        return {**base, "hook_event_name": events[1], "tool_name": events[4], "tool_input": {"command": "pd status"}}
    if vendor == "codex":
        body = f"*** Begin Patch\n*** Add File: {target}\n+{content}\n*** End Patch\n"
        return {**base, "hook_event_name": events[1], "tool_name": "apply_patch", "tool_input": {"command": body}}
    return {**base, "hook_event_name": events[1], "tool_name": events[3],
            "tool_input": {"file_path": target, "content": content}}


def matrix_3000(project: Path) -> str:
    lines = [f'PD_LOCK_OTHER_{i}="someone"' for i in range(2899)]
    lines.append('PD_ALERT_1="deploy freeze"')
    lines += [f'PD_PHEROMONE_STALE_{i}="{project}/src/f{i}.ts | edited | actor:bob | ts:2020-01-01T00:00:00Z"'
              for i in range(100)]
    return "\n".join(lines) + "\n"


def path_farm(base: Path, drop: tuple[str, ...], awk: str | None = None) -> str:
    """A PATH of symlinks to every executable except those whose names start with a dropped
    one; `awk` links to that program when given."""
    name = "nopath-" + "-".join(drop) + (f"-awk-{awk}" if awk else "")
    return farm(base / name, lambda n: n.startswith(drop), {"awk": which(awk)} if awk else None)


# ---------------------------------------------------------------- the cases


def cases(tmp: Path) -> tuple[list[Case], dict[str, str], Path]:
    home = tmp / "home"
    project = tmp / "proj"
    (project / ".portdaddy").mkdir(parents=True)
    lease(home, project)
    locked = str(project / "src" / "locked.ts")
    free = str(project / "src" / "free.ts")
    write(home / "matrix.env", f'PD_LOCK_{suffix(locked)}="alice"\nPD_ALERT_1="deploy freeze"\n')
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "PD_HOME": str(home),
           "PD_ACTOR": "bob", "LANG": "C.UTF-8"}
    dash = which("dash")
    out: list[Case] = []
    pl = tmp / "payloads"

    def event(vendor: str, kind: str, target: str = free, content: str = "x", tag: str = "") -> Path:
        name = f"{vendor}-{kind}{tag}.json"
        return write(pl / name, json.dumps(payload(vendor, kind, target, project, content)))

    vendors = ("claude", "gemini", "codex", "agy")
    for vendor in vendors:
        venv = {"PD_HOOK_PROVIDER": vendor}
        pre = str(SQUID / "pd-hook-pre-tool")
        out.append(Case(f"pre-tool {vendor} common", [dash, pre], event(vendor, "edit"), venv, target=TARGET_TENTACLE))
        out.append(Case(f"pre-tool {vendor} block", [dash, pre], event(vendor, "edit", locked, tag="-locked"),
                        venv, target=TARGET_TENTACLE))
        out.append(Case(f"pre-tool {vendor} shell", [dash, pre], event(vendor, "shell"), venv, target=TARGET_TENTACLE))
        out.append(Case(f"prompt {vendor} context", [dash, str(SQUID / "pd-hook-prompt")], event(vendor, "prompt"),
                        venv, target=TARGET_TENTACLE))
        out.append(Case(f"stop {vendor} suggest", [dash, str(SQUID / "pd-hook-stop")], event(vendor, "stop"),
                        {**venv, "PD_SITREP": "suggest"}, target=TARGET_TENTACLE))
        out.append(Case(f"post-tool {vendor} trace", [dash, str(SQUID / "pd-hook-post-tool")],
                        event(vendor, "edit"), {**venv, "PD_MATRIX_FILE": str(tmp / "trail.env")},
                        target=TARGET_TENTACLE))
    halt_env = {"PD_HOOK_PROVIDER": "claude", "PD_HALT_FILE": str(write(tmp / "HALT", "operator drill\n"))}
    out.append(Case("pre-tool claude halt block", [dash, str(SQUID / "pd-hook-pre-tool")],
                    event("claude", "shell"), halt_env, target=TARGET_TENTACLE))
    out.append(Case("prompt claude halt", [dash, str(SQUID / "pd-hook-prompt")], event("claude", "prompt"),
                    halt_env, target=TARGET_TENTACLE))
    for label, size, target in (("1 KB", 1024, TARGET_PATH), ("256 KB", 256 * 1024, TARGET_PATH),
                                ("5 MB", 5 * 1024 * 1024, TARGET_5MB)):
        big = event("claude", "edit", locked, content="y" * size, tag=f"-{size}")
        out.append(Case(f"pre-tool claude block {label}", [dash, str(SQUID / "pd-hook-pre-tool")], big,
                        {"PD_HOOK_PROVIDER": "claude"}, runs=20 if size > 300_000 else 60, target=target,
                        group="size"))
    m3000 = write(tmp / "matrix3000.env", matrix_3000(project))
    out.append(Case("prompt claude 3000-line matrix", [dash, str(SQUID / "pd-hook-prompt")],
                    event("claude", "prompt"), {"PD_HOOK_PROVIDER": "claude", "PD_MATRIX_FILE": str(m3000)},
                    target=TARGET_PROMPT_3000, group="matrix"))
    for shell in ("busybox", "bash"):
        argv = [which("busybox"), "sh"] if shell == "busybox" else [which("bash")]
        out.append(Case(f"pre-tool claude block ({shell})", [*argv, str(SQUID / "pd-hook-pre-tool")],
                        event("claude", "edit", locked, tag="-locked"), {"PD_HOOK_PROVIDER": "claude"},
                        group="shells"))
    for label, drop in (("without jq", ("jq",)), ("without jq and python3", ("jq", "python"))):
        farm = path_farm(tmp, drop)
        out.append(Case(f"pre-tool claude block ({label})", [dash, str(SQUID / "pd-hook-pre-tool")],
                        event("claude", "edit", locked, tag="-locked"), {"PD_HOOK_PROVIDER": "claude", "PATH": farm},
                        target=TARGET_PATH, group="parsers"))
    # gawk as the system awk (Debian makes it so once gawk is installed): the tentacles still run
    # mawk when it is on PATH (harness.awk_prefer); without mawk they pay for gawk's start
    if shutil.which("gawk") and shutil.which("mawk"):
        for label, drop in (("awk is gawk, mawk present", ("jq",)), ("awk is gawk, no mawk", ("jq", "mawk"))):
            farm = path_farm(tmp, drop, awk="gawk")
            out.append(Case(f"pre-tool claude block ({label})", [dash, str(SQUID / "pd-hook-pre-tool")],
                            event("claude", "edit", locked, tag="-locked"),
                            {"PD_HOOK_PROVIDER": "claude", "PATH": farm}, group="parsers"))
    return out, env, project


def gate_cases(tmp: Path, env: dict[str, str], project: Path) -> list[Row]:
    """Gate overhead on the healthy path (gate + tentacle minus tentacle), the open-circuit
    skip, and deadline overshoot against a hung child (in a copy of dist/ with stub tentacles)."""
    dash = which("dash")
    rows: list[Row] = []
    ev = write(tmp / "payloads" / "gate.json", json.dumps(payload("claude", "edit", str(project / "a.ts"), project)))
    base = {**env, "PD_HOOK_PROVIDER": "claude"}
    bare = measure(Case("bare", [dash, "-c", ":"], runs=200), base, project)[0]
    for name in ("pd-hook-pre-tool", "pd-hook-prompt", "pd-hook-stop"):
        direct = measure(Case("t", [dash, str(SQUID / name)], ev, runs=80), base, project)
        gated = measure(Case("g", [dash, str(DIST / "bin" / name)], ev, runs=80), base, project)
        added = gated[0] - direct[0]
        forks = count_forks(Case("g", [dash, str(DIST / "bin" / name)], ev), base, project)
        tforks = count_forks(Case("t", [dash, str(SQUID / name)], ev), base, project)
        rows.append(Row(f"gate {name} added overhead", "gate", added, gated[1] - direct[1], added / bare,
                        TARGET_GATE_ADDED, None if forks[0] is None or tforks[0] is None else forks[0] - tforks[0],
                        None if forks[1] is None or tforks[1] is None else forks[1] - tforks[1],
                        added / bare <= TARGET_GATE_ADDED))
    copy = tmp / "distcopy"
    shutil.copytree(DIST, copy)
    home = Path(env["PD_HOME"])
    stub = copy / "bin" / "squid" / "pd-hook-stop"
    stub.write_text("#!/bin/sh\nexit 1\n")
    for _ in range(6):
        spawn_once([dash, str(copy / "bin" / "pd-hook-stop")], base, ev, project)
    skip = measure(Case("skip", [dash, str(copy / "bin" / "pd-hook-stop")], ev, runs=80), base, project)
    rows.append(Row("gate open-circuit skip", "gate", skip[0], skip[1], skip[0] / bare, TARGET_PATH,
                    *count_forks(Case("s", [dash, str(copy / "bin" / "pd-hook-stop")], ev), base, project),
                    skip[0] / bare <= TARGET_PATH))
    rows.append(layout_row(copy, base, ev, project))
    hung = copy / "bin" / "squid" / "pd-hook-prompt"
    hung.write_text("#!/bin/sh\nsleep 30\n")
    deadline = 1000.0
    overs = []
    for _ in range(3):
        # each run from a closed breaker: the open-circuit row above and the hung runs themselves
        # are failures that would open it, and an open breaker skips the child instead of timing it
        shutil.rmtree(home / "squid" / "health", ignore_errors=True)
        overs.append(spawn_once([dash, str(copy / "bin" / "pd-hook-prompt")], base, ev, project) - deadline)
    shutil.rmtree(home / "squid" / "health", ignore_errors=True)
    rows.append(Row("gate deadline overshoot (ms over 1000)", "gate", statistics.median(overs), max(overs),
                    0.0, TARGET_OVERSHOOT_MS, None, None, statistics.median(overs) <= TARGET_OVERSHOOT_MS))
    return rows


def layout_row(copy: Path, env: dict[str, str], ev: Path, project: Path) -> Row:
    """The layout question: each gate a whole script (as rendered), or a thin stub that sources
    one shared runtime file. The stub here is the gate's own head and the runtime the rest of it,
    so the two parse the same text and differ only in the sourced file's open and read. Both run
    an empty tentacle, interleaved run by run so that load falls on both alike; the row gives the
    stub's extra median time and its ratio to the whole gate (over 1: the layout as rendered is
    faster)."""
    stub_t = copy / "bin" / "squid" / "pd-hook-pre-tool"
    stub_t.write_text("#!/bin/sh\nexit 0\n")
    gate = copy / "bin" / "pd-hook-pre-tool"
    lines = gate.read_text().splitlines(keepends=True)
    head = next(i for i, ln in enumerate(lines) if ln.startswith("_pd_") and ln.rstrip().endswith("() {"))
    write(copy / "bin" / "runtime.sh", "".join(lines[head:]))
    stub = write(copy / "bin" / "pd-hook-pre-tool.stub", "".join(lines[:head]) + '. "${0%/*}/runtime.sh"\n')
    dash = which("dash")
    whole, split = [], []
    for _ in range(200):
        whole.append(spawn_once([dash, str(gate)], env, ev, project))
        split.append(spawn_once([dash, str(stub)], env, ev, project))
    a, b = statistics.median(whole), statistics.median(split)
    return Row("gate layout: stub + sourced runtime, extra ms (ratio to whole)", "gate", b - a,
               sorted(split)[189] - sorted(whole)[189], b / a, None, None, None, None)


def adversarial_cases(tmp: Path, env: dict[str, str], project: Path) -> list[Row]:
    """Payloads and matrices an agent controls, at the sizes that once took seconds (issue 12):
    each must stay under the gate's slow line (gate.slow_ms) on every shell of the matrix, or
    three of them open the breaker and switch the lock gate off."""
    slow = float(tomllib.loads((ROOT / "hookshape.toml").read_text())["gate"]["slow_ms"])
    home = tmp / "adv-home"
    target = str(project / "src" / "a.py")
    holder = "h\\\\$" * 7000  # 21 KB of escapes in the matrix
    write(home / "matrix.env",
          f'PD_LOCK_{suffix(target)}="alice"\nPD_LOCK_{suffix(str(project / "b.py"))}="{holder}"\n')
    pl = tmp / "payloads"
    base = {**env, "PD_HOME": str(home), "PD_ACTOR": "bob"}
    tool = {"claude": "Write", "codex": "apply_patch"}

    def ev(name: str, vendor: str, args: dict[str, object]) -> tuple[Path, dict[str, str]]:
        doc = {"session_id": "bench-adv", "cwd": str(project), "hook_event_name": "PreToolUse",
               "tool_name": tool[vendor], "tool_input": args}
        return write(pl / f"adv-{name}.json", json.dumps(doc)), {"PD_HOOK_PROVIDER": vendor}

    patch = "*** Begin Patch\n" + "".join(f"*** Add File: f{i}.py\n+x\n" for i in range(8000)) + "*** End Patch\n"
    deep = write(pl / "adv-deep.json", '{"session_id":"bench-adv","cwd":"' + str(project) + '","hook_event_name":'
                 '"PreToolUse","tool_name":"Write","tool_input":{"x":' + "[" * 20000 + "]" * 20000
                 + ',"file_path":"' + target + '"}}')
    todo = {
        "dotted 60,000-dot path": ev("dots", "claude", {"file_path": "src/a" + "." * 60000 + "py", "content": "x"}),
        "20 KB holder name": ev("holder", "claude", {"file_path": str(project / "b.py"), "content": "x"}),
        "path after the stdin cap": ev("late", "claude", {"content": "z" * (300 * 1024), "file_path": target}),
        "8,000-file patch": ev("many", "codex", {"command": patch}),
        "path behind 20,000 levels": (deep, {"PD_HOOK_PROVIDER": "claude"}),
        "path behind 125,000 numbers": ev("numbers", "claude", {"x": [1] * 125_000, "file_path": target}),
        "path behind 60,000 strings": ev("strings", "claude", {"x": [""] * 60_000, "file_path": target}),
        "path behind 85,000 empty objects": ev("objects", "claude", {"x": [{}] * 85_000, "file_path": target}),
    }
    rows: list[Row] = []
    bare = measure(Case("bare", [which("dash"), "-c", ":"], runs=100), base, project)[0]
    for sh in MATRIX:
        if not shutil.which(sh.argv[0]):
            continue
        for label, (stdin, venv) in todo.items():
            case = Case(f"adversarial {label} ({sh.name})", [which(sh.argv[0]), *sh.argv[1:],
                        str(SQUID / "pd-hook-pre-tool")], stdin, venv, runs=10)
            median, p95 = measure(case, base, project)
            rows.append(Row(case.name, "adversarial", median, p95, median / bare, slow, None, None, median <= slow))
    return rows


def halt_size_rows(tmp: Path, env: dict[str, str], project: Path, bare: float) -> list[Row]:
    """Adversarial shell commands under halt (the shell reader and the halt rule) and without it
    (the protect rule and the lock gate's reading of shell writes), on every shell of the matrix,
    at the scan caps of the default spec: each must stay under the gate's slow line (median, in
    ms; p95 shown), or three such calls would open the breaker and lift the halt."""
    spec = tomllib.loads((ROOT / "hookshape.toml").read_text())
    cap, pcap = spec["halt"]["scan_max_bytes"], spec["protect"]["scan_max_bytes"]
    tail = " pd start"

    def at(fill: str, end: str = tail) -> str:
        return (fill * cap)[: cap - len(end)] + end

    halt_shapes: dict[str, str | list[str]] = {
        "60,000-word argv": ["x"] * 60_000 + ["pd", "start"],
        "80 KB x; chain": "x;" * 40_000 + "pd start",
        "16 KB x; chain": at("x;"),
        "16 KB quote word": at('"'),
        "16 KB ${ word": at("${"),
        "16 KB $( nesting": at("$("),
        "16 KB ` nesting": at("`"),
        "16 KB pd pd ... words": at("pd "),
        "16 KB {a,b} words": at("{a,b} "),
        "16 KB here-documents": at("cat <<E\n"),
        "16 KB sh -c strings": at("sh -c 'x;' "),
        "16 KB cd && chain": at("cd a && "),
        "16 KB $'\\x' escapes": at("$'\\x70' "),
    }
    protect_shapes: dict[str, str | list[str]] = {
        "240 KB x; chain": "x;" * 120_000,
        "16 KB / words": ("rm " + "/ " * pcap)[:pcap],
        "16 KB /a/a path": ("rm " + "/a" * pcap)[:pcap],
        "16 KB .. words": ("rm " + ".. " * pcap)[:pcap],
        "16 KB > redirections": ("echo >x " * pcap)[:pcap],
        "16 KB rm a words": ("rm " + "a " * pcap)[:pcap],
        "16 KB */ globs": ("rm " + "*/" * pcap)[:pcap],
        "16 KB $x/HALT words": ("rm " + "$x/HALT " * pcap)[:pcap],
        "16 KB | xargs stages": ("echo a | xargs rm | " * pcap)[:pcap],
    }
    halt_env = {**env, "PD_HOOK_PROVIDER": "claude", "PD_HALT_FILE": str(write(tmp / "HALT-sizes", "drill\n"))}
    rows = size_rows(tmp, project, bare, "halt", halt_shapes, halt_env)
    return rows + size_rows(tmp, project, bare, "protect", protect_shapes, {**env, "PD_HOOK_PROVIDER": "claude"})


def hook_cases(tmp: Path, env: dict[str, str], project: Path, bare: float) -> list[Row]:
    """User hooks (examples/minimal.toml): the env guard through its gate, against the same guard
    run alone (`sh -c` with the view already in its environment): what the gate adds to a
    hand-written hook."""
    sys.path.insert(0, str(ROOT / "generator"))
    from hookshape.spec.load import load

    spec_path = ROOT / "examples" / "minimal.toml"
    out = tmp / "minimal"
    subprocess.run([sys.executable, "-m", "hookshape", "render", "--spec", str(spec_path), "--out", str(out)],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "generator")})
    spec = load(spec_path).spec
    guard = next(h for h in spec.hooks if h.name == "env-guard")
    dash = which("dash")
    base = {**env, "HOME": str(tmp), spec.harness.provider_env: "claude"}
    free = str(project / "src" / "free.ts")
    ev = write(tmp / "payloads" / "hooks-edit.json", json.dumps(payload("claude", "edit", free, project)))
    block = write(tmp / "payloads" / "hooks-env.json",
                  json.dumps(payload("claude", "edit", str(project / ".env"), project)))
    view = {**base, f"{spec.harness.prefix.upper()}_PATHS": free}
    alone = measure(Case("alone", [dash, "-c", guard.run[2], "sh"], ev, view, runs=80), view, project)
    rows = [Row("hook env-guard alone (sh -c, view given)", "hooks", alone[0], alone[1], alone[0] / bare, None,
                *count_forks(Case("a", [dash, "-c", guard.run[2], "sh"], ev, view), view, project), None)]
    gate = str(out / "bin" / spec.group_name("pre_tool"))
    for label, argv, payload_file in (("gate allow", [dash, gate], ev), ("gate block", [dash, gate], block)):
        median, p95 = measure(Case(label, argv, payload_file, runs=60), base, project)
        forks = count_forks(Case(label, argv, payload_file), base, project)
        rows.append(Row(f"hook env-guard {label}", "hooks", median, p95, median / bare, None, *forks, None))
    prompt = str(out / "bin" / spec.group_name("prompt"))
    ev_p = write(tmp / "payloads" / "hooks-prompt.json", json.dumps(payload("claude", "prompt", "", project)))
    median, p95 = measure(Case("prompt", [dash, prompt], ev_p, runs=60), base, project)
    rows.append(Row("hook reminder gate context", "hooks", median, p95, median / bare, None,
                    *count_forks(Case("p", [dash, prompt], ev_p), base, project), None))
    return rows


def size_rows(tmp: Path, project: Path, bare: float, tag: str, shapes: dict[str, str | list[str]],
              env: dict[str, str]) -> list[Row]:
    from shells import MATRIX  # tests/ is this script's folder

    rows: list[Row] = []
    for i, (label, command) in enumerate(shapes.items()):
        ev = write(tmp / "payloads" / f"{tag}-{i}.json",
                   json.dumps({**payload("claude", "shell", "", project), "tool_input": {"command": command}}))
        for sh in MATRIX:
            if not sh.available:
                continue
            argv = [which(sh.argv[0]), *sh.argv[1:], str(SQUID / "pd-hook-pre-tool")]
            median, p95 = measure(Case(label, argv, ev, runs=20), env, project)
            rows.append(Row(f"{tag} {label} ({sh.name}, ms)", f"{tag}-size", median, p95, median / bare, SLOW_MS,
                            None, None, median <= SLOW_MS))
    return rows


def table(rows: list[Row], baselines: dict[str, float], against: Path | None) -> str:
    lines = ["baselines (median ms): " + ", ".join(f"{k} {v:.2f}" for k, v in baselines.items()), ""]
    if against:
        lines += [f"hot paths against {against} (old), in the same rounds", ""]
    head = f"{'case':58} {'median':>8} {'p95':>8} {'ratio':>7} {'cpu x':>6} {'target':>13} {'forks':>5} {'execs':>5}"
    lines.append(head + (f" {'old ms':>8} {'old x':>7} {'old cpu':>7} {'old f':>5}" if against else "") + "  result")

    def num(v: float | int | None, fmt: str) -> str:
        return "" if v is None else format(v, fmt)

    for r in rows:
        target = r.target_text or ("" if r.target is None else f"{r.target:g}")
        result = "" if r.met is None else ("ok" if r.met else "MISSED")
        line = (f"{r.name:58} {r.median_ms:8.2f} {r.p95_ms:8.2f} {r.ratio:7.2f} {num(r.cpu_ratio, '.2f'):>6} "
                f"{target:>13} {num(r.forks, 'd'):>5} {num(r.execs, 'd'):>5}")
        if against:
            line += (f" {num(r.old_ms, '.2f'):>8} {num(r.old_ratio, '.2f'):>7} {num(r.old_cpu_ratio, '.2f'):>7}"
                     f" {num(r.old_forks, 'd'):>5}")
        lines.append(line + "  " + result)
    return "\n".join(lines)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench", description="time the rendered scripts against a bare shell")
    ap.add_argument("--against", type=Path, help="an older dist/ whose hot paths run in the same rounds")
    ap.add_argument("--only", default="", help="run only the cases whose name matches this regex")
    ap.add_argument("--rounds", type=int, default=120, help="interleaved rounds of the hot paths (default 120)")
    ap.add_argument("--hot", action="store_true", help="the hot paths only")
    args = ap.parse_args(argv)
    if args.against:
        args.against = args.against.resolve()
        if not (args.against / "bin" / "squid" / "pd-hook-pre-tool").exists():
            ap.error(f"{args.against} is not a rendered dist/ tree")
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if not (SQUID / "pd-hook-pre-tool").exists():
        print("bench: dist/ is not rendered; run make render", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    only = re.compile(args.only)
    subreaper()
    with tempfile.TemporaryDirectory(prefix="hookshape-bench-") as raw:
        tmp = Path(raw)
        todo, env, project = cases(tmp)
        hot = [h for h in hot_cases(tmp, env, project, args.against) if only.search(h.name)]
        rows, bare = hot_rows(hot, env, project, args.rounds, Path(env["PD_HOME"]))
        below = under_floor(rows, hot)
        baselines = {"dash -c : (hot rounds)": bare}
        if not args.hot:
            for name, argv_ in (("dash -c :", [which("dash"), "-c", ":"]),
                                ("busybox sh -c :", [which("busybox"), "sh", "-c", ":"]),
                                ("bash -c :", [which("bash"), "-c", ":"])):
                baselines[name] = measure(Case(name, argv_, runs=200), env, project)[0]
            bare = baselines["dash -c :"]
            rows += other_rows([c for c in todo if only.search(c.name)], env, project, bare)
            rows += [r for r in gate_cases(tmp, env, project) if only.search(r.name)]
            rows += [r for r in hook_cases(tmp, env, project, bare) if only.search(r.name)]
            rows += [r for r in adversarial_cases(tmp, env, project) if only.search(r.name)]
            rows += [r for r in halt_size_rows(tmp, env, project, bare) if only.search(r.name)]
    report = table(rows, baselines, args.against)
    print(report)
    missed = [r.name for r in rows if r.met is False]
    print(f"\n{len(rows)} cases, {len(missed)} missed targets" + (": " + "; ".join(missed) if missed else ""))
    if below:
        print(f"{len(below)} targets lie below their floor (no script running these awk programs can meet "
              "them): " + "; ".join(below))
    (OUT / "bench.json").write_text(json.dumps({"baselines_ms": baselines, "rows": [asdict(r) for r in rows]},
                                               indent=2) + "\n")
    (OUT / "bench.txt").write_text(report + "\n")
    return 0


def other_rows(todo: list[Case], env: dict[str, str], project: Path, bare: float) -> list[Row]:
    rows = []
    for case in todo:
        median, p95_ = measure(case, env, project)
        forks, execs = count_forks(case, env, project)
        ratio = median / bare
        rows.append(Row(case.name, case.group, median, p95_, ratio, case.target, forks, execs,
                        None if case.target is None else ratio <= case.target))
    return rows


if __name__ == "__main__":
    sys.exit(main())
