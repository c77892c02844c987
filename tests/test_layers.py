"""The package's layers import one way (spec <- plan <- edit <- install/render/package <-
diagnose <- verify <- commands), and an install request walks them once, in order: the spec is loaded, the plan
computed for the harness home, then applied (editing the configs); nothing below calls back up."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from tests.installkit import SPEC, hs, seed

import hookshape.commands.install  # noqa: F401  (imported here: what runs at import is not the walk)
from hookshape.commands.options import say

PACKAGE = Path(__file__).resolve().parents[1] / "generator" / "hookshape"

# What each layer may import (besides itself, errors and the package's root for __version__).
MAY_IMPORT = {
    "spec": set(),
    "plan": {"spec"},
    "edit": {"spec", "plan"},
    "render": {"spec", "plan"},
    "package": {"spec", "plan", "render"},
    "install": {"spec", "plan", "edit"},
    "diagnose": {"spec", "plan", "edit", "install", "render"},
    "verify": {"spec", "plan", "edit", "install", "diagnose"},
    "commands": {"spec", "plan", "edit", "install", "render", "package", "diagnose", "verify"},
}
FREE = {"errors", ""}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "hookshape" else ""


def _imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "hookshape":  # from hookshape import plan: the names are modules
                yield from (f"hookshape.{a.name}" for a in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_every_layer_imports_only_the_layers_below_it() -> None:
    wrong = []
    for layer, allowed in MAY_IMPORT.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for module in _imports(path):
                if not module.startswith("hookshape"):
                    continue
                target = _layer(module)
                if target not in allowed | FREE | {layer} and target not in ("__version__",):
                    wrong.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert wrong == []


def _walk(home: Path) -> list[tuple[str, str]]:
    """(caller layer, callee layer) of every call between two layers of the package while the
    install command runs, in order; the report lines an install hands back through the `echo`
    its command gave it (commands.options.say) are the command's own callback, not a call up."""
    edges: list[tuple[str, str]] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_code is say.__code__:
            return
        callee = _layer(frame.f_globals.get("__name__", ""))
        back = frame.f_back
        while back is not None and not _layer(back.f_globals.get("__name__", "")):
            back = back.f_back
        caller = _layer(back.f_globals.get("__name__", "")) if back is not None else ""
        if callee and caller and callee != caller:
            edges.append((caller, callee))

    sys.setprofile(profile)
    try:
        result = hs("install", "--spec", str(SPEC), "--home", str(home))
    finally:
        sys.setprofile(None)
    assert result.code == 0, result.err
    return edges


def test_an_install_walks_the_layers_once_in_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    seed(home)
    edges = _walk(home)
    rank = list(MAY_IMPORT)
    up = [e for e in edges if e[1] in rank and e[0] in rank and rank.index(e[1]) > rank.index(e[0])]
    assert up == [], "a call back up a layer"
    steps = [callee for caller, callee in edges if caller == "commands" and callee != "errors"]
    collapsed = [s for i, s in enumerate(steps) if i == 0 or steps[i - 1] != s]
    # load the spec, compute the plan for the harness home, apply it
    assert collapsed == ["spec", "plan", "install"]
    after_plan = edges[edges.index(("commands", "plan")):]
    applying = after_plan[next(i for i, e in enumerate(after_plan) if e == ("commands", "install")):]
    assert {callee for _, callee in applying} <= {"install", "edit", "spec", "errors"}, \
        "the install renders nothing: it never calls the plan (or render) again"
