"""prompt (turn start): the vendor context JSON; the bounded coordination block (alerts, then
fresh trails of this project, newest first: at most 2 entries / 512 bytes); the SITREP
contract unless the sitrep dial is off; nothing at all when there is nothing to say."""

from __future__ import annotations

import json

import pytest
from tests.tentaclekit import (
    FIXTURES,
    MAX_BYTES,
    MAX_ENTRIES,
    MISSING,
    MSG,
    PHEROMONE_TTL,
    SITREP_CONTRACT,
    VENDORS,
    Pd,
    assert_silent,
    context,
    p_prompt,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

VEND = pytest.mark.parametrize("vendor", VENDORS)
COORD = MSG["coordination_header"]


def say(pd: Pd, vendor: str, *, cwd=None, env: dict | None = None, **kw):
    return pd.run("prompt", p_prompt(vendor, cwd or pd.proj, **kw),
                  env={"PD_HOOK_PROVIDER": vendor, **(env or {})})


def ctx(r) -> str:
    obj = r.json
    assert obj is not None
    if "injectSteps" in obj:
        return obj["injectSteps"][0]["ephemeralMessage"]
    return obj["hookSpecificOutput"]["additionalContext"]


def trail_line(path, note="edited", actor="bob", ts="") -> str:
    return MSG["pheromone_line"].format(path=path, note=note, actor=actor, ts=ts)


def alert_line(ident, text) -> str:
    return MSG["alert_line"].format(id=ident, text=text)


def with_contract(block: str) -> str:
    return COORD + "\n" + block + "\n\n" + SITREP_CONTRACT


@VEND
def test_contract_only(pd: Pd, vendor: str) -> None:
    r = say(pd, vendor)
    assert r.json == context(vendor, SITREP_CONTRACT)
    assert r.err == b""


@VEND
@pytest.mark.parametrize("matrix", ["none", "empty", "locks-only"])
def test_nothing_to_say_is_silent(pd: Pd, vendor: str, matrix: str) -> None:
    if matrix == "empty":
        pd.matrix.write_text("")
    elif matrix == "locks-only":
        pd.lock(pd.proj / "a.ts", "bob")
    assert_silent(say(pd, vendor, env={"PD_SITREP": "off"}))


@VEND
def test_alert(pd: Pd, vendor: str) -> None:
    pd.alert("OPS", "db migration at noon")
    r = say(pd, vendor)
    assert r.json == context(vendor, with_contract(alert_line("OPS", "db migration at noon")))


@VEND
def test_alert_without_sitrep(pd: Pd, vendor: str) -> None:
    pd.alert("OPS", "db migration at noon")
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + alert_line("OPS", "db migration at noon"))


@VEND
def test_at_most_two_entries_alerts_first(pd: Pd, vendor: str) -> None:
    pd.trail(pd.proj / "t.ts", age=10)
    for i in range(4):
        pd.alert(f"A{i}", f"alert {i}")
    r = say(pd, vendor)
    assert MAX_ENTRIES == 2
    assert r.json == context(vendor, with_contract(alert_line("A0", "alert 0") + "\n" + alert_line("A1", "alert 1")))


@VEND
def test_alert_then_newest_trail(pd: Pd, vendor: str) -> None:
    pd.trail(pd.proj / "old.ts", note="old", age=300, n=1)
    ts = pd.trail(pd.proj / "new.ts", note="new", actor="carol", age=5, n=2)
    pd.alert("OPS", "heads up")
    r = say(pd, vendor)
    want = alert_line("OPS", "heads up") + "\n" + trail_line(pd.proj / "new.ts", "new", "carol", ts)
    assert r.json == context(vendor, with_contract(want))


@VEND
def test_trails_newest_first(pd: Pd, vendor: str) -> None:
    ts0 = pd.trail(pd.proj / "a.ts", note="first", age=600, n=1)
    ts1 = pd.trail(pd.proj / "b.ts", note="second", age=300, n=2)
    ts2 = pd.trail(pd.proj / "c.ts", note="third", age=1, n=3)
    r = say(pd, vendor)
    want = trail_line(pd.proj / "c.ts", "third", "bob", ts2) + "\n" + trail_line(pd.proj / "b.ts", "second", "bob", ts1)
    assert r.json == context(vendor, with_contract(want))
    assert ts0 not in ctx(r)


@VEND
def test_stale_trails_are_dropped(pd: Pd, vendor: str) -> None:
    pd.trail(pd.proj / "stale.ts", note="stale", age=PHEROMONE_TTL + 100, n=1)
    fresh = pd.trail(pd.proj / "fresh.ts", note="fresh", age=PHEROMONE_TTL - 100, n=2)
    pd.trail(pd.proj / "ancient.ts", note="ancient", age=86400 * 30, n=3)
    r = say(pd, vendor)
    assert r.json == context(vendor, with_contract(trail_line(pd.proj / "fresh.ts", "fresh", "bob", fresh)))


