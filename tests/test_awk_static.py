"""Every awk program of a rendered tentacle (lib.awk, then the one beside it) compiles and runs
under every awk at hand.

mawk (Debian's default awk) refuses a program that calls a function it never defines, even on
a path that never runs; gawk and busybox awk let it pass. So each program runs once, in every
mode, on empty input, under each awk."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.shells import FAST

from hookshape.plan.artifacts import AWK_LIB

DIST = Path(__file__).resolve().parents[1] / "dist"
AWKS = [a for a in (["mawk"], ["busybox", "awk"], ["gawk"], ["original-awk"])
        if shutil.which(a[0]) and (not FAST or a[0] == "mawk")]
SQUID = DIST / "bin" / "squid"
TENTACLES = sorted(p for p in SQUID.iterdir() if p.suffix != ".awk")
MODES = ("main", "dial", "build")


def programs(script: Path) -> list[str]:
    """awk's -f options for the tentacle: the shared library, then its own program."""
    own = script.with_name(script.name + ".awk")
    assert own.is_file(), f"{script.name}: no awk program beside it"
    return ["-f", str(SQUID / AWK_LIB), "-f", str(own)]


def test_core_awks_present() -> None:
    names = {a[0] for a in AWKS}
    need = {"mawk"} if FAST else {"mawk", "busybox"}
    assert need <= names, f"missing awks: need {sorted(need)}, have {sorted(names)}"


@pytest.mark.parametrize("awk", AWKS, ids=lambda a: " ".join(a))
@pytest.mark.parametrize("script", TENTACLES, ids=lambda p: p.name)
@pytest.mark.parametrize("mode", MODES)
def test_program_compiles_and_runs(awk: list[str], script: Path, mode: str) -> None:
    env = {**os.environ, "LC_ALL": "C", "_PD_MODE": mode, "_PD_DIAL": "sitrep"}
    proc = subprocess.run([*awk, *programs(script)], input=b"{}", capture_output=True, env=env, timeout=20,
                          check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
