"""Shared pytest configuration: hypothesis profiles and the shell matrix report."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# the helper kits assert too: rewrite them before any test module imports one
pytest.register_assert_rewrite("tests.tentaclekit", "tests.installkit", "tests.gatekit", "tests.hookkit")

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the CPUs this process may use. A good part of the suite
    waits (on the scripts it runs, on deadlines, cooldowns and the live CLIs' turns), and a third
    worker on two cores fills that time (the gate, hook and halt tests: 65 s with two workers,
    50 s with three, the same CPU time)."""
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The tests' temporary folders in memory where there is room (unless --basetemp names one;
    xdist's workers get folders under the controller's); and the conformance summary table (shell
    x parser environment) at the end of every run that includes tests/conformance, also under
    xdist where only this conftest reaches the controller."""
    from tests import scratch
    from tests.conformance import summary

    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = scratch.basetemp()

    summary.install(config)
