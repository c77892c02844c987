"""Toolkit of the tentacle tests (tests/test_tentacle_*.py).

Renders the four tentacles from the *current* templates into a temp dir (so the tests test the
templates, never a stale dist/), runs them as subprocesses under a shell of the matrix with a
private harness home, builds vendor payloads, states the expected answers from the spec's
messages, and builds the degraded PATH farms (busybox only; another awk in front).

Every run checks the stdout contract on the way: empty, or exactly one JSON object on one line
of valid UTF-8.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.farms import busybox_farm, farm
from tests.scratch import short_root
from tests.shells import AWK_PREFER, CORE, FIXTURES, ROOT, VENDORS, Shell, shell

from hookshape.plan import outputs
from hookshape.plan.jinja import codes
from hookshape.spec.load import load
from hookshape.spec.profiles import load_profiles

__all__ = ["CORE", "FIXTURES", "VENDORS"]

SPEC_PATH = ROOT / "hookshape.toml"
SPEC = tomllib.loads(SPEC_PATH.read_text())
MSG = SPEC["messages"]
HEADER = MSG["sitrep_header"]
NAMES = {t["role"]: t["name"] for t in SPEC["tentacles"]}
ROLES = tuple(NAMES)
STDIN_MAX = SPEC["harness"]["stdin_max_bytes"]
SESSION_MAX = SPEC["harness"]["session_key_max"]
STATE = SPEC["harness"]["state_dir"]
PHEROMONE_TTL = SPEC["matrix"]["pheromone_ttl_s"]
BLOCK_TTL = SPEC["stop"]["block_ttl_s"]
MAX_ENTRIES = SPEC["prompt"]["max_entries"]
MAX_BYTES = SPEC["prompt"]["max_bytes"]

SITREP_CONTRACT = MSG["sitrep_contract"] + "\n" + HEADER
STOP_DIRECTIVE = MSG["stop_directive"] + "\n" + HEADER
STOP_SUGGEST = MSG["stop_suggest"] + "\n" + HEADER

PROFILES = load_profiles()
# the private exit codes of a job under its gate (verdict on stderr, verdict as JSON, lost, ...)
CODES = codes(load(SPEC_PATH).spec)
PROMPT_EVENT = {v: p.events.prompt for v, p in PROFILES.items()}
PRE_EVENT = {v: p.events.pre_tool for v, p in PROFILES.items()}
POST_EVENT = {v: p.events.post_tool for v, p in PROFILES.items()}
STOP_EVENT = {v: p.events.stop for v, p in PROFILES.items()}


def _main_edit_tool(vendor: str) -> str:
    """The edit tool p_edit builds: the patch tool where the profile has a patch field (Codex),
    else the one that writes a whole file."""
    edit = PROFILES[vendor].tools.edit
    if PROFILES[vendor].payload.patch_field:
        return edit[0]
    return next((t for t in edit if "write" in t.lower()), edit[0])


# the vendor tables of the payload builders, from the profiles
EDIT_TOOL = {v: _main_edit_tool(v) for v in VENDORS}
SHELL_TOOL = {v: PROFILES[v].tools.shell[0] for v in VENDORS}
MCP_TOOL = {v: PROFILES[v].tools.mcp_format.format(server=SPEC["halt"]["mcp_servers"][0], tool="lock") for v in VENDORS}
SHELL_IDS = [s.name for s in CORE]


# ---------------------------------------------------------------------------------------------
# rendering


def render(out: Path, spec: Path = SPEC_PATH, profile_dirs: list[Path] | None = None) -> Path:
    """Render the tentacles (and the gates once their template exists) under out; returns the
    tentacle directory (out/bin/<tentacle_dir>)."""
    from hookshape.plan.artifacts import script_artifacts
    from hookshape.spec.load import load

    loaded = load(spec, profile_dirs)
    for a in script_artifacts(loaded):
        dest = out / a.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(a.data)
        dest.chmod(a.mode)
    return out / "bin" / loaded.spec.harness.tentacle_dir


@pytest.fixture(scope="session")
def squid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tentacle directory rendered from the current templates (one per xdist worker)."""
    return render(tmp_path_factory.mktemp("render"))


