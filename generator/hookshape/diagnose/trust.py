"""The trust record a vendor keeps for a hook a user reviewed (Codex: `[hooks.state."<key>"]
trusted_hash`), computed from the entry the way the vendor computes it, per the profile's
trust_entry / trust_hash: doctor tells a trusted entry from one never reviewed or changed since,
and `verify` records the trust a review would in its scratch home."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hookshape.diagnose.survey import Handler, Survey, lookup
from hookshape.spec.profiles import Profile

Status = Literal["trusted", "untrusted", "modified", "disabled"]

_POSITION = re.compile(r"\[(\d+)\]\.hooks\[(\d+)\]$")


def snake(event: str) -> str:
    """PreToolUse -> pre_tool_use."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", event).lower()


def positions(handler: Handler) -> tuple[int, int] | None:
    """(group, handler) indices of a handler in its event's list, from its location."""
    found = _POSITION.search(handler.where)
    return (int(found.group(1)), int(found.group(2))) if found else None


def record_key(profile: Profile, file: Path, handler: Handler) -> str | None:
    at = positions(handler)
    if not profile.config.trust_entry or at is None:
        return None
    values = {"file": str(file), "event_snake": snake(handler.event), "group": str(at[0]),
              "handler": str(at[1])}
    return re.sub(r"\{([a-z_]+)\}", lambda m: values[m.group(1)], profile.config.trust_entry)


def _group(survey: Survey, profile: Profile, handler: Handler) -> dict[str, Any]:
    at = positions(handler)
    groups = lookup(survey.data, f"{profile.config.root}.{handler.event}") if at else None
    if isinstance(groups, list) and at is not None and at[0] < len(groups):
        group = groups[at[0]]
        return group if isinstance(group, dict) else {}
    return {}


def definition_hash(profile: Profile, survey: Survey, handler: Handler) -> str:
    """`sha256:<hex>` of the compact key-sorted JSON of the hook's definition: its event, its
    group's matcher (when set) and the one handler with type, command, timeout (as the vendor
    bounds it), async and statusMessage (when set)."""
    value = handler.value
    keys = profile.config.handler
    one: dict[str, Any] = {"type": value.get("type", keys.type), "command": value.get(keys.command),
                           "timeout": _timeout(profile, handler), "async": value.get("async", False)}
    if "statusMessage" in value:
        one["statusMessage"] = value["statusMessage"]
    definition: dict[str, Any] = {"event_name": snake(handler.event), "hooks": [one]}
    matcher = _group(survey, profile, handler).get("matcher")
    if matcher is not None:
        definition["matcher"] = matcher
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _timeout(profile: Profile, handler: Handler) -> Any:
    """The timeout as the vendor hashes it: its default when unset, bounded on the events it
    bounds (Codex: SessionEnd 1 s by default, at most 3 s)."""
    cfg = profile.config
    default, most = cfg.trust_timeouts.get(handler.event, [cfg.trust_default_timeout, 0])
    value = handler.value.get(cfg.handler.timeout, default)
    if most and isinstance(value, int) and not isinstance(value, bool):
        return min(value, most)
    return value


@dataclass(frozen=True)
class Trust:
    key: str
    want: str  # the hash a review would record now
    status: Status


def trust_of(profile: Profile, survey: Survey, handler: Handler, user: dict[str, Any]) -> Trust | None:
    """The handler's trust as the vendor sees it, from the user config's records (None: the
    profile has no trust rule)."""
    key = record_key(profile, survey.path, handler)
    if key is None or profile.config.trust_hash != "definition-sha256":
        return None
    want = definition_hash(profile, survey, handler)
    table = lookup(user, profile.config.trust_table)
    record = table.get(key) if isinstance(table, dict) else None
    if not isinstance(record, dict):
        return Trust(key, want, "untrusted")
    if record.get("enabled") is False:
        return Trust(key, want, "disabled")
    have = record.get(profile.config.trust_key)
    return Trust(key, want, "trusted" if have == want else "modified" if have else "untrusted")


def records(profile: Profile, survey: Survey, handlers: list[Handler]) -> dict[str, Any]:
    """The trust records a review of these handlers would write (nested tables, for a TOML
    or JSON writer): {<trust_table parts>: {key: {trust_key: hash}}}."""
    out: dict[str, Any] = {}
    for handler in handlers:
        key = record_key(profile, survey.path, handler)
        if key is None:
            continue
        out[key] = {profile.config.trust_key: definition_hash(profile, survey, handler)}
    for part in reversed(profile.config.trust_table.split(".")):
        out = {part: out}
    return out


def project_root(project: Path) -> Path:
    """The project's root as the vendor finds it: the nearest directory with a `.git`, else the
    project itself."""
    for folder in (project, *project.parents):
        if (folder / ".git").exists():
            return folder
    return project


def project_trusted(profile: Profile, user: dict[str, Any], root: Path) -> bool | None:
    """Whether the user config trusts the project (None: the profile has no such rule)."""
    cfg = profile.config
    if not cfg.project_trust:
        return None
    before, _, after = cfg.project_trust.partition("{root}")
    node = lookup(user, before.rstrip(".")) if before.rstrip(".") else user
    entry = node.get(str(root)) if isinstance(node, dict) else None
    value = lookup(entry, after.lstrip(".")) if isinstance(entry, dict) else None
    return value == cfg.project_trust_value
