"""The scratch places simulate and test run rendered scripts in: the spec's scripts rendered in
memory into a temporary tree (never a dist/ that may be older than the spec), and harness homes
where a gate lets its job run (the lease held, a fresh heartbeat, every directory armed)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hookshape.plan.artifacts import script_artifacts
from hookshape.spec.load import Loaded


def write_scripts(loaded: Loaded, root: Path) -> None:
    """The spec's bin/ tree (gates, jobs, adapters, awk programs, the hooks' files) under root."""
    for art in script_artifacts(loaded):
        path = root / art.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(art.data)
        path.chmod(art.mode)


@contextmanager
def rendered(loaded: Loaded) -> Iterator[Path]:
    """The spec's scripts rendered into a temporary directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="hookshape-sim-") as tmp:
        write_scripts(loaded, Path(tmp))
        yield Path(tmp)


def harness_dir(loaded: Loaded, user_home: Path) -> Path:
    """The harness home inside a user home (home_default without its `~/`)."""
    return user_home / loaded.spec.harness.home_default.removeprefix("~/")


def prepare(loaded: Loaded, harness: Path) -> None:
    """A harness home where a gate lets its job run: readiness lease held, fresh heartbeat,
    every directory armed (each only where the spec has it; the files are harmless otherwise)."""
    gate = loaded.spec.gate
    harness.mkdir(parents=True, exist_ok=True)
    files = ((gate.ready_file, "4242\n"), (gate.pid_file, "4242\n"),
             (gate.heartbeat_file, f"{int(time.time())}\n"), (gate.armed_roots_file, "/\n"))
    for rel, text in files:
        path = harness / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
