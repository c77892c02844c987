"""`hookshape test`: the harness's own declared cases (<spec name>.tests.toml beside the spec,
hookshape.tests.toml beside hookshape.toml, or --tests FILE) through the spec's rendered gates, as
every vendor of each case sends the event, under the shells chosen; one line per case, the
vendor's raw answer under each failure."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click

from hookshape.commands.options import profiles_option, spec_option, warn_about
from hookshape.diagnose import junit
from hookshape.diagnose.cases import TESTS_NAME, TESTS_SUFFIX, Case, load_tests
from hookshape.diagnose.shells import MATRIX, SH, pick
from hookshape.diagnose.testrun import Outcome, run_all
from hookshape.errors import HookshapeError
from hookshape.install.request import pick as pick_vendors
from hookshape.spec.load import SpecChoice


@click.command("test")
@click.option("--tests", "tests_file", type=click.Path(path_type=Path, dir_okay=False),
              default=None, metavar="FILE",
              help=f"The cases (default: <spec name>{TESTS_SUFFIX} beside the spec, "
                   f"{TESTS_NAME} beside hookshape.toml).")
@click.option("--vendor", "vendors", multiple=True, metavar="V",
              help="Only these vendors (repeatable; default: each case's vendors).")
@click.option("--shell", "shells", multiple=True, metavar="SH",
              help=f"Run the gates under this shell (repeatable): {SH} (the default) or one of "
                   f"the matrix: {', '.join(MATRIX)}.")
@click.option("--all-shells", is_flag=True, help="Every installed shell of the matrix.")
@click.option("--junit", "junit_file", type=click.Path(path_type=Path, dir_okay=False),
              default=None, metavar="FILE", help="Also write the outcomes as JUnit XML.")
@spec_option
@profiles_option
def command(tests_file: Path | None, vendors: tuple[str, ...], shells: tuple[str, ...],
            all_shells: bool, junit_file: Path | None, spec: SpecChoice,
            profile_dirs: tuple[Path, ...]) -> None:
    """Run the harness's own test cases through its rendered gates on every vendor."""
    if all_shells and shells:
        raise HookshapeError("--shell and --all-shells exclude each other: pass one")
    loaded = spec.load(profile_dirs)
    warn_about(loaded)
    tests = load_tests(tests_file, loaded)
    only = tuple(p.id for p in pick_vendors(loaded, vendors)) if vendors else ()
    chosen = pick(shells, all_shells)
    start = time.monotonic()
    outcomes = run_all(loaded, tests, only, chosen)
    seconds = time.monotonic() - start
    for line in report(tests.cases, outcomes):
        click.echo(line)
    click.echo(summary(tests.cases, outcomes, seconds))
    if junit_file is not None:
        junit.write(junit_file, junit.document(str(tests.path), outcomes, seconds))
    if any(status(case, outcomes) == FAIL for case in tests.cases):
        sys.exit(1)


FAIL, OK, NOT_RUN = "FAIL", "ok", "--"


def of(case: Case, outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.case is case]


def status(case: Case, outcomes: list[Outcome]) -> str:
    """ok; FAIL when a run failed or no vendor could send the event; -- when --vendor left none
    of the case's vendors."""
    mine = of(case, outcomes)
    if not mine:
        return NOT_RUN
    done = [o for o in mine if not o.skipped]
    return FAIL if not done or any(o.failure for o in done) else OK


def report(cases: list[Case], outcomes: list[Outcome]) -> Iterator[str]:
    """A line per case: ok or FAIL, its name, the vendors and shells it ran on (and the vendors
    it could not be sent as); under a failure each vendor x shell that failed, with the raw
    answer."""
    for case in cases:
        mine = of(case, outcomes)
        said = status(case, outcomes)
        if said == NOT_RUN:
            yield f"{said:<4}  {case.name}: not run (none of its vendors is among --vendor)"
            continue
        done = [o for o in mine if not o.skipped]
        vendors = ", ".join(dict.fromkeys(o.vendor for o in done))
        shells = ", ".join(dict.fromkeys(o.shell for o in done))
        skips = "; ".join(dict.fromkeys(f"{o.vendor}: {o.skipped}" for o in mine if o.skipped))
        where = f"{vendors} x {shells}" if done else "no vendor could send it"
        tail = f" (skipped {skips})" if skips else ""
        yield f"{said:<4}  {case.name}: {where}{tail}"
        for o in done:
            if o.failure:
                yield from failure_lines(o)


def failure_lines(o: Outcome) -> Iterator[str]:
    yield f"      {o.vendor} x {o.shell}: {o.failure}"
    several = len(o.runs) > 1
    for gate in o.runs:
        pad = "        "
        if several:
            yield f"{pad}gate {gate.gate}:"
            pad += "  "
        yield f"{pad}exit code: {gate.run.code}"
        yield from block(pad, "stdout", gate.run.stdout)
        yield from block(pad, "stderr", gate.run.stderr)


def block(pad: str, label: str, text: str) -> Iterator[str]:
    if not text:
        yield f"{pad}{label}: (empty)"
        return
    lines = text.rstrip("\n").split("\n")
    yield f"{pad}{label}: {lines[0]}"
    for line in lines[1:]:
        yield f"{pad}{' ' * len(label)}  {line}"


def summary(cases: list[Case], outcomes: list[Outcome], seconds: float) -> str:
    said = [status(case, outcomes) for case in cases]
    runs = [o for o in outcomes if not o.skipped]
    vendors, shells = len({o.vendor for o in runs}), len({o.shell for o in runs})
    skipped = len(outcomes) - len(runs)
    parts = [f"{said.count(OK)} ok", f"{said.count(FAIL)} failed"]
    if said.count(NOT_RUN):
        parts.append(f"{said.count(NOT_RUN)} not run")
    skip = f", {skipped} skipped" if skipped else ""
    return (f"{plural(len(cases), 'case')}: {', '.join(parts)}; {plural(len(runs), 'run')} "
            f"({plural(vendors, 'vendor')} x {plural(shells, 'shell')}{skip}) in {seconds:.1f} s")


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
