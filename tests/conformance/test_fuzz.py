"""Property-based conformance (hypothesis), through the real rendered scripts.

- parser equivalence: generated vendor-shaped pre-tool events (decoy "tool_name"/path keys at
  other depths and in arrays, hostile paths with unicode and every escape, key-order and
  whitespace variants, long strings) with a matrix that locks the true target: the tentacle
  blocks exactly when Python's json says the true target is locked, with the exact decoded path
  in the reason; and the awk extractor alone (tests/jsonawk_driver.awk) under every awk present;
- never blocks by accident: payloads whose locks name only decoys, truncated events and
  garbage never produce a block in any vendor dialect and never exit 2, directly or gated;
- stdout contract: for any input, every tentacle prints nothing or exactly one JSON object the
  vendor accepts.

Each example picks its shell from the matrix and its awk (mawk, gawk, original-awk, busybox
awk) at random. Examples under CI (the derandomized "ci" profile): equivalence 100 per vendor,
awk extractor 80 per awk, never-blocks 60 per vendor, stdout contract 60 per tentacle (1200 in
all); locally a fifth of each. The summary prints the counts actually run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tests.conformance import oracle as o
from tests.conformance import strategies as gen
from tests.conformance.conftest import tag
from tests.conformance.kit import (
    BLOCKING,
    CI,
    MATRIX,
    ROLES,
    ROOT,
    SHAPES,
    VENDORS,
    Ctx,
    farm_without_preferred_awks,
    new_home,
    parse_stdout,
    tentacle_awk,
)
from tests.jsonref import lookup, py_esc, type_of
from tests.shells import FAST

pytestmark = pytest.mark.slow

AWKS = {"mawk": "mawk"} if FAST else {"mawk": "mawk", "gawk": "gawk", "original-awk": "original-awk",
                                        "busybox": "busybox"}
REQUIRED_AWKS = ("mawk",) if FAST else ("mawk", "busybox")
JSON_AWK = ROOT / "templates" / "fragments" / "json.awk"
DRIVER = ROOT / "tests" / "jsonawk_driver.awk"


def fuzz(n_ci: int) -> settings:
    """n_ci examples under CI (the derandomized profile), a fifth locally. Failures are shrunk but
    not "explained" (that phase reruns a failing example hundreds of times)."""
    return settings(settings.default, max_examples=n_ci if CI else max(10, n_ci // 5), deadline=None,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example, HealthCheck.filter_too_much])


@pytest.fixture(scope="session")
def awk_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """name -> a directory whose only entry is `awk`, linked to that implementation."""
    base = tmp_path_factory.mktemp("awks")
    out = {}
    for name, exe in AWKS.items():
        found = shutil.which(exe)
        if not found:
            continue
        d = base / name
        d.mkdir()
        (d / "awk").symlink_to(os.path.realpath(found))
        out[name] = str(d)
    return out


def awk_order(awk_dirs: dict[str, str]) -> list[str]:
    """mawk (Debian's default awk) first: hypothesis draws the first choice most often."""
    return [a for a in AWKS if a in awk_dirs]


@pytest.fixture
def shells() -> list:
    return [s for s in MATRIX if s.available]


@pytest.fixture(scope="session")
def behind_awk(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The PATH behind an awk dir: without the spec's preferred awks (a tentacle would run those
    instead of the awk under test)."""
    return farm_without_preferred_awks(tmp_path_factory.mktemp("behind-awk"))


def runner(rendered, behind_awk, interps, awk_dirs):
    def ctx(sh, awk: str, mode: str = "direct") -> Ctx:
        path = awk_dirs[awk] + os.pathsep + behind_awk
        assert os.path.realpath(tentacle_awk(path) or "") == os.path.realpath(Path(awk_dirs[awk]) / "awk")
        return Ctx(rendered, sh, "normal", path, mode, interps[sh.name])
    return ctx


# ----------------------------------------------------------------- parser equivalence --


@pytest.mark.parametrize("vendor", VENDORS)
def test_pre_tool_equivalence(rendered, behind_awk, interps, awk_dirs, shells, tmp_path, request, vendor):
    """The rendered pre-tool tentacle blocks exactly when Python's json says the true target is
    locked by someone else, and its reason names the exact decoded path."""
    tag(request, kind="fuzz")
    make = runner(rendered, behind_awk, interps, awk_dirs)
    seen: Counter[str] = Counter()

    @fuzz(100)
    @given(p=gen.tool_payload(vendor), data=st.data())
    def prop(p: gen.Payload, data: st.DataObject) -> None:
        ts = o.lock_targets(vendor, p.doc)
        how = data.draw(st.sampled_from(["locked", "locked", "locked", "own", "free"]))
        pairs = [(d, o.OTHER) for d in p.decoys]
        pairs += [(t, o.OTHER if how == "locked" else o.ACTOR) for t in ts if how != "free"]
        pairs = data.draw(st.permutations(pairs))
        matrix, locks = gen.locks_text(pairs)
        home = new_home(tmp_path, matrix)
        exp = o.pre_tool(vendor, p.doc, locks, home=str(home.path))
        sh = data.draw(st.sampled_from(shells))
        awk = data.draw(st.sampled_from(awk_order(awk_dirs)))
        r = make(sh, awk).invoke("pre_tool", p.text, home, vendor)
        where = f"{sh.name}/{awk}: targets={ts!r} {r.brief()}"
        obj, _shape, bad = parse_stdout(vendor, "pre_tool", r.out)
        assert r.code == 0 and not bad, (bad, where)
        assert obj == exp.out, where
        shown = o.checked(ts)[0]
        # a protected control file answers with its own message (the oracle's out says which)
        if exp.verdict == "block" and not any(o.protected(t, str(home.path)) for t in shown):
            reason = json.dumps(obj, ensure_ascii=False)
            short = sum(len(t.encode("utf-8", "surrogatepass")) + 100 for t in shown) < o.CAPS["reason_max"]
            for t in shown if short else []:
                if o.holder_of(t, locks):
                    assert json.dumps(t, ensure_ascii=False)[1:-1] in reason, (t, where)
        seen[exp.verdict] += 1
        seen[f"awk:{awk}"] += 1

    prop()
    total = seen["block"] + seen["silent"]
    awks = sorted((k[4:], n) for k, n in seen.items() if k[:4] == "awk:")
    tag(request, fuzz=f"pre-tool equivalence, {vendor}: {total} examples ({seen['block']} blocks, "
                      f"{seen['silent']} silent; awks {awks})")
    if CI:  # derandomized there; a short local run may draw one verdict only
        assert seen["block"] and seen["silent"], f"the generator never produced both verdicts: {seen}"


HOSTILE = [
    "/w/a\nb.txt",                 # a newline (the one-true-awk also splits "/" at newlines)
    "/w/x\n../secret.txt",         # ... which can change the path's lock suffix
    "/w/sp ace/é/日本/😀.txt",
    '/w/q"uote\\back\\.txt',
    "/w/tab\there/cr\rhere",
    "/w/\u2028sep/\x7f\x01.txt",
    "//w//./y/../z.txt",
    "rel/../../up.txt",             # relative: joined to the payload cwd, then normalised
    "/w/" + "L" * 3000 + ".txt",
    "/w/%s%b\\c/x",
]


@pytest.mark.parametrize("awk", list(AWKS))
def test_hostile_paths_every_awk(rendered, behind_awk, interps, awk_dirs, tmp_path, request, awk):
    """A fixed corpus of hostile target paths, locked, under every awk and every vendor: the
    block names exactly the path Python's json and the lexical normalisation give; a `$(...)`
    in a path stays data."""
    tag(request, kind="fuzz")
    if awk not in awk_dirs:
        pytest.fail(f"{awk} is not installed") if awk in REQUIRED_AWKS else pytest.skip(f"{awk} is not installed")
    make = runner(rendered, behind_awk, interps, awk_dirs)
    dash = next(s for s in MATRIX if s.name == "dash")
    pwned = tmp_path / "pwned"
    bad = []
    for vendor in VENDORS:
        v = o.VENDOR[vendor]
        for raw in [*HOSTILE, f"/w/$(touch {pwned})/x"]:
            doc: dict[str, Any] = {}
            gen.put(doc, v.tool, sorted(v.edit)[0])
            gen.put(doc, (*v.tool_input, v.path_fields[0]), raw)
            gen.put(doc, v.session[0], "s1")
            o.place(doc, vendor, "pre_tool", "/w")
            ts = o.targets(vendor, doc)
            matrix, locks = gen.locks_text([(t, o.OTHER) for t in ts])
            home = new_home(tmp_path, matrix)
            exp = o.pre_tool(vendor, doc, locks, home=str(home.path))
            r = make(dash, awk).invoke("pre_tool", json.dumps(doc).encode(), home, vendor)
            obj, _s, problems = parse_stdout(vendor, "pre_tool", r.out)
            if r.code or problems or obj != exp.out:
                bad.append(f"{vendor} {raw[:60]!r}: expected {json.dumps(exp.out)[:200]}, got {r.brief()[:300]}")
    assert not pwned.exists(), "a path was evaluated as shell code"
    tag(request, fuzz=f"hostile path corpus under {awk}: {len(HOSTILE) + 1} paths x {len(VENDORS)} vendors")
    assert not bad, "\n".join(bad)


# -------------------------------------------------------------- the awk extractor alone --

def vendor_paths(vendor: str) -> list[tuple[str, ...]]:
    v = o.VENDOR[vendor]
    out = [v.tool, v.tool_input, *v.cwd, *v.session, ("file_path",), ("TargetFile",),
           ("tool_response", "filePath"), ("tool_response", "tool_name")]
    out += [(*v.tool_input, f) for f in (*v.path_fields, "command", "Cwd")]
    out += [(*v.tool_input, "nested", k) for k in ("tool_name", "file_path", "TargetFile", "path")]
    out += [(*v.tool_input, "arr", "0", "file_path"), (*v.tool_input, "arr", "2", "0", "path"),
            (*v.tool_input, "command", "1"), ("nope",), (*v.tool_input, "arr", "9")]
    return out


@pytest.mark.parametrize("awk", list(AWKS))
def test_awk_extractor(awk_dirs, request, awk):
    """json.awk alone, through the test driver: every vendor field path a tentacle reads gets
    the same type and the same (escaped) value as Python's json gives."""
    tag(request, kind="fuzz")
    if awk not in awk_dirs:
        msg = f"{awk} is not installed"
        if awk in REQUIRED_AWKS:
            pytest.fail(msg)
        pytest.skip(msg)
    exe = str(Path(awk_dirs[awk]) / "awk")
    n = Counter()

    @fuzz(80)
    @given(vendor=st.sampled_from(VENDORS), data=st.data())
    def prop(vendor: str, data: st.DataObject) -> None:
        p = data.draw(gen.tool_payload(vendor))
        paths = vendor_paths(vendor)
        spec = ",".join(".".join(k) for k in paths)
        r = subprocess.run([exe, "-v", f"paths={spec}", "-f", str(JSON_AWK), "-f", str(DRIVER)], input=p.text,
                           capture_output=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, timeout=120)
        assert r.returncode == 0 and r.stderr == b"", r.stderr[:500]
        lines = r.stdout.split(b"\n")[:-1]
        assert lines[-1] == b"ok\t1", lines[-1][:200]
        for key, line in zip(paths, lines, strict=False):
            _name, typ, val = line.split(b"\t", 2)
            want = lookup(p.doc, key)
            assert typ.decode() == type_of(want), (key, typ, want)
            if isinstance(want, str):
                assert val == py_esc(want.encode("utf-8")), (key, val[:300], want[:300])
        n[vendor] += 1

    prop()
    tag(request, fuzz=f"json.awk extractor under {awk}: {sum(n.values())} examples {dict(sorted(n.items()))}")


# ---------------------------------------------------------------- never blocks by accident --


def all_target_suffixes(doc: Any) -> set[str]:
    """Every key a lock on a target of the event may sit under (both forms)."""
    return {k for v in VENDORS for t in o.lock_targets(v, doc) for k in o.lock_keys(t)}


@pytest.mark.parametrize("vendor", VENDORS)
def test_never_blocks_by_accident(rendered, behind_awk, interps, awk_dirs, shells, tmp_path, request, vendor):
    """Locks only on decoys (or the agent's own), truncated events, garbage bytes: no block in
    any dialect, never exit 2, directly or through the gate."""
    tag(request, kind="fuzz")
    make = runner(rendered, behind_awk, interps, awk_dirs)
    seen: Counter[str] = Counter()

    @fuzz(60)
    @given(p=gen.tool_payload(vendor), data=st.data())
    def prop(p: gen.Payload, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(["decoys", "decoys", "truncated", "garbage"]))
        # a control file of the harness as the target (/ is above every home) is a deliberate block
        if kind != "garbage" and any(o.protected(t, None) for v in VENDORS for t in o.lock_targets(v, p.doc)):
            return
        # a target past the edit gate's caps with another actor's lock is the oversize rule's block
        if kind != "garbage" and any(o.checked(o.lock_targets(v, p.doc))[1] for v in VENDORS):
            return
        text = p.text
        if kind == "truncated":
            text = text[: data.draw(st.integers(0, len(text)))]
        elif kind == "garbage":
            text = data.draw(gen.garbage)
        safe = all_target_suffixes(p.doc)
        pairs = [(d, o.OTHER) for d in p.decoys if gen.lock_key(d) not in safe]
        pairs += [(t, o.ACTOR) for t in o.lock_targets(vendor, p.doc)]
        matrix, _locks = gen.locks_text(data.draw(st.permutations(pairs)))
        provider = data.draw(st.sampled_from([vendor, vendor, vendor, None]))
        mode = data.draw(st.sampled_from(["direct", "gate"]))
        sh = data.draw(st.sampled_from(shells))
        ctx = make(sh, data.draw(st.sampled_from(awk_order(awk_dirs))), mode)
        r = ctx.invoke("pre_tool", text, new_home(tmp_path, matrix), provider)
        assert r.code == 0, r.brief()
        for v in [provider] if provider else VENDORS:
            _obj, shape, _bad = parse_stdout(v, "pre_tool", r.out)
            assert shape not in BLOCKING, (kind, sh.name, mode, r.brief())
        assert r.out == b"", (kind, r.brief())
        seen[kind] += 1
        seen[mode] += 1

    prop()
    tag(request, fuzz=f"never blocks by accident, {vendor}: {seen['decoys'] + seen['truncated'] + seen['garbage']} "
                      f"examples (decoys {seen['decoys']}, truncated {seen['truncated']}, garbage {seen['garbage']}; "
                      f"gate {seen['gate']})")


# ----------------------------------------------------------------------- stdout contract --


@st.composite
def event(draw: st.DrawFn, vendor: str, role: str) -> tuple[bytes, list[str]]:
    """Any event a tentacle may be handed (mostly one of its own kind; a vendor-shaped event of
    another kind; garbage), and the paths it edits."""
    own = {"prompt": "prompt", "stop": "stop", "pre_tool": "tool", "post_tool": "tool"}[role]
    kind = draw(st.sampled_from([own, own, "tool", "prompt", "stop", "garbage"]))
    if kind == "garbage":
        return draw(gen.garbage), []
    if kind == "tool":
        p = draw(gen.tool_payload(vendor))
        return p.text, o.targets(vendor, p.doc)
    v = o.VENDOR[vendor]
    doc: dict[str, Any] = {}
    gen.put(doc, v.session[0], draw(st.one_of(gen.small_text, st.integers(), st.none())))
    o.place(doc, vendor, kind, draw(gen.cwd_value))
    event = o.PROFILES[vendor].payload.event
    if event:
        doc[event] = draw(st.sampled_from([o.EVENTS[vendor][kind], o.EVENTS[vendor][role], "Other"]))
    if kind == "prompt":
        doc["prompt"] = draw(gen.some_text)
        if v.turn:
            gen.put(doc, v.turn, draw(st.one_of(st.integers(0, 3), st.none(), gen.small_text)))
    else:
        said = draw(st.one_of(gen.some_text.filter(bool), gen.some_text.filter(bool), gen.some_text, st.none(),
                              st.integers(), st.sampled_from(["SITREP\n| a | b |", "sitrep done | x", "| a | b |",
                                                              "no table", "", "Sitrep:\n|x|y|z|"])))
        for path in v.stop_text or [("last_assistant_message",)]:
            gen.put(doc, path, said)
        active = draw(st.sampled_from([False, False, False, True, None, "true", 1, 0]))
        if v.stop_active:
            gen.put(doc, v.stop_active, active)
        if not v.stop_active:  # a vendor without the flag counts its stop calls (agy's fields)
            doc.update({"terminationReason": "NO_TOOL_CALL", "executionNum": draw(st.integers(0, 3))})
    return draw(gen.serialize(draw(gen.shuffled(doc)))), []


matrix_line = st.one_of(
    st.tuples(st.text("ABCXYZ019_", min_size=1, max_size=6), gen.small_text).map(
        lambda t: f'{o.ALERT}{t[0]}="{t[1].replace(chr(10), " ").replace(chr(13), " ")}"'),
    st.tuples(gen.abs_path.filter(lambda p: len(p) < 100),
              st.sampled_from(["2026-01-01T00:00:00Z", "garbage", ""])).map(
        lambda t: f'{o.PHEROMONE}X_1="{t[0].replace(chr(10), " ")} | note | actor:bob | ts:{t[1]}"'),
    gen.abs_path.filter(lambda p: len(p) < 100).map(lambda p: f'{o.LOCK}{o.suffix(p)}="bob"'),
    st.text(max_size=40).map(lambda s: s.replace("\n", " ")),
)


@pytest.mark.parametrize("role", ROLES)
def test_stdout_contract(rendered, behind_awk, interps, awk_dirs, shells, tmp_path, request, role):
    """Whatever arrives on stdin, with any matrix and any dial values, a tentacle (direct or
    gated) exits 0 and prints nothing or exactly one JSON object on one line that the vendor
    accepts from this hook; stderr carries at most the one warning line a vendor reads there."""
    tag(request, kind="fuzz")
    make = runner(rendered, behind_awk, interps, awk_dirs)
    seen: Counter[str] = Counter()

    @fuzz(60)
    @given(vendor=st.sampled_from(VENDORS), data=st.data())
    def prop(vendor: str, data: st.DataObject) -> None:
        payload, targets = data.draw(event(vendor, role))
        lines = data.draw(st.lists(matrix_line, max_size=6))
        if targets and not data.draw(st.booleans()):  # hypothesis favours False: lock mostly
            lines += [f'{o.LOCK}{o.suffix(t)}="{o.OTHER}"' for t in targets]
        matrix = "\n".join(data.draw(st.permutations(lines))) + "\n"
        dials = {"PD_SUGGESTIBILITY": data.draw(st.sampled_from(["", "warn", "ADVISORY", " enforce ", "bogus"])),
                 "PD_SITREP": data.draw(st.sampled_from(["", "off", "Suggest", "enforce", "nope"]))}
        provider = data.draw(st.sampled_from([vendor, vendor, vendor, None]))
        mode = data.draw(st.sampled_from(["direct", "gate"]))
        sh = data.draw(st.sampled_from(shells))
        ctx = make(sh, data.draw(st.sampled_from(awk_order(awk_dirs))), mode)
        r = ctx.invoke(role, payload, new_home(tmp_path, matrix), provider, dials)
        assert r.code == 0, r.brief()
        verdicts = [parse_stdout(v, role, r.out) for v in ([provider] if provider else VENDORS)]
        assert any(not bad for _o, _s, bad in verdicts), (sh.name, mode, [b for *_x, b in verdicts], r.brief())
        err = r.err.decode("utf-8", "replace")
        warning = role == "pre_tool" and err.startswith("WARNING: ") and err.count("\n") == 1
        assert err == "" or warning, (sh.name, mode, err[:300])
        seen[verdicts[0][1] or "silent"] += 1

    prop()
    tag(request, fuzz=f"stdout contract, {role}: {sum(seen.values())} examples {dict(sorted(seen.items()))}")
    assert SHAPES  # the shapes table is the contract checked above
