"""The conformance matrix of user hooks: the gate of every event the hooks spec has hooks on
(cells.hooks_spec: pre_tool, prompt, stop; it runs the hooks itself) x every vendor fixture x
every shell of tests.shells.MATRIX x every parser environment.

One test item is one (shell, environment, mode, event, vendor) cell; it runs the vendor's
fixtures through the gate once each (cells.run_hooks_cell) and checks that the hook got the
event on stdin byte for byte and the oracle's reading of it in its view, and that the answer is
exactly the vendor's: its deny with "GUARD <n>" when the call names edit targets, else its allow;
the context answer of the fixed line on prompt; silence on stop.

Coverage, each dimension crossed where it can change the result: the normal PATH runs every
fixture (foreign events included) through the gate under dash (what the awk reads of an event is
the same under every shell), and under every other shell the fixtures of the gate's own event
and one foreign one (another one per shell); busybox only (every applet a busybox one: head -c,
rm, sleep, ps, mktemp, setsid) runs the fixtures of the gate's own event under every shell.
Dash meets every vendor, every other shell one vendor
of each output dialect of the event (kit.role_vendors), the vendors of a dialect in turn over the
shells. A PATH without jq or python3 is not crossed: nothing rendered calls either
(tests/conformance/test_static.py proves it once for every script).
"""

from __future__ import annotations

import pytest
from tests.conformance.cells import HOOK_ROLES, Pick, failure_report, run_hooks_cell
from tests.conformance.kit import ENVS, MATRIX, REFERENCE, role_vendors

pytestmark = pytest.mark.slow

# (env, mode) -> (fixtures under the reference shell, under the others)
COVERAGE: dict[tuple[str, str], tuple[Pick, Pick]] = {
    ("normal", "gate"): ("all", "own+1"),
    ("busybox", "gate"): ("own", "own"),
}
CELLS = [pytest.param(sh, env, mode, role, vendor, id=f"{sh.name}-{env}-{mode}-{role}-{vendor}")
         for sh in MATRIX for env in ENVS for mode in ("gate",)
         if (env, mode) in COVERAGE for role in HOOK_ROLES for vendor in role_vendors(sh, role)]


@pytest.mark.parametrize(("sh", "env", "mode", "role", "vendor"), CELLS)
def test_hooks_cell(make_ctx, rendered_hooks, base, request, sh, env, mode, role, vendor):
    ctx = make_ctx(sh, env, mode, kind="hooks", tree=rendered_hooks)
    pick = COVERAGE[(env, mode)][sh.name != REFERENCE]
    res = run_hooks_cell(ctx, role, vendor, base, pick, turn=MATRIX.index(sh))
    failure_report(request, res, f"{sh.name}, {env}, {mode}, {role}, {vendor}")
