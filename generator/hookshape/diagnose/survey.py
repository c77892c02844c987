"""Read a vendor config for `doctor`: every command handler in it (ours and everyone else's),
and the shape problems a vendor would reject the file for."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookshape.edit import jsonedit, tomledit
from hookshape.errors import ConfigError
from hookshape.spec.profiles import Profile

GROUP_KEYS = frozenset({"matcher", "hooks"})


@dataclass(frozen=True)
class Handler:
    event: str
    where: str  # e.g. `hooks.PreToolUse[1].hooks[0]`
    value: dict[str, Any]
    key: str = "command"  # the vendor's command key

    @property
    def command(self) -> str:
        found = self.value.get(self.key)
        return found if isinstance(found, str) else ""


@dataclass
class Survey:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    handlers: list[Handler] = field(default_factory=list)
    shape: list[str] = field(default_factory=list)
    comments: bool = False  # JSON with // or /* */ comments (the profile says the vendor allows)


def load(profile: Profile, path: Path) -> Survey:
    survey = Survey(path)
    try:
        text = path.read_text(encoding="utf-8")
        if profile.config.json_comments:
            plain = jsonedit.strip_comments(text)
            survey.comments = plain != text
            text = plain
        survey.data = _parse(profile, text, path)
    except (ConfigError, OSError, UnicodeDecodeError) as exc:
        survey.error = str(exc)
        return survey
    foreign = sorted(set(survey.data) - set(profile.config.root_keys)) if profile.config.root_keys else []
    if foreign:
        survey.shape.append(f"top level: {', '.join(repr(k) for k in foreign)}: not a key this file "
                            f"may hold ({', '.join(profile.config.root_keys)})")
    if profile.config.root == "{name}":
        _bundles(profile, survey)
    elif profile.config.layout == "list":
        _list(profile, survey)
    else:
        _events(profile, survey)
    return survey


def _parse(profile: Profile, text: str, path: Path) -> dict[str, Any]:
    if profile.config.syntax == "toml":
        return tomledit.loads(text, path)
    if not text.strip():
        return {}
    data = jsonedit.loads(text, path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1:1: the top level is not a JSON object")
    return data


def _switch_leaves(profile: Profile) -> set[str]:
    """Keys beside the events that are not events: switches (e.g. a legacy `hooks.enabled`), the
    vendor's trust records (e.g. Codex's `hooks.state`) and the file's extras."""
    root = profile.config.root
    names = [profile.config.enable_switch, *profile.config.legacy_switches,
             profile.config.trust_table]
    leaves = {n.split(".", 1)[1].split(".", 1)[0] for n in names if root and n.startswith(root + ".")}
    return leaves | set(profile.config.root_fields) | (set(profile.config.extras) if not root else set())


def _events(profile: Profile, survey: Survey) -> None:
    """`{<root>: {Event: [entry]}}`, or the events at the top level (root "")."""
    root = profile.config.root
    hooks = survey.data.get(root) if root else survey.data
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        survey.shape.append(f"{root}: not an object")
        return
    _event_map(profile, survey, hooks, f"{root}." if root else "")


def _event_map(profile: Profile, survey: Survey, events: dict[str, Any], prefix: str) -> None:
    skip = _switch_leaves(profile)
    tool_events = {profile.events.of(role) for role in profile.matcher.roles}
    for event, items in events.items():
        if event in skip:
            continue
        if not isinstance(items, list):
            survey.shape.append(f"{prefix}{event}: not a list")
            continue
        for index, entry in enumerate(items):
            _entry(profile, survey, event, f"{prefix}{event}[{index}]", entry, event in tool_events)


def _entry(profile: Profile, survey: Survey, event: str, where: str, entry: Any, tool: bool) -> None:
    """One entry where the layout wants a group or a flat handler."""
    layout = profile.config.layout
    grouped = isinstance(entry, dict) and "hooks" in entry
    if layout == "flat" and grouped:
        survey.shape.append(f"{where}: a matcher group here never fires (list the handlers "
                            "directly, each with its matcher)")
    if layout == "groups-for-matchers" and grouped and not tool:
        survey.shape.append(f"{where}: a matcher group on a non-tool event never fires "
                            "(list the handlers directly)")
    if grouped or layout == "groups" or (layout == "groups-for-matchers" and tool):
        _group(profile, survey, event, where, entry)
    else:
        _handler(profile, survey, event, where, entry)


