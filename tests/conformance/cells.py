"""Scenarios per (tentacle, vendor fixture) and the checks of one matrix cell.

A cell is one tentacle role x one vendor x one shell x one parser environment x one mode
(direct, or through the gate). It runs every fixture of the vendor under the scenarios the
oracle defines, and checks for each run: exit code, stdout contract, exact expected answer,
stderr contract, and state effects (stop markers, trail lines, breaker state, HOME untouched).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from tests.conformance import oracle as o
from tests.conformance.kit import (
    GATE,
    SPEC,
    TENTACLE_DIR,
    VIEW_ENV,
    Ctx,
    Home,
    allow_answer,
    new_home,
    parse_stdout,
    spec_with_hooks,
)
from tests.conformance.kit import fixtures as vendor_fixtures
from tests.conformance.oracle import Expect

UNRELATED = "/nowhere/else/locked.txt"
ALERT_ID, ALERT_TEXT = "A1", "deploy freeze until 18:00"
BASE_MATRIX = (f'# coordination matrix\n{o.ALERT}{ALERT_ID}="{ALERT_TEXT}"\n'
               f'{o.LOCK}{o.suffix(UNRELATED)}="{o.OTHER}"\n')
TRAIL_SEED = f'{o.ALERT}KEEP="keep me"\n'
STDIN_MAX = SPEC["harness"]["stdin_max_bytes"]
ROLE_PREFIX = {"prompt": "prompt", "pre_tool": "pre-tool", "post_tool": "post-tool", "stop": "stop"}


@dataclass
class Scenario:
    name: str
    payload: bytes
    doc: Any
    matrix: str | None
    expects: list[Expect]  # one per run, all runs in one home
    env: dict[str, str] = field(default_factory=dict)


# Which fixtures of a vendor a cell runs: "all"; "own", those of the tentacle's own event kind;
# "own+1", those and one foreign event (`turn` picks which, so cells that differ only in the shell
# each get another one).
Pick = Literal["all", "own", "own+1"]


def role_fixture(role: str, vendor: str, path: Path, doc: Any) -> bool:
    """The fixture is an event of this tentacle's own kind."""
    if path.stem.startswith(ROLE_PREFIX[role]):
        return True
    return isinstance(doc, dict) and doc.get("hook_event_name") == o.EVENTS[vendor][role]


def picked(role: str, vendor: str, pick: Pick, turn: int = 0,
           only: list[str] | None = None) -> list[tuple[Path, bytes, Any]]:
    """The fixtures of `vendor` a cell of `role` runs (only those named in `only` when given), each
    with its bytes and its document."""
    own: list[tuple[Path, bytes, Any]] = []
    foreign: list[tuple[Path, bytes, Any]] = []
    for path in vendor_fixtures(vendor):
        if only is not None and path.stem not in only:
            continue
        raw = path.read_bytes()
        doc = json.loads(raw)
        (own if role_fixture(role, vendor, path, doc) else foreign).append((path, raw, doc))
    if pick == "all":
        return sorted(own + foreign)
    if pick == "own+1" and foreign:
        return sorted([*own, foreign[turn % len(foreign)]])
    return own


