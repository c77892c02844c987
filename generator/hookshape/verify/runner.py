"""Run one agent turn of a real vendor CLI against the mock model server, offline.

How to run each CLI is data: its profile's [drive] table (the arguments of a headless turn,
its environment, the keys its settings file needs). Layout of a scratch dir (everything a turn
touches lives in it):

    <scratch>/home            HOME (nothing touches the real home); the CLIs' config dirs
                              (.claude, .codex, .gemini, .copilot, .qwen, .kimi-code) under it
    <scratch>/work            the CLI's working directory
    <scratch>/tmp             TMPDIR

The hook configuration is not the runner's business: the caller merges it into the vendor's
config files (e.g. `hookshape install --home <home_dir(scratch)>`), before or after
`prepare_home()`. The runner writes only its own keys into the settings file; it creates a
missing file and otherwise updates only those keys, so hooks somebody else put there survive
every turn.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.spec.profiles import Profile
from hookshape.verify.mock.server import MockServer
from hookshape.verify.settings import filled, update

MOCK_KEY = "mock-key-not-secret"  # the API key the turn's CLI gets (any string passes the mock)

# Variables passed through from the caller's environment; everything else
# (vendor keys, proxies, CI tokens) stays out of the turn.
_PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SHELL", "USER", "LOGNAME", "TERM")


@dataclass(frozen=True)
class Cli:
    """A vendor's CLI on this machine: its profile (with [drive]), its binary, and directories to
    put first on PATH for its turns (e.g. a newer Node than the system's)."""

    profile: Profile
    binary: Path
    path: tuple[Path, ...] = ()

    @property
    def vendor(self) -> str:
        return self.profile.id


# -- where things are --------------------------------------------------------


def home_dir(scratch: Path) -> Path:
    return Path(scratch) / "home"


def work_dir(scratch: Path) -> Path:
    return Path(scratch) / "work"


def in_home(raw: str, scratch: Path) -> Path:
    """A profile path (`~/...`) inside the scratch home."""
    return home_dir(scratch) / raw.removeprefix("~").lstrip("/")


def settings_path(profile: Profile, scratch: Path) -> Path | None:
    """The settings file the runner writes its keys into (None: the CLI needs none)."""
    raw = profile.drive.settings_file
    return in_home(raw, scratch) if raw else None


def hook_config(profile: Profile, scratch: Path, name: str) -> Path:
    """The vendor's user-level hook config inside the scratch home, for the harness `name`."""
    return in_home(profile.config.user_path.replace("{name}", name), scratch)


def records_file(profile: Profile, scratch: Path) -> Path:
    """The user file inside the scratch home the vendor reads its trust records from (its
    settings file beside the hooks file, else its hook config)."""
    settings = profile.config.settings
    raw = settings.user_path if settings is not None else profile.config.user_path
    return in_home(raw, scratch)


def _values(cli: Cli, scratch: Path, mock_url: str, prompt: str = "") -> dict[str, str]:
    return {"home": str(home_dir(scratch)), "mock": mock_url, "key": MOCK_KEY,
            "model": cli.profile.drive.model, "prompt": prompt}


def prepare_home(cli: Cli, scratch: Path, mock_url: str) -> Path | None:
    """Create the scratch dirs and write/update the CLI's settings; returns settings_path()."""
    scratch = Path(scratch)
    for d in (home_dir(scratch), work_dir(scratch), scratch / "tmp"):
        d.mkdir(parents=True, exist_ok=True)
    path = settings_path(cli.profile, scratch)
    if path is not None:
        update(path, filled(dict(cli.profile.drive.settings), _values(cli, scratch, mock_url)))
    return path


def turn_env(cli: Cli, scratch: Path, mock_url: str,
             env_extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The whole environment of a turn (nothing vendor-specific leaks in from ours)."""
    scratch = Path(scratch)
    home = home_dir(scratch)
    env = {k: os.environ[k] for k in _PASSTHROUGH_ENV if k in os.environ}
    node = shutil.which("node")
    if node:  # the npm CLIs' shebangs need node on PATH
        env["PATH"] = os.pathsep.join([str(Path(node).parent), env.get("PATH", os.defpath)])
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        {
            "HOME": str(home),
            "TMPDIR": str(scratch / "tmp"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "NO_COLOR": "1",
        }
    )
    env.update(filled(dict(cli.profile.drive.env), _values(cli, scratch, mock_url)))
    for key, value in (env_extra or {}).items():
        if value is None:  # None removes a variable the runner would set
            env.pop(key, None)
        else:
            env[key] = value
    if cli.path:  # after env_extra: a caller's PATH (a fake tool first) keeps them first too
        env["PATH"] = os.pathsep.join([*map(str, cli.path), env.get("PATH", os.defpath)])
    return env


def command(cli: Cli, prompt: str) -> list[str]:
    """argv of the CLI's one-turn, non-interactive command."""
    values = {"model": cli.profile.drive.model, "prompt": prompt}
    return [str(cli.binary), *(filled(a, values) for a in cli.profile.drive.argv)]


# -- running a turn ------------------------------------------------------------


@dataclass
class TurnResult:
    exit_code: int
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    argv: list[str] = field(default_factory=list)
    pid: int = 0  # also the id of the turn's process group
    stragglers: list[int] = field(default_factory=list)  # pids still running after the CLI, then killed
    killed_exit_code: int | None = None  # on timeout: what the CLI returned when killed
    timeout_started: float | None = None  # with timeout_from: when the file appeared (s after start)

    def describe(self) -> str:
        """Everything useful for an assertion message."""
        status = f"exit {self.exit_code}{' (timed out)' if self.timed_out else ''}"
        return (
            f"{status} after {self.duration:.2f}s\nargv: {self.argv}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def _kill_group(proc: subprocess.Popen[bytes], grace: float = 2.0) -> None:
    """Terminate, then kill, the turn's own process group (its id is the CLI's pid)."""
    pgid = proc.pid
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            proc.poll()  # reap the leader: a zombie still counts as a member of the group
            try:
                os.killpg(pgid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)


TURN_TOKEN_ENV = "HOOKSHAPE_LIVE_TURN"
TIMEOUT_EXIT = 124


def _processes_with_token(token: str) -> list[int]:
    """pids whose environment carries this turn's token (Linux /proc; else none).

    The CLIs start hooks in a session (or process group) of their own, so a hook outlives
    a killed CLI outside the CLI's process group; the environment, which
    they do pass on, still marks it as this turn's.
    """
    needle = f"{TURN_TOKEN_ENV}={token}".encode() + b"\0"
    pids: list[int] = []
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        return pids
    for entry in proc_dir.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _kill_stragglers(token: str, grace: float = 1.0) -> list[int]:
    """Terminate, then kill, processes left behind by the turn; returns their pids."""
    found = _processes_with_token(token)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 0)
        while time.monotonic() < deadline and _processes_with_token(token):
            time.sleep(0.05)
        if not _processes_with_token(token):
            break
    return found


def run_turn(
    cli: Cli,
    prompt: str,
    *,
    scratch: Path,
    mock: MockServer,
    env_extra: Mapping[str, str | None] | None = None,
    timeout: float = 60,
    timeout_from: Path | None = None,
    start_limit: float = 60,
) -> TurnResult:
    """Run one agent turn of the CLI in `scratch` against `mock`.

    Prepares the isolated home (see `prepare_home`), points the mock's
    relative paths at the work dir, runs the CLI in its own process group
    and kills that group on timeout; afterwards it ends whatever the turn
    left running (found by a per-turn token in the environment), e.g. hooks,
    which the CLIs start in sessions of their own.
    `env_extra` adds variables (a None value removes one). On timeout,
    `timed_out` is set, `exit_code` is 124 and `killed_exit_code` is what
    the killed CLI returned (Gemini returns 0 on SIGTERM, Claude 143).
    With `timeout_from` (a file a hook creates when it starts), the `timeout` counts from
    the moment that file appears, and the turn is given up after `start_limit` seconds if it
    never does: a test of what a timeout ends then waits for that one moment, not for the
    slowest start a loaded machine might need; `timeout_started` holds when it appeared
    (seconds after the CLI started).
    """
    scratch = Path(scratch)
    if not cli.binary.exists():
        raise FileNotFoundError(f"{cli.binary} is missing")
    prepare_home(cli, scratch, mock.url)
    work = work_dir(scratch)
    mock.cwd = work
    argv = command(cli, prompt)
    env = turn_env(cli, scratch, mock.url, env_extra)
    token = uuid.uuid4().hex
    env[TURN_TOKEN_ENV] = token
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    timed_out = False
    clock: dict[str, float] = {}
    try:
        marker = Path(timeout_from) if timeout_from is not None else None
        out, err = _communicate(proc, start, timeout, marker, start_limit, clock)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            # Something that left the group still holds the pipes: give up on them.
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            proc.wait()
            out, err = b"", b"(output lost: a process outside the turn's group kept the pipes open)"
    finally:
        # Whatever the CLI left running (its group, detached hooks) ends with the turn.
        _kill_group(proc, grace=0.5)
        stragglers = _kill_stragglers(token)
    duration = time.monotonic() - start
    # A killed Gemini exits 0 and Claude 143: report a timeout as 124, like timeout(1).
    return TurnResult(
        exit_code=TIMEOUT_EXIT if timed_out else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        duration=duration,
        timed_out=timed_out,
        argv=argv,
        pid=proc.pid,
        stragglers=stragglers,
        killed_exit_code=proc.returncode if timed_out else None,
        timeout_started=clock.get("started"),
    )


def _communicate(
    proc: subprocess.Popen[bytes], start: float, timeout: float, timeout_from: Path | None, start_limit: float,
    clock: dict[str, float],
) -> tuple[bytes, bytes]:
    """(stdout, stderr); TimeoutExpired when the turn ran out of time. `clock["started"]` is set
    to when timeout_from appeared (seconds after `start`).

    Without `timeout_from`, `timeout` counts from `start`. With it, the clock starts when the
    file appears; if neither it appears nor the CLI ends within `start_limit` seconds, the
    turn has run out of time too. (A retried communicate() loses no output.)
    """
    if timeout_from is None:
        return proc.communicate(timeout=timeout)
    while True:
        try:
            return proc.communicate(timeout=0.1)
        except subprocess.TimeoutExpired:
            if timeout_from.exists():
                break
            if time.monotonic() - start > start_limit:
                raise
    clock["started"] = time.monotonic() - start
    return proc.communicate(timeout=timeout)
