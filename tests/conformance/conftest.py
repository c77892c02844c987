"""Fixtures of the conformance suite (one render, PATH farms and shell wrappers per worker) and
the summary table (tests/conformance/summary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conformance import summary
from tests.conformance.cells import hooks_spec
from tests.conformance.kit import CI, ENVS, Ctx, Rendered, Shell, interpreters, make_paths, render


def pytest_configure(config: pytest.Config) -> None:
    summary.install(config)


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The default spec rendered from the current templates (what `make render` writes to dist/);
    one render per xdist worker."""
    return render(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def rendered_hooks(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The hooks spec (cells.hooks_spec: the default spec with user hooks instead of tentacles)
    rendered from the current templates; one render per xdist worker."""
    return render(tmp_path_factory.mktemp("hooks-dist"), spec=hooks_spec(tmp_path_factory.mktemp("hooks-spec")))


@pytest.fixture(autouse=True)
def _tag_render(request: pytest.FixtureRequest, rendered: Rendered) -> None:
    """Every item names the render it tested: the summary warns when the templates changed
    between the workers' renders (someone edited templates/ during the run)."""
    request.node.user_properties.append(("cf_render", rendered.digest))


@pytest.fixture(scope="session")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    return make_paths(tmp_path_factory.mktemp("farms"))


@pytest.fixture(scope="session")
def interps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return interpreters(tmp_path_factory.mktemp("interp"))


def need_shell(sh: Shell) -> None:
    """A shell of the matrix that is not installed: a failure under CI, a loud skip locally."""
    if sh.available:
        return
    msg = f"MISSING SHELL {sh.name} ({' '.join(sh.argv)}): install it (make shells)"
    if CI:
        pytest.fail(msg + " - CI runs the full matrix")
    pytest.skip(msg)


def need_gate(rendered: Rendered) -> None:
    if rendered.gate_error is None:
        return
    msg = f"no gate rendered: {rendered.gate_error}"
    if CI:
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture
def make_ctx(rendered: Rendered, paths: dict[str, str | None], interps: dict[str, str],
             request: pytest.FixtureRequest):
    """make_ctx(shell, env, mode) -> Ctx, after tagging the test for the summary and applying
    the missing-shell policy; `tree`: another rendered tree than the default spec's."""

    def make(sh: Shell, env: str, mode: str, kind: str = "matrix", tree: Rendered | None = None) -> Ctx:
        tree = rendered if tree is None else tree
        assert env in ENVS
        request.node.user_properties += [("cf_shell", sh.name), ("cf_env", env), ("cf_kind", kind)]
        need_shell(sh)
        if mode == "gate":
            need_gate(tree)
        path = paths[env]
        if path is None:
            if CI:
                pytest.fail(f"parser environment {env} cannot be built (busybox missing)")
            pytest.skip(f"parser environment {env} cannot be built (busybox missing)")
        return Ctx(tree, sh, env, path, mode, interps[sh.name])

    return make


def tag(request: pytest.FixtureRequest, **props: object) -> None:
    request.node.user_properties += [(f"cf_{k}", v) for k, v in props.items()]


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return tmp_path