# ---------------------------------------------------------------------------------------------
# PATH farms


@pytest.fixture(scope="session")
def farms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PATH values: the full one, busybox only, and two with another awk (mawk, the
    one-true-awk) in front."""
    base = tmp_path_factory.mktemp("farms")
    out = {
        "full": os.environ.get("PATH", "/usr/bin:/bin"),
        "busybox-only": busybox_farm(base / "busybox"),
    }
    for awk in ("mawk", "original-awk"):
        target = shutil.which(awk)
        if target:
            # without the spec's preferred awks: a tentacle would run one of those instead
            others = tuple(a for a in AWK_PREFER if a != awk)
            out[f"awk={awk}"] = farm(base / awk, drop=("jq", *others), swap={"awk": target})
    return out


@pytest.fixture(scope="session")
def awk_paths(farms: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PATH values whose tentacle awk is busybox, the one-true-awk, mawk or gawk."""
    out = {k: v for k, v in farms.items() if k in ("busybox-only", "awk=original-awk", "awk=mawk")}
    gawk = shutil.which("gawk")
    if gawk:
        out["awk=gawk"] = farm(tmp_path_factory.mktemp("gawk"), drop=("jq", "mawk"), swap={"awk": gawk})
    return out


# ---------------------------------------------------------------------------------------------
# running


@dataclass(frozen=True)
class Run:
    code: int
    out: bytes
    err: bytes

    @property
    def json(self) -> dict[str, Any] | None:
        return stdout_object(self.out)

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", "replace")


def stdout_object(out: bytes) -> dict[str, Any] | None:
    """The stdout contract: nothing, or exactly one JSON object on one line (valid UTF-8)."""
    if out == b"":
        return None
    assert out.endswith(b"\n") and out.count(b"\n") == 1, f"stdout is not one line: {out[:400]!r}"
    text = out.decode("utf-8")  # strict: invalid UTF-8 fails here
    obj = json.loads(text)
    assert isinstance(obj, dict), f"stdout is not a JSON object: {text[:400]!r}"
    return obj


def shell_path(sh: Shell) -> list[str]:
    exe = shutil.which(sh.argv[0])
    assert exe, f"{sh.name} is not installed"
    return [exe, *sh.argv[1:]]


