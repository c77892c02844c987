"""What a vendor does with one hook run (exit code, stdout, stderr), in plain words, read off the
profile's [output] answers (hookshape.plan.outputs), never off the vendor's name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hookshape.plan import outputs
from hookshape.plan.outputs import Kind
from hookshape.spec.profiles import Profile
from hookshape.spec.types import Role


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


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


def _exit2(profile: Profile, run: Run) -> str | None:
    """The reason when exit 2 blocks on this vendor for this run, else None."""
    out = profile.output
    if run.code != 2 or out.exit_ignored or not run.stderr.strip():
        return None
    if out.exit2_needs_empty_stdout and run.stdout.strip():
        return None
    return one_line(run.stderr)


def _said(profile: Profile, kind: Kind, obj: dict[str, Any] | None, role: Role) -> str | None:
    """The text of a JSON answer of this kind on stdout, in one line, or None."""
    text = outputs.read(profile, kind, obj, role) if obj is not None else None
    return None if text is None else one_line(text)


def _quiet(display: str, run: Run, problem: str, tail: str) -> str:
    if run.code not in (0, 2):
        return (f"nothing happens: exit {run.code} is a non-blocking error ({display} may log "
                f"it); {tail}")
    if problem:
        return f"nothing happens: {problem}, so {display} ignores it; {tail}"
    if run.code == 2:
        return f"nothing happens: exit 2 does not block on {display} here; {tail}"
    return f"nothing happens: {tail}"


def pre_tool(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    reason = _exit2(profile, run)
    obj, problem = stdout_object(run)
    if reason is None:
        reason = _said(profile, "deny", obj, "pre_tool")
    if reason is None and obj == {} and profile.output.empty_object_denies:
        reason = "(no reason: {} on stdout denies)"
    if reason is None and run.code != 0 and profile.output.nonzero_denies:
        reason = one_line(run.stderr) or f"(exit {run.code} denies)"
    if reason is not None:
        return f"{display} blocks {tool} and shows the agent: {reason}"
    warn = _said(profile, "warn", obj, "pre_tool")
    if warn:
        return f"{display} lets {tool} run and adds this context: {warn}"
    if run.code == 0 and run.stderr.strip() and outputs.on_stderr(profile, "warn", "pre_tool"):
        return f"{display} lets {tool} run and shows this warning: {one_line(run.stderr)}"
    if _said(profile, "allow", obj, "pre_tool") is not None:
        return f"{display} runs {tool} (the hook said allow)"
    return _quiet(display, run, problem, f"{display} runs {tool}")


def prompt(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display = profile.vendor.display
    reason = _exit2(profile, run)
    if reason is not None:
        return f"{display} rejects the prompt and shows: {reason}"
    obj, problem = stdout_object(run)
    context = _said(profile, "context", obj, "prompt")
    if context:
        return f"{display} adds this context to the turn: {context}"
    return _quiet(display, run, problem, "the turn starts without added context")


def stop(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display = profile.vendor.display
    reason = _exit2(profile, run)
    obj, problem = stdout_object(run)
    if reason is None:
        reason = _said(profile, "stop", obj, "stop")
    if reason is not None:
        return f"{display} keeps the agent working with: {reason}"
    message = _said(profile, "suggest", obj, "stop")
    if message:
        return f"{display} lets the agent stop and shows the user: {message}"
    if run.code == 0 and run.stderr.strip() and outputs.on_stderr(profile, "suggest", "stop"):
        return f"{display} lets the agent stop and shows: {one_line(run.stderr)}"
    return _quiet(display, run, problem, "the agent stops")


def post_tool(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    reason = _exit2(profile, run)
    if reason is not None:
        return f"{display} shows the agent (after {tool} already ran): {reason}"
    obj, problem = stdout_object(run)
    context = _said(profile, "context", obj, "post_tool")
    if context:
        return f"{display} adds this context after {tool}: {context}"
    return _quiet(display, run, problem, f"{tool} already ran")


RULES = {"prompt": prompt, "pre_tool": pre_tool, "post_tool": post_tool, "stop": stop}


def verdict(profile: Profile, role: str, payload: dict[str, Any], run: Run) -> str:
    return RULES[role](profile, payload, run)