@VEND
def test_only_stale_trails_silent_without_sitrep(pd: Pd, vendor: str) -> None:
    pd.trail(pd.proj / "stale.ts", age=PHEROMONE_TTL + 100)
    assert_silent(say(pd, vendor, env={"PD_SITREP": "off"}))


@VEND
def test_trail_without_ts_is_fresh(pd: Pd, vendor: str) -> None:
    pd.trail(pd.proj / "a.ts", note="no clock", age=None)
    r = say(pd, vendor)
    assert r.json == context(vendor, with_contract(trail_line(pd.proj / "a.ts", "no clock", "bob", "")))


@VEND
def test_trail_ts_with_offset_and_fraction(pd: Pd, vendor: str) -> None:
    import time

    t = time.time() - 60
    local = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t + 2 * 3600)) + ".123+02:00"
    pd.add_matrix(f'PD_PHEROMONE_X_1="{pd.proj}/a.ts | tz | actor:bob | ts:{local}"')
    old = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t - 2 * 3600 - 3600)) + "-02:00"  # 1 h ago + 60 s
    pd.add_matrix(f'PD_PHEROMONE_X_2="{pd.proj}/b.ts | tz | actor:bob | ts:{old}"')
    # the second (newest line) is stale by its offset: only the first shows
    r = say(pd, vendor)
    assert ctx(r) == with_contract(trail_line(f"{pd.proj}/a.ts", "tz", "bob", local))


@VEND
def test_trails_outside_the_project_are_hidden(pd: Pd, vendor: str) -> None:
    other = pd.root / "other"
    pd.trail(other / "x.ts", note="elsewhere", n=1)
    pd.trail(str(pd.proj) + "2/x.ts", note="sibling-prefix", n=2)  # /…/proj2 is not inside /…/proj
    pd.trail("relative/x.ts", note="relative", n=3)
    pd.trail("/", note="root", n=4)
    assert_silent(say(pd, vendor, env={"PD_SITREP": "off"}))
    inside = pd.trail(pd.proj / "in.ts", note="inside", n=5)
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + trail_line(pd.proj / "in.ts", "inside", "bob", inside))


@VEND
def test_project_is_the_nearest_portdaddy_ancestor(pd: Pd, vendor: str) -> None:
    (pd.proj / ".portdaddy").mkdir()
    deep = pd.proj / "pkg" / "deep"
    deep.mkdir(parents=True)
    ts = pd.trail(pd.proj / "lib" / "x.ts", note="sibling dir of cwd, same project", n=1)
    pd.trail(pd.root / "outside.ts", note="outside", n=2)
    r = say(pd, vendor, cwd=deep, env={"PD_SITREP": "off"})
    want = COORD + "\n" + trail_line(pd.proj / "lib" / "x.ts", "sibling dir of cwd, same project", "bob", ts)
    assert r.json == context(vendor, want)


@VEND
def test_without_marker_the_project_is_cwd(pd: Pd, vendor: str) -> None:
    deep = pd.proj / "pkg"
    deep.mkdir()
    pd.trail(pd.proj / "lib" / "x.ts", note="outside cwd", n=1)
    ts = pd.trail(deep / "y.ts", note="inside cwd", n=2)
    r = say(pd, vendor, cwd=deep, env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + trail_line(deep / "y.ts", "inside cwd", "bob", ts))


@VEND
def test_trail_at_project_root_path(pd: Pd, vendor: str) -> None:
    ts = pd.trail(pd.proj, note="the dir itself")
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + trail_line(pd.proj, "the dir itself", "bob", ts))


@VEND
def test_alerts_show_whatever_the_project(pd: Pd, vendor: str) -> None:
    pd.alert("X", "global")
    r = say(pd, vendor, cwd=pd.root / "nowhere", env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + alert_line("X", "global"))


# -- byte bounds and hostile text -----------------------------------------------------------------


def entries(r) -> list[str]:
    text = ctx(r)
    assert text.startswith(COORD + "\n")
    return text[len(COORD) + 1:].split("\n\n")[0].split("\n")


@VEND
def test_one_long_entry_is_cut_at_512_bytes(pd: Pd, vendor: str) -> None:
    pd.alert("BIG", "x" * 2000)
    pd.alert("NEXT", "not shown")
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    got = entries(r)
    assert got == [alert_line("BIG", "x" * 2000)[:MAX_BYTES]]


@VEND
def test_second_entry_cut_to_the_remaining_bytes(pd: Pd, vendor: str) -> None:
    pd.alert("A", "a" * 290)
    pd.alert("B", "b" * 400)
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    first = alert_line("A", "a" * 290)
    got = entries(r)
    assert got[0] == first
    assert got[1] == alert_line("B", "b" * 400)[: MAX_BYTES - len(first) - 1]
    assert len("\n".join(got).encode()) == MAX_BYTES


@VEND
@pytest.mark.parametrize("char", ["é", "€", "😀", "ü̈"])
@pytest.mark.parametrize("pad", [0, 1, 2, 3])
def test_multibyte_text_at_the_cap(pd: Pd, vendor: str, char: str, pad: int) -> None:
    text = "p" * pad + char * 400
    pd.alert("U", text)
    r = say(pd, vendor, env={"PD_SITREP": "off"})  # stdout_object checked strict UTF-8
    (got,) = entries(r)
    full = alert_line("U", text)
    assert full.startswith(got)
    assert len(got.encode()) <= MAX_BYTES
    assert len(got.encode()) > MAX_BYTES - 4


