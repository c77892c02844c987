"""make bench: how fast each tentacle and gate is, side by side with a bare shell in the same run.

Every case is timed by spawning the script with os.posix_spawn (stdin from a payload file,
stdout/stderr to /dev/null) and waiting for it: warm-up runs first, then enough runs for a
stable median; the report gives median, p95 and the ratio to a bare `dash -c :` measured the
same way in the same run. Fork and exec counts come from `strace -f -c` when it is installed.
Results: a table on stdout and build/bench/bench.json. Benchmarks never assert in `make test`.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
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


def which(cmd: str) -> str:
    found = shutil.which(cmd)
    if not found:
        raise SystemExit(f"bench: {cmd} not found")
    return found


def spawn_once(argv: list[str], env: dict[str, str], stdin: Path | None, cwd: Path) -> float:
    """Wall time of one run in ms: posix_spawn, wait."""
    src = os.open(stdin or "/dev/null", os.O_RDONLY)
    null = os.open("/dev/null", os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, src, 0), (os.POSIX_SPAWN_DUP2, null, 1),
               (os.POSIX_SPAWN_DUP2, null, 2)]
    old = os.getcwd()
    os.chdir(cwd)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        os.waitpid(pid, 0)
        return (time.perf_counter() - start) * 1000
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
            parts = line.split()
            if len(parts) >= 4 and parts[-1] in ("fork", "vfork", "clone", "clone3"):
                forks += int(parts[3]) if parts[3].isdigit() else 0
            if len(parts) >= 4 and parts[-1] == "execve":
                execs += int(parts[3]) if parts[3].isdigit() else 0
        # the first execve is the script's own interpreter
        return forks, max(0, execs - 1)


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
        out.append(Case(f"pre-tool {vendor} common", [dash, pre], event(vendor, "edit"), venv, target=TARGET_PATH))
        out.append(Case(f"pre-tool {vendor} block", [dash, pre], event(vendor, "edit", locked, tag="-locked"),
                        venv, target=TARGET_PATH))
        out.append(Case(f"pre-tool {vendor} shell", [dash, pre], event(vendor, "shell"), venv, target=TARGET_PATH))
        out.append(Case(f"prompt {vendor} context", [dash, str(SQUID / "pd-hook-prompt")], event(vendor, "prompt"),
                        venv, target=TARGET_PATH))
        out.append(Case(f"stop {vendor} suggest", [dash, str(SQUID / "pd-hook-stop")], event(vendor, "stop"),
                        {**venv, "PD_SITREP": "suggest"}, target=TARGET_PATH))
        out.append(Case(f"post-tool {vendor} trace", [dash, str(SQUID / "pd-hook-post-tool")],
                        event(vendor, "edit"), {**venv, "PD_MATRIX_FILE": str(tmp / "trail.env")},
                        target=TARGET_PATH))
    halt_env = {"PD_HOOK_PROVIDER": "claude", "PD_HALT_FILE": str(write(tmp / "HALT", "operator drill\n"))}
    out.append(Case("pre-tool claude halt block", [dash, str(SQUID / "pd-hook-pre-tool")],
                    event("claude", "shell"), halt_env, target=TARGET_PATH))
    out.append(Case("prompt claude halt", [dash, str(SQUID / "pd-hook-prompt")], event("claude", "prompt"),
                    halt_env, target=TARGET_PATH))
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


MATRIX_MS = 50.0  # the pre-tool gate on a 10 MB matrix of any content (issue 22.5)


def matrix_rows(tmp: Path, env: dict[str, str], project: Path, bare: float) -> list[Row]:
    """The pre-tool gate (as a vendor runs it: gate, lease, tentacle) on a 10 MB matrix of trails
    written to slow a reader down, with the lock of the edited file at its end: escape-laden
    pheromones, `"\\` repeated, and lines of 128 KB (the longest argument a CLI can hand its
    daemon on Linux); each must stay under 50 ms."""
    home = tmp / "matrix-home"
    lease(home, project)
    target = str(project / "src" / "locked.ts")
    lock = f'PD_LOCK_{suffix(target)}="alice"\n'
    size = 10 * 1024 * 1024
    bodies = {
        "escape-laden pheromones": lambda i: f'PD_PHEROMONE_X_{i}="{project}/' + '\\"' * 200 + "\\\\" * 100
                                             + ' | edited | actor:bob | ts:2026-01-01T00:00:00Z"',
        '"\\ repeated': lambda i: f'PD_PHEROMONE_Y_{i}="' + '\\"' * 2000 + '"',
        "128 KB lines": lambda i: f'PD_PHEROMONE_Z_{i}="' + '\\"' * 65_000 + '"',
    }
    ev = write(tmp / "payloads" / "matrix-edit.json", json.dumps(payload("claude", "edit", target, project)))
    rows: list[Row] = []
    for label, line in bodies.items():
        lines, total, i = [], 0, 0
        while total < size:
            text = line(i)
            lines.append(text)
            total += len(text) + 1
            i += 1
        matrix = write(tmp / f"matrix-10mb-{len(rows)}.env", "\n".join(lines) + "\n" + lock)
        case = Case(f"pre-tool gate, 10 MB matrix: {label}", [which("dash"), str(DIST / "bin" / "pd-hook-pre-tool")],
                    ev, {"PD_HOOK_PROVIDER": "claude", "PD_HOME": str(home), "PD_MATRIX_FILE": str(matrix)},
                    runs=20, group="matrix")
        median, p95 = measure(case, env, project)
        rows.append(Row(case.name + " (ms)", "matrix", median, p95, median / bare, MATRIX_MS, None, None,
                        median <= MATRIX_MS))
    return rows


def hook_cases(tmp: Path, env: dict[str, str], project: Path, bare: float) -> list[Row]:
    """User hooks (examples/minimal.toml): the env guard through its gate and adapter, against the
    same guard run alone (`sh -c` with the view already in its environment): what the adapter and
    gate add to a hand-written hook."""
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
    adapter = str(out / "bin" / spec.harness.tentacle_dir / spec.group_name("pre_tool"))
    for label, argv, payload_file in (("adapter allow", [dash, adapter], ev), ("gate allow", [dash, gate], ev),
                                      ("gate block", [dash, gate], block)):
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


def table(rows: list[Row], baselines: dict[str, float]) -> str:
    lines = ["baselines (median ms): " + ", ".join(f"{k} {v:.2f}" for k, v in baselines.items()), "",
             f"{'case':52} {'median':>8} {'p95':>8} {'ratio':>7} {'target':>7} {'forks':>5} {'execs':>5}  result"]
    for r in rows:
        target = "" if r.target is None else f"{r.target:g}"
        result = "" if r.met is None else ("ok" if r.met else "MISSED")
        lines.append(f"{r.name:52} {r.median_ms:8.2f} {r.p95_ms:8.2f} {r.ratio:7.2f} {target:>7} "
                     f"{'' if r.forks is None else r.forks:>5} {'' if r.execs is None else r.execs:>5}  {result}")
    return "\n".join(lines)


def main() -> int:
    if not (SQUID / "pd-hook-pre-tool").exists():
        print("bench: dist/ is not rendered; run make render", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hookshape-bench-") as raw:
        tmp = Path(raw)
        todo, env, project = cases(tmp)
        baselines = {}
        for name, argv in (("dash -c :", [which("dash"), "-c", ":"]),
                           ("busybox sh -c :", [which("busybox"), "sh", "-c", ":"]),
                           ("bash -c :", [which("bash"), "-c", ":"])):
            baselines[name] = measure(Case(name, argv, runs=200), env, project)[0]
        bare = baselines["dash -c :"]
        rows = []
        for case in todo:
            median, p95 = measure(case, env, project)
            forks, execs = count_forks(case, env, project)
            ratio = median / bare
            rows.append(Row(case.name, case.group, median, p95, ratio, case.target, forks, execs,
                            None if case.target is None else ratio <= case.target))
        rows += gate_cases(tmp, env, project)
        rows += hook_cases(tmp, env, project, bare)
        rows += adversarial_cases(tmp, env, project)
        rows += halt_size_rows(tmp, env, project, bare)
        rows += matrix_rows(tmp, env, project, bare)
    report = table(rows, baselines)
    print(report)
    missed = [r.name for r in rows if r.met is False]
    print(f"\n{len(rows)} cases, {len(missed)} missed targets" + (": " + "; ".join(missed) if missed else ""))
    (OUT / "bench.json").write_text(json.dumps({"baselines_ms": baselines, "rows": [asdict(r) for r in rows]},
                                               indent=2) + "\n")
    (OUT / "bench.txt").write_text(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
