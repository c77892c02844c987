"""Shared pytest configuration: hypothesis profiles and the shell matrix report."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# the helper kits assert too: rewrite them before any test module imports one
pytest.register_assert_rewrite("tests.tentaclekit", "tests.installkit", "tests.gatekit", "tests.hookkit")

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


# the suite writes and removes tens of thousands of small files (homes, state, traces): on a
# memory filesystem with room to spare they cost a fraction of what a disk's journal makes them
SHM = Path("/dev/shm")
SHM_MIN_FREE = 2 << 30
SHM_KEEP = 3  # runs kept for a look after they end, as pytest keeps its own


def memory_basetemp() -> Path | None:
    """A fresh folder under /dev/shm when it is a writable, executable folder with SHM_MIN_FREE
    bytes free (a container's default 64 MB is not enough), else None (pytest's own place). The
    folders of older runs go, all but the newest few."""
    try:
        st = os.statvfs(SHM)
    except OSError:
        return None
    # the tests run scripts they write there: a noexec mount will not do
    if st.f_bavail * st.f_frsize < SHM_MIN_FREE or st.f_flag & os.ST_NOEXEC or not os.access(SHM, os.W_OK):
        return None
    mine = f"hookshape-tests-{os.getuid()}-"
    old = sorted(SHM.glob(mine + "*"), key=lambda p: p.stat().st_mtime)
    for p in old[: max(0, len(old) - SHM_KEEP + 1)]:
        shutil.rmtree(p, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=mine, dir=SHM))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The tests' temporary folders in memory where there is room (unless --basetemp names one;
    xdist's workers get folders under the controller's); and the conformance summary table (shell
    x parser environment) at the end of every run that includes tests/conformance, also under
    xdist where only this conftest reaches the controller."""
    from tests.conformance import summary

    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = memory_basetemp()

    summary.install(config)
