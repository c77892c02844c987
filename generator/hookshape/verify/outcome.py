"""What one verify turn proved, per event of the harness the vendor has: `reached the model` (the
hook ran and the text it answered, a deny's reason or a context, arrived in a later model
request), `fired` (the hook ran, with the event the CLI sent), `not fired` with the likeliest
reason, or `not exercised` (the scripted turn cannot make the CLI fire that event)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from hookshape.diagnose.findings import Finding
from hookshape.diagnose.survey import Handler
from hookshape.diagnose.verdict import Run, one_line, read
from hookshape.spec.profiles import Profile
from hookshape.spec.types import EVENTS, Event
from hookshape.verify.mock.conversation import TOOL_CALL, Recorded
from hookshape.verify.probe import Call
from hookshape.verify.runner import TurnResult

Status = Literal["reached", "fired", "not fired", "not exercised"]
Kind = Literal["deny", "block", "context", "none"]

# Events the scripted turn has nothing for (whatever the vendor): said instead of `not fired`.
NOT_SCRIPTED: dict[Event, str] = {
    "subagent_stop": "the scripted turn starts no subagent",
    "pre_compact": "the scripted turn never fills the context, so nothing is compacted",
    "subagent_start": "the scripted turn starts no subagent",
    "post_tool_failure": "no scripted tool call fails",
    "notification": "the scripted turn may raise no notification",
    "permission_request": "the scripted turn may need no permission the vendor asks for",
}


@dataclass(frozen=True)
class Answer:
    """What the vendor makes of one gate run: a deny, a block (keep working), a context, or
    nothing for the model; `text` is what the model should get, `said` the sentence."""

    kind: Kind
    text: str
    said: str


def answer(profile: Profile, event: Event, call: Call) -> Answer:
    """What the vendor makes of a recorded run, by the reader `simulate` and `test` use: the
    reason of a deny or of a block (keep working), or the context the model gets."""
    if call.code is None:
        return Answer("none", "", "")
    got = read(profile, event, call.event(), Run(call.code, call.stdout, call.stderr))
    if got.kind in ("deny", "block") and got.reason:
        return Answer(got.kind, got.reason, got.said)
    if got.context:
        return Answer("context", got.context, got.said)
    return Answer("none", "", got.said)


def _haystack(request: Recorded) -> str:
    text = " ".join(str(getattr(i, "text", "")) for i in request.items)
    return one_line(html.unescape(text))


def reached(text: str, requests: list[Recorded]) -> bool:
    """The answer's text (its first 120 characters, whitespace folded, `<`/`>` escapes undone)
    is in one of the model requests."""
    needle = one_line(html.unescape(text))[:120].strip()
    return bool(needle) and any(needle in _haystack(r) for r in requests)


def called_tools(requests: list[Recorded]) -> list[str]:
    """Names of the tools the mock model called during the turn, in order, each once."""
    names = [str(i.name) for r in requests for i in r.items if i.kind == TOOL_CALL and i.name]
    return list(dict.fromkeys(names))


def matches(profile: Profile, matcher: str, tool: str) -> bool:
    """Whether a tool matcher of this vendor's syntax takes this tool name."""
    if matcher in ("", "*"):
        return True
    syntax = profile.matcher.syntax
    if syntax == "exact":
        return matcher == tool
    if syntax == "exact-list-or-regex" and re.fullmatch(r"[A-Za-z0-9_ ,|-]+", matcher):
        return tool in {part.strip() for part in re.split(r"[|,]", matcher)}
    try:
        return bool(re.fullmatch(matcher, tool) if syntax == "regex" else re.search(matcher, tool))
    except re.error:
        return False


@dataclass
class EventResult:
    event: Event
    name: str  # the vendor's name of the event
    gates: list[str]
    matchers: list[str]
    calls: list[Call] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    status: Status = "not fired"
    detail: str = ""


@dataclass(frozen=True)
class Turn:
    """What the turn left: the CLI's result, the model requests, the gate runs, doctor's
    findings on the scratch home, and the vendor's facts for the reasons."""

    profile: Profile
    version: str
    proven: list[str]
    result: TurnResult
    requests: list[Recorded]
    calls: list[Call]
    findings: list[Finding]
    refused: list[str] = field(default_factory=list)  # what the mock model refused, and why

    def ended(self) -> str:
        """How the turn ended, when not normally ('' when it did)."""
        if self.refused:
            return f"the mock model refused to go on: {self.refused[-1]}"
        return cli_said(self.result) if self.result.exit_code != 0 else ""


def registered(profile: Profile, handlers: list[Handler], gate_of: Callable[[Handler], str],
               matcher_of: Callable[[Handler], str]) -> list[EventResult]:
    """One result per event of the harness's entries, in the neutral events' order."""
    neutral = {profile.events.of(e): e for e in EVENTS if profile.events.of(e)}
    out: dict[Event, EventResult] = {}
    for h in handlers:
        event = neutral.get(h.event)
        if event is None:
            continue
        found = out.setdefault(event, EventResult(event, h.event, [], []))
        found.gates.append(gate_of(h))
        found.matchers.append(matcher_of(h))
    return [out[e] for e in EVENTS if e in out]


