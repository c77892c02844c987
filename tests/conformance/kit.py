"""Infrastructure of the conformance suite: render, shells, parser environments, harness homes,
running a script directly or through its gate, and the stdout contract of every vendor.

Nothing here knows what a tentacle should answer: that is oracle.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from tests.farms import busybox_farm, farm
from tests.shells import AWK_PREFER, FIXTURES, MATRIX, ROOT, Shell, tentacle_awk

from hookshape.plan import outputs
from hookshape.spec.contract import VIEW, Contract
from hookshape.spec.profiles import load_profiles

__all__ = ["FIXTURES", "MATRIX", "ROOT", "VENDORS", "Shell"]

# every vendor with a profile: the matrix crosses each one's payloads with every shell
PROFILES = load_profiles()
# A gate reads its tentacle into its own shell (`.`) unless PD_HOOK_SHELL names an interpreter,
# which it then execs on the tentacle: the gate cells of every other vendor name one (the
# shell of the cell), so each shell runs its tentacles both ways.
VIA_SHELL_ENV = frozenset(sorted(PROFILES)[::2])
VENDORS = tuple(PROFILES)

CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
SPEC_PATH = ROOT / "hookshape.toml"
SPEC: dict[str, Any] = tomllib.loads(SPEC_PATH.read_text())
MSG: dict[str, str] = SPEC["messages"]
NAMES: dict[str, str] = {t["role"]: t["name"] for t in SPEC["tentacles"]}
ROLES: tuple[str, ...] = tuple(NAMES)
TENTACLE_DIR: str = SPEC["harness"]["tentacle_dir"]
STATE_DIR: str = SPEC["harness"]["state_dir"]
GATE = SPEC["gate"]
BUILD = ROOT / "build"
# the view a user hook is given: [contract] key -> environment variable name
CONTRACT = Contract.model_validate(SPEC.get("contract", {}))
VIEW_ENV: dict[str, str] = {k: CONTRACT.env(k, SPEC["harness"]["prefix"]) for k in VIEW}

# the parser environments, in report order
ENVS = ("normal", "busybox")
# the shell every fixture and scenario runs under (what the awk programs decide is the same under
# every shell; the others run the events where the shell can change the result)
REFERENCE = "dash"
MODES = ("direct", "gate")

# the gate's timing is tests/test_gate.py's business; here a loaded CI box must never turn a
# verdict into a timeout, so the deadline and slow line are raised (well below the 5 s vendor
# timeout the config writes, which the gate never sees)
GATE_TIMING = {GATE["deadline_env"]: "4000", GATE["slow_env"]: "4000"}


# ------------------------------------------------------------------------ output dialects --
#
# The awk program of a tentacle or adapter makes the answer, the same under every shell; the shell
# only prints the fields it gets (a stdout line, a stderr line, the verdict code) and writes the
# state the program names. So a shell can change a vendor's result only through the vendor's
# output dialect: the reference shell meets every vendor, every other shell one vendor of each
# dialect, the vendors of a dialect in turn over the shells.

# the answers a script of each role can give (a gate adds the vendor's allow answer)
ROLE_ANSWERS: dict[str, tuple[outputs.Kind, ...]] = {
    "pre_tool": ("deny", "warn", "allow"),
    "prompt": ("context", "allow"),
    "stop": ("stop", "suggest", "allow"),
    "post_tool": ("allow",),
}


def dialect(vendor: str, *cells: tuple[outputs.Kind, Any]) -> tuple[tuple[bool, bool], ...]:
    """What a script's shell prints for these answers of the vendor: whether it has the answer
    at all and whether it is said on stderr (with the verdict code) rather than on stdout."""
    prof = PROFILES[vendor]
    return tuple((outputs.resolved(prof, kind, event) is not None, outputs.on_stderr(prof, kind, event))
                 for kind, event in cells)


def by_dialect(sh: Shell, *cells: tuple[outputs.Kind, Any], more: Callable[[str], Any] = lambda v: "") -> list[str]:
    """The vendors a test of these answers runs under this shell: all under the reference shell;
    under any other one vendor of each dialect (split further by `more`), the vendors of a
    dialect in turn over the shells."""
    if sh.name == REFERENCE:
        return list(VENDORS)
    groups: dict[Any, list[str]] = {}
    for v in VENDORS:
        groups.setdefault((dialect(v, *cells), more(v)), []).append(v)
    turn = MATRIX.index(sh)
    return sorted(members[turn % len(members)] for _, members in sorted(groups.items()))


def role_vendors(sh: Shell, role: str) -> list[str]:
    """The vendors a matrix cell of this shell and role runs (by_dialect of the role's answers;
    the stop tentacle's shell also writes the vendor's loop guard, a counter or a flag: that
    splits its dialects too)."""
    return by_dialect(sh, *[(kind, role) for kind in ROLE_ANSWERS[role]],
                      more=lambda v: PROFILES[v].output.stop_guard if role == "stop" else "")


def fixtures(vendor: str) -> list[Path]:
    return sorted((FIXTURES / vendor).glob("*.json"))


# ------------------------------------------------------------------------------- rendering --


@dataclass(frozen=True)
class Rendered:
    """A rendered tree: gates in bin/, tentacles (or the adapters of user hooks) in
    bin/<tentacle_dir>/, one of each per role, by the names of `names`."""

    root: Path
    gate_error: str | None = None  # why the gates are missing (the template was not there)
    names: dict[str, str] = field(default_factory=lambda: dict(NAMES))  # role -> script name
    groups: frozenset[str] = frozenset()  # the roles whose gate runs user hooks (no tentacle)

    def tentacle(self, role: str) -> Path:
        """A built-in job's tentacle; for a gate of user hooks, its gate (it runs them itself)."""
        if role in self.groups:
            return self.gate(role)
        return self.root / "bin" / TENTACLE_DIR / self.names[role]

    def gate(self, role: str) -> Path:
        return self.root / "bin" / self.names[role]

    @cached_property
    def digest(self) -> str:
        """Content hash of the rendered scripts (tells renders of different templates apart)."""
        h = hashlib.sha256()
        for p in self.scripts():
            h.update(p.read_bytes())
        return h.hexdigest()[:12]

    def scripts(self) -> list[Path]:
        out = [self.tentacle(r) for r in self.names if r not in self.groups]
        if self.gate_error is None:
            out += [self.gate(r) for r in self.names]
        return out


