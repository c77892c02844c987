"""`hookshape package`: a reproducible release tarball, and a smoke test of installing from it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from tests import clikit
from tests.tentaclekit import suffix

from hookshape import __version__
from hookshape.package.common import DEFAULT_EPOCH
from hookshape.package.tarball import top_name
from hookshape.plan import outputs
from hookshape.plan.plan import build
from hookshape.spec.load import Loaded, load

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
FIXTURES = ROOT / "tests" / "fixtures" / "payloads"
HS = [sys.executable, "-m", "hookshape"]
FIXTURE_CWD = "/home/dev/proj"
# the write-like pre-tool payload of each vendor, and the project files it touches
WRITES = {
    "claude": ("pre-tool-Write", ["src/retry.ts"]),
    "gemini": ("pre-tool-write_file", ["src/retry.ts"]),
    "codex": ("pre-tool-apply_patch", ["src/fetch.ts"]),
    "agy": ("pre-tool-write_to_file", ["src/retry.ts"]),
}
HOLDER = "other-agent"
ACTOR = "smoke-agent"
ALERT_ID = "FREEZE"
ALERT_TEXT = "deploy freeze until the release is cut"


def hookshape(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in this process (tests.clikit); SOURCE_DATE_EPOCH only when given. The installs
    from an extracted artifact below run `python -m hookshape` as a process."""
    return clikit.hookshape(*args, cwd=cwd, env={"SOURCE_DATE_EPOCH": None, **(env or {})})


