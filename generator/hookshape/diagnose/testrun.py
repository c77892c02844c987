"""`hookshape test`: each case, as each of its vendors sends the event, through the registered
gates of the spec's event rendered in memory, under each shell chosen, in a scratch harness home
and project made for that one run (never the user's); the vendor's raw answer is read back by the
reader `simulate` uses (hookshape.diagnose.verdict) and held against the case's expectation."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.diagnose.cases import Case, Tests
from hookshape.diagnose.events import event_for
from hookshape.diagnose.scratch import harness_dir, prepare, rendered
from hookshape.diagnose.shells import Shell
from hookshape.diagnose.verdict import Reading, Run, as_object, has, read
from hookshape.spec.hooks import Group
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile
from hookshape.spec.tentacles import Tentacle

# passed on from the caller's environment; everything else a run sees is set here or by the case
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")
BLOCKING = ("deny", "ask", "block")
# a run mostly waits (on its gate's clock and watchdog, on the hooks): two per CPU (more make the
# hooks of a loaded machine miss their deadlines)
WORKERS = 2 * (os.cpu_count() or 1)


@dataclass(frozen=True)
class GateRun:
    gate: str
    run: Run
    reading: Reading


@dataclass(frozen=True)
class Outcome:
    """One case on one vendor under one shell: skipped (why), failed (why), or ok."""

    case: Case
    vendor: str
    shell: str
    skipped: str = ""
    failure: str = ""
    runs: tuple[GateRun, ...] = ()
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.skipped and not self.failure


@dataclass(frozen=True)
class Job:
    index: int
    case: Case
    profile: Profile
    shell: Shell


@dataclass
class Bench:
    """What every run of one `hookshape test` shares: the rendered tree, the scratch root."""

    loaded: Loaded
    tests: Tests
    tree: Path
    scratch: Path
    wrappers: dict[str, str] = field(default_factory=dict)


def vendors_of(case: Case, loaded: Loaded, only: tuple[str, ...]) -> list[Profile]:
    """The case's vendors (default every enabled one), narrowed to `only` when given."""
    ids = case.vendors or loaded.spec.enabled_vendors()
    return [loaded.profiles[v] for v in ids if not only or v in only]


def jobs(loaded: Loaded, tests: Tests, only: tuple[str, ...], shells: list[Shell]) -> list[Job]:
    todo = [(case, profile, shell) for case in tests.cases
            for profile in vendors_of(case, loaded, only) for shell in shells]
    return [Job(index, *job) for index, job in enumerate(todo)]


def gates_on(loaded: Loaded, event: str) -> list[Tentacle | Group]:
    return [g for g in loaded.spec.gates() if g.role == event and g.registered]


@contextlib.contextmanager
def bench(loaded: Loaded, tests: Tests) -> Iterator[Bench]:
    with rendered(loaded) as tree, tempfile.TemporaryDirectory(prefix="hookshape-test-") as tmp:
        yield Bench(loaded, tests, tree, Path(tmp))


def run_all(loaded: Loaded, tests: Tests, only: tuple[str, ...],
            shells: list[Shell]) -> list[Outcome]:
    """Every case x vendor x shell, in parallel (the runs wait on scripts), in case order."""
    todo = jobs(loaded, tests, only, shells)
    with bench(loaded, tests) as b:
        for shell in shells:
            b.wrappers[shell.name] = shell.interpreter(b.scratch)
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            return list(pool.map(lambda job: run_one(b, job), todo))


