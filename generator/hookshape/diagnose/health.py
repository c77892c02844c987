"""Gate health: the breaker state and the debug log that the gate wrappers write.

Everything lives under the harness home (`<home>` below); the names come from `[gate]` in the
spec, except the per-tentacle suffixes, which are part of this format (the gate template
templates/gate.sh.jinja uses the same ones).

Breaker state, `<home>/<gate.health_dir>/<tentacle>.state` (mode 0600, dir 0700): one line of
eight space-separated fields, always replaced whole (temp file + mv)::

    breaker/1 <state> <failures> <kind> <last_s> <retry_s> <retry_ms> <told>

- `breaker/1`: the format tag.
- `state`: `closed`; `open` (calls skip the tentacle until the retry time); `half` (one call won
  the half-open probe; the circuit stays shut to the others until the retry time, which is one
  cooldown away, so a probe whose gate was killed is replaced by the next window's).
- `failures`: consecutive infrastructure failures (crash, timeout, slow, missing, and on a gate of
  user hooks `hook`: a fail-open hook crashed, timed out or was missing); verdicts never count.
- `kind`: the last failure (`crash|timeout|slow|missing|hook|unfinished|unfinished-closed`), `-`
  when none.
- `last_s`: epoch seconds of the last failure (0 when none).
- `retry_s`, `retry_ms`: when the next probe may run (epoch seconds and 0-999 ms); 0 0 closed.
- `told`: 1 once the breaker notice of this trip went to the agent.

No file means closed with no failures; the healthy path never writes one. A file that does not
parse counts as closed (the gate fails open). Next to it, transiently: `<tentacle>.lock` (the
state lock, a file created with O_EXCL that holds its holder's pid until the holder removes it),
`<state>.<pid>` (the temp file a holder writes the next state into and renames over it),
`<state>.f.<pid>` (a failure not yet counted in), `<tentacle>.probe/` (the half-open election,
a directory held only while electing), and one `lease.cache` for all tentacles,
`<u|e> <from_s> <until_s> <daemon pid>`: the readiness verdict is fresh while
from <= clock < until, on the uptime clock `u` or the epoch clock `e`.

Debug log, `<home>/<gate.debug_log>` (rotated to `.1` past `gate.debug_log_max_bytes`), written
only while `<home>/<gate.debug_switch_file>` exists: one line per call start and one per call
end, tab-separated `key=value` fields::

    t=<epoch s.mmm> run=<pid>-<start s> ev=start tentacle=<name> vendor=<id or -> phase=<label>
    ... ev=end ... outcome=<outcome> exit=<code> ms=<duration>

Outcomes: healthy, verdict, slow, crash, timeout, missing, hook, lost, skipped-open,
skipped-probe, not-ready, unarmed, and on a gate of user hooks unfinished and unfinished-closed;
a probe's own result is prefixed `probe-`. A gate of user hooks adds a line per hook that ran::

    ... ev=hook tentacle=<gate> vendor=<id> hook=<name> outcome=<what it did> stderr=<its last 2 KiB>

its outcome in words (allowed, context, rewrote, refused: <how>, failed: <why>, not said: ...),
its stderr on one line (tabs and line ends as spaces).
"""

from __future__ import annotations

import glob
import shutil
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookshape.errors import HookshapeError
from hookshape.spec.hooks import Group
from hookshape.spec.model import Spec
from hookshape.spec.tentacles import Tentacle

STATE_TAG = "breaker/1"
STATE_EXT = ".state"
LOCK_EXT = ".lock"
PROBE_EXT = ".probe"
TOKEN = ".f."  # <state>.f.<pid>: a failure a gate recorded, not yet counted into the state
KINDS = frozenset({"crash", "timeout", "slow", "missing", "hook", "unfinished", "unfinished-closed"})
STATES = {"closed": "closed", "open": "open", "half": "half-open"}

OUTCOMES = {
    "healthy": "ran fine",
    "verdict": "gave a verdict (exit 2: the vendor blocks)",
    "slow": "ran past the slow line (a failure)",
    "crash": "crashed (a failure)",
    "timeout": "hit the deadline and was killed (a failure)",
    "missing": "tentacle missing or not executable (a failure)",
    "hook": "a fail-open hook crashed, timed out or was missing; the others' answer stands (a failure)",
    "lost": "decided on a verdict whose answer could not be written (a full disk); the gate blocked",
    "unfinished": "the run of the hooks did not finish (its job died or was killed) (a failure)",
    "unfinished-closed": ("the run of the hooks did not finish while a fail-closed hook was in it; "
                          "the gate refused (a failure)"),
    "skipped-open": "skipped: circuit open",
    "skipped-probe": "skipped: another call is probing",
    "not-ready": "skipped: daemon not ready",
    "unarmed": "skipped: project not armed",
}
KIND_WORDS = {"crash": "crash", "timeout": "timeout", "slow": "slow", "missing": "missing tentacle",
              "hook": "failed hook", "unfinished": "unfinished run",
              "unfinished-closed": "unfinished run, refused"}


