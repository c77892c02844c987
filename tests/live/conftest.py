"""Fixtures of the live test tier: the pinned vendor CLIs and a mock model server.

The tier runs only with `-m live` in mind, but collecting it is always safe:
without node/npm every live test is skipped with the reason, except under
CI=true, where a missing toolchain is a failure (CI must not go green by
running nothing).
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from hookshape.verify.mock.server import MockServer

from . import pinned


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> None:
    if _in_ci():
        pytest.fail(f"live tier cannot run under CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def live_clis() -> dict:
    """vendor -> CLI path; installs the pinned CLIs (a no-op when already there)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        _unavailable(f"{' and '.join(missing)} not on PATH: the live tier needs Node.js and npm")
    script = pinned.INSTALL
    try:
        proc = subprocess.run(
            ["sh", str(script)],
            capture_output=True,
            text=True,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        _unavailable(f"{script} timed out")
    if proc.returncode != 0:
        _unavailable(f"{script} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    paths = {}
    for vendor in pinned.VENDORS:
        path = pinned.cli_path(vendor)
        if not path.exists():
            _unavailable(f"{path} missing after {script}")
        paths[vendor] = path
    return paths


@pytest.fixture
def mock_server():
    with MockServer() as server:
        yield server