def package(out: Path, *extra: str, epoch: str | None = None) -> Path:
    env = {"SOURCE_DATE_EPOCH": epoch} if epoch is not None else None
    proc = hookshape("package", "--out", str(out), *extra, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tarballs = sorted(out.glob("*.tar.gz"))
    assert len(tarballs) == 1, tarballs
    return tarballs[0]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    return load(SPEC)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return package(tmp_path_factory.mktemp("build"))


# -- reproducibility -------------------------------------------------------------------------

def test_name_and_location(built: Path, loaded: Loaded) -> None:
    assert built.name == f"{loaded.spec.harness.name}-hooks-{__version__}.tar.gz"
    assert (built.parent / "SHA256SUMS").is_file()


def test_two_builds_are_byte_identical(tmp_path: Path, built: Path) -> None:
    again = package(tmp_path / "again")
    assert sha256(again) == sha256(built)
    assert again.read_bytes() == built.read_bytes()
    assert (again.parent / "SHA256SUMS").read_bytes() == (built.parent / "SHA256SUMS").read_bytes()


def test_two_builds_with_source_date_epoch_are_byte_identical(tmp_path: Path, built: Path) -> None:
    one = package(tmp_path / "one", epoch="1700000000")
    two = package(tmp_path / "two", epoch="1700000000")
    assert sha256(one) == sha256(two)
    assert sha256(one) != sha256(built)  # the epoch is in every member's mtime
    with tarfile.open(one) as tar:
        assert {m.mtime for m in tar.getmembers()} == {1700000000}


def test_bad_source_date_epoch_is_one_line(tmp_path: Path) -> None:
    proc = hookshape("package", "--out", str(tmp_path), env={"SOURCE_DATE_EPOCH": "yesterday"})
    assert proc.returncode == 1
    assert proc.stderr.startswith("hookshape: error: ") and proc.stderr.count("\n") == 1
    assert "SOURCE_DATE_EPOCH" in proc.stderr


def test_gzip_header_has_no_time_and_no_name(built: Path) -> None:
    head = built.read_bytes()[:10]
    assert head[:3] == b"\x1f\x8b\x08"
    assert head[3] & 0x08 == 0  # FNAME
    assert head[4:8] == b"\0\0\0\0"  # MTIME


# -- the members -----------------------------------------------------------------------------

def test_members_sorted_owned_by_root_with_normal_modes(built: Path, loaded: Loaded) -> None:
    top = top_name(loaded)
    with tarfile.open(built) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert names[0] == top
    assert all(n == top or n.startswith(top + "/") for n in names)
    for m in members:
        assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", ""), m.name
        assert m.mtime == DEFAULT_EPOCH, m.name
        assert m.isdir() or m.isfile(), m.name
        if m.isdir():
            assert m.mode == 0o755, m.name
        else:
            want = 0o755 if m.name.startswith(f"{top}/bin/") and not m.name.endswith(".awk") else 0o644
            assert m.mode == want, (m.name, oct(m.mode))


def test_contents_are_the_rendered_spec_plus_install_md_and_the_spec(built: Path, loaded: Loaded) -> None:
    top = top_name(loaded)
    with tarfile.open(built) as tar:
        files = {m.name.removeprefix(top + "/"): tar.extractfile(m).read()  # type: ignore[union-attr]
                 for m in tar.getmembers() if m.isfile()}
        dirs = {m.name for m in tar.getmembers() if m.isdir()}
    plan = {a.path: a.data for a in build(loaded).artifacts}
    install = files.pop("INSTALL.md").decode()
    assert files.pop("hookshape.toml") == SPEC.read_bytes()  # what `install --from` uses
    assert files == plan
    # every parent directory is a member of its own
    for path in plan:
        parts = f"{top}/{path}".split("/")[:-1]
        for i in range(1, len(parts) + 1):
            assert "/".join(parts[:i]) in dirs
    assert f"hookshape install --from {top}" in install
    assert f"hookshape uninstall --spec {top}/hookshape.toml" in install
    assert f"tar -xzf {top}.tar.gz" in install
    for vid in loaded.spec.enabled_vendors():
        assert f"config/{vid}/" in install
        assert loaded.profiles[vid].config.user_path in install
    for tentacle in loaded.spec.tentacles:
        assert f"bin/{tentacle.name}" in install


def test_sha256sums_matches(built: Path) -> None:
    sums = (built.parent / "SHA256SUMS").read_text()
    assert sums == f"{sha256(built)}  {built.name}\n"
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=built.parent,
                               capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stdout + check.stderr


def test_from_a_rendered_tree_gives_the_same_bytes(tmp_path: Path, built: Path) -> None:
    dist = tmp_path / "dist"
    proc = hookshape("render", "--out", str(dist))
    assert proc.returncode == 0, proc.stderr
    again = package(tmp_path / "from", "--from", str(dist))
    assert again.read_bytes() == built.read_bytes()


@pytest.mark.parametrize("damage", ["edit", "extra", "missing"])
def test_from_a_damaged_tree_is_refused(tmp_path: Path, damage: str) -> None:
    dist = tmp_path / "dist"
    assert hookshape("render", "--out", str(dist)).returncode == 0
    if damage == "edit":
        (dist / "CAPABILITIES.md").write_text("edited by hand\n")
    elif damage == "extra":
        (dist / "notes.txt").write_text("stray\n")
    else:
        (dist / "CAPABILITIES.json").unlink()
    proc = hookshape("package", "--out", str(tmp_path / "out"), "--from", str(dist))
    assert proc.returncode == 1
    assert proc.stderr.startswith("hookshape: error: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


# -- smoke: install from the extracted artifact and run the installed gates -----------------

def strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in strings(v)]
    return []


class Installed:
    def __init__(self, loaded: Loaded, scratch: Path) -> None:
        self.loaded = loaded
        self.scratch = scratch
        self.home = scratch / "home"
        self.harness = self.home / loaded.spec.harness.home_default.removeprefix("~/")
        self.project = scratch / "work" / "proj"

    def env(self) -> dict[str, str]:
        h = self.loaded.spec.harness
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                "LANG": "C.UTF-8", h.home_env: str(self.harness), h.actor_env: ACTOR}

    def command(self, vendor: str, role: str) -> str:
        """The command the installed vendor config runs for a role's gate."""
        profile = self.loaded.profiles[vendor]
        config = self.home / profile.config.user_path.removeprefix("~/")
        assert config.is_file(), f"{vendor}: no installed config at {config}"
        text = config.read_text()
        tree = tomllib.loads(text) if config.suffix == ".toml" else json.loads(text)
        tentacle = self.loaded.spec.tentacle(role)  # type: ignore[arg-type]
        assert tentacle is not None
        gate = f"{self.harness}/bin/{tentacle.name}"
        found = sorted({s for s in strings(tree) if gate in s})
        assert len(found) == 1, f"{vendor}: {role}: commands for {gate} in {config}: {found}"
        return found[0]

    def payload(self, vendor: str, name: str) -> bytes:
        raw = (FIXTURES / vendor / f"{name}.json").read_text()
        return raw.replace(FIXTURE_CWD, str(self.project)).encode()

    def run(self, vendor: str, role: str, payload: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["sh", "-c", self.command(vendor, role)], input=payload,
                              capture_output=True, env=self.env(), cwd=self.project,
                              timeout=30, check=False)