@dataclass(frozen=True)
class Breaker:
    """One tentacle's breaker, as its state file says (or closed when there is none)."""

    name: str
    role: str
    phase: str
    path: Path
    state: str = "closed"  # closed | open | half-open
    failures: int = 0
    last_kind: str | None = None
    last_failure: float | None = None
    retry_at: float | None = None
    told: bool = False
    problem: str | None = None  # why the file did not parse (the gate then treats it as closed)

    def to_json(self, now: float) -> dict[str, Any]:
        return {
            "name": self.name, "role": self.role, "phase": self.phase, "state": self.state,
            "failures": self.failures,
            "last_failure": None if self.last_failure is None else {
                "kind": self.last_kind, "time": iso(self.last_failure)},
            "retry_at": None if self.retry_at is None else iso(self.retry_at),
            "retry_in_s": None if self.retry_at is None
            else round(max(0.0, self.retry_at - now), 3),
            "told": self.told, "state_file": str(self.path), "problem": self.problem,
        }


@dataclass(frozen=True)
class Event:
    """One call of a gate, from its debug-log lines (an end line, or a start with no end)."""

    time: float
    run: str
    tentacle: str
    vendor: str
    phase: str
    outcome: str | None  # None: a start with no end (still running, or killed)
    exit: int | None
    ms: int | None

    def to_json(self) -> dict[str, Any]:
        return {"time": iso(self.time), "run": self.run, "tentacle": self.tentacle,
                "vendor": self.vendor, "phase": self.phase, "outcome": self.outcome,
                "exit": self.exit, "ms": self.ms}


@dataclass(frozen=True)
class HookRun:
    """What one user hook did in one call of its gate (a debug-log ev=hook line)."""

    time: float
    run: str
    gate: str
    vendor: str
    hook: str
    outcome: str
    stderr: str

    def to_json(self) -> dict[str, Any]:
        return {"time": iso(self.time), "run": self.run, "gate": self.gate, "vendor": self.vendor,
                "hook": self.hook, "outcome": self.outcome, "stderr": self.stderr}


def iso(epoch: float) -> str:
    stamp = datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def health_dir(spec: Spec, home: Path) -> Path:
    return home / spec.gate.health_dir


def state_path(spec: Spec, home: Path, tentacle: Tentacle | Group) -> Path:
    return health_dir(spec, home) / f"{tentacle.name}{STATE_EXT}"


def _num(text: str) -> int:
    if not text.isdigit() or (len(text) > 1 and text[0] == "0") or len(text) > 10:
        raise ValueError(f"not a plain number: {text!r}")
    return int(text)


def parse_state(line: str) -> dict[str, Any]:
    """The fields of a state line; ValueError when the gate would not accept it."""
    fields = line.split()
    if len(fields) != 8 or fields[0] != STATE_TAG:
        raise ValueError(f"expected 8 fields starting with {STATE_TAG!r}")
    _, state, failures, kind, last_s, retry_s, retry_ms, told = fields
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}")
    if kind != "-" and kind not in KINDS:
        raise ValueError(f"unknown failure kind {kind!r}")
    if told not in ("0", "1"):
        raise ValueError(f"told must be 0 or 1, not {told!r}")
    return {"state": STATES[state], "failures": _num(failures),
            "kind": None if kind == "-" else kind, "last_s": _num(last_s),
            "retry_s": _num(retry_s), "retry_ms": _num(retry_ms), "told": told == "1"}


def pending(state: Path) -> list[Path]:
    """The failures gates recorded that no holder of the state lock has counted in yet."""
    return sorted(state.parent.glob(glob.escape(state.name) + TOKEN + "*"))


def read_breaker(spec: Spec, home: Path, tentacle: Tentacle | Group) -> Breaker:
    path = state_path(spec, home, tentacle)
    closed = Breaker(name=tentacle.name, role=tentacle.role, phase=tentacle.phase, path=path,
                     failures=len(pending(path)))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return closed
    except OSError as exc:
        return replace(closed, problem=f"unreadable ({exc.strerror}); the gate treats it as closed")
    try:
        f = parse_state(text.splitlines()[0] if text else "")
    except ValueError as exc:
        return replace(closed, problem=f"malformed ({exc}); the gate treats it as closed")
    has_retry = f["state"] != "closed"
    return replace(closed, state=f["state"], failures=f["failures"] + closed.failures,
                   last_kind=f["kind"],
                   last_failure=float(f["last_s"]) if f["last_s"] else None,
                   retry_at=f["retry_s"] + f["retry_ms"] / 1000 if has_retry else None,
                   told=f["told"])


def breakers(spec: Spec, home: Path) -> list[Breaker]:
    return [read_breaker(spec, home, t) for t in spec.gates()]


def leftovers(state: Path) -> list[Path]:
    """The temp files of state writes that never reached their rename (`<state>.<pid>`: their
    gate was killed between writing the state and installing it)."""
    prefix = state.name + "."
    return sorted(p for p in state.parent.glob(glob.escape(prefix) + "[0-9]*")
                  if p.name[len(prefix):].isdigit())


