"""The `hookshape` command line: a click group; each command lives in its own module."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

import click

from hookshape import __version__
from hookshape.errors import HookshapeError

# command name -> module under hookshape.commands that defines `command`
COMMANDS = ("init", "render", "validate", "capabilities", "vendors", "install", "uninstall",
            "doctor", "simulate", "verify", "status", "schema", "package")


class LazyGroup(click.Group):
    """Imports a command's module only when that command runs (keeps `--help` and hooks fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [c for c in COMMANDS if _exists(c)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS or not _exists(name):
            return None
        module = importlib.import_module(f"hookshape.commands.{name}")
        command: click.Command = module.command
        return command


def _exists(name: str) -> bool:
    return importlib.util.find_spec(f"hookshape.commands.{name}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookshape")
def cli() -> None:
    """Render, install and prove agent hook harnesses from one hook-shape spec."""


def main(argv: list[str] | None = None) -> Any:
    try:
        return cli.main(args=argv, prog_name="hookshape", standalone_mode=False)
    except HookshapeError as exc:
        for line in str(exc).splitlines() or [""]:  # several problems: one line each
            click.echo(f"hookshape: error: {line}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code if exc.exit_code != 2 else 1)
    except click.exceptions.Abort:
        click.echo("hookshape: aborted", err=True)
        sys.exit(1)