def arm(inst: Installed) -> None:
    """The daemon's readiness lease (ready == pid, numeric; a fresh heartbeat), the armed
    root holding the project, and a matrix with locks on the edited files and one alert."""
    spec = inst.loaded.spec
    g = spec.gate
    pid = str(os.getpid())
    (inst.harness / g.pid_file).write_text(pid + "\n")
    (inst.harness / g.ready_file).write_text(pid + "\n")
    heartbeat = inst.harness / g.heartbeat_file
    heartbeat.write_text(f"{int(time.time())}\n")
    roots = inst.harness / g.armed_roots_file
    roots.parent.mkdir(parents=True, exist_ok=True)
    roots.write_text(f"{inst.project.resolve()}\n")  # the gate compares physical paths
    (inst.project / "src").mkdir(parents=True, exist_ok=True)
    (inst.project / spec.matrix.project_marker).mkdir(exist_ok=True)
    m = spec.matrix
    lines = [f'{m.alert_prefix}{ALERT_ID}="{ALERT_TEXT}"']
    for _, paths in WRITES.values():
        for rel in paths:
            lines.append(f'{m.lock_prefix}{suffix(str(inst.project / rel), m.suffix_max)}'
                         f'="{HOLDER}"')
    (inst.harness / m.file_default).write_text("\n".join(sorted(set(lines))) + "\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, loaded: Loaded) -> Installed:
    scratch = tmp_path_factory.mktemp("smoke")
    tarball = package(scratch / "build")
    extracted = scratch / "extracted"
    with tarfile.open(tarball) as tar:
        tar.extractall(extracted, filter="data")
    top = extracted / top_name(loaded)
    assert (top / "INSTALL.md").is_file() and (top / "MANIFEST").is_file()
    inst = Installed(loaded, scratch)
    inst.home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items()
           if k not in (loaded.spec.harness.home_env, "HOOKSHAPE_HOME")}
    env["HOME"] = str(inst.home)  # a stray write to `~` lands in the scratch home too
    proc = subprocess.run([*HS, "install", "--from", str(top), "--home", str(inst.home)],
                          capture_output=True, text=True, env=env, cwd=scratch, timeout=120,
                          check=False)
    assert proc.returncode == 0, f"hookshape install failed:\n{proc.stdout}{proc.stderr}"
    for tentacle in loaded.spec.tentacles:
        gate = inst.harness / "bin" / tentacle.name
        assert gate.is_file() and os.access(gate, os.X_OK), gate
    arm(inst)
    return inst


def answer(proc: subprocess.CompletedProcess[bytes]) -> tuple[dict[str, Any], str]:
    out = proc.stdout.decode().strip()
    data: dict[str, Any] = json.loads(out) if out else {}
    return data, json.dumps(data)


VENDORS = ("claude", "gemini", "codex", "agy")


@pytest.mark.parametrize("vendor", VENDORS)
def test_installed_gate_blocks_a_locked_write(installed: Installed, vendor: str) -> None:
    name, _ = WRITES[vendor]
    proc = installed.run(vendor, "pre_tool", installed.payload(vendor, name))
    why = f"exit {proc.returncode}\nstdout {proc.stdout!r}\nstderr {proc.stderr!r}"
    profile = installed.loaded.profiles[vendor]
    if outputs.on_stderr(profile, "deny", "pre_tool"):
        assert proc.returncode == 2 and f"locked by {HOLDER}" in proc.stderr.decode(), why
        return
    assert proc.returncode == 0, why
    data, _flat = answer(proc)
    reason = outputs.read(profile, "deny", data, "pre_tool")
    assert reason is not None and f"locked by {HOLDER}" in reason, why


@pytest.mark.parametrize("vendor", VENDORS)
def test_installed_gate_allows_the_lock_holder(installed: Installed, vendor: str) -> None:
    name, _ = WRITES[vendor]
    env_actor = installed.loaded.spec.harness.actor_env
    payload = installed.payload(vendor, name)
    proc = subprocess.run(["sh", "-c", installed.command(vendor, "pre_tool")], input=payload,
                          capture_output=True, env={**installed.env(), env_actor: HOLDER},
                          cwd=installed.project, timeout=30, check=False)
    allow = outputs.stdout_text(installed.loaded.profiles[vendor], "allow", "", "pre_tool")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, (allow + "\n").encode() if allow else b"", b"")


@pytest.mark.parametrize("vendor", VENDORS)
def test_installed_gate_gives_alert_context_on_a_prompt(installed: Installed, vendor: str) -> None:
    proc = installed.run(vendor, "prompt", installed.payload(vendor, "prompt"))
    why = f"exit {proc.returncode}\nstdout {proc.stdout!r}\nstderr {proc.stderr!r}"
    assert proc.returncode == 0, why
    data, _ = answer(proc)
    context = outputs.read(installed.loaded.profiles[vendor], "context", data, "prompt") or ""
    assert ALERT_ID in context and ALERT_TEXT in context, why