def run_script(script: Path, payload: bytes, sh: Shell, env: dict[str, str], cwd: Path,
               timeout: float = 60, mem_limit: int | None = None) -> Run:
    """Run in a process group of its own: a timeout kills the tentacle's whole tree (the
    shell's subshell and awk too, never left behind). mem_limit caps the address space."""

    def limits() -> None:
        if mem_limit:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    proc = subprocess.Popen([*shell_path(sh), str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True,
                            preexec_fn=limits if mem_limit else None)
    try:
        out, err = proc.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers of this run only
    return Run(proc.returncode, out, err)


class Pd:
    """One private harness: home, project dir, env, matrix helpers and a runner."""

    def __init__(self, root: Path, squid: Path, sh: Shell) -> None:
        self.root = root
        self.squid = squid
        self.sh = sh
        self.home = root / "pdhome"
        self.home.mkdir()
        self.proj = root / "proj"
        self.proj.mkdir()
        (root / "userhome").mkdir()
        self.env: dict[str, str] = {"PD_HOME": str(self.home), "HOME": str(root / "userhome"),
                                    "LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    # -- files
    @property
    def state(self) -> Path:
        return self.home / STATE

    @property
    def matrix(self) -> Path:
        return self.home / "matrix.env"

    @property
    def halt_file(self) -> Path:
        return self.home / "HALT"

    @property
    def distress(self) -> Path:
        return self.home / "DISTRESS"

    def marker(self, session: str) -> Path:
        return self.state / SPEC["stop"]["marker_dir"] / f"{session}.blocked"

    def add_matrix(self, *lines: str) -> None:
        with self.matrix.open("a", encoding="utf-8") as f:
            for line in lines:
                f.write(line + "\n")

    def lock(self, path: str | Path, holder: str, form: str = "seed") -> None:
        """A lock line as the seed harness's writer puts it (form "seed"), or under the hashed
        key hookshape's own writers use (form "hashed")."""
        key = seed_suffix(str(path)) if form == "seed" else suffix(str(path))
        self.add_matrix(f'PD_LOCK_{key}="{mq(holder)}"')

    def alert(self, ident: str, text: str) -> None:
        self.add_matrix(f'PD_ALERT_{ident}="{mq(text)}"')

    def trail(self, path: str | Path, note: str = "edited", actor: str = "bob",
              age: float | None = 0, n: int = 1) -> str:
        """A pheromone line; age in seconds before now (None: no ts tag). Returns its ts."""
        parts = [str(path), note, f"actor:{actor}"]
        ts = ""
        if age is not None:
            ts = iso(time.time() - age)
            parts.append(f"ts:{ts}")
        self.add_matrix(f'PD_PHEROMONE_{suffix(str(path))}_{n}="{mq(" | ".join(parts))}"')
        return ts

    def halt(self, reason: str = "maintenance window") -> None:
        self.halt_file.write_text(reason + "\nsecond line is not the reason\n")

    # -- running
    def run(self, role: str, payload: bytes | str | dict[str, Any], *, env: dict[str, str | None] | None = None,
            code: int | None = 0, cwd: Path | None = None, sh: Shell | None = None,
            mem_limit: int | None = None, timeout: float = 60) -> Run:
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        data = payload.encode() if isinstance(payload, str) else payload
        full = dict(self.env)
        for k, v in (env or {}).items():
            if v is None:
                full.pop(k, None)
            else:
                full[k] = v
        r = run_script(self.squid / NAMES[role], data, sh or self.sh, full, cwd or self.root, timeout, mem_limit)
        stdout_object(r.out)
        if code is not None:
            assert r.code == code, f"exit {r.code} (want {code}); stderr: {r.stderr[:600]}"
        return r


# The awk programs are the same under every shell; the shell reads stdin, runs the fail-open outer
# layer, writes the state files and quotes what it prints. A test of awk logic (paths, dials,
# halt and protect rules, lock matching, parsing) runs under dash only (ON_DASH, or a module's
# own `sh` fixture): tests/conformance runs every tentacle under every shell of the matrix.
DASH = shell("dash")
ON_DASH = pytest.mark.parametrize("sh", [DASH], ids=["dash"])
ON_CORE = pytest.mark.parametrize("sh", CORE, ids=SHELL_IDS)


def by_vendor(values: list[Any], ids: Any = None) -> list[Any]:
    """Each value once, the vendors in turn (pytest params of (vendor, *value)).

    Where the vendor only decides where its payload keeps a field and the shape of the answer
    (a command, a path, a dial case, a control file name), a list of values is not crossed with
    every vendor: each value runs once and each vendor meets every len(VENDORS)-th of them."""
    out = []
    for i, value in enumerate(values):
        vendor = VENDORS[i % len(VENDORS)]
        vals = value if isinstance(value, tuple) else (value,)
        name = ids(value) if ids else "-".join(str(v) for v in vals)
        out.append(pytest.param(vendor, *vals, id=f"{vendor}-{name}"))
    return out


@pytest.fixture(params=CORE, ids=SHELL_IDS)
def sh(request: pytest.FixtureRequest) -> Shell:
    shell: Shell = request.param
    if not shell.available:
        pytest.fail(f"{shell.name} is not installed (the core shells are required)")
    return shell


@pytest.fixture
def pd(squid: Path, sh: Shell) -> Iterator[Pd]:
    """A harness under a short private dir (scratch.short_root: plain, readable lock keys)."""
    with short_root() as root:
        yield Pd(root, squid, sh)


# ---------------------------------------------------------------------------------------------
# matrix values, time


PLAIN_PATH = re.compile(rb"(/[a-z0-9]+)*/[a-z0-9]+\.[a-z0-9]+")
B32 = "0123456789ABCDEFGHIJKLMNOPQRSTUV"


def suffix(path: str, cut: int | None = None) -> str:
    """The lock key suffix of a path (docs/default-harness.md, "Lock keys"), as pa_suffix computes it: a plain path
    (lower-case [a-z0-9] segments, one dot, in the last segment) that fits keeps the readable key
    (/repo/src/auth.ts -> REPO_SRC_AUTH_TS); any other path gets the tail of the upper-cased form
    (non-alphanumeric runs -> _), "__" and two 31-bit polynomial hashes of its bytes."""
    cut = SPEC["matrix"]["suffix_max"] if cut is None else cut
    raw = path.encode("utf-8", "surrogateescape")
    if PLAIN_PATH.fullmatch(raw) and len(raw) <= cut + 1:
        return raw[1:].replace(b"/", b"_").replace(b".", b"_").decode("ascii").upper()
    form = re.sub(rb"[^A-Za-z0-9]+", b"_", raw).decode("ascii")
    keep = cut - 16
    tail = form[len(form) - keep:] if len(form) > keep else form
    return tail.strip("_").upper() + "__" + _hash(raw)


def seed_suffix(path: str, cut: int | None = None) -> str:
    """The lock key suffix the seed harness's own writer gives a path (its daemon's keySuffix,
    CONTRACTS.md Part 2): each run of non-alphanumerics one "_", leading and trailing "_"
    trimmed, upper-cased, cut to suffix_max. A plain path's key is the same in both forms."""
    cut = SPEC["matrix"]["suffix_max"] if cut is None else cut
    raw = path.encode("utf-8", "surrogateescape")
    return re.sub(rb"[^A-Za-z0-9]+", b"_", raw).strip(b"_").decode("ascii").upper()[:cut]


def lock_keys(path: str) -> tuple[str, str]:
    """Both keys under which a lock on path blocks: the seed writer's, then the hashed one."""
    return seed_suffix(path), suffix(path)


def _hash(raw: bytes) -> str:
    a = b = 0
    for byte in raw:
        a = (a * 257 + byte + 1) % 2147483647
        b = (b * 263 + byte + 1) % 2147483629
    return _b32(a) + _b32(b)


def _b32(h: int) -> str:
    out = ""
    for _ in range(7):
        out = B32[h % 32] + out
        h //= 32
    return out


def mq(value: str) -> str:
    """A value inside double quotes of a KEY="value" matrix line."""
    return re.sub(r'([\\"$`])', r"\\\1", value)


def munq(value: str) -> str:
    return re.sub(r'\\([\\"$`])', r"\1", value)


def iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(epoch)))


