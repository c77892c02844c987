"""A test case's event as one vendor sends it: the vendor's built-in example event of that event
(its real captured shape), with the case's neutral fields written where the vendor's profile says
they go (payload paths), or the case's payload file as it is. A case the vendor cannot send (an
event it has not, a message it never gives) is a skip, with the reason."""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from hookshape.diagnose.cases import Case
from hookshape.spec.profiles import Profile
from hookshape.spec.types import TOOL_EVENTS

PATCH_START = "*** Begin Patch"
DEFAULT_COMMAND = "true"


@dataclass(frozen=True)
class Sent:
    """The event's bytes, or why this vendor cannot send it (then data is empty)."""

    data: bytes = b""
    skip: str = ""


class Skip(Exception):
    """This vendor cannot send the case's event."""


def example_path(vendor: str, event: str) -> Traversable:
    """The built-in example of the event as the vendor sends it (examples/<vendor>/<event>.json)."""
    return resources.files("hookshape") / "examples" / vendor / f"{event}.json"


def example(profile: Profile, event: str) -> dict[str, Any]:
    found = example_path(profile.id, event)
    value = json.loads(found.read_text(encoding="utf-8"))
    assert isinstance(value, dict), found
    return value


def _steps(path: str) -> list[str]:
    return path.split(".") if path else []


def get(doc: Any, path: str) -> Any:
    """The value at a dotted payload path (a step 0 is a list's first element), or None."""
    node = doc
    for step in _steps(path):
        if isinstance(node, list) and step == "0":
            node = node[0] if node else None
        elif isinstance(node, dict):
            node = node.get(step)
        else:
            return None
    return node


def put(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set the value at a dotted payload path, making the objects (and first elements) on the way."""
    steps = _steps(path)
    node: Any = doc
    for step, after in itertools.pairwise(steps):
        if isinstance(node, list):
            if not node:
                node.append({})
            node = node[0]
            continue
        if not isinstance(node.get(step), (dict, list)):
            node[step] = [] if after == "0" else {}
        node = node[step]
    if isinstance(node, list):
        node[:1] = [value]
    else:
        node[steps[-1]] = value


def _put_all(doc: dict[str, Any], paths: list[str], value: Any) -> None:
    """Set the value at every one of the paths the event has (the first when it has none)."""
    present = [p for p in paths if get(doc, p) is not None]
    for path in present or paths[:1]:
        put(doc, path, value)


def event_for(case: Case, profile: Profile, cwd: str, base: Path, project: str = "") -> Sent:
    """The bytes the vendor sends for this case (cwd: the event's working directory; project: the
    scratch project, where a transcript lies), or a skip."""
    if case.payload is not None:
        return Sent((base / case.payload).read_bytes())
    try:
        doc = _doc(case, profile, cwd, project or cwd)
    except Skip as why:
        return Sent(skip=str(why))
    return Sent((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode())


def _doc(case: Case, profile: Profile, cwd: str, project: str) -> dict[str, Any]:
    display, p = profile.vendor.display, profile.payload
    if not profile.events.of(case.event):
        raise Skip(f"{display} has no {case.event} event")
    doc = copy.deepcopy(example(profile, case.event))
    if case.session is not None:
        _put_all(doc, p.session, case.session)
    _put_all(doc, p.cwd, cwd)
    if case.event in TOOL_EVENTS:
        _tool_call(doc, case, profile)
    if case.prompt is not None:
        if not p.prompt:
            raise Skip(f"the profile of {display} names no prompt field")
        put(doc, p.prompt[0], case.prompt)
    if case.message is not None:
        if not p.stop_text:
            raise Skip(f"{display} sends no last assistant message on {case.event}")
        put(doc, p.stop_text[0], case.message)
    if case.stop_active is not None:
        if p.stop_active:
            put(doc, p.stop_active, case.stop_active)
        elif case.stop_active:
            raise Skip(f"{display} has no stop_hook_active flag")
    if case.transcript is not None:
        if not p.transcript:
            raise Skip(f"{display} sends no transcript path")
        _put_all(doc, p.transcript, str(Path(project) / case.transcript))
    return doc


def _tool_call(doc: dict[str, Any], case: Case, profile: Profile) -> None:
    """The case's tool call in the vendor's fields; nothing said: the example's call."""
    kind = case.tool or ("shell" if case.command is not None else "edit" if case.paths else
                         "subagent" if case.subagent is not None else None)
    if kind is None:
        if case.tool_input:
            args = get(doc, profile.payload.tool_input)
            put(doc, profile.payload.tool_input, {**(args if isinstance(args, dict) else {}), **case.tool_input})
        return
    p = profile.payload
    at = p.tool_input_on.get(case.event, p.tool_input)
    shown, args = get(doc, p.tool_name), get(doc, at)
    name = _tool_name(profile, kind, shown)
    same = name == shown and isinstance(args, dict)
    put(doc, p.tool_name, name)
    put(doc, at, _tool_input(case, profile, name, dict(args) if same else {}))


def _tool_name(profile: Profile, kind: str, shown: Any) -> str:
    tools = profile.tools
    if kind.startswith("mcp:"):
        return tools.mcp_format.replace("{server}", kind[4:]).replace("{tool}", "tool")
    if kind not in ("edit", "shell", "read", "subagent"):
        return kind
    names: list[str] = getattr(tools, kind)
    if not names:
        raise Skip(f"{profile.vendor.display} has no {kind} tool")
    return str(shown) if shown in names else names[0]


def _tool_input(case: Case, profile: Profile, name: str, args: dict[str, Any]) -> dict[str, Any]:
    p, tools = profile.payload, profile.tools
    if case.command is not None or (name in tools.shell and p.command_field not in args):
        args[p.command_field] = case.command if case.command is not None else DEFAULT_COMMAND
    if case.subagent is not None:
        if not p.subagent_arg:
            raise Skip(f"the profile of {profile.vendor.display} names no subagent type in a "
                       "subagent call")
        put(args, p.subagent_arg[0], case.subagent)
    args.update(case.tool_input or {})
    if not case.paths:
        return args
    patch = args.get(p.patch_field) if p.patch_field else None
    if isinstance(patch, str) and PATCH_START in patch:
        args[p.patch_field] = _patch(case.paths)
        return args
    if len(case.paths) > 1:
        raise Skip(f"{profile.vendor.display}'s {name} names one path: give one, or name the "
                   "vendors whose edit tool takes a patch")
    field = next((f for f in p.path_fields if f in args), p.path_fields[0])
    args[field] = case.paths[0]
    return args


def _patch(paths: list[str]) -> str:
    """A patch body that adds each path, as Codex's apply_patch takes it."""
    files = "".join(f"*** Add File: {path}\n+x\n" for path in paths)
    return f"{PATCH_START}\n{files}*** End Patch\n"