@pytest.mark.parametrize("vendor", VENDORS)
def test_installed_gate_blocks_a_stop_without_sitrep(installed: Installed, vendor: str) -> None:
    proc = installed.run(vendor, "stop", installed.payload(vendor, "stop"))
    why = f"exit {proc.returncode}\nstdout {proc.stdout!r}\nstderr {proc.stderr!r}"
    assert proc.returncode == 0, why
    data, _flat = answer(proc)
    profile = installed.loaded.profiles[vendor]
    if profile.output.stop_guard == "counter" and installed.loaded.spec.stop.counter_mode == "observe":
        assert data == {}, why  # observe mode: the turn is never held
        return
    reason = outputs.read(profile, "stop", data, "stop")
    assert reason is not None and installed.loaded.spec.stop.compliance_keyword in reason, why


# -- a harness other than the default one: its tarball carries its spec, install uses it ------

OTHER_NAME, OTHER_HOME, OTHER_ENV = "kraken", "~/.kraken-home", "KRAKEN_HOME"


def other_spec(folder: Path) -> Path:
    """The default spec under another name, home and home variable."""
    text = SPEC.read_text(encoding="utf-8")
    for old, new in (('name = "giant-squid"', f'name = "{OTHER_NAME}"'),
                     ('home_default = "~/.port-daddy"', f'home_default = "{OTHER_HOME}"'),
                     ('home_env = "PD_HOME"', f'home_env = "{OTHER_ENV}"')):
        assert old in text, old
        text = text.replace(old, new, 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "kraken.toml"  # not named hookshape.toml: the tarball names it so
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> tuple[Installed, Path]:
    scratch = tmp_path_factory.mktemp("other")
    spec = other_spec(scratch / "src")
    other_loaded = load(spec)
    proc = hookshape("package", "--spec", str(spec), "--out", str(scratch / "build"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tarball = scratch / "build" / f"{top_name(other_loaded)}.tar.gz"
    with tarfile.open(tarball) as tar:
        tar.extractall(scratch / "extracted", filter="data")
    top = scratch / "extracted" / top_name(other_loaded)
    assert (top / "hookshape.toml").read_bytes() == spec.read_bytes()
    spec.unlink()  # install must need nothing but the extracted folder
    inst = Installed(other_loaded, scratch)
    inst.home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items()
           if k not in (OTHER_ENV, "PD_HOME", "HOOKSHAPE_HOME", "HOOKSHAPE_SPEC")}
    env["HOME"] = str(inst.home)
    proc = subprocess.run([*HS, "install", "--from", str(top), "--home", str(inst.home)],
                          capture_output=True, text=True, env=env, cwd=scratch, timeout=120,
                          check=False)
    assert proc.returncode == 0, f"hookshape install failed:\n{proc.stdout}{proc.stderr}"
    return inst, top


def test_other_spec_installs_into_its_own_home(other: tuple[Installed, Path]) -> None:
    inst, _ = other
    assert inst.harness == inst.home / OTHER_HOME.removeprefix("~/")
    assert not (inst.home / ".port-daddy").exists(), "the default harness was installed"
    for tentacle in inst.loaded.spec.tentacles:
        gate = inst.harness / "bin" / tentacle.name
        assert gate.is_file() and os.access(gate, os.X_OK), gate
    settings = (inst.home / ".claude" / "settings.json").read_text()
    assert f"{inst.harness}/bin/" in settings and ".port-daddy" not in settings


@pytest.mark.parametrize("vendor", VENDORS)
def test_other_spec_installed_gate_blocks_a_locked_write(other: tuple[Installed, Path],
                                                         vendor: str) -> None:
    inst, _ = other
    arm(inst)
    name, _ = WRITES[vendor]
    proc = inst.run(vendor, "pre_tool", inst.payload(vendor, name))
    flat = proc.stdout.decode() + proc.stderr.decode()
    assert f"locked by {HOLDER}" in flat, (proc.returncode, flat)


def test_from_a_tree_with_its_spec_refuses_another_spec(other: tuple[Installed, Path],
                                                        tmp_path: Path) -> None:
    _, top = other
    for extra in (["--spec", str(SPEC)], ["--default"]):
        proc = hookshape("install", "--from", str(top), "--home", str(tmp_path), *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert proc.stderr.count("\n") == 1 and "carries its own spec" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_from_a_tree_of_another_spec_is_refused(tmp_path: Path) -> None:
    """package --from DIST --spec S would ship S beside scripts it did not render."""
    spec = other_spec(tmp_path / "src")
    out = tmp_path / "out"
    proc = hookshape("package", "--from", str(ROOT / "dist"), "--spec", str(spec), "--out",
                     str(out))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and f"not what {spec} renders" in proc.stderr
    assert not out.exists()


def test_from_a_plain_dist_without_a_spec_here_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = hookshape("install", "--from", str(ROOT / "dist"), "--home", str(home), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("hookshape: error: no hookshape.toml in ")
    assert list(home.iterdir()) == []
