"""Kill points: an install or uninstall run in a child process that kills itself (SIGKILL: no
cleanup of any kind) just before its n-th change on disk (fsops.before_change).

A test process is large and forks slowly; `python -m tests.killpoint HOME` is a small process
(hookshape only) that forks one child per request: it reads `install N` or `uninstall N` lines
and answers `killed` or `finished` for each."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from hookshape.install import fsops, installer, request, uninstaller
from hookshape.plan.plan import build
from hookshape.spec.load import load

SPEC = Path(__file__).resolve().parents[1] / "hookshape.toml"
# one vendor of each config shape: JSON groups, JSON with comments and a switch, TOML with a
# switch, a named bundle, and a folder of hook files (a file and directories install makes)
VENDORS = ("claude", "gemini", "codex", "agy", "copilot")


def _quiet(_line: str) -> None:
    return None


def runs(home: Path, scope: str = "user") -> dict[str, Callable[[], int]]:
    """install and uninstall of the default spec's VENDORS in `home`, through the installer's
    own entry points (the spec loaded and the plan computed once, as the CLI does per run); at
    project scope in `home/proj` (the vendors of VENDORS that can run a project setup)."""
    spec = load(SPEC)
    if scope == "project":
        req = request.make(spec, VENDORS, "project", home / "proj", home, env={}, named=False)
    else:
        req = request.make(spec, VENDORS, "user", None, home, env={})
    plan = build(spec, req.homes.harness, scope=req.scope)
    return {"install": lambda: installer.run(req, plan, _quiet),
            "uninstall": lambda: uninstaller.run(req, _quiet)}


def killed_at(step: int, run: Callable[[], object]) -> bool:
    """Run `run` in a child that kills itself just before its `step`-th change on disk; True
    when it died there, False when it made fewer changes."""
    pid = os.fork()
    if pid == 0:  # the child never returns
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            count = [0]

            def step_(_what: str) -> None:
                count[0] += 1
                if count[0] == step:
                    os.kill(os.getpid(), signal.SIGKILL)

            fsops.before_change = step_
            run()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def serve(home: Path, scope: str) -> None:
    chosen = runs(home, scope)
    for line in sys.stdin:
        verb, step = line.split()
        answer = "killed" if killed_at(int(step), chosen[verb]) else "finished"
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "user")
