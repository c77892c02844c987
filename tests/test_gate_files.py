"""The gates' working files cannot be planted or filled.

A gate keeps its run's files (the capture of its job's answer; an adapter's copy of the event and
its hooks' answers) at names no one can know before the run: named by the kernel's random id
(a tentacle's gate, on Linux), or in a private directory made per run by mktemp (mode 0700),
every file created exclusively. Links and FIFOs planted at every name an earlier layout
used (`<gate>.<pid>.1/.2`, `<adapter>.<pid>.in/.t` in $XDG_RUNTIME_DIR, `io.<pid>.1/.2` in the
health dir, for the next thousands of pids) are never followed or opened; a mktemp that hands
back a name an attacker prepared is checked and refused. And no verdict depends on free space:
with the runtime dir and the state dir on full filesystems, halt, protect, locks and fail-closed
hooks still block (a verdict whose answer cannot be written becomes the gate's own block; a
copy of the event that cannot be written fails every hook).

Verdicts here are answered as JSON on stdout by every real vendor; dash, busybox sh and bash
each meet one vendor, in turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.gatekit import CRASH, GATE, NAMES, PROFILES, SPEC, Rig
from tests.hookkit import Box, Tree, edit_doc, raw, render, shell_doc, write_spec
from tests.shells import CORE, ROOT, Shell
from tests.tentaclekit import block_msg, suffix

from hookshape.diagnose import health
from hookshape.plan import outputs

pytest_plugins = ["tests.hookkit"]  # fixtures: box, interps

CI = os.environ.get("CI", "") == "true"
# the vendors whose verdicts each shell meets, in turn
VENDORS = ("claude", "gemini", "codex", "copilot", "cursor", "qwen", "kimi", "factory")
CASES = [(sh, VENDORS[i % len(VENDORS)]) for i, sh in enumerate(CORE)]
IDS = [f"{sh.name}-{v}" for sh, v in CASES]
PIDS_AHEAD = 3000
CANARY = "the canary: a file the agent may name\n"
EXAMPLES = ROOT / "generator" / "hookshape" / "examples"


def next_pid() -> int:
    with contextlib.suppress(OSError, ValueError):
        return int(Path("/proc/sys/kernel/ns_last_pid").read_text()) + 1
    return os.getpid()


def plant(where: Path, names: list[str], canary: Path, start: int) -> int:
    """Links to /dev/null and to the canary, and FIFOs, at each name for the next pids."""
    where.mkdir(parents=True, exist_ok=True)
    count = 0
    for pid in range(start, start + PIDS_AHEAD):
        for i, pattern in enumerate(names):
            p = where / pattern.format(pid=pid)
            kind = (pid + i) % 3
            with contextlib.suppress(FileExistsError):
                if kind == 0:
                    p.symlink_to("/dev/null")
                elif kind == 1:
                    p.symlink_to(canary)
                else:
                    os.mkfifo(p)
                count += 1
    return count


def deny(vendor: str, text: str) -> dict[str, object]:
    obj = outputs.stdout_object(PROFILES[vendor], "deny", text, "pre_tool")
    assert obj is not None
    return obj


# -- the default harness's gates ---------------------------------------------------------------


def planted_rig(tmp_path: Path) -> tuple[Rig, Path, dict[str, str]]:
    rig = Rig(tmp_path)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    canary = rig.write(SPEC.matrix.file_default, CANARY)
    start = next_pid()
    gates = [NAMES[r] for r in NAMES]
    plant(runtime, [f"{g}.{{pid}}.{n}" for g in gates for n in (1, 2, "in", "t")], canary, start)
    plant(rig.health, ["io.{pid}.1", "io.{pid}.2"], canary, start)
    return rig, canary, {"XDG_RUNTIME_DIR": str(runtime)}


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_planted_links_and_fifos_never_open_the_halt(tmp_path: Path, sh: Shell, vendor: str) -> None:
    rig, canary, env = planted_rig(tmp_path)
    rig.write(SPEC.halt.sentinel_default, "maintenance\n")
    for command in ("pd start", f"rm {rig.home}/{SPEC.halt.sentinel_default}"):
        res = rig.run("pre_tool", raw(shell_doc(vendor, command, rig.project)), sh=sh, vendor=vendor,
                      timeout=30, **env)
        assert res.code == 0, res
        answer = outputs.read(PROFILES[vendor], "deny", json.loads(res.out), "pre_tool")
        assert answer is not None and answer != "", res
    assert canary.read_text() == CANARY


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_planted_links_never_empty_the_matrix_or_lose_a_lock(tmp_path: Path, sh: Shell, vendor: str) -> None:
    rig, canary, env = planted_rig(tmp_path)
    target = rig.project / "src" / "auth.ts"
    canary.write_text(CANARY + f'{SPEC.matrix.lock_prefix}{suffix(str(target))}="bob"\n')
    before = canary.read_bytes()
    for _ in range(3):
        res = rig.run("pre_tool", raw(edit_doc(vendor, str(target), rig.project)), sh=sh, vendor=vendor,
                      timeout=30, **env)
        assert res.code == 0, res
        assert json.loads(res.out) == deny(vendor, block_msg(target, "bob"))
    assert canary.read_bytes() == before


def test_a_prepared_run_dir_is_refused(tmp_path: Path) -> None:
    """A mktemp that hands back a name an attacker prepared (a link to another directory, or a
    directory holding links and FIFOs at the capture names): the gate checks and never uses it,
    and the verdict still reaches the vendor. The health dir is read-only here, so the capture
    files cannot be made there by the kernel's random name, and the gate takes a run dir in
    $TMPDIR."""
    rig = Rig(tmp_path)
    rig.write(SPEC.halt.sentinel_default, "maintenance\n")
    trap = tmp_path / "trap"
    trap.mkdir()
    (trap / "job.1").symlink_to("/dev/null")
    os.mkfifo(trap / "job.2")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    farm = tmp_path / "farm"
    farm.mkdir()
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    calls = tmp_path / "calls"
    for handed in (trap, link):
        fake = farm / "mktemp"
        # answers with the prepared name, as if it had made it (the template's prefix kept)
        fake.write_text(f'#!/bin/sh\nd=$2\necho "$d" >> "{calls}"\nln -sfn "{handed}" "${{d%.XXXXXX}}.attack"\n'
                        f'printf "%s\\n" "${{d%.XXXXXX}}.attack"\n')
        fake.chmod(0o755)
        with read_only(rig.health):
            res = rig.run("pre_tool", raw(shell_doc("claude", "pd start", rig.project)), vendor="claude",
                          PATH=f"{farm}:{os.environ['PATH']}", TMPDIR=str(tmpdir), timeout=30)
        assert res.code == 0, res
        assert outputs.read(PROFILES["claude"], "deny", json.loads(res.out), "pre_tool"), res
    assert list(elsewhere.iterdir()) == []
    # the prepared names were handed out in $TMPDIR, and refused there
    assert any(line.startswith(f"{tmpdir}/") for line in calls.read_text().splitlines())


# -- a user's fail-closed hook ---------------------------------------------------------------

GUARD = """#!/bin/sh
set -f
IFS='
'
for p in $PD_PATHS; do
  case ${p##*/} in .env*) echo "secrets: $p" >&2; exit 2 ;; esac
done
"""


def guard_tree(tmp_path: Path) -> Tree:
    spec = write_spec(tmp_path / "spec", [
        {"name": "guard", "event": "pre_tool", "run": ["sh", "{dir}/guard.sh"], "files": ["guard.sh"],
         "failure": "closed", "deadline_ms": 5000}], files={"guard.sh": GUARD})
    return render(spec, tmp_path / "out")


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_planted_names_never_open_a_closed_hook(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    tree = guard_tree(tmp_path)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    canary = box.home.path / "canary"
    canary.write_text(CANARY)
    name = tree.group("pre_tool").name
    start = next_pid()
    plant(runtime, [f"{name}.{{pid}}.{n}" for n in (1, 2, "in", "t")], canary, start)
    plant(box.home.path / GATE.health_dir, ["io.{pid}.1", "io.{pid}.2"], canary, start)
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, ".env", box.project)), vendor, sh,
                XDG_RUNTIME_DIR=str(runtime), timeout=30)
    assert r.code == 0, r.brief()
    assert json.loads(r.out) == deny(vendor, f"secrets: {box.project}/.env"), r.brief()
    assert canary.read_text() == CANARY


# -- full filesystems ------------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at `where` with these options, unmounted after (no mount: skipped, or a
    failure under CI)."""
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        message = f"cannot mount a tmpfs here ({proc.stderr.strip()[:200]})"
        if CI:
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


@contextlib.contextmanager
def full_tmpfs(where: Path) -> Iterator[Path]:
    """A small tmpfs mounted at `where` (its files copied in first), then filled to the last
    byte: creating an empty file still works, writing into one fails."""
    keep = tmp_keep(where)
    with tmpfs(where, "size=256k,mode=0700"):
        restore(keep, where)
        fd = os.open(where / ".fill", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * 4096):
                    pass
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0"):
                    pass
        finally:
            os.close(fd)
        yield where


def read_only(where: Path) -> contextlib.AbstractContextManager[Path]:
    """An empty read-only tmpfs mounted at `where` (nothing can be created there)."""
    return tmpfs(where, "ro,size=64k,mode=0700")


def tmp_keep(where: Path) -> dict[str, bytes]:
    if not where.exists():
        return {}
    return {str(p.relative_to(where)): p.read_bytes() for p in where.rglob("*") if p.is_file()}


def restore(keep: dict[str, bytes], where: Path) -> None:
    for rel, data in keep.items():
        p = where / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


@contextlib.contextmanager
def full_disks(runtime: Path, state: Path) -> Iterator[None]:
    with full_tmpfs(runtime), full_tmpfs(state):
        yield


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_halt_protect_and_locks_survive_full_disks(tmp_path: Path, sh: Shell, vendor: str) -> None:
    rig = Rig(tmp_path)
    rig.write(SPEC.halt.sentinel_default, "maintenance\n")
    target = rig.project / "a.ts"
    rig.write(SPEC.matrix.file_default, f'{SPEC.matrix.lock_prefix}{suffix(str(target))}="bob"\n')
    runtime = tmp_path / "run"
    assert rig.run("prompt", vendor=vendor).code == 0  # the readiness cache, before the disks fill
    calls = [shell_doc(vendor, "pd start", rig.project),
             shell_doc(vendor, f"rm {rig.home}/{SPEC.halt.sentinel_default}", rig.project),
             shell_doc(vendor, f"touch {rig.home}/{GATE.kill_switch_file}", rig.project),
             edit_doc(vendor, str(target), rig.project)]
    with full_disks(runtime, rig.home / SPEC.harness.state_dir):
        for doc in calls:
            res = rig.run("pre_tool", raw(doc), sh=sh, vendor=vendor, XDG_RUNTIME_DIR=str(runtime),
                          timeout=30)
            assert res.code == 0, res
            assert outputs.read(PROFILES[vendor], "deny", json.loads(res.out), "pre_tool"), res
        # the other gates still answer in one piece or not at all
        for role in ("prompt", "post_tool", "stop"):
            res = rig.run(role, (EXAMPLES / vendor / f"{role}.json").read_bytes(), sh=sh, vendor=vendor,
                          XDG_RUNTIME_DIR=str(runtime), timeout=30)
            assert res.code == 0, res
            assert res.out == "" or json.loads(res.out), res


@pytest.mark.parametrize("sh", CORE, ids=[s.name for s in CORE])
def test_a_failure_on_a_full_health_dir_leaves_no_lock(tmp_path: Path, sh: Shell) -> None:
    """A tentacle that crashes with the health dir full: the gate says nothing and exits 0; the
    state lock it made but could not write its pid into is removed (left, it would hold off every
    later failure's update until it went stale); the failure stays counted as its empty token."""
    rig = Rig(tmp_path)
    rig.stub("stop", CRASH)
    rig.health.mkdir(parents=True, exist_ok=True)
    with full_tmpfs(rig.health):
        res = rig.run("stop", sh=sh, timeout=30)
        assert (res.code, res.out) == (0, ""), res
        state = rig.health / f"{NAMES['stop']}{health.STATE_EXT}"
        left = {p.name for p in rig.health.iterdir() if p.name.startswith(NAMES["stop"])}
        assert left == {p.name for p in health.pending(state)}, "no lock, state or temp left"
        assert rig.breaker("stop").failures == 1


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_a_closed_hook_blocks_when_the_disks_are_full(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """The event cannot be copied for the hooks: every hook fails, the fail-closed one blocks."""
    tree = guard_tree(tmp_path)
    runtime = tmp_path / "run"
    with full_disks(runtime, box.home.path / SPEC.harness.state_dir):
        r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "ok.txt", box.project)), vendor, sh,
                    XDG_RUNTIME_DIR=str(runtime), TMPDIR=str(runtime), timeout=30)
    assert r.code == 0, r.brief()
    assert outputs.read(PROFILES[vendor], "deny", json.loads(r.out), "pre_tool"), r.brief()


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_a_hook_reads_the_event_from_a_private_file_that_goes(tmp_path: Path, box: Box, sh: Shell,
                                                               vendor: str) -> None:
    """The event copy every hook reads (its stdin) lies in the runtime dir, named by the
    kernel's random id, mode 0600; when the run ends, no file of it is left there."""
    marks = tmp_path / "seen.txt"
    look = 'p=$(readlink /proc/self/fd/0) && stat -c "%a %n" "$p" >> "$0"'
    spec = write_spec(tmp_path / "spec", [{"name": "look", "event": "pre_tool", "run": ["sh", "-c", look, str(marks)]}])
    tree = render(spec, tmp_path / "out")
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    r = box.run(tree, "pre_tool", raw(edit_doc(vendor, "ok.txt", box.project)), vendor, sh,
                XDG_RUNTIME_DIR=str(runtime), timeout=30)
    assert r.code == 0, r.brief()
    mode, name = marks.read_text().split()
    uuid = r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    assert mode == "600" and Path(name).parent == runtime, name
    assert re.fullmatch(rf"io\.{re.escape(tree.loaded.spec.group_name('pre_tool'))}\.{uuid}\.in", Path(name).name), name
    assert list(runtime.iterdir()) == []


