"""Options shared by several commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def spec_option(func: F) -> F:
    return click.option("--spec", "spec_path", type=click.Path(path_type=Path, dir_okay=False),
                        default=None, help="The spec file (default: ./hookshape.toml).")(func)


def profiles_option(func: F) -> F:
    return click.option("--profiles", "profile_dirs", type=click.Path(path_type=Path, file_okay=False,
                        exists=True), multiple=True,
                        help="Extra directory of vendor profiles (*.toml); repeatable.")(func)
