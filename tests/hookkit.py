"""Toolkit of the user-hook tests (tests/test_hooks.py).

A scenario is the shipped hookshape.toml with its [[tentacles]] removed and [[hooks]] added,
rendered from the current templates into a temp dir (a Tree). A Box is one private harness home
(readiness lease held, project armed: tests/conformance/kit.new_home) plus a marks dir where the
probe hook leaves what it saw: the event it got on stdin, the view it got in env, one line per run
in `ran`. What a probe does is said by files in the marks dir, per hook name: `<hook>.exit` (its
exit code), `<hook>.out` and `<hook>.err` (copied to stdout and stderr), `<hook>.hang` (it sleeps,
after writing its own pid and its child's to `<hook>.pids`).

The vendors' events are built from their profiles (the payload fields each one names) with the
conformance oracle's put(); the answers are read with hookshape.plan.outputs, never written out here.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests.conformance.kit import Home, absolute_argv, by_dialect, interpreters, new_home
from tests.conformance.oracle import put
from tests.shells import FAST, MATRIX, ROOT, InTurn, Shell, pipe_holders, shell
from tests.tentaclekit import patch_body

from hookshape.plan import outputs, plan
from hookshape.render import write as writer
from hookshape.spec.hooks import Group
from hookshape.spec.load import Loaded, load
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile, load_profiles
from hookshape.spec.types import Event

BASE_SPEC = ROOT / "hookshape.toml"
PROFILES: dict[str, Profile] = load_profiles()
VENDORS: tuple[str, ...] = tuple(PROFILES)
DASH = shell("dash")
SHELLS: tuple[Shell, ...] = tuple(s for s in MATRIX if s.available)
# the view's keys as the contract names them (env <PREFIX>_<KEY>; `dir` is <PREFIX>_HOOK_DIR)
VIEW = ("EVENT", "VENDOR", "TOOL", "TOOL_CLASS", "PATHS", "COMMAND", "CWD", "SESSION", "MESSAGE",
        "STOP_ACTIVE", "TOOL_INPUT", "TOOL_RESPONSE", "TRANSCRIPT", "PROMPT", "SOURCE", "NOTIFICATION",
        "SUBAGENT", "CUT", "HOOK", "HOOK_DIR")
PREFIX = "PD"
# vendor timeouts far above any deadline here: the spec's margin rule never gets in the way
VENDOR_TIMEOUT_MS = 600_000
# the gate's slow line, out of reach of a healthy probe on a loaded machine
SLOW_MS = "60000"

# the probe hook: records, then does what its marks files say (a small sh script, run by /bin/sh)
PROBE = "\n".join([
    "# a probe hook: the event and the view into $MARKS/<hook>/, then what $MARKS/<hook>.* say",
    'm=$MARKS/$PD_HOOK',
    'mkdir -p "$m"',
    'echo "$PD_HOOK" >>"$MARKS/ran"',
    'cat >"$m/stdin"',
    *(f'printf %s "${{{PREFIX}_{k}-<unset>}}" >"$m/{k}"' for k in VIEW),
    '[ ! -f "$m.out" ] || cat "$m.out"',
    '[ ! -f "$m.err" ] || cat "$m.err" >&2',
    'if [ -f "$m.hang" ]; then',
    '  sleep 30 &',
    '  echo "$$ $!" >"$m.pids"',
    '  wait',
    'fi',
    'code=0',
    '[ ! -f "$m.exit" ] || code=$(cat "$m.exit")',
    'exit "$code"',
    "",
])


def probe(name: str, event: str, **more: Any) -> dict[str, Any]:
    """A probe hook on an event (its own deadline is generous unless given)."""
    return {"name": name, "event": event, "run": ["sh", "{dir}/probe.sh"], "files": ["probe.sh"],
            "deadline_ms": 20_000, **more}


# ------------------------------------------------------------------------------ rendering --


def spec_text(hooks: list[dict[str, Any]], contract: dict[str, Any] | None = None,
              edit: Callable[[Any], None] | None = None) -> str:
    """The shipped spec, tentacles removed, these hooks added (every other section as shipped)."""
    doc = tomlkit.parse(BASE_SPEC.read_text(encoding="utf-8"))
    del doc["tentacles"]
    for vendor in doc["vendors"].values():
        vendor["timeout_ms"] = VENDOR_TIMEOUT_MS
    table = tomlkit.aot()
    for hook in hooks:
        item = tomlkit.table()
        item.update(hook)
        table.append(item)
    doc["hooks"] = table
    if contract:
        doc["contract"] = contract
    if edit:
        edit(doc)
    return tomlkit.dumps(doc)


def write_spec(folder: Path, hooks: list[dict[str, Any]], files: dict[str, str] | None = None,
               contract: dict[str, Any] | None = None,
               edit: Callable[[Any], None] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in {"probe.sh": PROBE, **(files or {})}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    spec = folder / "hookshape.toml"
    spec.write_text(spec_text(hooks, contract, edit))
    return spec


@dataclass(frozen=True)
class Tree:
    """A spec rendered like `hookshape render --out` (gates, adapters, hook files, configs)."""

    loaded: Loaded
    out: Path

    def group(self, event: str, detached: bool = False) -> Group:
        """The gate of the event's hooks (detached: of its async hooks)."""
        return next(g for g in self.loaded.spec.groups() if g.role == event and g.detached == detached)

    def gate(self, event: str, detached: bool = False) -> Path:
        return self.out / "bin" / self.group(event, detached).name

    def program(self, event: str) -> Path:
        """The awk program of the event's gate."""
        return self.out / "bin" / self.loaded.spec.harness.tentacle_dir / f"{self.group(event).name}.awk"

    def hook_dir(self, hook: str) -> Path:
        return self.out / "bin" / self.loaded.spec.harness.tentacle_dir / f"{hook}.d"

    def cell(self, event: str, vendor: str, answer: str = "") -> dict[str, str]:
        """The CAPABILITIES.json cell of this event's gate on a vendor."""
        cells = json.loads((self.out / "CAPABILITIES.json").read_text())["capabilities"]
        name = self.group(event).name
        return next(c for c in cells if c["tentacle"] == name and c["vendor"] == vendor
                    and c.get("answer", "") == answer)

    def copy(self, dest: Path) -> Tree:
        shutil.copytree(self.out, dest, symlinks=True)
        return Tree(self.loaded, dest)


