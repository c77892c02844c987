"""Options shared by several commands."""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from hookshape.errors import HookshapeError, OutputError
from hookshape.plan.matchers import raw_name_warnings
from hookshape.spec.load import SPEC_ENV, Loaded, SpecChoice

F = TypeVar("F", bound=Callable[..., Any])


def spec_choice(spec_path: Path | None, use_default: bool) -> SpecChoice:
    """--spec (or $HOOKSHAPE_SPEC) and --default as one choice; on the command line the two
    exclude each other, and --default wins over the environment variable."""
    if use_default:
        source = click.get_current_context().get_parameter_source("spec_path")
        if spec_path is not None and source == ParameterSource.COMMANDLINE:
            raise HookshapeError("--spec and --default exclude each other: pass one")
        return SpecChoice(builtin=True)
    return SpecChoice(given=spec_path)


def spec_option(func: F) -> F:
    """--spec FILE and --default, handed to the command as `spec: SpecChoice`."""

    @functools.wraps(func)
    def wrapper(*args: Any, spec_path: Path | None, use_default: bool, **kwargs: Any) -> Any:
        return func(*args, spec=spec_choice(spec_path, use_default), **kwargs)

    wrapper = click.option(
        "--default", "use_default", is_flag=True,
        help="Use the built-in default harness spec (needed where no ./hookshape.toml "
             "exists).")(wrapper)
    wrapper = click.option(
        "--spec", "spec_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
        envvar=SPEC_ENV, show_envvar=True,
        help="The spec file (default: ./hookshape.toml; without one, pass --spec or "
             "--default).")(wrapper)
    return wrapper  # type: ignore[return-value]


def profiles_option(func: F) -> F:
    return click.option("--profiles", "profile_dirs", type=click.Path(path_type=Path, file_okay=False,
                        exists=True), multiple=True,
                        help="Extra directory of vendor profiles (*.toml); repeatable.")(func)


def repeated_options() -> str:
    """The spec, home and profile options of this command line (shell-quoted, each with a
    leading space), for a suggested command to carry: e.g. ` --spec my.toml --home /tmp/h`.
    Values that came from environment variables are left out: the user's shell still has them."""
    ctx = click.get_current_context()
    words: list[str] = []
    for name, flag in (("spec_path", "--spec"), ("home", "--home")):
        value = ctx.params.get(name)
        if value is not None and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE:
            words += [flag, str(value)]
    if ctx.params.get("use_default"):
        words.append("--default")
    for folder in ctx.params.get("profile_dirs") or ():
        words += ["--profiles", str(folder)]
    return "".join(f" {shlex.quote(w)}" for w in words)


def say(line: str) -> None:
    """click.echo for a command's report: a report that cannot be written (a full disk, a closed
    pipe) is one error that names standard output, never taken for a failure of the files."""
    try:
        click.echo(line)
    except OSError as exc:
        raise OutputError(f"standard output: {exc.strerror or exc}") from None


def warn_about(loaded: Loaded) -> None:
    """What the spec may get wrong without being invalid, one warning line each on stderr: a
    raw tool name in a hook's match that an enabled vendor is not known to have; a harness of
    hooks alone whose gates wait for a daemon it may not have."""
    for problem in [*raw_name_warnings(loaded.spec, loaded.vendors), *loaded.spec.daemon_warnings()]:
        click.echo(f"hookshape: warning: {loaded.spec_path}: {problem}", err=True)