def run_one(b: Bench, job: Job) -> Outcome:
    case, profile = job.case, job.profile
    start = time.monotonic()
    root = b.scratch / f"run-{job.index}"
    user, project = root / "user", root / "project"
    cwd = project if case.cwd is None else project / case.cwd  # an absolute cwd stays as it is
    sent = event_for(case, profile, str(cwd), b.tests.path.parent, str(project))
    if sent.skip:
        return Outcome(case, profile.id, job.shell.name, skipped=sent.skip)
    harness = harness_dir(b.loaded, user)
    lay_out(b.loaded, case, harness, project, cwd)
    env = environment(b, job, user, harness)
    where = cwd if cwd.is_dir() else project
    runs = []
    for gate in gates_on(b.loaded, case.event):
        limit = max(10.0, 3 * b.loaded.spec.deadline(gate) / 1000)
        run = execute([*job.shell.argv, str(b.tree / "bin" / gate.name)], sent.data, env, where,
                      limit)
        runs.append(GateRun(gate.name, run, read(profile, case.event, as_object(sent.data), run)))
    return Outcome(case, profile.id, job.shell.name, failure=judge(case, profile, runs),
                   runs=tuple(runs), seconds=time.monotonic() - start)


def lay_out(loaded: Loaded, case: Case, harness: Path, project: Path, cwd: Path) -> None:
    """The run's harness home (lease held, armed), its project with the case's files, and the
    case's cwd when it lies in the project."""
    prepare(loaded, harness)
    project.mkdir(parents=True)
    if cwd.is_relative_to(project):
        cwd.mkdir(parents=True, exist_ok=True)
    for rel, text in case.files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")


def environment(b: Bench, job: Job, user: Path, harness: Path) -> dict[str, str]:
    """The run's environment: a few of the caller's (PATH, locale, TMPDIR), the scratch HOME and
    harness home, the vendor as its config names it, the shell for the gate's job, the case's."""
    h = b.loaded.spec.harness
    env = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    env.update({"HOME": str(user), h.provider_env: job.profile.id, h.home_env: str(harness),
                h.shell_env: b.wrappers[job.shell.name]})
    env.update(job.case.env)
    return env


def execute(argv: list[str], data: bytes, env: dict[str, str], cwd: Path, limit: float) -> Run:
    """Run a gate with the event on stdin in a process group of its own, removed afterwards."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(data, timeout=limit)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = -signal.SIGKILL
        err += f"\n(hookshape test: the gate was still running after {limit:g} s: killed)".encode()
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    return Run(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))



def answer(runs: list[GateRun]) -> Reading:
    """What the vendor makes of the gates of one event together: the first that denies, asks or
    blocks decides; else the contexts of all of them reach the model."""
    for gate in runs:
        if gate.reading.kind in BLOCKING:
            return gate.reading
    contexts = [g.reading for g in runs if g.reading.context]
    rewrite = next((g.reading.input for g in runs if g.reading.input is not None), None)
    if len(runs) == 1 or not contexts:
        first = runs[0].reading
        return Reading(first.kind, first.said, first.reason, first.context, rewrite)
    return Reading("context", "; ".join(r.said for r in contexts), "",
                   "\n".join(r.context for r in contexts), rewrite)


def judge(case: Case, profile: Profile, runs: list[GateRun]) -> str:
    """Why the answer is not what the case expects ("" when it is)."""
    got = answer(runs)
    saw = f"got {got.kind}: {got.said}"
    want = case.expect
    if want in BLOCKING and got.kind != want:
        lacks = "" if has(profile, want) or want == "block" else \
            f" ({profile.vendor.display} has no {want} answer in its profile)"
        return f"expected {want}{lacks}, {saw}"
    if want == "context" and not got.context:
        return f"expected context, {saw}"
    if want == "allow" and got.kind in BLOCKING:
        return f"expected allow, {saw}"
    return _contains(case, got, saw) or _rewrite(case, profile, got, saw)


def _contains(case: Case, got: Reading, saw: str) -> str:
    if case.reason_contains is not None and case.reason_contains not in got.reason:
        return f"expected the reason to contain {case.reason_contains!r}, {saw}"
    if case.context_contains is not None and case.context_contains not in got.context:
        return f"expected the context to contain {case.context_contains!r}, {saw}"
    return ""


def _rewrite(case: Case, profile: Profile, got: Reading, saw: str) -> str:
    if case.input is None or got.input == case.input:
        return ""
    lacks = "" if profile.output.rewrite.stdout is not None else \
        f" ({profile.vendor.display} cannot apply a rewrite: the call is refused instead)"
    return f"expected the input {json.dumps(case.input)}{lacks}, {saw}"
