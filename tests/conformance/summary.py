"""The conformance summary: shell x parser environment -> passed / failed / skipped, missing
shells, fuzz example counts and the caught-breakage table; printed at the end of the session and
written to build/conformance-summary.txt.

Tests tag themselves with user_properties (cf_shell, cf_env, cf_checks, cf_failed_checks,
cf_fuzz, cf_breakage, cf_note). Under xdist the reports reach the controller, which prints and
writes the table. When the controller never loaded this plugin (`pytest -n auto` over all of
tests/: a non-initial conftest is only imported by the workers), every worker writes its part
and the last one to finish merges them into the file; `install(config)` from an initial conftest
(tests/conftest.py) brings the printed table back there too.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections import defaultdict
from typing import Any

import pytest
from tests.conformance.kit import BUILD, CI, ENVS, MATRIX, missing_shells

NAME = "conformance-summary"
OUT = BUILD / "conformance-summary.txt"
PARTS = BUILD / "conformance-summary.parts"
COLUMNS = (*ENVS, "static", "fuzz", "breakage")


class Summary:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.items: dict[str, dict[str, Any]] = {}
        self.t0 = time.time()

    # ---------------------------------------------------------------------- collection --

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "conformance/" not in report.nodeid.replace("\\", "/"):
            return
        it = self.items.setdefault(report.nodeid, {"outcome": "passed", "props": {}, "longrepr": ""})
        for k, v in report.user_properties:
            if k.startswith("cf_"):
                if k in ("cf_fuzz", "cf_breakage", "cf_note"):
                    it["props"].setdefault(k, [])
                    if v not in it["props"][k]:
                        it["props"][k].append(v)
                else:
                    it["props"][k] = v
        if report.failed:
            it["outcome"] = "failed"
            if not it["longrepr"]:
                it["longrepr"] = _first_line(report)
        elif report.skipped and it["outcome"] != "failed":
            it["outcome"] = "skipped"
            it["skip"] = _skip_reason(report)

    # ------------------------------------------------------------------------ output --

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        # xdist workers run this hook too (into the void): only the controller prints and writes
        if not self.items or hasattr(self.config, "workerinput"):
            return
        text = render(self.items, time.time() - self.t0)
        terminalreporter.write_sep("=", "hookshape conformance summary")
        terminalreporter.write_line(text.rstrip("\n"))
        write(text)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workerinput = getattr(self.config, "workerinput", None)
        if workerinput is None or not self.items:
            return
        # a worker: leave this worker's part, then merge every part of this run into the file
        run = PARTS / str(workerinput.get("testrunuid", "run"))
        run.mkdir(parents=True, exist_ok=True)
        part = run / f"{workerinput.get('workerid', 'gw')}.json"
        part.with_suffix(".tmp").write_text(json.dumps(self.items))
        os.replace(part.with_suffix(".tmp"), part)  # a merging sibling never reads half a part
        with open(PARTS / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            merged: dict[str, dict[str, Any]] = {}
            for done in sorted(run.glob("*.json")):
                merged.update(json.loads(done.read_text()))
            write(render(merged, time.time() - self.t0, merged_by_workers=True))
            for old in PARTS.iterdir():
                if old.is_dir() and old != run and time.time() - old.stat().st_mtime > 3600:
                    for f in old.iterdir():
                        f.unlink()
                    old.rmdir()


def install(config: pytest.Config) -> None:
    """Register the summary once per process (safe to call from several conftests)."""
    if not config.pluginmanager.has_plugin(NAME):
        config.pluginmanager.register(Summary(config), NAME)


def write(text: str) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, OUT)


def _first_line(report: pytest.TestReport) -> str:
    text = getattr(report, "longreprtext", "") or str(report.longrepr or "")
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    return (lines[0][2:].strip() if lines else text.strip().splitlines()[-1:][0] if text.strip() else "")[:200]


def _skip_reason(report: pytest.TestReport) -> str:
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2]).removeprefix("Skipped: ")
    return str(lr)


def _column(props: dict[str, Any]) -> str:
    env = props.get("cf_env")
    if env in COLUMNS:
        return str(env)
    return str(props.get("cf_kind", "static"))


def render(items: dict[str, dict[str, Any]], wall: float, merged_by_workers: bool = False) -> str:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # p f s runs failed-runs
    fuzz: list[str] = []
    breakage: list[str] = []
    notes: list[str] = []
    failures: list[str] = []
    renders: set[str] = set()
    skips: dict[str, int] = defaultdict(int)
    for nodeid, it in sorted(items.items()):
        props = it["props"]
        shell = props.get("cf_shell", "-")
        c = counts[(shell, _column(props))]
        c[("passed", "failed", "skipped").index(it["outcome"])] += 1
        c[3] += int(props.get("cf_checks", 0))
        c[4] += int(props.get("cf_failed_checks", 0))
        if props.get("cf_render"):
            renders.add(str(props["cf_render"]))
        fuzz += props.get("cf_fuzz", [])
        breakage += props.get("cf_breakage", [])
        notes += [n for n in props.get("cf_note", []) if n not in notes]
        if it["outcome"] == "failed":
            failures.append(f"  {nodeid.split('::', 1)[-1]}: {it['longrepr']}")
        if it["outcome"] == "skipped":
            skips[it.get("skip", "")] += 1
    shells = [s.name for s in MATRIX] + ["-"]
    head = ["shell", *COLUMNS]
    rows = [head]
    for sh in shells:
        row = [sh if sh != "-" else "(no shell)"]
        used = False
        for col in COLUMNS:
            p, f, s, runs, fr = counts.get((sh, col), [0, 0, 0, 0, 0])
            if p + f + s == 0:
                row.append("")
                continue
            used = True
            cell = f"{p}/{f}/{s}"
            if runs:
                cell += f" ({runs}r" + (f",{fr}!" if fr else "") + ")"
            row.append(cell)
        if used:
            rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    total = [sum(v[i] for v in counts.values()) for i in range(5)]
    out = [
        "hookshape conformance: passed/failed/skipped test items per shell x parser environment",
        "(Nr = script runs checked in those items, N! = runs that broke the contract)",
        "",
        *lines,
        "",
        f"total: {total[0]} passed, {total[1]} failed, {total[2]} skipped; {total[3]} script runs checked, "
        f"{total[4]} failed; wall {wall:.1f} s" + (" (merged from xdist workers)" if merged_by_workers else ""),
    ]
    if len(renders) > 1:
        out += ["", f"!!! templates/ changed during the run: the workers tested {len(renders)} different renders "
                    f"({', '.join(sorted(renders))}); rerun before trusting this table !!!"]
    elif renders:
        out += ["", f"render tested: scripts sha256 {next(iter(renders))}"]
    missing = missing_shells()
    if missing:
        verdict = "FAILURES under CI" if CI else "their cells are SKIPPED locally"
        out += ["", f"!!! MISSING SHELLS: {', '.join(missing)} ({verdict}) !!!"]
    else:
        out += ["", "missing shells: none (all 9 of the matrix present)"]
    if notes:
        out += ["", "environments:", *[f"  {n}" for n in notes]]
    if fuzz:
        out += ["", "fuzz examples run:", *[f"  {f}" for f in sorted(fuzz)]]
    if breakage:
        out += ["", "deliberate breakage -> cells that caught it:", *[f"  {b}" for b in sorted(breakage)]]
    if skips:
        out += ["", "skips:", *[f"  {n} x {r}" for r, n in sorted(skips.items())]]
    if failures:
        out += ["", f"failed items ({len(failures)}):", *failures[:60]]
        if len(failures) > 60:
            out.append(f"  ... {len(failures) - 60} more")
    return "\n".join(out) + "\n"