@contextmanager
def templates_at(templates: Path | None) -> Iterator[None]:
    """Point the generator's template loader at another templates/ tree (in this process)."""
    from hookshape.plan import jinja as hs_shell

    if templates is None:
        yield
        return
    saved = hs_shell.templates_dir
    hs_shell.templates_dir = lambda: templates  # type: ignore[assignment]
    try:
        yield
    finally:
        hs_shell.templates_dir = saved  # type: ignore[assignment]


def render(out: Path, templates: Path | None = None, spec: Path = SPEC_PATH) -> Rendered:
    """Render `spec` (default: the default spec) into `out` (like `hookshape render --out`), from
    `templates` (default: the repository's). Until the gate template exists, only the tentacles
    render."""
    from hookshape.errors import HookshapeError
    from hookshape.plan import plan
    from hookshape.render import write as writer
    from hookshape.spec import load as loader

    loaded = loader.load(spec)
    names = {unit.role: unit.name for unit in loaded.spec.gates()}
    groups = frozenset(g.role for g in loaded.spec.groups())
    with templates_at(templates):
        try:
            writer.write_plan(out, plan.build(loaded).artifacts)
            return Rendered(out, names=names, groups=groups)
        except HookshapeError as exc:
            if "gate" not in str(exc):
                raise
            gate_error = str(exc)
        arts = [a for t in loaded.spec.tentacles for a in plan.tentacle_artifacts(loaded, t)]
        writer.write_plan(out, [*arts, plan.awk_lib_artifact(loaded, arts)])
    return Rendered(out, gate_error, names, groups)


def spec_with_hooks(dest: Path, hooks: list[dict[str, Any]]) -> Path:
    """The default spec with its [[tentacles]] replaced by these [[hooks]], written to
    dest/hookshape.toml."""
    import tomli_w

    data = dict(SPEC)
    data.pop("tentacles", None)
    data["hooks"] = hooks
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / "hookshape.toml"
    path.write_text(tomli_w.dumps(data))
    return path


# ---------------------------------------------------------------------------------- shells --


def missing_shells() -> list[str]:
    return [s.name for s in MATRIX if not s.available]


