"""Dial values in the spec's own words, and the closeout check's pattern.

The tentacles act on what a dial value means (suggestibility: allow | warn | block; sitrep: off |
suggest | block), never on the word: a spec whose words are low / mid / high behaves exactly like
advisory / warn / enforce, through the env var and through a dial file. [stop] check picks what
a closing message must hold: the keyword and a table (the default), the keyword alone, or a
match of a POSIX ERE.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests.scratch import short_root
from tests.shells import InTurn, Shell
from tests.tentaclekit import (
    DASH,
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

# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
# where the vendor changes what is asserted, every vendor in every mode
EVERY_VENDOR = pytest.mark.parametrize("vendor", VENDORS)
BLOCKING = pytest.mark.parametrize("vendor", ["claude", "gemini", "codex"])
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


def keyword_check(doc: Any) -> None:
    doc["stop"]["check"] = "keyword"


PATTERN = r"^Closeout: [0-9]+ tests? passed( \(it's \$0\))?\.?$"


def regex_check(doc: Any) -> None:
    doc["stop"]["check"] = "regex"
    doc["stop"]["pattern"] = PATTERN


def write_spec(dest: Path, edit: Callable[[Any], None]) -> Path:
    doc = tomlkit.parse(SPEC_PATH.read_text(encoding="utf-8"))
    edit(doc)
    dest.mkdir(parents=True, exist_ok=True)
    spec = dest / "hookshape.toml"
    spec.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return spec


SPECS: dict[str, Callable[[Any], None]] = {"words": words, "swapped": swapped, "keyword": keyword_check,
                                           "regex": regex_check}


@pytest.fixture
def sh() -> Shell:
    """Dial meanings and the closeout check are awk: dash only (see tests.tentaclekit.DASH)."""
    return DASH


@pytest.fixture(scope="module")
def squids(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("meaning")
    return {name: render(base / name / "out", write_spec(base / name, edit)) for name, edit in SPECS.items()}


@pytest.fixture
def harness(squids: dict[str, Path], sh: Shell) -> Iterator[Callable[[str], Pd]]:
    """A private harness running the tentacles of one of SPECS."""
    with ExitStack() as roots:
        yield lambda name: Pd(roots.enter_context(short_root()), squids[name], sh)


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


@EVERY_VENDOR
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


# ---------------------------------------------------------------------------------------------
# the closeout check


def close(pd: Pd, vendor: str, text: str) -> Run:
    return pd.run("stop", p_stop(vendor, text, pd.proj, session=uuid.uuid4().hex),
                  env={"PD_HOOK_PROVIDER": vendor})


TABLE = "Done.\n\n## SITREP\n| Idea | Source | Status |\n|---|---|---|\n| retry | Agent | done |\n"


@BLOCKING
@pytest.mark.parametrize("text", ["SITREP: nothing to add", "all done (sitrep: none)", "SiTrEp", TABLE])
def test_keyword_check_complies_without_a_table(harness: Callable[[str], Pd], vendor: str, text: str) -> None:
    assert_silent(close(harness("keyword"), vendor, text))


@BLOCKING
@pytest.mark.parametrize("text", ["done", "| a | b |\n|---|---|\n| no | keyword |", "SIT REP", "S-I-T-R-E-P"])
def test_keyword_check_blocks_without_the_keyword(harness: Callable[[str], Pd], vendor: str, text: str) -> None:
    assert close(harness("keyword"), vendor, text).json == stop_block(vendor)


@BLOCKING
@pytest.mark.parametrize("text", [
    "Closeout: 12 tests passed",
    "Closeout: 1 test passed.",
    "Closeout: 3 tests passed (it's $0).",
])
def test_regex_check_complies_on_a_match(harness: Callable[[str], Pd], vendor: str, text: str) -> None:
    assert_silent(close(harness("regex"), vendor, text))


@BLOCKING
@pytest.mark.parametrize("text", [
    TABLE,  # the default check's shape: no match
    "closeout: 12 tests passed",  # awk's ~ is case-sensitive
    "Closeout: many tests passed",
    "Work done.\nCloseout: 12 tests passed",  # ^ is the start of the whole message
    "Closeout: 12 tests passed\nand more",
    "Closeout: 3 tests passed (it's 0).",
    "Closeout: 12 tests passedX",
])
def test_regex_check_blocks_otherwise(harness: Callable[[str], Pd], vendor: str, text: str) -> None:
    assert close(harness("regex"), vendor, text).json == stop_block(vendor)


@pytest.mark.parametrize("name", ["keyword", "regex"])
def test_suggest_keeps_working_under_another_check(harness: Callable[[str], Pd], name: str) -> None:
    pd = harness(name)
    r = pd.run("stop", p_stop("claude", "done", pd.proj), env={"PD_HOOK_PROVIDER": "claude", "PD_SITREP": "suggest"})
    assert r.json == stop_suggest("claude")


# every awk a tentacle may run reads an accepted pattern alike (rendered as the template does)
AWKS = [[str(shutil.which(a[0])), *a[1:]] for a in (["mawk"], ["gawk"], ["original-awk"], ["busybox", "awk"])
        if shutil.which(a[0])]
AGREE = [
    (PATTERN, "Closeout: 3 tests passed (it's $0).", True),
    (PATTERN, "Closeout: 3 tests passed (it's 0).", False),
    (r"(^|[^a-z])sitrep[:.]", "## Sitrep\nsitrep: fine", True),
    (r"(^|[^a-z])sitrep[:.]", "nositrep: x", False),
    (r"[[:digit:]]+ tests?", "ran 12 tests", True),
    (r"[]x-]y", "]y", True),
    (r"[]x-]y", "-y", True),
    (r"[]x-]y", "ay", False),
    (r"a\|b\.c\\d\{", "a|b.c\\d{", True),
    (r"a\|b\.c\\d\{", "a|bxc\\d{", False),
    (r"^done.end$", "done\nend", True),
    (r"x()y", "xy", True),
    (r"a/b'c\"d", "a/b'c\"d", True),
]


@pytest.mark.parametrize("awk", AWKS, ids=[Path(a[0]).name for a in AWKS])
def test_the_awks_agree_on_accepted_patterns(awk: list[str]) -> None:
    from hookshape.plan.jinja import awk_string
    from hookshape.spec.stop import _awk_ere

    for pattern, text, want in AGREE:
        _awk_ere(pattern)
        prog = "BEGIN { print (ENVIRON[\"T\"] ~ " + awk_string(pattern) + ") ? 1 : 0 }"
        out = subprocess.run([*awk, prog], env={"T": text, "LC_ALL": "C"}, capture_output=True, text=True,
                             check=True).stdout
        assert out == ("1\n" if want else "0\n"), (pattern, text)
