"""The hookshape CLI run in this process: the same main() as `python -m hookshape`, its exit
code, stdout and stderr, under a given cwd and environment (click's CliRunner isolation).

A fresh interpreter costs about a second of imports per call; tests about messages, exit codes
and what a command writes do not need one. tests/test_cli.py keeps true subprocess runs of the
console script and of `python -m hookshape`, and tests/test_package.py installs through one.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def hookshape(*args: str | Path, cwd: Path | None = None,
              env: Mapping[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `hookshape *args` in cwd (default: the repository root); env entries set (None: unset)
    variables for the run only. An exception main() does not turn into an exit code propagates
    (where a process would print a traceback)."""
    from hookshape.cli import main

    argv = [str(a) for a in args]
    before = os.getcwd()
    with CliRunner().isolation(env=dict(env or {})) as (out, err, _):
        os.chdir(cwd or ROOT)
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            os.chdir(before)
        return subprocess.CompletedProcess(["hookshape", *argv], code, out.getvalue().decode("utf-8", "replace"),
                                           err.getvalue().decode("utf-8", "replace"))