@cache
def absolute_argv(sh: Shell) -> tuple[str, ...]:
    """The shell's argv with argv[0] absolute (the busybox-only PATH cannot find it)."""
    exe = shutil.which(sh.argv[0])
    assert exe, f"{sh.name} is not installed"
    return (exe, *sh.argv[1:])


def interpreters(dest: Path) -> dict[str, str]:
    """One word per shell for the gate's interpreter variable: the gate runs
    `"$PD_HOOK_SHELL" <tentacle>`, so a shell that needs arguments (busybox sh, bash --posix,
    yash --posix, zsh --emulate sh --no-rcs) gets a two-line exec wrapper."""
    dest.mkdir(parents=True, exist_ok=True)
    out = {}
    for sh in MATRIX:
        if not sh.available:
            continue
        argv = absolute_argv(sh)
        if len(argv) == 1:
            out[sh.name] = argv[0]
            continue
        wrapper = dest / sh.name
        words = " ".join(shquote(a) for a in argv)
        wrapper.write_text(f'#!/bin/sh\nexec {words} "$@"\n')
        wrapper.chmod(0o755)
        out[sh.name] = str(wrapper)
    return out


def shquote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


# ------------------------------------------------------------------- parser environments --

def make_paths(base: Path) -> dict[str, str | None]:
    """PATH for each parser environment (None: that environment cannot be built here)."""
    return {"normal": os.environ.get("PATH", "/usr/bin:/bin"),
            "busybox": busybox_farm(base / "busybox") if shutil.which("busybox") else None}


def env_notes(paths: dict[str, str | None]) -> list[str]:
    """What each environment really offers (for the summary)."""
    notes = []
    for name, path in paths.items():
        if path is None:
            notes.append(f"{name}: unavailable (busybox missing)")
            continue
        has = [t for t in ("jq", "python3", "awk") if shutil.which(t, path=path)]
        awk = tentacle_awk(path)
        awk_real = os.path.realpath(awk) if awk else "-"
        notes.append(f"{name}: has {', '.join(has) or 'none of jq/python3/awk'}; "
                     f"the tentacles' awk -> {awk_real}")
    return notes


def farm_without_preferred_awks(dest: Path) -> str:
    """The system PATH as a farm minus the spec's preferred awks, so that an `awk` put in front
    of it is the one the tentacles run."""
    return farm(dest, AWK_PREFER)


# ----------------------------------------------------------------------------- homes, runs --


@dataclass(frozen=True)
class Run:
    """One run. A gate's allow answer (profile output.allow, printed on every allow path of a
    pre-tool gate) is taken off `out` and noted in `allowed`, so an allow reads as silence."""

    code: int
    out: bytes
    err: bytes
    allowed: bool = False

    def brief(self) -> str:
        return f"rc={self.code} stdout={self.out[:400]!r} stderr={self.err[:400]!r}"


@dataclass
class Home:
    """A private harness home (PD_HOME) plus HOME, and the armed project dir for the gate."""

    path: Path
    armed: Path

    @property
    def matrix(self) -> Path:
        return self.path / SPEC["matrix"]["file_default"]

    @property
    def state(self) -> Path:
        return self.path / STATE_DIR

    def breaker_state(self, role: str, names: dict[str, str] = NAMES) -> Path:
        return self.path / GATE["health_dir"] / f"{names[role]}.state"


_counter = [0]


def new_home(base: Path, matrix: str | None = None) -> Home:
    """A fresh home: the readiness lease (ready == pid, fresh heartbeat) and the armed roots are
    always laid out (the gate needs them; a tentacle ignores them)."""
    _counter[0] += 1
    root = base / f"h{_counter[0]}"
    home = root / "pd"
    armed = root / "project"
    (home / STATE_DIR).mkdir(parents=True)
    armed.mkdir()
    (root / "user").mkdir()
    (home / GATE["ready_file"]).write_text("4242\n")
    (home / GATE["pid_file"]).write_text("4242\n")
    (home / GATE["heartbeat_file"]).write_text("")
    roots = home / GATE["armed_roots_file"]
    roots.parent.mkdir(parents=True, exist_ok=True)
    roots.write_text(os.path.realpath(armed) + "\n")
    if matrix is not None:
        (home / SPEC["matrix"]["file_default"]).write_text(matrix)
    return Home(home, armed)


