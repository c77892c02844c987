"""Read a vendor config for `doctor`: every command handler in it (ours and everyone else's),
and the shape problems a vendor would reject the file for."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookshape.errors import ConfigError
from hookshape.install import jsonedit, tomledit
from hookshape.profiles import Profile

# Handler and group keys a strict parser (codex-toml) accepts; anything else fails the file.
STRICT_HANDLER_KEYS = frozenset({"type", "command", "timeout"})
STRICT_GROUP_KEYS = frozenset({"matcher", "hooks"})


@dataclass(frozen=True)
class Handler:
    event: str
    where: str  # e.g. `hooks.PreToolUse[1].hooks[0]`
    value: dict[str, Any]

    @property
    def command(self) -> str:
        found = self.value.get("command")
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
    walk = _agy if profile.config.format == "agy-json" else _hooks
    walk(profile, survey)
    return survey


def _parse(profile: Profile, text: str, path: Path) -> dict[str, Any]:
    if profile.config.format == "codex-toml":
        return tomledit.loads(text, path)
    if not text.strip():
        return {}
    data = jsonedit.loads(text, path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1:1: the top level is not a JSON object")
    return data


def _switch_leaves(profile: Profile) -> set[str]:
    """Keys under `hooks` that are not events: switches (e.g. a legacy `hooks.enabled`) and the
    vendor's trust records (e.g. Codex's `hooks.state`)."""
    names = [profile.config.enable_switch, *profile.config.legacy_switches,
             profile.config.trust_table]
    return {n.split(".", 1)[1].split(".", 1)[0] for n in names if n.startswith("hooks.")}


def _hooks(profile: Profile, survey: Survey) -> None:
    """`{"hooks": {Event: [{matcher?, hooks: [handler]}]}}` (JSON or TOML)."""
    hooks = survey.data.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        survey.shape.append("hooks: not an object")
        return
    skip = _switch_leaves(profile)
    for event, groups in hooks.items():
        if event in skip:
            continue
        if not isinstance(groups, list):
            survey.shape.append(f"hooks.{event}: not a list")
            continue
        for index, group in enumerate(groups):
            _group(profile, survey, event, f"hooks.{event}[{index}]", group)


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
    if profile.config.format == "codex-toml":
        unknown = sorted(set(group) - STRICT_GROUP_KEYS)
        survey.shape += [f"{where}: unknown key {k!r}" for k in unknown]
    for h_index, handler in enumerate(handlers):
        _handler(profile, survey, event, f"{where}.hooks[{h_index}]", handler)


def _handler(profile: Profile, survey: Survey, event: str, where: str, handler: Any) -> None:
    if not isinstance(handler, dict):
        survey.shape.append(f"{where}: not an object")
        return
    survey.shape += _handler_problems(profile, where, handler)
    survey.handlers.append(Handler(event, where, handler))


def _handler_problems(profile: Profile, where: str, handler: dict[str, Any]) -> list[str]:
    problems = []
    kind = handler.get("type")
    if not isinstance(kind, str):
        problems.append(f"{where}.type: missing or not a string")
    command = handler.get("command")
    if kind == "command" and not (isinstance(command, str) and command.strip()):
        problems.append(f"{where}.command: missing or empty")
    timeout = handler.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout <= 0):
        problems.append(f"{where}.timeout: not a positive number")
    if profile.config.format == "codex-toml":
        unknown = sorted(set(handler) - STRICT_HANDLER_KEYS)
        problems += [f"{where}: unknown key {k!r}" for k in unknown]
    return problems


def _agy(profile: Profile, survey: Survey) -> None:
    """Top-level hook names -> events -> tool events: groups; other events: flat handlers."""
    tool_events = {profile.events.of(role) for role in profile.matcher.roles}
    for name, events in survey.data.items():
        if not isinstance(events, dict):
            survey.shape.append(f"{json.dumps(name)}: not an object")
            continue
        for event, items in events.items():
            where = f"{json.dumps(name)}.{event}"
            if not isinstance(items, list):
                survey.shape.append(f"{where}: not a list")
                continue
            for index, item in enumerate(items):
                _agy_item(profile, survey, event, f"{where}[{index}]", item, event in tool_events)


def _agy_item(profile: Profile, survey: Survey, event: str, where: str, item: Any,
              tool: bool) -> None:
    if tool:
        _group(profile, survey, event, where, item)
    elif isinstance(item, dict) and "hooks" in item:
        survey.shape.append(f"{where}: a matcher group on a non-tool event never fires "
                            "(list the handlers directly)")
        _group(profile, survey, event, where, item)
    else:
        _handler(profile, survey, event, where, item)


def lookup(data: dict[str, Any], dotted: str) -> Any:
    """The value at `a.b.c`, or None."""
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def trusted(data: dict[str, Any], table: str, key: str) -> int:
    """How many entries of the profile's trust table carry its trust key (e.g. Codex's
    `[hooks.state."<key>"] trusted_hash`, written by its /hooks review)."""
    state = lookup(data, table)
    if not isinstance(state, dict):
        return 0
    return sum(1 for v in state.values() if isinstance(v, dict) and v.get(key))

