"""Toolkit of the install, doctor and simulate tests: scratch homes seeded with realistic
vendor configs (tests/install_fixtures/), whole-tree snapshots, and the CLI run in process
(CliRunner) or as a subprocess (for concurrency)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hookshape.cli import cli
from hookshape.edit.managed import commands
from hookshape.errors import HookshapeError
from hookshape.install import fsops
from hookshape.spec.load import Loaded, load

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
FIXTURES = Path(__file__).resolve().parent / "install_fixtures"
PROVIDER = "PD_HOOK_PROVIDER"
HARNESS = ".port-daddy"

# vendor -> (fixture file, where it goes under the user home): the file install puts our entries in
SEEDS = {
    "claude": ("claude-settings.json", ".claude/settings.json"),
    "gemini": ("gemini-settings.json", ".gemini/settings.json"),
    "codex": ("codex-hooks.json", ".codex/hooks.json"),
    "agy": ("agy-hooks.json", ".gemini/config/hooks.json"),
}
# vendor -> (fixture file, where it goes): its settings file beside the hooks file (switches,
# trust records, hooks the user wrote inline), seeded with it
SETTINGS = {
    "codex": ("codex-config.toml", ".codex/config.toml"),
}
# Variables that would redirect a run out of its scratch home.
SCRUB = ("PD_HOME", "HOOKSHAPE_HOME", "PD_HOOKS", "PD_HALT_FILE", "GEMINI_API_KEY", "HOOKSHAPE_SPEC")


def loaded() -> Loaded:
    return load(SPEC)


def seed(home: Path, vendors: tuple[str, ...] = tuple(SEEDS)) -> dict[str, Path]:
    """Copy the realistic configs into a scratch home; returns vendor -> config path."""
    out = {}
    for vendor in vendors:
        for fixture, rel in [SEEDS[vendor], *([SETTINGS[vendor]] if vendor in SETTINGS else [])]:
            target = home / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(FIXTURES / fixture, target)
        out[vendor] = home / SEEDS[vendor][1]
    return out


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A scratch user home holding every vendor's config fixture (a plugin fixture)."""
    path = tmp_path / "home"
    path.mkdir()
    seed(path)
    return path


def fixture_text(vendor: str) -> str:
    return (FIXTURES / SEEDS[vendor][0]).read_text(encoding="utf-8")


def settings_text(vendor: str) -> str:
    return (FIXTURES / SETTINGS[vendor][0]).read_text(encoding="utf-8")


Snapshot = dict[str, tuple[str, int, bytes | None]]


def snapshot(root: Path) -> Snapshot:
    """Every file, directory and symlink under root: kind, mode bits and bytes."""
    out: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", 0, os.readlink(path).encode())
            elif stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", stat.S_IMODE(info.st_mode), None)
            else:
                out[rel] = ("file", stat.S_IMODE(info.st_mode), path.read_bytes())
    return out


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def env_for(extra: dict[str, str | None] | None = None) -> dict[str, str | None]:
    env: dict[str, str | None] = dict.fromkeys(SCRUB)
    env.update(extra or {})
    return env


def hs(*args: str, env: dict[str, str | None] | None = None, stdin: str | None = None) -> Result:
    """Run the CLI in process; a HookshapeError counts as exit 1 with its one-line message."""
    result = CliRunner().invoke(cli, ["--help"] if not args else list(args), env=env_for(env),
                                input=stdin, catch_exceptions=True)
    exc = result.exception
    if isinstance(exc, HookshapeError):
        return Result(1, result.stdout, f"hookshape: error: {exc}")
    if exc is not None and not isinstance(exc, SystemExit):
        raise exc
    return Result(result.exit_code, result.stdout, result.stderr)


def install(home: Path, *more: str, env: dict[str, str | None] | None = None) -> Result:
    return hs("install", "--spec", str(SPEC), "--home", str(home), *more, env=env)


def uninstall(home: Path, *more: str, env: dict[str, str | None] | None = None) -> Result:
    return hs("uninstall", "--spec", str(SPEC), "--home", str(home), *more, env=env)