@dataclass(frozen=True)
class Ctx:
    """How one cell runs a script: which tree, shell, PATH and mode."""

    rendered: Rendered
    shell: Shell
    env_name: str
    path: str
    mode: str
    interp: str  # the one-word interpreter for the gate's PD_HOOK_SHELL (VIA_SHELL_ENV)
    extra: dict[str, str] = field(default_factory=dict)

    def argv(self, role: str) -> list[str]:
        script = self.rendered.gate(role) if self.mode == "gate" else self.rendered.tentacle(role)
        return [*absolute_argv(self.shell), str(script)]

    def invoke(self, role: str, payload: bytes, home: Home, vendor: str | None,
               env: dict[str, str] | None = None, timeout: float = 60) -> Run:
        full = {
            "PATH": self.path,
            "HOME": str(home.path.parent / "user"),
            "LANG": "C.UTF-8",
            "PD_HOME": str(home.path),
            "PD_ACTOR": "alice",
            **self.extra,
        }
        if vendor:
            full["PD_HOOK_PROVIDER"] = vendor
        cwd = None
        if self.mode == "gate":
            if vendor in VIA_SHELL_ENV:
                full[SPEC["harness"]["shell_env"]] = self.interp
            full.update(GATE_TIMING)
            cwd = home.armed
        full.update(env or {})
        proc = subprocess.run(self.argv(role), input=payload, capture_output=True, env=full, cwd=cwd,
                              timeout=timeout, check=False)
        return allow_taken(Run(proc.returncode, proc.stdout, proc.stderr), role, vendor, self.mode)


# ------------------------------------------------------------------------ stdout contract --

EVENTS = {v: {r: p.events.of(r) for r in ("prompt", "pre_tool", "post_tool", "stop")}  # type: ignore[arg-type]
          for v, p in PROFILES.items()}

# the answers each tentacle may give (kinds of a profile's [output]); what each looks like on a
# vendor is its profile's answer, read by hookshape.plan.outputs (a gate's breaker notice is a context)
SHAPES: dict[str, tuple[outputs.Kind, ...]] = {
    "prompt": ("context",), "pre_tool": ("deny", "context", "warn", "allow"),
    "post_tool": ("context",), "stop": ("stop", "suggest"),
}
BLOCKING = {"deny", "stop"}


def shape_of(vendor: str, role: str, obj: object) -> str | None:
    """The kind of answer a parsed stdout object is on this vendor for this role (None: none);
    exactly the profile's shape, with a non-empty text."""
    for kind in SHAPES[role]:
        text = outputs.read(PROFILES[vendor], kind, obj, role, exact=True)
        if text is not None and (text != "" or kind == "allow"):
            return kind
    return None


def _no_dup_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys {keys}")
    return dict(pairs)


def parse_stdout(vendor: str, role: str, out: bytes) -> tuple[Any, str | None, list[str]]:
    """(object or None, shape, problems): stdout must be empty, or exactly one JSON object on
    one line (strict UTF-8, no duplicate keys) of a shape this vendor accepts from this role."""
    if out == b"":
        return None, None, []
    problems = []
    if not out.endswith(b"\n") or out.count(b"\n") != 1:
        problems.append("stdout is not exactly one line")
    try:
        obj = json.loads(out.decode("utf-8"), object_pairs_hook=_no_dup_keys)
    except (UnicodeDecodeError, ValueError) as exc:
        return None, None, [*problems, f"stdout is not one JSON value: {exc}"]
    shape = shape_of(vendor, role, obj)
    if shape is None:
        problems.append(f"stdout is not a {vendor} {role} answer ({SHAPES[role]})")
    return obj, shape, problems


def allow_answer(vendor: str | None, role: str) -> bytes:
    """The line a vendor's pre-tool gate prints when it allows ("" when it prints nothing)."""
    if vendor is None or vendor not in PROFILES or role != "pre_tool":
        return b""
    text = outputs.stdout_text(PROFILES[vendor], "allow", "", "pre_tool")
    return (text + "\n").encode() if text else b""


def allow_taken(run: Run, role: str, vendor: str | None, mode: str) -> Run:
    """A gate run's allow answer off stdout (it must be there when the gate allowed: a gate of
    a vendor with an allow answer that printed nothing at all is left as it is, and fails the
    caller's check of an allow)."""
    line = allow_answer(vendor, role) if mode == "gate" else b""
    if line and run.out == line:
        return Run(run.code, b"", run.err, allowed=True)
    return run
