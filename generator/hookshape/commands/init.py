"""`hookshape init [--example NAME] [--force]`: start a harness in the working directory: a
commented spec `hookshape.toml` with its schema line first, `hookshape.schema.json` beside it,
and the example's test cases (`NAME.tests.toml` beside the example) as `hookshape.tests.toml`.

The examples are data: `default` is the built-in default harness (the spec the package ships),
and every `NAME.toml` in the repository's examples/ folder (shipped in the wheel as
hookshape/specs/) is the example NAME."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import click

from hookshape.commands.schema import schema_text
from hookshape.diagnose.cases import TESTS_NAME, TESTS_SUFFIX
from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import DATA
from hookshape.spec.hooks import Hook
from hookshape.spec.load import SPEC_ENV, SPEC_NAME, builtin_spec_path, load

SCHEMA_NAME = "hookshape.schema.json"
SCHEMA_LINE = f"#:schema ./{SCHEMA_NAME}"
DEFAULT_EXAMPLE = "default"
EXAMPLES_DIR = "examples"         # in the repository
PACKAGED_EXAMPLES_DIR = "specs"   # examples/ as the wheel ships it
NEXT = ("hookshape validate", "hookshape render")
NEXT_TESTS = "hookshape test"


def examples_dir() -> Path:
    """The example specs shipped in the package (the repository's examples/ in a checkout)."""
    packaged = Path(str(resources.files("hookshape") / PACKAGED_EXAMPLES_DIR))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / EXAMPLES_DIR


def examples() -> dict[str, Path]:
    """Example name -> spec file: `default` first, then the example folder's specs by name."""
    found = {p.stem: p for p in sorted(examples_dir().glob("*.toml"))
             if p.stem != DEFAULT_EXAMPLE and not p.name.endswith(TESTS_SUFFIX)}
    return {DEFAULT_EXAMPLE: builtin_spec_path(), **found}


def example_path(name: str) -> Path:
    known = examples()
    if name not in known:
        raise HookshapeError(f"no example named {name!r} (known: {', '.join(known)})")
    return known[name]


def spec_text(source: Path) -> str:
    """The example's text with the schema line first (an example's own schema line replaced)."""
    text = source.read_text(encoding="utf-8-sig")
    first, _, rest = text.partition("\n")
    body = rest if first.startswith("#:schema") else text
    return f"{SCHEMA_LINE}\n{body}"


@dataclass(frozen=True)
class Target:
    path: Path
    data: bytes


def tests_of(source: Path) -> Target | None:
    """The example's test cases (NAME.tests.toml beside it), to go beside the new spec."""
    found = source.with_name(f"{source.stem}{TESTS_SUFFIX}")
    return Target(Path.cwd() / TESTS_NAME, found.read_bytes()) if found.is_file() else None


def hook_files(hooks: list[Hook], base: Path) -> list[Target]:
    """The files the example's hooks name (`files`, beside the spec), to go beside the new spec."""
    names = sorted({name for hook in hooks for name in hook.files})
    return [Target(Path.cwd() / name, (base / name).read_bytes()) for name in names]


def write_together(targets: list[Target]) -> None:
    """Stage every file beside its target, then rename them in order; on any failure the
    targets already renamed get their previous bytes back (or go), so nothing is written."""
    staged: list[tuple[Path, Target]] = []
    done: list[tuple[Target, bytes | None]] = []
    try:
        for target in targets:
            staged.append((_stage(target), target))
        for tmp, target in staged:
            before = target.path.read_bytes() if target.path.is_file() else None
            os.replace(tmp, target.path)
            done.append((target, before))
    except OSError as exc:
        _restore(done)
        raise HookshapeError(f"{exc.filename or Path.cwd()}: cannot write: {exc.strerror or exc}") from None
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def _stage(target: Target) -> Path:
    fd, name = tempfile.mkstemp(dir=target.path.parent, prefix=f".{target.path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(target.data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.chmod(DATA)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _restore(done: list[tuple[Target, bytes | None]]) -> None:
    for target, before in reversed(done):
        try:
            if before is None:
                target.path.unlink(missing_ok=True)
            else:
                target.path.write_bytes(before)
        except OSError:
            pass  # the first error is the one reported


@click.command("init")
@click.option("--example", "example", default=DEFAULT_EXAMPLE, show_default=True, metavar="NAME",
              help="The example spec to start from.")
@click.option("--force", is_flag=True,
              help="Overwrite an existing ./hookshape.toml (and ./hookshape.tests.toml).")
def command(example: str, force: bool) -> None:
    """Write ./hookshape.toml (an example spec, schema line first), ./hookshape.schema.json and
    the example's ./hookshape.tests.toml."""
    source = example_path(example)
    spec = Path.cwd() / SPEC_NAME
    tests = tests_of(source)
    for path in (spec, *([tests.path] if tests else [])):
        if not force and (path.exists() or path.is_symlink()):
            raise HookshapeError(f"{path} exists: pass --force to overwrite it")
    loaded = load(source)  # the example must validate before anything is written
    schema = Path.cwd() / SCHEMA_NAME
    files = hook_files(loaded.spec.hooks, source.parent)
    for target in files:
        target.path.parent.mkdir(parents=True, exist_ok=True)
    write_together([Target(schema, schema_text().encode()),
                    Target(spec, spec_text(source).encode()), *([tests] if tests else []), *files])
    click.echo(f"{spec}: written (example {example})")
    click.echo(f"{schema}: written")
    if tests:
        click.echo(f"{tests.path}: written (the example's test cases)")
    for target in files:
        click.echo(f"{target.path}: written (used by a hook)")
    click.echo("next:")
    for line in (*NEXT, *([NEXT_TESTS] if tests else [])):
        click.echo(f"  {line}")
    if os.environ.get(SPEC_ENV):
        click.echo(f"hookshape: warning: {SPEC_ENV} is set: commands read that spec, not "
                   f"{spec}; unset it", err=True)