def with_compliant_text(vendor: str, doc: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    for path in o.VENDOR[vendor].stop_text:
        if o.string(doc, path):
            doc[path[0]] = o.string(doc, path) + "\n\nSITREP\n| idea | agent | done | #1 | - |"
            return doc
    raise AssertionError("no stop text")


def scenarios(role: str, vendor: str, path: Path, full: bool) -> list[Scenario]:
    """full: every scenario; else only the primary one of each (tentacle, fixture) pair."""
    raw = path.read_bytes()
    doc = json.loads(raw)
    out: list[Scenario] = []
    if role == "pre_tool":
        ts = o.targets(vendor, doc)
        locks = {o.suffix(UNRELATED): o.OTHER, **{o.seed_suffix(t): o.OTHER for t in ts}}
        locked = o.lock_matrix(ts, o.OTHER, BASE_MATRIX)
        out.append(Scenario("locked", raw, doc, locked, [o.pre_tool(vendor, doc, locks)]))
        if full and ts:
            own = {o.suffix(UNRELATED): o.OTHER, **{o.seed_suffix(t): o.ACTOR for t in ts}}
            out.append(Scenario("own-lock", raw, doc, o.lock_matrix(ts, o.ACTOR, BASE_MATRIX),
                                [o.pre_tool(vendor, doc, own)]))
            out.append(Scenario("warn", raw, doc, locked, [o.pre_tool(vendor, doc, locks, dial="warn")],
                                env={"PD_SUGGESTIBILITY": " Warn "}))
            out.append(Scenario("no-matrix", raw, doc, None, [Expect()]))
    elif role == "prompt":
        out.append(Scenario("alert", raw, doc, BASE_MATRIX, [o.prompt(vendor, doc, [(ALERT_ID, ALERT_TEXT)])]))
        if full and role_fixture(role, vendor, path, doc):
            out.append(Scenario("plain", raw, doc, None, [o.prompt(vendor, doc, [])]))
            out.append(Scenario("sitrep-off", raw, doc, None, [o.prompt(vendor, doc, [], dial="off")],
                                env={"PD_SITREP": "OFF"}))
    elif role == "stop":
        runs = [o.stop(vendor, doc)]
        if o.stop_would_block(vendor, doc):
            runs.append(o.stop(vendor, doc, marked=True))
        out.append(Scenario("block-once", raw, doc, BASE_MATRIX, runs))
        if full and o.stop_would_block(vendor, doc):
            ok = with_compliant_text(vendor, doc)
            out.append(Scenario("compliant", json.dumps(ok).encode(), ok, None, [o.stop(vendor, ok)]))
            out.append(Scenario("suggest", raw, doc, None, [o.stop(vendor, doc, dial="suggest")] * 2,
                                env={"PD_SITREP": "suggest"}))
    else:
        out.append(Scenario("trail", raw, doc, TRAIL_SEED, [o.post_tool(vendor, doc)]))
    return out


# ----------------------------------------------------------------------------------- checks --


def answer_problems(ctx: Ctx, role: str, vendor: str, r: Any, exp: Expect) -> list[str]:
    """What a run said against what it should: stdout exactly the expected answer (and through
    the gate the vendor's allow answer where nothing else is said), stderr exactly as expected."""
    problems: list[str] = []
    obj, _shape, bad = parse_stdout(vendor, role, r.out)
    problems += bad
    if not bad and obj != exp.out:
        problems.append(f"answer {obj!r} != expected {exp.out!r}")
    if exp.out is None and not exp.err and allow_answer(vendor, role) and ctx.mode == "gate" and not r.allowed:
        problems.append("the gate allowed without the vendor's allow answer")
    err = r.err.decode("utf-8", "replace")
    if err != exp.err:
        problems.append(f"stderr {err[:300]!r} != expected {exp.err!r}")
    return problems


def failure_report(request: Any, res: Any, where: str) -> None:
    """Tag the item with its counts; fail it with every broken run (the first 25 shown)."""
    from tests.conformance.conftest import tag  # conftest imports this module

    tag(request, checks=res.checks, failed_checks=len(res.failures))
    assert res.checks > 0, "no fixture ran"
    if res.failures:
        shown = "\n".join(res.failures[:25])
        more = f"\n... and {len(res.failures) - 25} more" if len(res.failures) > 25 else ""
        pytest.fail(f"{len(res.failures)} of {res.checks} runs broke the contract "
                    f"({where}):\n{shown}{more}", pytrace=False)


def check_run(ctx: Ctx, role: str, vendor: str, home: Home, sc: Scenario, run_no: int, exp: Expect,
              before: bytes | None) -> list[str]:
    r = ctx.invoke(role, sc.payload, home, vendor, sc.env)
    problems: list[str] = []
    if r.code != 0:
        problems.append(f"exit {r.code} (no shipped dialect blocks by exit code)")
    problems += answer_problems(ctx, role, vendor, r, exp)
    problems += effects(ctx, role, vendor, home, sc, exp, before)
    return [f"{sc.name}#{run_no}: {p} [{r.brief()}]" for p in problems]


def clean_effects(ctx: Ctx, role: str, home: Home) -> list[str]:
    """What no run may leave: a failure counted by the gate, a write into HOME."""
    problems = []
    state = home.breaker_state(role, ctx.rendered.names)
    if ctx.mode == "gate" and state.exists():
        problems.append(f"the gate counted a failure: {state.read_text().strip()!r}")
    user = home.path.parent / "user"
    if any(user.iterdir()):
        problems.append(f"wrote into HOME: {sorted(p.name for p in user.iterdir())}")
    return problems


def effects(ctx: Ctx, role: str, vendor: str, home: Home, sc: Scenario, exp: Expect,
            before: bytes | None) -> list[str]:
    problems = clean_effects(ctx, role, home)
    if role == "stop":
        marks = home.path / o.MARKERS
        if exp.marker is not None:
            at = marks / f"{exp.marker}.blocked" / "at"
            if not at.is_file() or not at.read_text().strip().isdigit():
                problems.append(f"no stop marker {at}")
        elif sc.expects[0].marker is None and marks.is_dir() and any(marks.glob("*.blocked")):
            problems.append(f"unexpected stop markers {sorted(p.name for p in marks.iterdir())}")
    if role == "post_tool":
        now = home.matrix.read_bytes() if home.matrix.exists() else None
        if not exp.trail:
            if now != before:
                problems.append(f"matrix changed without a target: {now!r}")
        elif now is None or before is None or not now.startswith(before):
            problems.append("matrix was not appended to")
        else:
            lines = now[len(before):].decode("utf-8", "replace").split("\n")
            if lines[-1] != "":
                problems.append("trail does not end with a newline")
            lines = lines[:-1]
            tool = o.string(sc.doc, o.VENDOR[vendor].tool)
            if len(lines) != len(exp.trail):
                problems.append(f"{len(lines)} trail lines, expected {len(exp.trail)}: {lines!r}")
            for i, (line, target) in enumerate(zip(lines, exp.trail, strict=False), 1):
                if not o.trail_line(target, tool, i).fullmatch(line):
                    problems.append(f"trail line {i} {line!r} is not the one for {target!r}")
        if (home.state / "matrix.lock").exists():
            problems.append("matrix lock left behind")
    return problems


@dataclass
class CellResult:
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)


