"""The conformance matrix of user hooks: the adapter of every event the hooks spec has hooks on
(cells.hooks_spec: pre_tool, prompt, stop), through its gate and directly, x every vendor fixture
x every shell of tests.shells.MATRIX x every parser environment.

One test item is one (shell, environment, mode, event, vendor) cell; it runs the vendor's
fixtures through the adapter once each (cells.run_hooks_cell) and checks that the hook got the
event on stdin byte for byte and the oracle's reading of it in its view, and that the answer is
exactly the vendor's: its deny with "GUARD <n>" when the call names edit targets, else its allow;
the context answer of the fixed line on prompt; silence on stop.

Coverage: the normal PATH runs every fixture (foreign events included) through the gate and
directly; no jq, no jq nor python3 and busybox only run the fixtures of the adapter's own event
through the gate (the adapter's one parser is awk: these catch a reach for a missing tool).
"""

from __future__ import annotations

import pytest
from tests.conformance.cells import HOOK_ROLES, run_hooks_cell
from tests.conformance.conftest import tag
from tests.conformance.kit import ENVS, MATRIX, VENDORS

pytestmark = pytest.mark.slow

# (env, mode) -> only the fixtures of the adapter's own event
COVERAGE = {
    ("normal", "direct"): False,
    ("normal", "gate"): False,
    ("busybox", "gate"): True,
    ("nojq", "gate"): True,
    ("nojqpy", "gate"): True,
}
CELLS = [(env, mode) for env in ENVS for mode in ("direct", "gate") if (env, mode) in COVERAGE]


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("role", HOOK_ROLES)
@pytest.mark.parametrize(("env", "mode"), CELLS, ids=[f"{e}-{m}" for e, m in CELLS])
@pytest.mark.parametrize("sh", MATRIX, ids=lambda s: s.name)
def test_hooks_cell(make_ctx, rendered_hooks, base, request, sh, env, mode, role, vendor):
    ctx = make_ctx(sh, env, mode, kind="hooks", tree=rendered_hooks)
    res = run_hooks_cell(ctx, role, vendor, base, matched=COVERAGE[(env, mode)])
    tag(request, checks=res.checks, failed_checks=len(res.failures))
    assert res.checks > 0, "no fixture ran"
    if res.failures:
        shown = "\n".join(res.failures[:25])
        more = f"\n... and {len(res.failures) - 25} more" if len(res.failures) > 25 else ""
        pytest.fail(f"{len(res.failures)} of {res.checks} runs broke the contract "
                    f"({sh.name}, {env}, {mode}, {role}, {vendor}):\n{shown}{more}", pytrace=False)