@pytest.mark.parametrize(("sh", "vendor"), CASES, ids=IDS)
def test_a_shared_runtime_dir_takes_a_run_dir(tmp_path: Path, box: Box, sh: Shell, vendor: str) -> None:
    """$XDG_RUNTIME_DIR shared (sticky, mode 1777, as /tmp): anyone listing it would learn the
    random id from the first file and could plant the next name (a hook's capture file: that
    hook would fail, and a fail-open hook's refusal would be lost). There the gate's files go
    into a private run dir made by mktemp, so a process planting links at every name that starts
    as the event copy's loses every race, and the refusal of the second hook still comes."""
    spec = write_spec(tmp_path / "spec", [
        {"name": "slow", "event": "pre_tool", "run": ["sh", "-c", "sleep 0.3; exit 0"]},
        {"name": "nope", "event": "pre_tool", "run": ["sh", "-c", 'echo "no rm" >&2; exit 2']}])
    tree = render(spec, tmp_path / "out")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    stop = threading.Event()

    def planter() -> None:
        while not stop.is_set():
            for f in shared.glob("io.*.in"):
                for tail in ("h1.1", "h2.1", "h2.2", "r", "t", "i"):
                    with contextlib.suppress(OSError):
                        (shared / (f.name[:-2] + tail)).symlink_to("/dev/null")
            time.sleep(0.002)

    thread = threading.Thread(target=planter)
    thread.start()
    try:
        r = box.run(tree, "pre_tool", raw(shell_doc(vendor, "rm -rf /", box.project)), vendor, sh,
                    XDG_RUNTIME_DIR=str(shared), timeout=30)
    finally:
        stop.set()
        thread.join()
    assert r.code == 0, r.brief()
    assert outputs.read(PROFILES[vendor], "deny", json.loads(r.out), "pre_tool"), r.brief()
    assert not list(shared.glob("io.*.in")), "the event copy lay in the shared dir"


