"""Dial values in the spec's own words.

The tentacles act on what a dial value means (suggestibility: allow | warn | block; sitrep: off |
suggest | block), never on the word: a spec whose words are low / mid / high behaves exactly like
advisory / warn / enforce, through the env var and through a dial file.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests.shells import Shell
from tests.tentaclekit import (
    SITREP_CONTRACT,
    SPEC_PATH,
    VENDORS,
    Pd,
    Run,
    assert_silent,
    assert_warn,
    block_msg,
    context,
    p_edit,
    p_prompt,
    p_stop,
    render,
    stop_block,
    stop_suggest,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

VEND = pytest.mark.parametrize("vendor", VENDORS)
ME = {"PD_ACTOR": "alice"}


def table(**pairs: str) -> Any:
    t = tomlkit.inline_table()
    t.update(pairs)
    return t


def words(doc: Any) -> None:
    """low / mid / high and none / hint / must, mapped like today's words."""
    sg, sr = doc["dials"]["suggestibility"], doc["dials"]["sitrep"]
    sg["values"], sg["default"] = ["low", "mid", "high"], "high"
    sg["meaning"] = table(low="allow", mid="warn", high="block")
    sr["values"], sr["default"] = ["none", "hint", "must"], "must"
    sr["meaning"] = table(none="off", hint="suggest", must="block")


def swapped(doc: Any) -> None:
    """Today's words with other meanings (and one more word): the word itself means nothing."""
    sg, sr = doc["dials"]["suggestibility"], doc["dials"]["sitrep"]
    sg["values"], sg["default"] = ["advisory", "warn", "enforce", "strict"], "advisory"
    sg["meaning"] = table(advisory="block", warn="warn", enforce="allow", strict="block")
    sr["values"], sr["default"] = ["off", "suggest", "enforce"], "off"
    sr["meaning"] = table(off="block", suggest="off", enforce="suggest")


def write_spec(dest: Path, edit: Callable[[Any], None]) -> Path:
    doc = tomlkit.parse(SPEC_PATH.read_text(encoding="utf-8"))
    edit(doc)
    dest.mkdir(parents=True, exist_ok=True)
    spec = dest / "hookshape.toml"
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return spec


SPECS: dict[str, Callable[[Any], None]] = {"words": words, "swapped": swapped}