def render(spec: Path, out: Path) -> Tree:
    loaded = load(spec)
    writer.write_plan(out, plan.build(loaded).artifacts)
    return Tree(loaded, out)


# ------------------------------------------------------------------------------- payloads --


def _steps(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


def event_doc(vendor: str, event: Event, cwd: Path | str, session: str = "sess-1") -> dict[str, Any]:
    """The fields every event of the vendor carries: session, cwd, event name (where it names
    one), the once-per-turn marker of a prompt event."""
    p = PROFILES[vendor].payload
    doc: dict[str, Any] = {}
    put(doc, _steps(p.session[0]), session)
    put(doc, _steps(p.cwd[0]), str(cwd))
    if p.event:
        put(doc, _steps(p.event), PROFILES[vendor].events.of(event))
    if event == "prompt":
        put(doc, _steps(p.prompt[0] if p.prompt else "prompt"), "do it")
        if p.turn_marker:
            put(doc, _steps(p.turn_marker), 0)
    return doc


def compact(value: Any) -> str:
    """A value as the view's JSON fields hold it: compact, plain ASCII."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def input_path(vendor: str, event: Event) -> str:
    """Where the vendor puts the tool's input on this event."""
    p = PROFILES[vendor].payload
    return p.tool_input_on.get(event, p.tool_input)


def tool_input_of(vendor: str, doc: dict[str, Any], event: Event = "pre_tool") -> str:
    """The <PREFIX>_TOOL_INPUT of a tool event built here."""
    value: Any = doc
    for step in _steps(input_path(vendor, event)):
        value = value[step]
    return compact(value)


def tool_doc(vendor: str, event: Event, tool: str, args: dict[str, Any], cwd: Path | str) -> dict[str, Any]:
    p = PROFILES[vendor].payload
    doc = event_doc(vendor, event, cwd)
    put(doc, _steps(p.tool_name), tool)
    put(doc, _steps(input_path(vendor, event)), args)
    return doc


def edit_doc(vendor: str, rel: str, cwd: Path | str, event: Event = "pre_tool",
             content: str = "x = 1\n") -> dict[str, Any]:
    """The vendor's first edit tool on one path (a patch body where that tool takes one)."""
    prof = PROFILES[vendor]
    tool = prof.tools.edit[0]
    if prof.payload.patch_field and "patch" in tool.lower():
        args: dict[str, Any] = {prof.payload.patch_field: patch_body(("Update", rel))}
    else:
        args = {prof.payload.path_fields[0]: rel, "content": content}
    return tool_doc(vendor, event, tool, args, cwd)


def shell_doc(vendor: str, command: str, cwd: Path | str, event: Event = "pre_tool") -> dict[str, Any]:
    prof = PROFILES[vendor]
    return tool_doc(vendor, event, prof.tools.shell[0], {prof.payload.command_field: command}, cwd)


MCP_SERVER = "gh"


def mcp_tool(vendor: str) -> str:
    fmt = PROFILES[vendor].tools.mcp_format
    return fmt.replace("{server}", MCP_SERVER).replace("{tool}", "create_issue")


def mcp_class(vendor: str) -> str:
    """The tool class of an MCP call: mcp:<server>, or other where the vendor's name format puts
    nothing before the server (the server cannot be told from the name)."""
    return f"mcp:{MCP_SERVER}" if PROFILES[vendor].tools.mcp_format.index("{server}") > 0 else "other"


def mcp_doc(vendor: str, cwd: Path | str) -> dict[str, Any]:
    return tool_doc(vendor, "pre_tool", mcp_tool(vendor), {"title": "a bug"}, cwd)


def stop_doc(vendor: str, message: str, cwd: Path | str, event: Event = "stop",
             active: bool = False) -> dict[str, Any]:
    p = PROFILES[vendor].payload
    doc = event_doc(vendor, event, cwd)
    if p.stop_text:
        put(doc, _steps(p.stop_text[0]), message)
    if p.stop_active:
        put(doc, _steps(p.stop_active), active)
    return doc


def raw(doc: dict[str, Any]) -> bytes:
    """An event as a vendor might send it: pretty-printed, UTF-8 as it is, a trailing newline."""
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()


# -------------------------------------------------------------------------------- running --


@dataclass(frozen=True)
class Run:
    code: int
    out: bytes
    err: bytes
    seconds: float

    def brief(self) -> str:
        return f"rc={self.code} stdout={self.out[:400]!r} stderr={self.err[:400]!r}"


class Box:
    """One harness home with its armed project and the probe's marks dir; `bare`: an empty home
    and a project nothing arms (for a spec that needs neither)."""

    def __init__(self, base: Path, interps: dict[str, str], bare: bool = False) -> None:
        if bare:
            self.home = Home(base / "home", base / "project")
            for d in (self.home.path, self.home.armed, base / "user"):
                d.mkdir(parents=True)
        else:
            self.home = new_home(base)
        self.marks = base / "marks"
        self.marks.mkdir()
        self.interps = interps

    @property
    def project(self) -> Path:
        return self.home.armed

    @property
    def user(self) -> Path:
        """The user's HOME."""
        return self.home.path.parent / "user"

    def do(self, hook: str, *, exit: int | None = None, out: str | None = None,
           err: str | None = None, hang: bool = False) -> None:
        for ext, value in (("exit", exit), ("out", out), ("err", err)):
            if value is not None:
                (self.marks / f"{hook}.{ext}").write_text(f"{value}")
        if hang:
            (self.marks / f"{hook}.hang").write_text("")

    def ran(self) -> list[str]:
        p = self.marks / "ran"
        return p.read_text().split() if p.exists() else []

    def stdin(self, hook: str) -> bytes:
        return (self.marks / hook / "stdin").read_bytes()

    def view(self, hook: str) -> dict[str, str]:
        return {k: (self.marks / hook / k).read_text() for k in VIEW}

    def pids(self, hook: str) -> list[int]:
        p = self.marks / f"{hook}.pids"
        end = time.monotonic() + 5
        while time.monotonic() < end:
            words = p.read_text().split() if p.exists() else []
            if len(words) == 2:
                return [int(w) for w in words]
            time.sleep(0.02)
        raise AssertionError(f"{hook} never wrote its pids")

    def env(self, spec: Spec, vendor: str | None, sh: Shell, path: str | None = None,
            **extra: str) -> dict[str, str]:
        """The gate's environment as a vendor would set it (the provider), plus this home, the
        interpreter of the adapter (the shell under test), the marks dir and a far slow line."""
        h = spec.harness
        env = {"PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
               "HOME": str(self.user), "LANG": "C.UTF-8",
               h.home_env: str(self.home.path), "MARKS": str(self.marks),
               h.shell_env: self.interps[sh.name], spec.gate.slow_env: SLOW_MS, **extra}
        if vendor:
            env[h.provider_env] = vendor
        return env

    def run(self, tree: Tree, event: str, payload: bytes, vendor: str | None, sh: Shell = DASH, *,
            path: str | None = None, timeout: float = 60, detached: bool = False,
            before_cleanup: Callable[[], None] | None = None, held: list[str] | None = None,
            no_stderr: bool = False, **extra: str) -> Run:
        """Run the event's gate (under `sh`, its adapter under the same shell) in the armed
        project, in a process group of its own that is killed afterwards (after
        `before_cleanup` looked). With `held`: the gate's answer must fit a pipe; once the gate
        has exited, `held` gets every process that still holds the vendor's stdout or stderr
        open (the vendor would wait for them). With `no_stderr`: the gate starts with fd 2 closed."""
        start = time.monotonic()
        env = self.env(tree.loaded.spec, vendor, sh, path, **extra)
        argv = [*absolute_argv(sh), str(tree.gate(event, detached))]
        if no_stderr:
            argv = ["/bin/sh", "-c", 'exec "$@" 2>&-', "sh", *argv]
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                cwd=self.project, start_new_session=True)
        try:
            if held is not None:
                assert proc.stdin and proc.stdout and proc.stderr
                proc.stdin.write(payload)
                proc.stdin.close()
                proc.stdin = None  # (communicate would flush it)
                proc.wait(timeout=timeout)
                held += pipe_holders(proc.stdout.fileno(), proc.stderr.fileno())
            out, err = proc.communicate(None if held is not None else payload, timeout=timeout)
            took = time.monotonic() - start
            if before_cleanup is not None:
                before_cleanup()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return Run(proc.returncode, out, err, took)