def _sent(profile: Profile, call: Call) -> str:
    key = profile.payload.event
    value = call.event().get(key) if key else None
    return value if isinstance(value, str) else ""


def _tool(profile: Profile, call: Call) -> str:
    node: Any = call.event()
    for key in profile.payload.tool_name.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, str) else ""


def _fired(profile: Profile, res: EventResult, turn: Turn) -> None:
    n = len(res.calls)
    sent = sorted({s for c in res.calls if (s := _sent(profile, c)) and s != res.name})
    tools = list(dict.fromkeys(t for c in res.calls if (t := _tool(profile, c))))
    head = f"{n}x" + (f" ({', '.join(tools)})" if tools else "")
    head += f", sent as {', '.join(sent)}" if sent else ""
    spoken = [a for a in res.answers if a.kind != "none"]
    unfinished = sum(1 for c in res.calls if c.code is None)
    tail = []
    if unfinished:
        tail.append(f"{unfinished} ended by the CLI before the gate answered")
    arrived = [a for a in spoken if reached(a.text, turn.requests)]
    for a in spoken:
        where = "reached the model" if a in arrived else "did NOT reach the model"
        tail.append(f"{_what(a)} {where}")
    if not spoken:
        tail.append(_quiet(res.event))
    res.status = "reached" if arrived else "fired"
    res.detail = head + ": " + "; ".join(dict.fromkeys(tail))


def _what(a: Answer) -> str:
    return {"deny": f"its deny ({_cut(a.text)})", "block": f"its reason to keep working ({_cut(a.text)})",
            "context": f"its context ({_cut(a.text)})"}.get(a.kind, "its answer")


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _quiet(event: Event) -> str:
    return {"pre_tool": "each call allowed", "post_tool": "nothing added for the model",
            "stop": "the agent stopped", "prompt": "no context added"}.get(event, "nothing for the model")


def _reason(profile: Profile, res: EventResult, turn: Turn, results: list[EventResult]) -> str:
    """Why a registered event did not fire, the likeliest first."""
    display = profile.vendor.display
    if not turn.requests:
        return f"the turn never reached the model: {cli_said(turn.result)}"
    errors = [f for f in turn.findings if f.severity == "error"]
    if errors:
        return f"doctor: {errors[0].code}: {errors[0].message}"
    if res.event in ("pre_tool", "post_tool"):
        tools = called_tools(turn.requests)
        if not tools:
            return "the model made no tool call the CLI accepted (see the turn with --keep)"
        if not any(matches(profile, m, t) for m in res.matchers for t in tools):
            return (f"matcher: {' / '.join(m or '(all)' for m in res.matchers)} takes none of the "
                    f"tools the model called ({', '.join(tools)}); {display} may name them otherwise "
                    "for hooks")
    if res.event == "stop" and turn.ended():
        return f"the turn did not end normally: {turn.ended()}"
    if profile.config.trust_hash:
        return (f"trust: {display} {turn.version} skips hooks it does not count as trusted, and may "
                "not take the trust records a review writes the way hookshape computes them")
    proven = ", ".join(turn.proven) or "none"
    return (f"{display} {turn.version or '(version unknown)'} never ran it: it may not know the event "
            f"{res.name} or keep its hooks switched off by default (proven: {proven})")


def _all_denied(results: list[EventResult]) -> bool:
    pre = next((r for r in results if r.event == "pre_tool"), None)
    return pre is not None and bool(pre.answers) and all(a.kind == "deny" for a in pre.answers)


def cli_said(result: TurnResult) -> str:
    """How the CLI ended: timed out, or its exit code and the last line it wrote on stderr."""
    if result.timed_out:
        return f"the CLI was stopped after {result.duration:.0f} s (timed out)"
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.strip()]
    last = _cut(lines[-1], 160) if lines else "nothing on stderr"
    return f"the CLI exited {result.exit_code}: {last}"


def judge(results: list[EventResult], turn: Turn) -> list[EventResult]:
    """Fill in every result's calls, answers, status and detail."""
    profile = turn.profile
    for res in results:
        res.calls = [c for c in turn.calls if c.gate in res.gates]
        res.answers = [answer(profile, res.event, c) for c in res.calls]
    for res in results:
        if res.calls:
            _fired(profile, res, turn)
        elif res.event in profile.drive.silent:
            res.status, res.detail = "not exercised", profile.drive.silent[res.event]
        elif res.event in NOT_SCRIPTED:
            res.status, res.detail = "not exercised", NOT_SCRIPTED[res.event]
        elif res.event == "post_tool" and _all_denied(results):
            res.status = "not exercised"
            res.detail = "every scripted tool call was denied by a pre_tool hook, so no tool ran"
        else:
            res.status, res.detail = "not fired", _reason(profile, res, turn, results)
    return results
