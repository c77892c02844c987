"""Options shared by install, uninstall and doctor."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from hookshape.plan.homes import HOME_ENV

F = TypeVar("F", bound=Callable[..., Any])


def vendor_option(func: F) -> F:
    return click.option("--vendor", "vendors", multiple=True, metavar="V",
                        help="A vendor id (repeatable; default: every vendor the spec "
                        "enables).")(func)


def home_option(func: F) -> F:
    return click.option("--home", type=click.Path(path_type=Path, file_okay=False), default=None,
                        envvar=HOME_ENV, show_envvar=True,
                        help="The user home every `~` path means (default: $HOME).")(func)


def project_option(func: F) -> F:
    return click.option("--project", type=click.Path(path_type=Path, file_okay=False), default=None,
                        help="The project directory for --scope project (default: cwd).")(func)


def scope_option(func: F) -> F:
    return click.option("--scope", type=click.Choice(["user", "project"]), default="user",
                        show_default=True, help="User configs, or the project's.")(func)


def change_options(func: F) -> F:
    """--dry-run and --force."""
    func = click.option("--force", is_flag=True,
                        help="Replace hookshape entries and staged scripts someone edited "
                        "since the last install, and write read-only (e.g. 0444) configs, "
                        "keeping their mode.")(func)
    return click.option("--dry-run", is_flag=True,
                        help="Print the diffs and the files to stage; write nothing.")(func)