# ------------------------------------------------------------------------------- fixtures --


@pytest.fixture(scope="session")
def interps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The one-word interpreter of each installed shell, for the gate's shell variable."""
    return interpreters(tmp_path_factory.mktemp("interp"))


@pytest.fixture
def box(tmp_path: Path, interps: dict[str, str]) -> Box:
    return Box(tmp_path, interps)


# -------------------------------------------------------------------------------- answers --


def allow_line(vendor: str, event: str) -> bytes:
    """What a gate prints when it allows: the vendor's allow answer on a pre-tool gate, else
    nothing."""
    if event != "pre_tool":
        return b""
    text = outputs.stdout_text(PROFILES[vendor], "allow", "", "pre_tool")
    return (text + "\n").encode() if text else b""


def assert_allowed(r: Run, vendor: str, event: str) -> None:
    assert r.code == 0, r.brief()
    assert r.out == allow_line(vendor, event), r.brief()
    assert r.err == b"", r.brief()


def one_object(out: bytes) -> Any:
    assert out.endswith(b"\n") and out.count(b"\n") == 1, f"stdout is not one line: {out[:400]!r}"
    return json.loads(out.decode("utf-8"))


def answer(r: Run, vendor: str, kind: outputs.Kind, event: Event) -> str | None:
    """The text of the vendor's answer of this kind in a run (None: the run gave no such
    answer), in whichever dialect the profile says: a JSON object on stdout (exit 0) or the text
    on stderr (exit 2 for a blocking answer)."""
    prof = PROFILES[vendor]
    if outputs.on_stderr(prof, kind, event):
        assert r.out == b"", r.brief()
        assert r.code == (2 if kind in outputs.BLOCKING else 0), r.brief()
        return r.err.decode().removesuffix("\n") if r.err else None
    if r.out == b"":
        return None
    assert r.code == 0, r.brief()
    assert r.err == b"", r.brief()
    return outputs.read(prof, kind, one_object(r.out), event, exact=True)


def says(vendor: str, kind: outputs.Kind, event: Event) -> bool:
    """Whether the vendor has an answer of this kind on this event at all."""
    return outputs.resolved(PROFILES[vendor], kind, event) is not None


def shells_by_dialect(turn: InTurn, *cells: tuple[outputs.Kind, Event]) -> list[tuple[Shell, str]]:
    """(sh, vendor) params of a test of answers through a gate. The awk of the gate makes the
    answer, the same under every shell; the shell only prints the fields it gets (a stdout line,
    a stderr line, the verdict code). So dash meets every vendor, and every other shell one
    vendor of each dialect of these cells, the vendors of a dialect in turn over the shells.
    Fast mode (dash only): one vendor, in turn over the module's tests (`turn`)."""
    if FAST:
        return [(SHELLS[0], v) for v in turn.take()]
    return [(sh, v) for sh in SHELLS for v in by_dialect(sh, *cells)]
