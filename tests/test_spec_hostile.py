"""A spec value is always data: every string field of the spec set to hostile text (command
substitutions, quotes, backslashes, newlines, printf and awk syntax) is either rejected as a user
error (exit 1, one line) or renders scripts that parse under dash, and whose tentacles and gates,
run on payloads that reach every message with the halt on and off, never execute any of it and
exit 0 or the verdict."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import tempfile
import tomllib
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from tests import clikit
from tests.gatekit import Rig
from tests.scratch import short_root
from tests.shells import FAST, ROOT, sh_scripts, shell
from tests.tentaclekit import Pd, p_edit, p_prompt, p_shell, p_stop, render, suffix

from hookshape.errors import HookshapeError
from hookshape.spec.load import load
from hookshape.spec.model import Spec

SPEC_PATH = ROOT / "hookshape.toml"
DEFAULT: dict[str, Any] = tomllib.loads(SPEC_PATH.read_text(encoding="utf-8"))
DASH = shell("dash")
CANARY = "CANARY"
VENDOR = "claude"
SHELLCHECK = ROOT / ".venv" / "bin" / "shellcheck"

# the pieces hostile values are made of: each would run `touch CANARY` (or break the script)
# if it reached sh or awk as code
PIECES = (
    f"x $(touch {CANARY})",
    f"`touch {CANARY}`",
    f'"; touch {CANARY}; "',
    f"'; touch {CANARY}; '",
    f"' \"$(touch {CANARY})\" '",
    f'" ; system("touch {CANARY}") ; "',
    f"\\\" ; system(\"touch {CANARY}\") ; \\\"",
    f"\n touch {CANARY}\n",
    "\\", "\\\\", "\\c", "\\n", "\\047", "\\x27", "%s", "%d%n%b", "%", "$1", "${HOME}", "$$",
    "'", '"', "`", "\n", "\r", "\t", "}", "{", "/", "-n", "--", "&&", ";", "|", "#", "=", "*", "?",
    "é", "\u2028", "\x00", "\x1b[0m", "{x\ny}", "{path}", "{reason}",
)
HOSTILE = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)


# --- every string field of the spec -----------------------------------------------------------


def _strip(annotation: Any) -> Any:
    """The type under Annotated[...] (and Optional)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _is_str(annotation: Any) -> bool:
    return annotation is str or typing.get_origin(annotation) is typing.Literal


Path_ = tuple[str | int, ...]


def string_fields(model: type[BaseModel], data: dict[str, Any], at: Path_ = ()) -> Iterator[Path_]:
    """Every str, Literal and list[str] leaf of the default spec (a list as its first item), the
    tentacles' and vendors' tables included, as a key path into the TOML data."""
    for name, field in model.model_fields.items():
        if name not in data:
            continue
        yield from _leaves(_strip(field.annotation), data[name], (*at, name))


def _leaves(ann: Any, value: Any, at: Path_) -> Iterator[Path_]:
    origin = typing.get_origin(ann)
    if _is_model(ann):
        yield from string_fields(ann, value, at)
    elif _is_str(ann):
        yield at
    elif origin is list:
        inner = _strip(typing.get_args(ann)[0])
        for i, item in enumerate(value):
            yield from _leaves(inner, item, (*at, i))
    elif origin is dict:
        inner = _strip(typing.get_args(ann)[1])
        for key, item in value.items():
            yield from _leaves(inner, item, (*at, key))
    elif origin in (typing.Union, types.UnionType):
        yield from ()


# the default spec sets no matcher: the tool matchers of pre_tool and post_tool are strings too
MATCHERS: list[Path_] = [("tentacles", i, "matcher", VENDOR) for i, t in enumerate(DEFAULT["tentacles"])
                         if t["role"] in ("pre_tool", "post_tool")]
FIELDS: list[Path_] = [*string_fields(Spec, DEFAULT), *MATCHERS]


def set_at(data: dict[str, Any], at: Path_, value: str) -> None:
    node: Any = data
    for part in at[:-1]:
        node = node[part] if isinstance(part, int) else node.setdefault(part, {})
    node[at[-1]] = value


@functools.cache
def _default() -> dict[str, Any]:
    return tomllib.loads(SPEC_PATH.read_text(encoding="utf-8"))


