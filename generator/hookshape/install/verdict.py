"""What a vendor does with one hook run (exit code, stdout, stderr), in plain words, read off the
profile's dialect data (tool_block, stop_block, context, ...), never off the vendor's name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hookshape.profiles import Profile

# Block dialects whose vendor ignores the exit code (only the JSON decision counts).
EXIT_IGNORED = frozenset({"decision-deny-agy", "decision-continue"})
# Block dialects where exit 2 blocks only with plain text on stderr and nothing on stdout.
EXIT2_NEEDS_EMPTY_STDOUT = frozenset({"decision-deny"})
STOP_DECISION = {"decision-block": "block", "decision-deny": "deny",
                 "decision-continue": "continue"}
TOOL_DECISION = {"decision-deny": "deny", "decision-deny-agy": "deny"}


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


def _exit2(profile: Profile, dialect: str, run: Run) -> str | None:
    """The reason when exit 2 is this vendor's block channel for this run, else None."""
    if run.code != 2 or dialect in EXIT_IGNORED or not run.stderr.strip():
        return None
    if dialect in EXIT2_NEEDS_EMPTY_STDOUT and run.stdout.strip():
        return None
    return one_line(run.stderr)


def _hso(obj: dict[str, Any], key: str) -> str:
    hso = obj.get("hookSpecificOutput")
    value = hso.get(key) if isinstance(hso, dict) else None
    return value if isinstance(value, str) else ""


def _context(profile: Profile, role: str, obj: dict[str, Any]) -> str:
    if role not in profile.dialect.context_roles:
        return ""
    if profile.dialect.context == "hso":
        return one_line(_hso(obj, "additionalContext"))
    if profile.dialect.context == "inject-steps":
        steps = obj.get("injectSteps")
        items = steps if isinstance(steps, list) else []
        found = [s.get("ephemeralMessage") for s in items if isinstance(s, dict)]
        return one_line(" ".join(m for m in found if isinstance(m, str)))
    return ""


def _tool_deny(profile: Profile, obj: dict[str, Any]) -> str | None:
    dialect = profile.dialect.tool_block
    if dialect == "hso-deny" and _hso(obj, "permissionDecision") == "deny":
        return one_line(_hso(obj, "permissionDecisionReason"))
    if TOOL_DECISION.get(dialect) and obj.get("decision") == TOOL_DECISION[dialect]:
        return one_line(str(obj.get("reason", "")))
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


def pre_tool(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    reason = _exit2(profile, profile.dialect.tool_block, run)
    obj, problem = stdout_object(run)
    if reason is None and obj is not None:
        reason = _tool_deny(profile, obj)
    if reason is not None:
        return f"{display} blocks {tool} and shows the agent: {reason}"
    context = _context(profile, "pre_tool", obj) if obj is not None else ""
    if context and profile.dialect.tool_warn == "context":
        return f"{display} lets {tool} run and adds this context: {context}"
    if run.code == 0 and run.stderr.strip() and profile.dialect.tool_warn == "stderr":
        return f"{display} lets {tool} run and shows this warning: {one_line(run.stderr)}"
    return _quiet(display, run, problem, f"{display} runs {tool}")


def prompt(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display = profile.vendor.display
    reason = _exit2(profile, profile.dialect.tool_block, run)
    if reason is not None:
        return f"{display} rejects the prompt and shows: {reason}"
    obj, problem = stdout_object(run)
    context = _context(profile, "prompt", obj) if obj is not None else ""
    if context and profile.dialect.context == "inject-steps":
        return f"{display} adds this message before the model call: {context}"
    if context:
        return f"{display} adds this context to the turn: {context}"
    return _quiet(display, run, problem, "the turn starts without added context")


def stop(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display = profile.vendor.display
    dialect = profile.dialect.stop_block
    reason = _exit2(profile, dialect, run)
    obj, problem = stdout_object(run)
    if reason is None and obj is not None and obj.get("decision") == STOP_DECISION.get(dialect):
        reason = one_line(str(obj.get("reason", "")))
    if reason is not None:
        return f"{display} keeps the agent working with: {reason}"
    message = obj.get("systemMessage") if obj is not None else None
    if isinstance(message, str) and message and profile.dialect.stop_suggest == "system-message":
        return f"{display} lets the agent stop and shows the user: {one_line(message)}"
    if run.code == 0 and run.stderr.strip() and profile.dialect.stop_suggest == "stderr":
        return f"{display} lets the agent stop and shows: {one_line(run.stderr)}"
    return _quiet(display, run, problem, "the agent stops")


def post_tool(profile: Profile, payload: dict[str, Any], run: Run) -> str:
    display, tool = profile.vendor.display, tool_name(profile, payload)
    reason = _exit2(profile, profile.dialect.tool_block, run)
    if reason is not None:
        return f"{display} shows the agent (after {tool} already ran): {reason}"
    obj, problem = stdout_object(run)
    context = _context(profile, "post_tool", obj) if obj is not None else ""
    if context:
        return f"{display} adds this context after {tool}: {context}"
    return _quiet(display, run, problem, f"{tool} already ran")


RULES = {"prompt": prompt, "pre_tool": pre_tool, "post_tool": post_tool, "stop": stop}


def verdict(profile: Profile, role: str, payload: dict[str, Any], run: Run) -> str:
    return RULES[role](profile, payload, run)
