"""The spec side of dial meanings and of the closeout check: what loads, what each rule refuses
(one located line), and that a spec written before either existed loads unchanged."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests.test_spec import SPEC, Bad, assert_user_error, hookshape, write_bad

from hookshape.errors import HookshapeError
from hookshape.loader import load
from hookshape.spec import Spec


def edited(tmp_path: Path, edit: Callable[[Any], None]) -> Path:
    return write_bad(tmp_path, Bad("edit", edit, "", ""))


def load_error(tmp_path: Path, edit: Callable[[Any], None]) -> str:
    spec = edited(tmp_path, edit)
    with pytest.raises(HookshapeError) as info:
        load(spec)
    text = str(info.value)
    assert "\n" not in text, text
    return text.removeprefix(f"{spec}: ")


def dial(name: str, values: list[str], meaning: dict[str, str] | None, default: str | None = None
         ) -> Callable[[Any], None]:
    def edit(doc: Any) -> None:
        table = doc["dials"][name]
        table["values"] = values
        table["default"] = default or values[-1]
        if "meaning" in table:
            del table["meaning"]
        if meaning is not None:
            inline = tomlkit.inline_table()
            inline.update(meaning)
            table["meaning"] = inline
    return edit


def stop(**keys: str) -> Callable[[Any], None]:
    def edit(doc: Any) -> None:
        for key, value in keys.items():
            doc["stop"][key] = value
    return edit


def test_default_spec_means_what_it_always_meant() -> None:
    spec = load(SPEC).spec
    assert spec.dials.suggestibility.meaning == {"advisory": "allow", "warn": "warn", "enforce": "block"}
    assert spec.dials.sitrep.meaning == {"off": "off", "suggest": "suggest", "enforce": "block"}
    assert spec.stop.check == "keyword+table"
    assert spec.stop.pattern is None


def test_a_spec_without_meaning_or_check_loads_as_the_default(tmp_path: Path) -> None:
    def strip(doc: Any) -> None:
        for name in ("suggestibility", "sitrep"):
            doc["dials"][name].pop("meaning", None)
        doc["stop"].pop("check", None)
        doc["stop"].pop("pattern", None)

    assert load(edited(tmp_path, strip)).spec == load(SPEC).spec


def test_built_in_words_keep_their_meaning_beside_new_ones(tmp_path: Path) -> None:
    edit = dial("suggestibility", ["advisory", "warn", "enforce", "strict"], {"strict": "block"}, "warn")
    spec: Spec = load(edited(tmp_path, edit)).spec
    sg = spec.dials.suggestibility
    assert sg.meaning == {"advisory": "allow", "warn": "warn", "enforce": "block", "strict": "block"}
    assert sg.meaning[sg.default] == "warn"


def test_own_words_with_meanings(tmp_path: Path) -> None:
    def edit(doc: Any) -> None:
        dial("suggestibility", ["low", "mid", "high"], {"low": "allow", "mid": "warn", "high": "block"})(doc)
        dial("sitrep", ["none", "hint", "must"], {"none": "off", "hint": "suggest", "must": "block"}, "hint")(doc)

    spec = load(edited(tmp_path, edit)).spec
    assert spec.dials.suggestibility.meaning["high"] == "block"
    assert spec.dials.sitrep.meaning[spec.dials.sitrep.default] == "suggest"


@pytest.mark.parametrize("pattern", [
    r"SITREP", r"^## (Closeout|Sitrep)$", r"[0-9]+ tests? passed\.", r"[[:digit:]]+", r"a\|b",
    r"[]a-]", r"it's \$0", r"x(y)*z", r"\\",
])
def test_regex_check_accepts_awk_eres(tmp_path: Path, pattern: str) -> None:
    spec = load(edited(tmp_path, stop(check="regex", pattern=pattern))).spec
    assert (spec.stop.check, spec.stop.pattern) == ("regex", pattern)


def test_keyword_check_loads(tmp_path: Path) -> None:
    assert load(edited(tmp_path, stop(check="keyword"))).spec.stop.check == "keyword"


REFUSED: list[tuple[str, Callable[[Any], None], str, str]] = [
    ("value-without-meaning", dial("suggestibility", ["low", "mid", "high"], None),
     r"dials\.suggestibility\.meaning", "no meaning for the value 'low'"),
    ("one-value-left-out", dial("sitrep", ["none", "hint", "must"], {"none": "off", "must": "block"}),
     r"dials\.sitrep\.meaning", "no meaning for the value 'hint'"),
    ("new-word-beside-old-ones", dial("suggestibility", ["advisory", "warn", "enforce", "strict"], None,
                                      "warn"),
     r"dials\.suggestibility\.meaning", "no meaning for the value 'strict'"),
    ("meaning-of-the-other-dial", dial("sitrep", ["off", "suggest", "enforce"],
                                       {"off": "off", "suggest": "warn", "enforce": "block"}),
     r"dials\.sitrep\.meaning\.suggest", "'off', 'suggest' or 'block'"),
    ("unknown-meaning", dial("suggestibility", ["low", "high"], {"low": "allow", "high": "deny"}),
     r"dials\.suggestibility\.meaning\.high", "'allow', 'warn' or 'block'"),
    ("meaning-of-no-value", dial("suggestibility", ["low", "high"], {"low": "allow", "high": "block",
                                                                      "mid": "warn"}),
     r"dials\.suggestibility\.meaning", "'mid' is not one of the values"),
    ("unknown-check", stop(check="table"), r"stop\.check", "keyword+table"),
    ("regex-without-pattern", stop(check="regex"), r"stop\.pattern", "the regex check needs a pattern"),
    ("pattern-without-regex", stop(pattern="SITREP"), r"stop\.pattern", "only the regex check"),
    ("does-not-compile", stop(check="regex", pattern="(SITREP"), r"stop\.pattern", "not a valid regex"),
    ("lookahead", stop(check="regex", pattern="(?=.*SITREP)"), r"stop\.pattern", "(?"),
    ("non-capturing", stop(check="regex", pattern="(?:a|b)"), r"stop\.pattern", "(?"),
    ("inline-flag", stop(check="regex", pattern="(?i)sitrep"), r"stop\.pattern", "(?"),
    ("backreference", stop(check="regex", pattern=r"(a)\1"), r"stop\.pattern", r"\1"),
    ("digit-class", stop(check="regex", pattern=r"\d+ tests"), r"stop\.pattern", r"\d"),
    ("word-boundary", stop(check="regex", pattern=r"\bSITREP\b"), r"stop\.pattern", r"\b"),
    ("newline-escape", stop(check="regex", pattern=r"a\nb"), r"stop\.pattern", r"\n"),
    ("lazy", stop(check="regex", pattern="SITREP.*?table"), r"stop\.pattern", "lazy"),
    ("possessive-like", stop(check="regex", pattern="a?+b"), r"stop\.pattern", ""),
    ("interval", stop(check="regex", pattern="[0-9]{2}"), r"stop\.pattern", "{"),
    ("empty-alternative", stop(check="regex", pattern="(a|)"), r"stop\.pattern", "empty alternative"),
    ("leading-bar", stop(check="regex", pattern="|a"), r"stop\.pattern", "empty alternative"),
    ("backslash-in-brackets", stop(check="regex", pattern=r"[\]]"), r"stop\.pattern", "inside [...]"),
    ("control-character", stop(check="regex", pattern="a\tb"), r"stop\.pattern", "printable ASCII"),
    ("empty", stop(check="regex", pattern=""), r"stop\.pattern", "printable ASCII"),
]


@pytest.mark.parametrize(("edit", "key", "fragment"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused_in_one_located_line(tmp_path: Path, edit: Callable[[Any], None], key: str,
                                     fragment: str) -> None:
    text = load_error(tmp_path, edit)
    assert re.match(key + ": ", text), text
    assert fragment in text, text


@pytest.mark.parametrize("case", [REFUSED[0], REFUSED[10]], ids=[REFUSED[0][0], REFUSED[10][0]])
def test_cli_says_it_in_one_line_and_writes_nothing(tmp_path: Path, case: tuple[str, Any, str, str]) -> None:
    _, edit, key, fragment = case
    spec = edited(tmp_path, edit)
    assert_user_error(hookshape("validate", "--spec", spec), spec, key, fragment)
    out = tmp_path / "out"
    assert_user_error(hookshape("render", "--spec", spec, "--out", out), spec, key, fragment)
    assert not out.exists()