def with_values(values: dict[Path_, str]) -> dict[str, Any]:
    data = copy.deepcopy(_default())
    for at, value in values.items():
        set_at(data, at, value)
    return data


def write_spec(folder: Path, data: dict[str, Any]) -> Path:
    path = folder / "hookshape.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


@functools.cache
def free_fields() -> tuple[Path_, ...]:
    """The fields that take free text (messages, the distress lines, tool matchers): the ones
    that accept a command substitution, a quote and a newline."""
    with short_root("pdf") as folder:
        return tuple(at for at in FIELDS
                     if accepted(write_spec(folder, with_values({at: PIECES[0] + "'\"\n"}))))


def accepted(path: Path) -> bool:
    try:
        load(path)
    except HookshapeError:
        return False
    return True


# --- running what was rendered ----------------------------------------------------------------


def assert_rejected(spec: Path) -> None:
    """The CLI's answer to a spec validation rejects: exit 1, one line, nothing else (the CLI in
    this process: tests/test_cli.py runs the console script and `python -m hookshape`)."""
    proc = clikit.hookshape("validate", "--spec", spec)
    assert proc.returncode == 1, proc
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.endswith("\n"), proc.stderr
    assert "Traceback" not in proc.stderr


def payloads(proj: Path) -> dict[str, list[dict[str, Any]]]:
    """Events that reach every message: a locked edit (block/warn), a harness command (halt
    block), an edit trail (post note), a turn end without a SITREP, a prompt with alerts and
    trails."""
    return {
        "prompt": [p_prompt(VENDOR, proj, session="s1")],
        "pre_tool": [p_edit(VENDOR, str(proj / "locked.py"), proj, session="s1"),
                     p_shell(VENDOR, "pd start", proj, session="s1")],
        "post_tool": [p_edit(VENDOR, str(proj / "a.py"), proj, session="s1", post=True)],
        "stop": [p_stop(VENDOR, "no table", proj, session="s1")],
    }