def run_cell(ctx: Ctx, role: str, vendor: str, base: Path, full: bool, pick: Pick = "all", turn: int = 0,
             only: list[str] | None = None) -> CellResult:
    """The picked fixtures of `vendor` (picked()) under the oracle's scenarios (all of them when
    `full`)."""
    res = CellResult()
    for path, _raw, _doc in picked(role, vendor, pick, turn, only):
        for sc in scenarios(role, vendor, path, full):
            home = new_home(base, sc.matrix)
            for i, exp in enumerate(sc.expects, 1):
                before = home.matrix.read_bytes() if home.matrix.exists() else None
                res.checks += 1
                res.verdicts[exp.verdict] = res.verdicts.get(exp.verdict, 0) + 1
                try:
                    bad = check_run(ctx, role, vendor, home, sc, i, exp, before)
                except Exception as exc:  # a hung or unrunnable script is a failed check
                    bad = [f"{sc.name}#{i}: {type(exc).__name__}: {exc}"]
                res.failures += [f"{path.stem}: {b}" for b in bad]
    return res


# ------------------------------------------------------------------------------ user hooks --
#
# The hooks spec (hooks_spec): the default spec with its tentacles replaced by user hooks that
# write the view they were given (one file per contract key, only when the variable is set) and
# their stdin into the directory named by DUMP_ENV (each run sets its own): on pre_tool `view`
# (every tool call) then `guard` (exit 2 with "GUARD <number of targets>" when there are
# targets); on prompt `prompt-view` (then one fixed line of context); on stop `stop-view`.

DUMP_ENV = "CONF_HOOK_DUMP"
HOOK_LINE = "HOOK LINE: a fixed line of context from the prompt hook"
HOOK_ROLES = ("pre_tool", "prompt", "stop")
VIEW_HOOK = {"pre_tool": "view", "prompt": "prompt-view", "stop": "stop-view"}


def _dump_script() -> str:
    lines = [f'd=${DUMP_ENV}', 'cat >"$d/stdin"']
    for key, name in VIEW_ENV.items():
        lines.append(f'[ -z "${{{name}+set}}" ] || printf %s "${name}" >"$d/{key}"')
    return "; ".join(lines)


def hooks_spec(dest: Path) -> Path:
    paths = VIEW_ENV["paths"]
    # (a word of a hook's command holds no line break: IFS gets its newline from printf)
    guard = (f'[ -n "${paths}" ] || exit 0; set -f; IFS=$(printf \'\\n_\'); IFS=${{IFS%_}}; '
             f'set -- ${paths}; printf \'GUARD %s\\n\' "$#" >&2; exit 2')
    dump = _dump_script()
    return spec_with_hooks(dest, [
        {"name": VIEW_HOOK["pre_tool"], "event": "pre_tool", "match": ["any"], "run": ["sh", "-c", dump]},
        {"name": "guard", "event": "pre_tool", "run": ["sh", "-c", guard]},
        {"name": VIEW_HOOK["prompt"], "event": "prompt",
         "run": ["sh", "-c", f"{dump}; printf '%s\\n' '{HOOK_LINE}'"]},
        {"name": VIEW_HOOK["stop"], "event": "stop", "run": ["sh", "-c", dump]},
    ])