def reset(spec: Spec, home: Path) -> list[Path]:
    """Close every breaker: remove the state files (and any stale lock, probe dir or temp file,
    and the failures not yet counted)."""
    removed = []
    for t in spec.gates():
        state = state_path(spec, home, t)
        for path in (state, state.with_suffix(LOCK_EXT), state.with_suffix(PROBE_EXT),
                     *pending(state), *leftovers(state)):
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                elif path.exists() or path.is_symlink():
                    path.unlink()
                else:
                    continue
            except OSError as exc:
                raise HookshapeError(f"{path}: cannot remove: {exc.strerror}") from None
            removed.append(path)
    return removed


def _fields(line: str) -> dict[str, str]:
    out = {}
    for part in line.rstrip("\n").split("\t"):
        key, sep, value = part.partition("=")
        if sep:
            out[key] = value
    return out


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.lstrip("-").isdigit() else None


def text_lines(path: Path) -> list[str]:
    """A text file's lines, undecodable bytes replaced; none when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def events(spec: Spec, home: Path, limit: int = 10) -> list[Event]:
    """The last `limit` calls in the debug log (and its rotated half), oldest first."""
    log = home / spec.gate.debug_log
    found: dict[str, Event] = {}
    for line in text_lines(log.with_name(log.name + ".1")) + text_lines(log):
        f = _fields(line)
        run, ev = f.get("run"), f.get("ev")
        try:
            when = float(f.get("t", ""))
        except ValueError:
            continue
        if not run or ev not in ("start", "end"):
            continue
        key = f"{run}/{f.get('tentacle', '')}"
        if ev == "start" and key in found:
            continue
        found.pop(key, None)  # keep insertion order = order of the latest line
        found[key] = Event(time=when, run=run, tentacle=f.get("tentacle", "?"),
                           vendor=f.get("vendor", "-"), phase=f.get("phase", "?"),
                           outcome=f.get("outcome") if ev == "end" else None,
                           exit=_int(f.get("exit")), ms=_int(f.get("ms")))
    return list(found.values())[-limit:]


def hook_runs(spec: Spec, home: Path, per_hook: int = 3) -> dict[str, list[HookRun]]:
    """The last `per_hook` outcomes of each user hook in the debug log, oldest first, by hook
    name in spec order (a hook that never ran has none)."""
    log = home / spec.gate.debug_log
    found: dict[str, list[HookRun]] = {h.name: [] for h in spec.hooks if h.job is None}
    for line in text_lines(log.with_name(log.name + ".1")) + text_lines(log):
        f = _fields(line)
        name = f.get("hook", "")
        if f.get("ev") != "hook" or name not in found:
            continue
        try:
            when = float(f.get("t", ""))
        except ValueError:
            continue
        found[name] = [*found[name], HookRun(when, f.get("run", ""), f.get("tentacle", "?"),
                                             f.get("vendor", "-"), name, f.get("outcome", "?"),
                                             f.get("stderr", "").strip())][-per_hook:]
    return found


def hook_words(r: HookRun) -> str:
    stamp = local_time(r.time) + f".{int(r.time * 1000) % 1000:03d}"
    via = f" via {r.vendor}" if r.vendor not in ("", "-") else ""
    tail = f"; stderr: {r.stderr}" if r.stderr else ""
    return f"{stamp} {r.hook}{via}: {r.outcome}{tail}"


def outcome_words(outcome: str | None) -> str:
    if outcome is None:
        return "started, no end recorded (still running, or killed)"
    if outcome.startswith("probe-"):
        return "half-open probe: " + OUTCOMES.get(outcome[6:], outcome[6:])
    return OUTCOMES.get(outcome, outcome)


def local_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def breaker_words(b: Breaker, now: float) -> str:
    """One line about a breaker, in plain words."""
    head = f"{b.name} ({b.phase}): "
    if b.problem:
        return head + f"closed: state file {b.problem}"
    parts = [b.state]
    parts.append(f"{b.failures} failure{'s' if b.failures != 1 else ''} in a row")
    if b.last_failure is not None and b.last_kind:
        parts.append(f"last: {KIND_WORDS[b.last_kind]} at {local_time(b.last_failure)}")
    if b.retry_at is not None:
        wait = b.retry_at - now
        when = f"in {wait:.0f} s" if wait > 0 else "now due"
        verb = "next probe" if b.state == "half-open" else "retry"
        parts.append(f"{verb} at {local_time(b.retry_at)} ({when})")
    return head + ", ".join(parts)


def event_words(e: Event) -> str:
    stamp = local_time(e.time) + f".{int(e.time * 1000) % 1000:03d}"
    via = f" via {e.vendor}" if e.vendor not in ("", "-") else ""
    tail = f" [{e.ms} ms]" if e.ms is not None and e.outcome is not None else ""
    return f"{stamp} {e.phase} ({e.tentacle}{via}): {outcome_words(e.outcome)}{tail}"