def with_spec(spec: Path, verb: str, home: Path, *more: str,
              env: dict[str, str | None] | None = None) -> Result:
    """install/uninstall with another spec than the default one."""
    return hs(verb, "--spec", str(spec), "--home", str(home), *more, env=env)


def spec_variant(folder: Path, replace: dict[str, str]) -> Path:
    """A copy of the default spec with text replaced (e.g. a second harness, a renamed gate)."""
    text = SPEC.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hookshape.toml"
    path.write_text(text, encoding="utf-8")
    return path


# A second harness: other name, home and variables (its entries sit beside the default's).
KRAKEN = {'name = "giant-squid"': 'name = "kraken"', "~/.port-daddy": "~/.kraken",
          "PD_": "KR_"}


@contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """No file can be created in or renamed into `folder`, for root too (chattr +i; skips
    where the file system refuses it); a plain chmod 0555 for anyone else."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if shutil.which("chattr") is None or \
            subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def doctor(home: Path, *more: str, env: dict[str, str | None] | None = None) -> Result:
    return hs("doctor", "--spec", str(SPEC), "--home", str(home), *more, env=env)


def proc(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The CLI as its own process (for races)."""
    base = {k: v for k, v in os.environ.items() if k not in SCRUB}
    base.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "hookshape", *args], env=base,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def parse(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def ours(path: Path) -> list[str]:
    return [c for c in commands(parse(path)) if c.startswith(f"{PROVIDER}=")]


def lines_kept(original: str, installed: str) -> bool:
    """Every line of the original is in the installed text, in order (a line may have gained
    the one trailing comma an appended sibling needs)."""
    got = installed.split("\n")
    pos = 0
    for line in original.split("\n"):
        while pos < len(got) and got[pos] not in (line, line + ","):
            pos += 1
        if pos == len(got):
            return False
        pos += 1
    return True


def without_ours(value: Any) -> Any:
    """A config's data with every hookshape handler, group and named hook taken out."""
    if isinstance(value, dict):
        return {k: without_ours(v) for k, v in value.items() if not _mine(v)}
    if isinstance(value, list):
        return [without_ours(v) for v in value if not _mine(v)]
    return value


def _mine(value: Any) -> bool:
    found = list(commands(value))
    return bool(found) and all(c.startswith(f"{PROVIDER}=") for c in found)


def restore(home: Path, state: Snapshot) -> None:
    """Put a home back as a snapshot holds it (kinds, modes, bytes)."""
    shutil.rmtree(home)
    home.mkdir()
    for rel, (kind, mode, data) in sorted(state.items()):
        path = home / rel
        if kind == "dir":
            path.mkdir()
        elif kind == "file":
            assert data is not None
            path.write_bytes(data)
        else:
            assert data is not None
            path.symlink_to(data.decode())
        path.chmod(mode) if kind != "link" else None
    for rel, (kind, mode, _) in state.items():
        if kind == "dir":
            (home / rel).chmod(mode)


def changes(run: Callable[[], object]) -> int:
    """How many changes on disk a run makes (fsops.before_change calls)."""
    count = [0]

    def step(_what: str) -> None:
        count[0] += 1

    fsops.before_change = step
    try:
        run()
    finally:
        fsops.before_change = fsops._nothing
    return count[0]


@contextmanager
def kill_points(home: Path, scope: str = "user") -> Iterator[Callable[[str, int], bool]]:
    """killed(verb, n): run install or uninstall on `home` (at project scope: in `home/proj`) in
    a process killed just before its n-th change (tests/killpoint.py); True when it died there,
    False when it made fewer."""
    server = subprocess.Popen([sys.executable, "-m", "tests.killpoint", str(home), scope], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={k: v for k, v in os.environ.items() if k not in SCRUB})
    assert server.stdin is not None and server.stdout is not None

    def killed(verb: str, step: int) -> bool:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(f"{verb} {step}\n")
        server.stdin.flush()
        answer = server.stdout.readline().strip()
        assert answer in ("killed", "finished"), answer
        return answer == "killed"

    try:
        yield killed
    finally:
        server.stdin.close()
        server.wait(timeout=60)