ISO_RE = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"


def from_iso(s: str) -> int:
    import calendar

    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


# ---------------------------------------------------------------------------------------------
# payloads


MISSING = object()


def _base(vendor: str, event: str, cwd: str | Path, session: str) -> dict[str, Any]:
    if vendor == "agy":
        return {"conversationId": session, "transcriptPath": "/x/conv.db", "workspacePaths": [str(cwd)],
                "artifactDirectoryPath": "/x/brain", "modelName": "gemini-3-pro"}
    d: dict[str, Any] = {"session_id": session, "transcript_path": "/x/t.jsonl", "cwd": str(cwd)}
    if vendor == "codex":
        d["turn_id"] = "turn-1"
    d["hook_event_name"] = event
    if vendor == "codex":
        d["model"] = "gpt-5.2-codex"
    if vendor == "gemini":
        d["timestamp"] = "2026-08-21T10:00:05.123Z"
    return d


def p_prompt(vendor: str, cwd: str | Path, session: str = "sess-1", invocation: Any = 0) -> dict[str, Any]:
    d = _base(vendor, PROMPT_EVENT[vendor], cwd, session)
    if vendor == "agy":
        if invocation is not MISSING:
            d["invocationNum"] = invocation
        d["userPrompt"] = "do it"
    else:
        d["prompt"] = "do it"
    return d