def _group(profile: Profile, survey: Survey, event: str, where: str, group: Any) -> None:
    if not isinstance(group, dict):
        survey.shape.append(f"{where}: not an object")
        return
    if "matcher" in group and not isinstance(group["matcher"], str):
        survey.shape.append(f"{where}.matcher: not a string")
    handlers = group.get("hooks")
    if not isinstance(handlers, list):
        survey.shape.append(f"{where}.hooks: missing or not a list")
        return
    if profile.config.strict:
        survey.shape += [f"{where}: unknown key {k!r}" for k in sorted(set(group) - GROUP_KEYS)]
    for h_index, handler in enumerate(handlers):
        _handler(profile, survey, event, f"{where}.hooks[{h_index}]", handler)


def _handler(profile: Profile, survey: Survey, event: str, where: str, handler: Any) -> None:
    if not isinstance(handler, dict):
        survey.shape.append(f"{where}: not an object")
        return
    survey.shape += _handler_problems(profile, where, handler)
    survey.handlers.append(Handler(event, where, handler, profile.config.handler.command))


def _handler_problems(profile: Profile, where: str, handler: dict[str, Any]) -> list[str]:
    keys = profile.config.handler
    problems = []
    kind = handler.get("type")
    if keys.type and not isinstance(kind, str):
        problems.append(f"{where}.type: missing or not a string")
    command = handler.get(keys.command)
    if (kind == keys.type or not keys.type) and not (isinstance(command, str) and command.strip()):
        problems.append(f"{where}.{keys.command}: missing or empty")
    timeout = handler.get(keys.timeout)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout <= 0):
        problems.append(f"{where}.{keys.timeout}: not a positive number")
    if profile.config.strict:
        known = {"type", keys.command, keys.timeout, "matcher", *keys.extra}
        known |= {keys.event} if keys.event else set()
        known |= {keys.async_key} if keys.async_key else set()
        problems += [f"{where}: unknown key {k!r}" for k in sorted(set(handler) - known)]
    return problems


def _list(profile: Profile, survey: Survey) -> None:
    """`<root> = [handler with its event key]` (e.g. TOML `[[hooks]]` tables)."""
    root, key = profile.config.root, profile.config.handler.event
    items = survey.data.get(root)
    if items is None:
        return
    if not isinstance(items, list):
        survey.shape.append(f"{root}: not a list")
        return
    for index, entry in enumerate(items):
        where = f"{root}[{index}]"
        event = entry.get(key) if isinstance(entry, dict) else None
        if not isinstance(event, str):
            survey.shape.append(f"{where}.{key}: missing or not a string")
            continue
        _handler(profile, survey, event, where, entry)


def _bundles(profile: Profile, survey: Survey) -> None:
    """Top-level hook names, each holding its events."""
    for name, events in survey.data.items():
        if not isinstance(events, dict):
            survey.shape.append(f"{json.dumps(name)}: not an object")
            continue
        _event_map(profile, survey, events, f"{json.dumps(name)}.")


def lookup(data: dict[str, Any], dotted: str) -> Any:
    """The value at `a.b.c`, or None."""
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def at(data: dict[str, Any], where: str) -> Any:
    """The value at a location as a Handler names it (`hooks.PreToolUse[0]`, `"name".Stop[1]`),
    or None."""
    node: Any = data
    for part in re.findall(r'"(?:[^"\\]|\\.)*"|\[\d+\]|[^.\[]+', where):
        if part.startswith("["):
            index = int(part[1:-1])
            node = node[index] if isinstance(node, list) and index < len(node) else None
        else:
            key = json.loads(part) if part.startswith('"') else part
            node = node.get(key) if isinstance(node, dict) else None
    return node


def matcher(survey: Survey, handler: Handler) -> str | None:
    """The tool matcher a handler runs under: its group's, or its own (flat layouts)."""
    found = handler.value.get("matcher")
    if "].hooks[" in handler.where:
        group = at(survey.data, handler.where.rsplit(".hooks[", 1)[0])
        found = group.get("matcher") if isinstance(group, dict) else None
    return found if isinstance(found, str) else None


def event_names(profile: Profile, survey: Survey) -> list[str]:
    """The keys of the file that stand for events (under root; switches and settings left out)."""
    cfg = profile.config
    if cfg.root == "{name}" or cfg.layout == "list":
        return list(dict.fromkeys(h.event for h in survey.handlers))
    hooks = survey.data.get(cfg.root) if cfg.root else survey.data
    skip = _switch_leaves(profile)
    return [k for k in hooks if k not in skip] if isinstance(hooks, dict) else []


def trusted(data: dict[str, Any], table: str, key: str) -> int:
    """How many entries of the profile's trust table carry its trust key (e.g. Codex's
    `[hooks.state."<key>"] trusted_hash`, written by its /hooks review)."""
    state = lookup(data, table)
    if not isinstance(state, dict):
        return 0
    return sum(1 for v in state.values() if isinstance(v, dict) and v.get(key))

