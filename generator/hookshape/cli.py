"""The `hookshape` command line: a click group; each command lives in its own module."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any, NoReturn

import click

from hookshape import __version__
from hookshape.errors import HookshapeError

# command name (its module under hookshape.commands defines `command`) -> its one-line summary,
# which `hookshape --help` lists without importing any command (tests/test_cli.py holds each
# to its command's own short help)
COMMANDS: dict[str, str] = {
    "init": "Write ./hookshape.toml (an example spec, schema line first), ./hookshape.schema.json"
            " and the example's ./hookshape.tests.toml.",
    "render": "Render the spec into dist/ (gates, tentacles, vendor configs, MANIFEST,"
              " CAPABILITIES).",
    "validate": "Check the spec and the vendor profiles it uses.",
    "capabilities": "Show what each tentacle enforces on each vendor, and why.",
    "vendors": "List the vendors: confidence, config files, and what each can enforce per event.",
    "install": "Install the harness: scripts under the harness home, entries in each vendor's"
               " config.",
    "uninstall": "Remove what install wrote: entries, switches, scripts, directories it created.",
    "doctor": "Explain, per vendor, why a hook would not fire.",
    "simulate": "Run one gate's script as VENDOR would and print exit code, stdout, stderr and"
                " the verdict.",
    "test": "Run the harness's own test cases through its rendered gates on every vendor.",
    "verify": "Run the vendor's installed CLI for one offline turn and say, per event, whether"
              " its hooks fired.",
    "status": "Show each tentacle's circuit breaker and the gates' recent debug events.",
    "schema": "Print the JSON Schema of hookshape.toml (for editors and TOML language servers).",
    "package": "Build <out>/<harness>-hooks-<version>.tar.gz (dist/, INSTALL.md, the spec) and"
               " SHA256SUMS, or, with --as, the harness as a vendor's plugin or extension:"
               " manifest, hooks file, scripts, README and LICENSE, from the spec's [package] and"
               " the vendor's profile.",
}


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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their summaries, as click lays them out, from COMMANDS alone."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        with formatter.section("Commands"):
            formatter.write_dl([(n, click.Command(n, help=COMMANDS[n]).get_short_help_str(limit))
                                for n in names])


def _exists(name: str) -> bool:
    return importlib.util.find_spec(f"hookshape.commands.{name}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookshape")
def cli() -> None:
    """Render, install and prove agent hook harnesses from one hook-shape spec."""


def main(argv: list[str] | None = None) -> Any:
    try:
        result = cli.main(args=argv, prog_name="hookshape", standalone_mode=False)
        sys.stdout.flush()
        return result
    except HookshapeError as exc:
        fail(str(exc), exc.exit_code)
    except click.exceptions.Exit as exc:
        _flushed()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        _flushed()
        exc.show()
        sys.exit(exc.exit_code if exc.exit_code != 2 else 1)
    except click.exceptions.Abort:
        fail("aborted", 1, prefix="hookshape: ")
    except OSError as exc:  # a write no command names: the output (they name every file)
        fail(f"{exc.filename or 'standard output'}: {exc.strerror or exc}", 1)
    except SystemExit:
        _flushed()
        raise


def fail(message: str, code: int, prefix: str = "hookshape: error: ") -> NoReturn:
    """One line per problem on stderr, each ending with a newline; then exit with `code`."""
    _flushed()
    for line in message.splitlines() or [""]:  # several problems: one line each
        click.echo(f"{prefix}{line}", err=True)
    sys.exit(code)


def _flushed() -> None:
    """Flush stdout; one that cannot be written (a full disk, a closed pipe) is pointed at
    /dev/null, so the interpreter's own flush at exit does not fail again with a traceback."""
    try:
        sys.stdout.flush()
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