def fresh(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def canaries(root: Path) -> list[Path]:
    return [p for p in root.rglob(f"*{CANARY}*")]


def configs_parse(spec: Path, out: Path) -> None:
    """The whole render: the vendor configs (matchers and all) are valid JSON and TOML."""
    from hookshape.cli import main

    main(["render", "--spec", str(spec), "--out", str(out)])
    found = sorted((out / "config").rglob("*.*"))
    assert found, "no vendor configs rendered"
    for config in found:
        text = config.read_text(encoding="utf-8")
        if config.suffix == ".json":
            json.loads(text)
        elif config.suffix == ".toml":
            tomllib.loads(text)


def exercise(spec: Path, work: Path) -> None:
    """Render, parse under dash, then run each tentacle and each gate on its payloads with the
    halt off and on: nothing executes, every run exits 0 or the verdict."""
    configs_parse(spec, work / "out")
    rig = Rig(work / "rig")  # a readied, armed harness home; its dist/ gets this spec's scripts
    squid = render(rig.dist, spec)
    for script in (*(p for p in squid.iterdir() if p.suffix != ".awk"),
                   *(p for p in (rig.dist / "bin").iterdir() if p.is_file())):
        proc = subprocess.run(["dash", "-n", str(script)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{script.name}: {proc.stderr}"
    pd = Pd(fresh(work / "pd"), squid, DASH)
    pd.env["PD_HOME"] = str(rig.home)
    rig.arm(rig.project, pd.proj)
    (rig.home / "matrix.env").write_text(
        f'PD_LOCK_{suffix(str(pd.proj / "locked.py"))}="bob"\nPD_ALERT_1="deploy freeze"\n'
        f'PD_PHEROMONE_X_1="{pd.proj}/b.py | edited | actor:bob"\n', encoding="utf-8")
    env = {"PD_HOOK_PROVIDER": VENDOR, "PD_ACTOR": "alice", "PD_SITREP": "enforce",
           "PD_SUGGESTIBILITY": "enforce"}
    for halted in (False, True):
        halt = rig.home / "HALT"
        if halted:
            halt.write_text("")  # an empty reason: the spec's halt body is the reason
        for role, events in payloads(pd.proj).items():
            for event in events:
                r = pd.run(role, event, env=env, code=None, cwd=pd.proj)
                assert r.code in (0, 2), f"{role} exit {r.code}: {r.stderr[:400]}"
                g = rig.run(role, json.dumps(event), vendor=VENDOR, cwd=pd.proj, **env)
                assert g.code in (0, 2), f"gate {role} exit {g.code}: {g.err[:400]}"
        assert canaries(work) == [], "a spec value ran as code"
        assert not (ROOT / CANARY).exists()


@pytest.fixture
def work() -> Iterator[Path]:
    with short_root("pdh") as root:
        yield root


# --- the tests --------------------------------------------------------------------------------


def test_the_walk_finds_the_strings() -> None:
    names = {".".join(map(str, f)) for f in FIELDS}
    for expected in ("halt.seen_line", "halt.complied_line", "messages.halt_body", "harness.state_dir",
                     "tentacles.0.phase", "tentacles.1.matcher.claude", "dials.sitrep.files.0",
                     "halt.cli.0", "stop.counter_mode"):
        assert expected in names, sorted(names)


def test_seen_and_complied_lines_are_data(work: Path) -> None:
    """The reported case: a command substitution and a double quote in the distress lines."""
    seen = f'x $(touch {CANARY}) "quoted" `touch {CANARY}` \\c %s'
    complied = f'done" ; touch {CANARY} ; "'
    spec = write_spec(work, with_values({("halt", "seen_line"): seen, ("halt", "complied_line"): complied}))
    rig = Rig(work / "rig")
    squid = render(rig.dist, spec)
    pd = Pd(fresh(work / "pd"), squid, DASH)
    pd.halt("maintenance")
    env = {"PD_HOOK_PROVIDER": VENDOR}
    pd.run("prompt", p_prompt(VENDOR, pd.proj, session="s1"), env=env)
    pd.run("stop", p_stop(VENDOR, "done", pd.proj, session="s1"), env=env)
    lines = pd.distress.read_text().splitlines()
    assert [ln.split(" ts:")[0] for ln in lines] == [f"{seen} session:s1 provider:{VENDOR}",
                                                   f"{complied} session:s1 provider:{VENDOR}"]
    assert canaries(work) == []


def test_every_accepted_hostile_value_at_once(work: Path) -> None:
    """Each field that accepts hostile text gets some, all in one spec: shellcheck-clean scripts
    that run clean."""
    value = "".join(PIECES[:8]) + "\\c%s'\"`"
    taken: dict[Path_, str] = {}
    for at in FIELDS:
        folder = work / "probe"
        folder.mkdir(exist_ok=True)
        if accepted(write_spec(folder, with_values({**taken, at: value}))):
            taken[at] = value
    names = {".".join(map(str, f)) for f in taken}
    # the distress lines take one printable ASCII line: their hostile case is the test above
    assert "messages.halt_body" in names, names
    assert {f for f in free_fields() if "matcher" not in f} <= set(taken)  # matchers must compile
    spec = write_spec(work, with_values(taken))
    exercise(spec, work / "run")
    if SHELLCHECK.exists() and not FAST:  # the lint: make test (test-fast lints the default render)
        scripts = [str(p) for p in sh_scripts(work / "run" / "rig" / "dist" / "bin")]
        proc = subprocess.run([str(SHELLCHECK), "-s", "sh", *scripts], capture_output=True, text=True,
                              check=False)
        assert proc.returncode == 0, proc.stdout[:3000]


# make test-fast: the same properties on fewer (derandomized) examples
@settings(max_examples=5 if FAST else 40, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(at=st.sampled_from(FIELDS), value=HOSTILE)
def test_a_hostile_string_field_is_rejected_or_stays_data(work: Path, at: Path_, value: str) -> None:
    case = Path(tempfile.mkdtemp(prefix="case", dir=work))
    spec = write_spec(case, with_values({at: value}))
    if not accepted(spec):
        assert_rejected(spec)
        return
    exercise(spec, case / "run")


@settings(max_examples=4 if FAST else 30, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), value=HOSTILE)
def test_hostile_free_text_stays_data(work: Path, data: st.DataObject, value: str) -> None:
    """The fields that take free text, one at a time with any mix of the pieces."""
    at = data.draw(st.sampled_from(free_fields()))
    case = Path(tempfile.mkdtemp(prefix="case", dir=work))
    spec = write_spec(case, with_values({at: value}))
    if not accepted(spec):  # e.g. a message with an unknown {placeholder}
        assert_rejected(spec)
        return
    exercise(spec, case / "run")
