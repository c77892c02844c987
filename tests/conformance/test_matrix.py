"""The conformance matrix: every rendered tentacle, directly and through its gate, x every vendor
fixture x every shell of tests.shells.MATRIX x every parser environment.

One test item is one (shell, environment, mode, tentacle, vendor) cell; it runs the vendor's
fixtures under the oracle's scenarios (cells.py) and reports every broken run at once.

Environments: the normal PATH, and busybox only (every applet a symlink to busybox, the shell
under test by absolute path). Coverage per environment and mode (COVERAGE):

- normal, direct: every tentacle x every fixture (foreign events included) x every scenario;
- normal, gate: every tentacle x every fixture, the primary scenario of each pair;
- busybox only: every tentacle x the fixtures of its own event, every scenario directly and the
  primary one through the gate (the environment that catches GNU-only flags).

The no-jq and no-jq-nor-python3 PATHs (kit.ENVS) are not crossed here: nothing rendered calls
either tool, which test_static.test_no_script_calls_jq_or_python proves once for every script.
"""

from __future__ import annotations

import pytest
from tests.conformance.cells import failure_report, run_cell
from tests.conformance.kit import ENVS, MATRIX, MODES, ROLES, VENDORS

pytestmark = pytest.mark.slow

# (env, mode) -> (only the tentacle's own events, every scenario)
COVERAGE = {
    ("normal", "direct"): (False, True),
    ("normal", "gate"): (False, False),
    ("busybox", "direct"): (True, True),
    ("busybox", "gate"): (True, False),
}


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env", [e for e in ENVS if any(k[0] == e for k in COVERAGE)])
@pytest.mark.parametrize("sh", MATRIX, ids=lambda s: s.name)
def test_cell(make_ctx, base, request, sh, env, mode, role, vendor):
    ctx = make_ctx(sh, env, mode)
    matched, full = COVERAGE[(env, mode)]
    res = run_cell(ctx, role, vendor, base, full=full, matched=matched)
    failure_report(request, res, f"{sh.name}, {env}, {mode}, {role}, {vendor}")