def patch_body(*ops: tuple[str, str]) -> str:
    """A patch body; ops are (kind, path) with kind Add, Update, Delete or Move (Move after an
    Update gives `*** Move to:`)."""
    lines = ["*** Begin Patch"]
    for kind, path in ops:
        if kind == "Move":
            lines.append(f"*** Move to: {path}")
        else:
            lines.append(f"*** {kind} File: {path}")
            if kind == "Add":
                lines.append("+new line")
            elif kind == "Update":
                lines += ["@@", "-old", "+new"]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def p_tool(vendor: str, tool: str, args: dict[str, Any], cwd: str | Path, session: str = "sess-1",
           post: bool = False) -> dict[str, Any]:
    d = _base(vendor, (POST_EVENT if post else PRE_EVENT)[vendor], cwd, session)
    if vendor == "agy":
        d["stepIdx"] = 3
        d["toolCall"] = {"name": tool, "args": args}
        return d
    d["tool_name"] = tool
    d["tool_input"] = args
    if post:
        d["tool_response"] = "ok" if vendor == "codex" else {"success": True}
    d["tool_use_id"] = "toolu_1"
    return d


def p_edit(vendor: str, path: str, cwd: str | Path, session: str = "sess-1", post: bool = False) -> dict[str, Any]:
    """The vendor's main edit tool on one path (Codex: an apply_patch Update)."""
    if vendor == "codex":
        args: dict[str, Any] = {"command": patch_body(("Update", path))}
    elif vendor == "agy":
        args = {"TargetFile": path, "CodeContent": "x = 1\n", "Overwrite": True}
    else:
        args = {"file_path": path, "content": "x = 1\n"}
    return p_tool(vendor, EDIT_TOOL[vendor], args, cwd, session, post)


def p_shell(vendor: str, command: Any, cwd: str | Path, session: str = "sess-1") -> dict[str, Any]:
    if vendor == "agy":
        return p_tool(vendor, SHELL_TOOL[vendor], {"CommandLine": command, "Cwd": str(cwd)}, cwd, session)
    return p_tool(vendor, SHELL_TOOL[vendor], {"command": command}, cwd, session)


def p_stop(vendor: str, text: Any, cwd: str | Path, session: str = "sess-1", active: Any = False) -> dict[str, Any]:
    d = _base(vendor, STOP_EVENT[vendor], cwd, session)
    if vendor == "agy":
        d.update({"terminationReason": "NO_TOOL_CALL", "executionNum": 1, "fullyIdle": True, "error": ""})
        return d
    if active is not MISSING:
        d["stop_hook_active"] = active
    key = "prompt_response" if vendor == "gemini" else "last_assistant_message"
    if text is not MISSING:
        d[key] = text
    return d


# ---------------------------------------------------------------------------------------------
# expected answers


def block_msg(path: str | Path, holder: str) -> str:
    return MSG["block"].format(path=path, holder=holder)


def warn_msg(path: str | Path, holder: str) -> str:
    return MSG["warn"].format(path=path, holder=holder)


def halt_msg(reason: str) -> str:
    return MSG["halt_block"].format(reason=reason)


# the answers each vendor gives, from its profile's [output] (hookshape.plan.outputs reads them)