def hook_expect(vendor: str, role: str, doc: Any) -> Expect:
    """The answer of the hooks spec's adapter on `role` for this event."""
    if role == "pre_tool":
        ts = o.targets(vendor, doc) if o.string(doc, o.VENDOR[vendor].tool) else []
        return o.hook_answer(vendor, role, "deny", f"GUARD {len(ts)}") if ts else Expect()
    if role == "prompt":
        return o.hook_answer(vendor, role, "context", HOOK_LINE)
    return Expect()


def check_hook_run(ctx: Ctx, role: str, vendor: str, home: Home, payload: bytes, doc: Any,
                   dump: Path) -> list[str]:
    r = ctx.invoke(role, payload, home, vendor, {DUMP_ENV: str(dump)})
    exp = hook_expect(vendor, role, doc)
    problems: list[str] = []
    if r.code != exp.code:
        problems.append(f"exit {r.code}, expected {exp.code}")
    problems += answer_problems(ctx, role, vendor, r, exp)
    problems += clean_effects(ctx, role, home)
    name = ctx.rendered.names[role]
    left = sorted(p.name for p in (home.path / GATE["health_dir"]).glob(f"io.{name}.*") if p.is_dir()
                  and ((p / "in").exists() or (p / "t").exists()))
    if left:
        problems.append(f"the gate left its event copy or text file behind: {left}")
    problems += view_problems(ctx, role, vendor, payload, doc, dump)
    return [f"{p} [{r.brief()}]" for p in problems]


def view_problems(ctx: Ctx, role: str, vendor: str, payload: bytes, doc: Any, dump: Path) -> list[str]:
    """The hook's stdin is the event as it came (up to the stdin bound), and each variable of
    its view is the oracle's reading of the event."""
    stdin = dump / "stdin"
    if not stdin.is_file():
        return [f"the {VIEW_HOOK[role]} hook did not run"]
    problems = []
    got = stdin.read_bytes()
    want_in = payload[:STDIN_MAX]
    if got != want_in:
        problems.append(f"stdin differs from the event: {len(got)} bytes {got[:80]!r}, expected "
                        f"{len(want_in)} bytes {want_in[:80]!r}")
    want = o.hook_view(vendor, role, doc, VIEW_HOOK[role], ascii_only=ctx.shell.name == "yash")
    want["dir"] = str(ctx.rendered.root / "bin" / TENTACLE_DIR / f"{VIEW_HOOK[role]}.d").encode()
    for key, value in want.items():
        f = dump / key
        if not f.is_file():
            problems.append(f"${VIEW_ENV[key]} is not set")
            continue
        seen = f.read_bytes()
        if key == "paths":
            seen = b"\n".join(sorted(seen.split(b"\n"))) if seen else b""
            value = b"\n".join(sorted(value.split(b"\n"))) if value else b""
        if seen != value:
            problems.append(f"${VIEW_ENV[key]} = {seen[:200]!r}, expected {value[:200]!r}")
    return problems


def run_hooks_cell(ctx: Ctx, role: str, vendor: str, base: Path, pick: Pick, turn: int = 0,
                   only: list[str] | None = None) -> CellResult:
    """The picked fixtures of `vendor` (picked()) through the hooks adapter of `role`, each in a
    fresh home."""
    res = CellResult()
    for path, raw, doc in picked(role, vendor, pick, turn, only):
        home = new_home(base)
        exp = hook_expect(vendor, role, doc)
        res.checks += 1
        res.verdicts[exp.verdict] = res.verdicts.get(exp.verdict, 0) + 1
        try:
            dump = Path(tempfile.mkdtemp(prefix="dump", dir=base))
            bad = check_hook_run(ctx, role, vendor, home, raw, doc, dump)
        except Exception as exc:  # a hung or unrunnable script is a failed check
            bad = [f"{type(exc).__name__}: {exc}"]
        res.failures += [f"{path.stem}: {b}" for b in bad]
    return res
