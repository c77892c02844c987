"""What a vendor does with one hook run (exit code, stdout, stderr), read off the profile's
[output] answers (hookshape.plan.outputs), never off the vendor's name: as a Reading (the kind of
answer and its texts, which `hookshape test` checks) and in plain words (`hookshape simulate`).
One reader serves both."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from hookshape.plan import outputs
from hookshape.spec.profiles import Profile
from hookshape.spec.types import Event

# what the vendor does: the call (or the turn, the session) goes on, is denied, is asked about,
# or the agent is kept working; context rides along with an allow
Kind = Literal["allow", "deny", "ask", "block", "context"]


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Reading:
    """What the vendor makes of a run: the kind, the reason of a deny, ask or block, the context
    the model gets, the rewritten tool input, and the sentence that says it."""

    kind: Kind
    said: str
    reason: str = ""
    context: str = ""
    input: Any = None


def one_line(text: str) -> str:
    return " ".join(text.split())


def stdout_object(run: Run) -> tuple[dict[str, Any] | None, str]:
    """The one JSON object on stdout, or None and why not ('' for empty stdout)."""
    text = run.stdout.strip()
    if not text:
        return None, ""
    try:
        value = json.loads(text)
    except ValueError:
        return None, "stdout is not JSON"
    return (value, "") if isinstance(value, dict) else (None, "stdout is JSON but not an object")


def tool_name(profile: Profile, payload: dict[str, Any]) -> str:
    node: Any = payload
    for key in profile.payload.tool_name.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return f"the {node} call" if isinstance(node, str) and node else "the tool call"


def has(profile: Profile, kind: str) -> bool:
    """Whether the vendor has an answer of this kind at all (its profile's [output.<kind>] says
    something)."""
    answer = getattr(profile.output, kind, None)
    return bool(getattr(answer, "said", False))


def _exit2(profile: Profile, run: Run) -> str | None:
    """The reason when exit 2 blocks on this vendor for this run, else None."""
    out = profile.output
    if run.code != 2 or out.exit_ignored or not run.stderr.strip():
        return None
    if out.exit2_needs_empty_stdout and run.stdout.strip():
        return None
    return one_line(run.stderr)


def _said(profile: Profile, kind: str, obj: dict[str, Any] | None, event: Event) -> str | None:
    """The text of a JSON answer of this kind on stdout, in one line, or None."""
    if obj is None or not has(profile, kind):
        return None
    text = outputs.read(profile, cast(outputs.Kind, kind), obj, event)
    return None if text is None else one_line(text)


def _input(profile: Profile, obj: dict[str, Any] | None) -> Any:
    """The rewritten tool input of a rewrite answer, where the profile has one: the value at its
    shape's "{input}" placeholder (None: no such answer here, or it is not this one)."""
    shape = profile.output.rewrite.stdout
    if obj is None or shape is None or outputs.read(profile, "rewrite", obj, "pre_tool") is None:
        return None
    return _at_placeholder(shape, obj, "{input}")


def _at_placeholder(shape: Any, value: Any, name: str) -> Any:
    if shape == name:
        return value
    if isinstance(shape, dict) and isinstance(value, dict):
        for key, sub in shape.items():
            found = _at_placeholder(sub, value.get(key), name)
            if found is not None:
                return found
    return None


def _quiet(display: str, run: Run, problem: str, tail: str) -> str:
    if run.code not in (0, 2):
        return (f"nothing happens: exit {run.code} is a non-blocking error ({display} may log "
                f"it); {tail}")
    if problem:
        return f"nothing happens: {problem}, so {display} ignores it; {tail}"
    if run.code == 2:
        return f"nothing happens: exit 2 does not block on {display} here; {tail}"
    return f"nothing happens: {tail}"


def _deny_reason(profile: Profile, run: Run, obj: dict[str, Any] | None) -> str | None:
    reason = _exit2(profile, run)
    if reason is None:
        reason = _said(profile, "deny", obj, "pre_tool")
    if reason is None and obj == {} and profile.output.empty_object_denies:
        reason = "(no reason: {} on stdout denies)"
    if reason is None and run.code != 0 and profile.output.nonzero_denies:
        reason = one_line(run.stderr) or f"(exit {run.code} denies)"
    return reason


