"""The dials: suggestibility (pre-tool) and sitrep (stop, prompt). env -> nearest-directory walk
from the payload cwd (agent.config.json, .portdaddy/<dial>.json, .portdaddy/project.json) ->
default; both the object form (.<dial>.<field>) and the bare string; malformed, unreadable and
out-of-enum values are skipped, never lowering the policy."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.shells import FAST
from tests.tentaclekit import (
    DASH,
    SITREP_CONTRACT,
    VENDORS,
    Pd,
    Shell,
    assert_silent,
    assert_warn,
    block_msg,
    by_vendor,
    context,
    p_edit,
    p_prompt,
    p_stop,
    stop_block,
    stop_suggest,
    tool_block,
    warn_msg,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms


@pytest.fixture
def sh() -> Shell:
    """Dial files and values are read by awk: dash only (see tests.tentaclekit.DASH)."""
    return DASH


DIR = object()  # a directory where a dial file is expected (unreadable as a file)


@dataclass(frozen=True)
class Dial:
    name: str
    env: str
    field: str
    lo: str
    mid: str
    other: str  # a value of the other dial: outside this dial's enum


SUGGEST = Dial("suggestibility", "PD_SUGGESTIBILITY", "level", "advisory", "warn", "suggest")
SITREP = Dial("sitrep", "PD_SITREP", "endOfTurn", "off", "suggest", "warn")


@dataclass(frozen=True)
class Case:
    id: str
    want: str  # lo | mid | enforce
    files: dict[str, object] = field(default_factory=dict)  # path under root -> content (callable of Dial)
    env: str | None = None
    cwd: str = "proj"


def obj(level: str) -> object:
    return lambda d: json.dumps({d.name: {d.field: getattr(d, level, level)}})


def bare(level: str) -> object:
    return lambda d: json.dumps({d.name: getattr(d, level, level)})


def raw(text: str) -> object:
    return lambda d: text.replace("DIAL", d.name).replace("FIELD", d.field)


DF = ".portdaddy/DIALFILE"  # .portdaddy/<dial>.json
AC = "proj/agent.config.json"
SUB = "proj/a/agent.config.json"
PJ = "proj/.portdaddy/project.json"
J = json.dumps


def mixed_case(d: Dial) -> str:
    return J({d.name: {d.field: d.mid.upper()[:2] + d.mid[2:]}})


def pretty(d: Dial) -> str:
    return J({"x": [1, {"y": None}], d.name: {"other": True, d.field: d.lo}}, indent=4)


def unicode_escaped(d: Dial) -> str:
    value = d.mid[0] + "".join(f"\\u{ord(c):04x}" for c in d.mid[1:]) + "\\u0020"
    return '{"' + d.name + '": {"' + d.field + '": "' + value + '"}}'


def both_dials(d: Dial) -> str:
    return J({"name": "p", "suggestibility": {"level": "warn"}, "sitrep": {"endOfTurn": "suggest"}})


def other_dial_only(d: Dial) -> str:
    return J({("sitrep" if d.name != "sitrep" else "suggestibility"): "off"})


CASES = [
    Case("env", "mid", env="{mid}"),
    Case("env-upper", "mid", env="{MID}"),
    Case("env-whitespace", "mid", env="  {Mid}\t"),
    Case("env-newline", "mid", env="{mid}\n"),
    Case("env-lo", "lo", env="{lo}"),
    Case("env-enforce-beats-file", "enforce", {AC: obj("lo")}, env="enforce"),
    Case("env-lo-beats-file", "lo", {AC: obj("mid")}, env="{lo}"),
    Case("env-invalid-default", "enforce", env="bogus"),
    Case("env-other-enum-default", "enforce", env="{other}"),
    Case("env-invalid-then-file", "lo", {AC: obj("lo")}, env="bogus"),
    Case("env-empty-then-file", "mid", {AC: obj("mid")}, env=""),
    Case("default", "enforce"),
    Case("agent-config-object", "mid", {AC: obj("mid")}),
    Case("agent-config-bare", "lo", {AC: bare("lo")}),
    Case("dial-file-object", "mid", {f"proj/{DF}": obj("mid")}),
    Case("dial-file-bare", "mid", {f"proj/{DF}": bare("mid")}),
    Case("project-object", "lo", {PJ: obj("lo")}),
    Case("project-bare", "mid", {PJ: bare("mid")}),
    Case("file-mixed-case", "mid", {AC: mixed_case}),
    Case("file-whitespace", "mid", {AC: lambda d: J({d.name: " \t" + d.mid + " "})}),
    Case("file-pretty", "lo", {AC: pretty}),
    Case("file-unicode-escape", "mid", {AC: unicode_escaped}),
    Case("project-both-dials", "mid", {PJ: both_dials}),
    Case("order-agent-config-first", "mid", {AC: obj("mid"), f"proj/{DF}": obj("lo")}),
    Case("order-dial-file-before-project", "lo", {f"proj/{DF}": bare("lo"), PJ: bare("mid")}),
    Case("nearest-wins", "mid", {AC: obj("lo"), SUB: obj("mid")}, cwd="proj/a"),
    Case("nearest-wins-reverse", "lo", {AC: obj("mid"), "proj/a/b/.portdaddy/project.json": bare("lo")},
         cwd="proj/a/b"),
    Case("walk-up-deep", "mid", {AC: obj("mid")}, cwd="proj/a/b/c/d"),
    Case("walk-past-project-root", "lo", {"agent.config.json": obj("lo"), "proj/.portdaddy/keep": raw("")}),
    Case("malformed-skipped", "mid", {AC: obj("mid"), SUB: raw('{"DIAL": {"FIELD": "x"')}, cwd="proj/a"),
    Case("malformed-only-default", "enforce", {AC: raw("{DIAL: warn, ]")}),
    Case("truncated-only-default", "enforce", {AC: lambda d: J({d.name: {d.field: d.lo}})[:-3]}),
    Case("trailing-garbage-default", "enforce", {AC: lambda d: J({d.name: d.lo}) + " x"}),
    Case("empty-file-default", "enforce", {AC: raw("")}),
    Case("array-top-default", "enforce", {AC: lambda d: J([{d.name: d.lo}])}),
    Case("out-of-enum-skipped", "lo", {AC: obj("lo"), SUB: obj("other")}, cwd="proj/a"),
    Case("out-of-enum-only-default", "enforce", {AC: bare("other")}),
    Case("bogus-then-same-dir", "mid", {AC: bare("bogus"), PJ: obj("mid")}),
    Case("number-skipped", "lo", {AC: obj("lo"), SUB: raw('{"DIAL": 3}')}, cwd="proj/a"),
    Case("null-skipped", "lo", {AC: obj("lo"), SUB: raw('{"DIAL": {"FIELD": null}}')}, cwd="proj/a"),
    Case("array-skipped", "lo", {AC: obj("lo"), SUB: lambda d: J({d.name: [d.mid]})}, cwd="proj/a"),
    Case("wrong-field-skipped", "enforce", {AC: lambda d: J({d.name: {"value": d.lo}})}),
    Case("top-level-field-skipped", "enforce", {AC: lambda d: J({d.field: d.lo})}),
    Case("other-dial-only-skipped", "lo", {AC: obj("lo"), SUB: other_dial_only}, cwd="proj/a"),
    Case("unreadable-dir-same-dir-next", "mid", {AC: DIR, PJ: obj("mid")}),
    Case("unreadable-dir-parent", "lo", {AC: obj("lo"), SUB: DIR, f"proj/a/{DF}": DIR}, cwd="proj/a"),
    Case("cwd-missing-dir-walks-existing-parents", "mid", {AC: obj("mid")}, cwd="proj/not/there"),
    Case("space-and-quotes-in-cwd", "mid", {"proj/it's a \"dir\"/agent.config.json": obj("mid")},
         cwd="proj/it's a \"dir\""),
    Case("dollar-paren-in-cwd", "lo", {"proj/$(touch CANARY)/agent.config.json": obj("lo")},
         cwd="proj/$(touch CANARY)"),
    Case("equals-in-cwd", "mid", {"proj/a=b/agent.config.json": obj("mid")}, cwd="proj/a=b"),
]


def layout(pd: Pd, dial: Dial, case: Case) -> Path:
    for rel, content in case.files.items():
        p = pd.root / rel.replace("DIALFILE", f"{dial.name}.json")
        if content is DIR:
            p.mkdir(parents=True, exist_ok=True)
            (p / "x").write_text("{}")
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content(dial))  # type: ignore[operator]
    cwd = pd.root / case.cwd
    if "not/there" not in case.cwd:
        cwd.mkdir(parents=True, exist_ok=True)
    return cwd


def dial_env(dial: Dial, case: Case) -> dict[str, str]:
    if case.env is None:
        return {}
    return {dial.env: case.env.format(mid=dial.mid, MID=dial.mid.upper(), Mid=dial.mid.capitalize(),
                                      lo=dial.lo, other=dial.other)}


# The vendor decides where its payload keeps the cwd (where the dial walk starts) and the shape of
# the answer; the dial rules are vendor-blind. A case that moves the cwd runs under every vendor;
# the others run once each, the vendors in turn (each vendor still meets every outcome). Fast
# mode: the walks too (each vendor still meets several of them, a moved cwd from its own field).
WALKS = [c for c in CASES if c.cwd != "proj"]
if FAST:
    PARAMS = by_vendor([*WALKS, *(c for c in CASES if c.cwd == "proj")], ids=lambda c: c.id)
else:
    PARAMS = [pytest.param(v, c, id=f"{v}-{c.id}") for c in WALKS for v in VENDORS]
    PARAMS += by_vendor([c for c in CASES if c.cwd == "proj"], ids=lambda c: c.id)
EACH = pytest.mark.parametrize(("vendor", "case"), PARAMS)


def test_every_vendor_meets_every_outcome() -> None:
    for vendor in VENDORS:
        assert {p.values[1].want for p in PARAMS if p.values[0] == vendor} == {"lo", "mid", "enforce"}, vendor
    assert sorted(c.id for c in CASES) == sorted({p.values[1].id for p in PARAMS})


@EACH
def test_suggestibility(pd: Pd, vendor: str, case: Case) -> None:
    cwd = layout(pd, SUGGEST, case)
    target = cwd / "locked.ts"
    pd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice", **dial_env(SUGGEST, case)}
    r = pd.run("pre_tool", p_edit(vendor, str(target), cwd), env=env)
    if case.want == "lo":
        assert_silent(r)
    elif case.want == "mid":
        assert_warn(vendor, r, warn_msg(target, "bob"))
    else:
        assert r.json == tool_block(vendor, block_msg(target, "bob"))
    assert not list(pd.root.rglob("CANARY"))


@EACH
def test_sitrep_at_stop(pd: Pd, vendor: str, case: Case) -> None:
    cwd = layout(pd, SITREP, case)
    env = {"PD_HOOK_PROVIDER": vendor, **dial_env(SITREP, case)}
    r = pd.run("stop", p_stop(vendor, "done, no table", cwd, session=uuid.uuid4().hex), env=env)
    want = {"lo": None, "mid": stop_suggest(vendor), "enforce": stop_block(vendor)}[case.want]
    assert r.json == want
    assert r.err == b""
    assert not list(pd.root.rglob("CANARY"))


@EACH
def test_sitrep_at_prompt(pd: Pd, vendor: str, case: Case) -> None:
    cwd = layout(pd, SITREP, case)
    env = {"PD_HOOK_PROVIDER": vendor, **dial_env(SITREP, case)}
    r = pd.run("prompt", p_prompt(vendor, cwd), env=env)
    if case.want == "lo":
        assert_silent(r)
    else:
        assert r.json == context(vendor, SITREP_CONTRACT)
    assert not list(pd.root.rglob("CANARY"))


def test_dial_files_in_one_directory_serve_both_dials(pd: Pd) -> None:
    """One project.json holds both dials; each tentacle takes its own."""
    (pd.proj / ".portdaddy").mkdir()
    (pd.proj / ".portdaddy" / "project.json").write_text(json.dumps(
        {"suggestibility": "advisory", "sitrep": {"endOfTurn": "off"}}))
    target = pd.proj / "a.ts"
    pd.lock(target, "bob")
    env = {"PD_HOOK_PROVIDER": "claude", "PD_ACTOR": "alice"}
    assert_silent(pd.run("pre_tool", p_edit("claude", str(target), pd.proj), env=env))
    assert_silent(pd.run("stop", p_stop("claude", "no table", pd.proj), env=env))
    assert_silent(pd.run("prompt", p_prompt("claude", pd.proj), env=env))