def umask_shell(mask: str) -> Shell:
    """dash, started under this umask (the vendor's); named dash, whose interpreter it is."""
    dash = shutil.which("dash")
    assert dash
    return Shell("dash", ("dash", "-c", f'umask {mask}; exec {dash} "$0"'))


@pytest.mark.parametrize("mask", ["0000", "0027", "0077"])
def test_tentacles_and_hooks_see_the_user_s_umask(tmp_path: Path, box: Box, mask: str) -> None:
    """The gates make their files under umask 077 and put the user's back: a tentacle (read by
    the gate's own shell) and a user's hook run under the umask the vendor gave."""
    rig = Rig(tmp_path / "rig")
    rig.stub("prompt", 'umask > "$MARKS/u"\n')
    assert rig.run("prompt", sh=umask_shell(mask)).code == 0
    assert (rig.marks / "u").read_text().strip() == mask
    seen = tmp_path / "seen.txt"
    spec = write_spec(tmp_path / "spec", [{"name": "look", "event": "pre_tool",
                                           "run": ["sh", "-c", 'umask >> "$0"', str(seen)]}])
    tree = render(spec, tmp_path / "out")
    r = box.run(tree, "pre_tool", raw(edit_doc("claude", "ok.txt", box.project)), "claude", umask_shell(mask),
                timeout=30)
    assert r.code == 0, r.brief()
    assert seen.read_text().strip() == mask
