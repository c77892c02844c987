"""The conformance matrix: every rendered tentacle, directly and through its gate, x every vendor
fixture x every shell of tests.shells.MATRIX x every parser environment.

One test item is one (shell, environment, mode, tentacle, vendor) cell; it runs the vendor's
fixtures under the oracle's scenarios (cells.py) and reports every broken run at once.

Environments: the normal PATH, and busybox only (every applet a symlink to busybox, the shell
under test by absolute path). Each dimension is crossed where it can change the result
(COVERAGE): the fixtures and scenarios change what the awk programs decide, which is the same
under every shell, so dash (the reference) runs all of them; the shell changes how stdin is read,
the dials' env read, the answer printed and the state written, so every other shell runs the
tentacle's own events under every scenario and one foreign event (another one per shell) that it
must pass in silence, for one vendor of each output dialect of the tentacle (kit.role_vendors:
the shell prints the fields the awk program gives it; the vendors of a dialect in turn over the
shells, so every vendor still meets several shells):

- normal, direct: dash every fixture x every scenario; other shells own events + one foreign
  event, every scenario;
- normal, gate: the same fixtures, the primary scenario of each pair;
- busybox only (the environment that catches GNU-only flags, and a shell's missing builtin
  replaced by an applet): the fixtures of the tentacle's own event, the primary scenario,
  directly and through the gate; dash directly under every scenario.

No PATH without jq or python is crossed: nothing rendered calls either tool, which
test_static.test_no_script_calls_jq_or_python proves once for every script.
"""

from __future__ import annotations

import pytest
from tests.conformance.cells import Pick, failure_report, run_cell
from tests.conformance.kit import ENVS, MATRIX, MODES, REFERENCE, ROLES, role_vendors

pytestmark = pytest.mark.slow

# (env, mode) -> ((fixtures, every scenario) under the reference shell, the same under the others)
COVERAGE: dict[tuple[str, str], tuple[tuple[Pick, bool], tuple[Pick, bool]]] = {
    ("normal", "direct"): (("all", True), ("own+1", True)),
    ("normal", "gate"): (("all", False), ("own+1", False)),
    ("busybox", "direct"): (("own", True), ("own", False)),
    ("busybox", "gate"): (("own", False), ("own", False)),
}


CELLS = [pytest.param(sh, env, mode, role, vendor, id=f"{sh.name}-{env}-{mode}-{role}-{vendor}")
         for sh in MATRIX for env in ENVS if any(k[0] == env for k in COVERAGE) for mode in MODES
         for role in ROLES for vendor in role_vendors(sh, role)]


@pytest.mark.parametrize(("sh", "env", "mode", "role", "vendor"), CELLS)
def test_cell(make_ctx, base, request, sh, env, mode, role, vendor):
    ctx = make_ctx(sh, env, mode)
    pick, full = COVERAGE[(env, mode)][sh.name != REFERENCE]
    res = run_cell(ctx, role, vendor, base, full=full, pick=pick, turn=MATRIX.index(sh))
    failure_report(request, res, f"{sh.name}, {env}, {mode}, {role}, {vendor}")
