"""The awk library of a tentacle dir holds only the functions its programs reach (plan/awklib.py):
awk compiles every function it is given on every run."""

from __future__ import annotations

import re
from pathlib import Path

from hookshape.plan.awklib import chunks, reached, trim

ROOT = Path(__file__).resolve().parent.parent
LIB = """\
# the parser
function j_parse(s) {
  return j__tok(s)
}

function j__tok(s) { return s }
# unused by any program
function pa_hash(s,    i) {
  for (i = 1; i <= 3; i++) s = s s
  return s
}

function em_line(s) { gsub(/[(]/, "", s); return s }
"""


def names(text: str) -> list[str]:
    return re.findall(r"^function ([A-Za-z_0-9]+)\(", text, re.M)


def test_the_functions_a_program_reaches_stay_with_their_comments() -> None:
    prog = 'BEGIN { print j_parse("x") }\n'
    out = trim(LIB, [prog])
    assert names(out) == ["j_parse", "j__tok"]
    assert "# the parser\nfunction j_parse(s) {" in out
    assert "unused by any program" not in out and "pa_hash" not in out


def test_every_program_of_the_dir_counts() -> None:
    out = trim(LIB, ['BEGIN { j_parse("") }', "{ print em_line($0) }"])
    assert names(out) == ["j_parse", "j__tok", "em_line"]


def test_a_library_of_another_layout_is_kept_whole() -> None:
    odd = LIB + "BEGIN { x = 1 }\n"
    assert chunks(odd) is None
    assert trim(odd, ["BEGIN { }"]) == odd
    unclosed = "function f(a) {\n  return a\n"
    assert trim(unclosed, ["BEGIN { }"]) == unclosed


def test_reached_follows_calls_through_the_library() -> None:
    parts = chunks(LIB)
    assert parts is not None
    assert reached(parts, ["j_parse(1)"]) == {"j_parse", "j__tok"}
    assert reached(parts, ["no calls here"]) == set()


def test_the_rendered_library_is_what_its_programs_reach() -> None:
    """dist/: every function of lib.awk is reached by a program beside it (test_awk_static
    compiles and runs each program with it: one missing would not compile)."""
    sub = ROOT / "dist" / "bin" / "squid"
    lib = (sub / "lib.awk").read_text()
    programs = [p.read_text() for p in sorted(sub.glob("*.awk")) if p.name != "lib.awk"]
    parts = chunks(lib)
    assert parts is not None
    assert {c.name for c in parts if c.name} == reached(parts, programs)