@pytest.fixture(scope="module")
def squids(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("meaning")
    return {name: render(base / name / "out", write_spec(base / name, edit)) for name, edit in SPECS.items()}


@pytest.fixture
def harness(squids: dict[str, Path], sh: Shell) -> Iterator[Callable[[str], Pd]]:
    """A private harness running the tentacles of one of SPECS."""
    roots: list[Path] = []

    def make(name: str) -> Pd:
        root = Path(tempfile.mkdtemp(prefix="pd", dir="/tmp"))  # short: plain lock keys
        roots.append(root)
        return Pd(root, squids[name], sh)

    yield make
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# suggestibility at pre-tool


def edit_locked(pd: Pd, vendor: str, env: dict[str, str], dial_file: object = None) -> tuple[Run, Path]:
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    if dial_file is not None:
        (pd.proj / "agent.config.json").write_text(json.dumps(dial_file))
    r = pd.run("pre_tool", p_edit(vendor, str(target), pd.proj),
               env={"PD_HOOK_PROVIDER": vendor, **ME, **env})
    return r, target


def assert_answer(vendor: str, r: Run, target: Path, meaning: str) -> None:
    if meaning == "allow":
        assert_silent(r)
    elif meaning == "warn":
        assert_warn(vendor, r, warn_msg(target, "bob"))
    else:
        assert r.json == tool_block(vendor, block_msg(target, "bob"))
        assert r.err == b""


# (spec, env value or None, dial file content or None, the meaning that must act)
SUGGEST_CASES = [
    ("words", "low", None, "allow"),
    ("words", "MID", None, "warn"),
    ("words", " high\t", None, "block"),
    ("words", None, None, "block"),  # the default, high
    ("words", None, {"suggestibility": {"level": "low"}}, "allow"),
    ("words", None, {"suggestibility": "mid"}, "warn"),
    ("words", None, {"suggestibility": {"level": "high"}}, "block"),
    ("words", "advisory", None, "block"),  # not a value of this spec: the default
    ("words", "warn", {"suggestibility": "low"}, "allow"),  # not a value: the file decides
    ("words", None, {"suggestibility": "advisory"}, "block"),
    ("swapped", "advisory", None, "block"),
    ("swapped", "enforce", None, "allow"),
    ("swapped", "strict", None, "block"),
    ("swapped", "warn", None, "warn"),
    ("swapped", None, None, "block"),  # the default, advisory
    ("swapped", None, {"suggestibility": "enforce"}, "allow"),
    ("swapped", None, {"suggestibility": {"level": "strict"}}, "block"),
]


@VEND
@pytest.mark.parametrize(("spec", "env", "dial_file", "meaning"), SUGGEST_CASES)
def test_suggestibility_acts_on_the_meaning(harness: Callable[[str], Pd], vendor: str, spec: str,
                                            env: str | None, dial_file: object, meaning: str) -> None:
    pd = harness(spec)
    r, target = edit_locked(pd, vendor, {} if env is None else {"PD_SUGGESTIBILITY": env}, dial_file)
    assert_answer(vendor, r, target, meaning)


# ---------------------------------------------------------------------------------------------
# sitrep at stop and at prompt


SITREP_CASES = [
    ("words", "none", None, "off"),
    ("words", "Hint", None, "suggest"),
    ("words", "must", None, "block"),
    ("words", None, None, "block"),  # the default, must
    ("words", None, {"sitrep": {"endOfTurn": "none"}}, "off"),
    ("words", None, {"sitrep": "hint"}, "suggest"),
    ("words", "off", None, "block"),  # not a value of this spec: the default
    ("words", None, {"sitrep": "suggest"}, "block"),
    ("swapped", "off", None, "block"),
    ("swapped", "suggest", None, "off"),
    ("swapped", "enforce", None, "suggest"),
    ("swapped", None, None, "block"),  # the default, off
    ("swapped", None, {"sitrep": {"endOfTurn": "suggest"}}, "off"),
    ("swapped", None, {"sitrep": "enforce"}, "suggest"),
]


def sitrep_env(vendor: str, env: str | None) -> dict[str, str]:
    return {"PD_HOOK_PROVIDER": vendor, **({} if env is None else {"PD_SITREP": env})}


@VEND
@pytest.mark.parametrize(("spec", "env", "dial_file", "meaning"), SITREP_CASES)
def test_sitrep_at_stop_acts_on_the_meaning(harness: Callable[[str], Pd], vendor: str, spec: str,
                                            env: str | None, dial_file: object, meaning: str) -> None:
    pd = harness(spec)
    if dial_file is not None:
        (pd.proj / "agent.config.json").write_text(json.dumps(dial_file))
    session = uuid.uuid4().hex
    r = pd.run("stop", p_stop(vendor, "done, no table", pd.proj, session=session), env=sitrep_env(vendor, env))
    assert r.json == {"off": None, "suggest": stop_suggest(vendor), "block": stop_block(vendor)}[meaning]
    assert r.err == b""
    blocked = meaning == "block" and stop_block(vendor) is not None and vendor != "agy"
    assert pd.marker(session).is_dir() == blocked


@VEND
@pytest.mark.parametrize(("spec", "env", "dial_file", "meaning"), SITREP_CASES)
def test_sitrep_at_prompt_acts_on_the_meaning(harness: Callable[[str], Pd], vendor: str, spec: str,
                                              env: str | None, dial_file: object, meaning: str) -> None:
    pd = harness(spec)
    if dial_file is not None:
        (pd.proj / "agent.config.json").write_text(json.dumps(dial_file))
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env=sitrep_env(vendor, env))
    if meaning == "off":
        assert_silent(r)
    else:
        assert r.json == context(vendor, SITREP_CONTRACT)