def pre_tool(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    obj, problem = stdout_object(run)
    reason = _deny_reason(profile, run, obj)
    if reason is not None:
        return Reading("deny", f"{display} blocks {tool} and shows the agent: {reason}", reason)
    ask = _said(profile, "ask", obj, event)
    if ask is not None:
        return Reading("ask", f"{display} asks the user whether {tool} may run: {ask}", ask)
    rewrite = _input(profile, obj)
    if rewrite is not None:
        return Reading("allow", f"{display} runs {tool} with the input the hook gave: "
                                f"{json.dumps(rewrite, ensure_ascii=False)}", input=rewrite)
    warn = _said(profile, "warn", obj, event) or _said(profile, "context", obj, event)
    if warn:
        return Reading("context", f"{display} lets {tool} run and adds this context: {warn}",
                       context=warn)
    if run.code == 0 and run.stderr.strip() and outputs.on_stderr(profile, "warn", event):
        # a warning the vendor shows, not context it is known to hand the model
        return Reading("allow", f"{display} lets {tool} run and shows this warning: "
                                f"{one_line(run.stderr)}")
    if _said(profile, "allow", obj, event) is not None:
        return Reading("allow", f"{display} runs {tool} (the hook said allow)")
    return Reading("allow", _quiet(display, run, problem, f"{display} runs {tool}"))


def prompt(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    display = profile.vendor.display
    obj, problem = stdout_object(run)
    reason = _exit2(profile, run) or _said(profile, "block", obj, event)
    if reason is not None:
        return Reading("block", f"{display} rejects the prompt and shows: {reason}", reason)
    context = _said(profile, "context", obj, event)
    if context:
        return Reading("context", f"{display} adds this context to the turn: {context}",
                       context=context)
    return Reading("allow", _quiet(display, run, problem, "the turn starts without added context"))


def session_start(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    display = profile.vendor.display
    obj, problem = stdout_object(run)
    context = _said(profile, "context", obj, event)
    if context:
        return Reading("context", f"{display} adds this context to the session: {context}",
                       context=context)
    return Reading("allow", _quiet(display, run, problem, "the session starts without added context"))


def stop(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    display = profile.vendor.display
    who = "the subagent" if event == "subagent_stop" else "the agent"
    reason = _exit2(profile, run)
    obj, problem = stdout_object(run)
    if reason is None:
        reason = _said(profile, "stop", obj, event)
    if reason is not None:
        return Reading("block", f"{display} keeps {who} working with: {reason}", reason)
    message = _said(profile, "suggest", obj, event)
    if message:
        return Reading("allow", f"{display} lets {who} stop and shows the user: {message}")
    if run.code == 0 and run.stderr.strip() and outputs.on_stderr(profile, "suggest", event):
        return Reading("allow", f"{display} lets {who} stop and shows: {one_line(run.stderr)}")
    return Reading("allow", _quiet(display, run, problem, f"{who} stops"))


def post_tool(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    reason = _exit2(profile, run)
    if reason is not None:
        return Reading("context", f"{display} shows the agent (after {tool} already ran): "
                                  f"{reason}", context=reason)
    obj, problem = stdout_object(run)
    context = _said(profile, "context", obj, event)
    if context:
        return Reading("context", f"{display} adds this context after {tool}: {context}",
                       context=context)
    return Reading("allow", _quiet(display, run, problem, f"{tool} already ran"))


def permission(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    """permission_request: the user's answer given for them (refuse, grant), or the vendor's own
    permission flow."""
    display, tool = profile.vendor.display, tool_name(profile, payload)
    obj, problem = stdout_object(run)
    reason = _said(profile, "refuse", obj, event)
    if reason is None and has(profile, "refuse"):
        reason = _exit2(profile, run)
    if reason is not None:
        return Reading("deny", f"{display} denies {tool} for the user: {reason}", reason)
    if _said(profile, "grant", obj, event) is not None:
        return Reading("allow", f"{display} allows {tool} without asking the user")
    return Reading("allow", _quiet(display, run, problem, f"{display} asks for {tool} as it would"))


# what goes on when nothing stops it, on the events that cannot block
GOES_ON = {"pre_compact": "the context is compacted", "session_end": "the session ends",
           "notification": "the notification is shown", "subagent_start": "the subagent starts"}


def lifecycle(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    """pre_compact, session_end, notification, subagent_start: the vendor takes a context answer
    where its profile says so,
    and nothing else; what they print never stops what happens."""
    display = profile.vendor.display
    obj, problem = stdout_object(run)
    context = _said(profile, "context", obj, event)
    if context:
        return Reading("context", f"{display} adds this context ({GOES_ON[event]}): {context}",
                       context=context)
    tail = GOES_ON[event]
    if run.code == 2:
        return Reading("allow", f"nothing happens: {display} cannot be stopped on "
                                f"{profile.events.of(event)}; {tail}")
    return Reading("allow", _quiet(display, run, problem, tail))


Rule = Callable[[Profile, Event, dict[str, Any], Run], Reading]
RULES: dict[Event, Rule] = {"session_start": session_start, "prompt": prompt,
                            "pre_tool": pre_tool, "post_tool": post_tool, "stop": stop,
                            "subagent_stop": stop, "pre_compact": lifecycle,
                            "session_end": lifecycle, "notification": lifecycle,
                            "subagent_start": lifecycle, "post_tool_failure": post_tool,
                            "permission_request": permission}


def read(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> Reading:
    """What the vendor makes of this run of a script on this event."""
    return RULES[event](profile, event, payload, run)


def verdict(profile: Profile, event: Event, payload: dict[str, Any], run: Run) -> str:
    return read(profile, event, payload, run).said


def as_object(data: bytes) -> dict[str, Any]:
    """The payload as an object when it is one (the verdict names its tool from it)."""
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
