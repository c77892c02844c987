"""The scratch home and project a verify turn runs in: the user's harness installed for one
vendor the way `hookshape install --home <scratch>` installs it, the gates given what they check
before they run a hook (the readiness lease, the project armed, where the spec has them), the
trust a review would give (where the vendor wants one), and a recorder in front of each gate.
Nothing outside the scratch dir is read or written."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hookshape.diagnose import survey
from hookshape.diagnose.survey import Handler, Survey
from hookshape.edit.managed import owner
from hookshape.errors import HookshapeError
from hookshape.install import installer
from hookshape.plan.homes import homes
from hookshape.plan.plan import build
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile
from hookshape.verify import probe, runner
from hookshape.verify.trusting import trust_all


@dataclass(frozen=True)
class Scratch:
    root: Path

    @property
    def home(self) -> Path:
        return runner.home_dir(self.root)

    @property
    def work(self) -> Path:
        return runner.work_dir(self.root)

    @property
    def calls(self) -> Path:
        return self.root / "calls"

    def harness(self, loaded: Loaded) -> Path:
        return self.home / loaded.spec.harness.home_default.removeprefix("~/")


@contextmanager
def scratch_dir(keep: bool) -> Iterator[Scratch]:
    """A short-named scratch dir in the system temp dir (a lock key is a path cut to a length:
    a long one would cut inside the file name), removed afterwards unless `keep`."""
    root = Path(tempfile.mkdtemp(prefix="hs-verify-"))
    try:
        yield Scratch(root)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def install(loaded: Loaded, profile: Profile, where: Scratch) -> list[str]:
    """`hookshape install --home <scratch home> --vendor <vendor>`, with nothing from the caller's
    environment (not the harness's home variable, not HOOKSHAPE_HOME); returns what it said."""
    where.home.mkdir(parents=True, exist_ok=True)
    where.work.mkdir(parents=True, exist_ok=True)
    said: list[str] = []
    at = homes(loaded.spec, where.home, {})
    if installer.install(build(loaded, at.harness), at, (profile.id,), "user", where.work, False, False,
                         said.append):
        raise HookshapeError(f"installing into the scratch home failed: {' '.join(said)}")
    return said


def ready_gates(loaded: Loaded, where: Scratch) -> None:
    """What the gates check before they run a hook, where the spec has it: the readiness lease
    (ready == pid, a heartbeat fresh for the whole turn) and the work dir armed."""
    gate, home = loaded.spec.gate, where.harness(loaded)
    if gate.readiness:
        for rel in (gate.ready_file, gate.pid_file):
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text(f"{os.getpid()}\n")
        beat = home / gate.heartbeat_file
        beat.write_text("")
        ahead = time.time() + 3600  # a future mtime counts as fresh: a slow turn keeps its lease
        os.utime(beat, (ahead, ahead))
    if gate.armed_roots:
        roots = home / gate.armed_roots_file
        roots.parent.mkdir(parents=True, exist_ok=True)
        roots.write_text(os.path.realpath(where.work) + "\n")


def hook_config(loaded: Loaded, profile: Profile, where: Scratch) -> Path:
    return runner.hook_config(profile, where.root, loaded.spec.harness.name)


def ours(loaded: Loaded, profile: Profile, where: Scratch) -> tuple[Survey, list[Handler]]:
    """The vendor's hook config in the scratch home, and the entries of the harness in it."""
    found = survey.load(profile, hook_config(loaded, profile, where))
    own = owner(loaded.spec)
    return found, [h for h in found.handlers if own.owns(h.command)]


def gate_of(loaded: Loaded, handler: Handler) -> Path | None:
    script = owner(loaded.spec).script(handler.command)
    return Path(script) if script else None


def prepare(loaded: Loaded, profile: Profile, where: Scratch) -> list[str]:
    """Install, ready the gates, trust the hooks, record every gate's calls; returns what the
    install said."""
    said = install(loaded, profile, where)
    ready_gates(loaded, where)
    trust_all(profile, hook_config(loaded, profile, where), runner.records_file(profile, where.root))
    for handler in ours(loaded, profile, where)[1]:
        gate = gate_of(loaded, handler)
        if gate is not None and gate.is_file():
            probe.wrap(gate, where.calls)
    return said