def tool_block(vendor: str, reason: str) -> dict[str, Any] | None:
    return outputs.stdout_object(PROFILES[vendor], "deny", reason, "pre_tool")


def context(vendor: str, text: str, role: str = "prompt") -> dict[str, Any] | None:
    return outputs.stdout_object(PROFILES[vendor], "context", text, role)


def stop_block(vendor: str) -> dict[str, Any] | None:
    """The stop answer, or None where the stop tentacle only observes (a counter-guarded vendor
    under stop.counter_mode = observe)."""
    p = PROFILES[vendor]
    if p.output.stop_guard == "counter" and SPEC["stop"]["counter_mode"] == "observe":
        return None
    return outputs.stdout_object(p, "stop", STOP_DIRECTIVE, "stop")


def stop_suggest(vendor: str) -> dict[str, Any] | None:
    return outputs.stdout_object(PROFILES[vendor], "suggest", STOP_SUGGEST, "stop")


def assert_warn(vendor: str, r: Run, text: str) -> None:
    """warn: the vendor's warn answer (context JSON, the text on stderr, or nothing)."""
    assert r.code == 0
    p = PROFILES[vendor]
    if outputs.on_stderr(p, "warn", "pre_tool"):
        assert r.out == b""
        assert r.stderr == text + "\n"
    else:
        want = outputs.stdout_object(p, "warn", text, "pre_tool")
        assert (r.json if want is not None else r.out) == (want if want is not None else b"")
        assert r.err == b""


def assert_silent(r: Run) -> None:
    assert r.code == 0, r.stderr
    assert r.out == b"", r.out[:400]
    assert r.err == b"", r.err[:400]


# ---------------------------------------------------------------------------------------------
# an independent statement of the target rule (for fixtures and fuzzed payloads)


def _norm(path: str) -> str:
    parts: list[str] = []
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if parts:
                parts.pop()
            continue
        parts.append(p)
    return "/" + "/".join(parts)


def _abs(path: str, cwd: str) -> str | None:
    if not path:
        return None
    if not path.startswith("/"):
        if not cwd.startswith("/"):
            return None
        path = cwd + "/" + path
    return _norm(path)


PATCH_HEADS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
# what Codex's patch parser trims around a header line (Rust str::trim: Unicode White_Space)
CODEX_BLANKS = " \t\n\v\f\r\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
EDIT_TOOLS = {v: tuple(PROFILES[v].tools.edit) for v in VENDORS}
PATH_FIELDS = {v: tuple(PROFILES[v].payload.path_fields) for v in VENDORS}


def expected_targets(vendor: str, payload: dict[str, Any]) -> list[str]:
    """The absolute, normalised targets of an edit payload, in order, without duplicates."""
    if vendor == "agy":
        call = payload.get("toolCall") or {}
        tool, args = call.get("name"), call.get("args") or {}
        cwd = args.get("Cwd") if isinstance(args.get("Cwd"), str) and args.get("Cwd") else None
        if cwd is None:
            ws = payload.get("workspacePaths") or []
            cwd = ws[0] if ws and isinstance(ws[0], str) else ""
    else:
        tool, args = payload.get("tool_name"), payload.get("tool_input") or {}
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
    out: list[str] = []

    def add(p: str | None) -> None:
        if p and p not in out:
            out.append(p)

    if tool in EDIT_TOOLS[vendor]:
        for f in PATH_FIELDS[vendor]:
            v = args.get(f)
            if isinstance(v, str):
                add(_abs(v, cwd))
    if vendor == "codex":
        cmd = args.get("command")
        if isinstance(cmd, list):
            cmd = " ".join(c for c in cmd if isinstance(c, str))
        if isinstance(cmd, str) and "*** Begin Patch" in cmd:
            for line in cmd.split("\n"):
                line = line.strip(CODEX_BLANKS)
                for head in PATCH_HEADS:
                    if line.startswith(head):
                        add(_abs(line[len(head):], cwd))
    return out