@VEND
def test_trail_multibyte_path_second_entry(pd: Pd, vendor: str) -> None:
    pd.alert("A", "a" * 200)
    ts = pd.trail(pd.proj / ("ü" * 300), note="wide")
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    got = entries(r)
    assert got[0] == alert_line("A", "a" * 200)
    assert trail_line(pd.proj / ("ü" * 300), "wide", "bob", ts).startswith(got[1])
    assert len("\n".join(got).encode()) <= MAX_BYTES


@VEND
@pytest.mark.parametrize("text", [
    "before \\c after",
    "%s %d %n %% %b \\n \\t \\0 \\\\",
    'quotes " and \' and `backticks` and $(touch CANARY) and $HOME',
    "tab\there",
    "ctrl \x01\x1f\x7f end",
    "-n leading dash",
])
def test_alert_text_is_data(pd: Pd, vendor: str, text: str) -> None:
    pd.alert("T", text)
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env={"PD_HOOK_PROVIDER": vendor, "PD_SITREP": "off"},
               cwd=pd.root)
    assert r.json == context(vendor, COORD + "\n" + alert_line("T", text))
    assert not (pd.root / "CANARY").exists()


@VEND
def test_whole_context_is_bounded(pd: Pd, vendor: str) -> None:
    pd.halt_file.write_text("é" * 3000 + "\n")
    r = say(pd, vendor)
    text = ctx(r)
    assert text.startswith(MSG["halt_header"] + "\n" + "é" * 10)
    assert 4096 - 4 < len(text.encode()) <= 4096


@VEND
def test_matrix_file_env_and_unreadable_matrix(pd: Pd, vendor: str) -> None:
    other = pd.root / "m.env"
    other.write_text('PD_ALERT_ENV="from env"\n')
    pd.alert("DEFAULT", "from default place")
    r = say(pd, vendor, env={"PD_MATRIX_FILE": str(other), "PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + alert_line("ENV", "from env"))
    as_dir = pd.root / "dir.env"
    as_dir.mkdir()
    assert_silent(say(pd, vendor, env={"PD_MATRIX_FILE": str(as_dir), "PD_SITREP": "off"}))
    r = say(pd, vendor, env={"PD_MATRIX_FILE": str(as_dir)})
    assert r.json == context(vendor, SITREP_CONTRACT)


@VEND
def test_many_matrix_lines(pd: Pd, vendor: str) -> None:
    lines = [f'PD_LOCK_F{i}="bob"' for i in range(3000)]
    lines += [f'PD_PHEROMONE_F{i}_1="{pd.root}/other/{i} | n | actor:bob | ts:2020-01-01T00:00:00Z"'
              for i in range(3000)]
    pd.add_matrix(*lines)
    ts = pd.trail(pd.proj / "last.ts", note="last")
    r = say(pd, vendor, env={"PD_SITREP": "off"})
    assert r.json == context(vendor, COORD + "\n" + trail_line(pd.proj / "last.ts", "last", "bob", ts))


# -- agy: once per turn ---------------------------------------------------------------------------


@pytest.mark.parametrize(("invocation", "speaks"), [(0, True), (MISSING, True), (1, False), (7, False)])
def test_agy_only_first_invocation(pd: Pd, invocation, speaks: bool) -> None:
    r = say(pd, "agy", invocation=invocation)
    if speaks:
        assert r.json == context("agy", SITREP_CONTRACT)
    else:
        assert_silent(r)


# -- the fixture corpus ---------------------------------------------------------------------------

PROMPT_FIXTURES = sorted((v, p.stem) for v in VENDORS for p in (FIXTURES / v).glob("*.json")
                         if p.stem in ("prompt", "live-UserPromptSubmit", "live-BeforeAgent"))


def test_prompt_fixture_corpus() -> None:
    assert {v for v, _ in PROMPT_FIXTURES} == set(VENDORS)
    assert len(PROMPT_FIXTURES) >= 7


@pytest.mark.parametrize(("vendor", "name"), PROMPT_FIXTURES)
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_fixture_payloads(pd: Pd, vendor: str, name: str, provider: str) -> None:
    payload = (FIXTURES / vendor / f"{name}.json").read_bytes()
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    r = pd.run("prompt", payload, env=env)
    assert r.json == context(vendor, SITREP_CONTRACT)
    cwd = json.loads(payload).get("cwd") or json.loads(payload)["workspacePaths"][0]
    pd.alert("OPS", "go")
    pd.trail(f"{cwd}/src/x.ts", note="fixture project")
    r = pd.run("prompt", payload, env=env)
    want = COORD + "\n" + alert_line("OPS", "go") + "\n" + trail_line(f"{cwd}/src/x.ts", "fixture project")
    assert ctx(r).startswith(want)
