"""What hookshape owns in a vendor config: recognised by the command string alone (a gate of
this spec under some `.../bin/`), never by extra keys a strict vendor parser would reject."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hookshape.spec.model import Spec

_ESCAPED = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Owner:
    """Recognises our commands: `<PROVIDER_ENV>=<vendor> "<home>/bin/<gate>"`."""

    pattern: re.Pattern[str]
    extra: frozenset[str]

    def owns(self, command: object) -> bool:
        if not isinstance(command, str):
            return False
        return command in self.extra or bool(self.pattern.match(command))

    def home(self, command: str) -> str | None:
        """The harness home a managed command points into (unescaped), e.g. `/home/u/.pd`."""
        match = self.pattern.match(command)
        return _ESCAPED.sub(r"\1", match.group(1)) if match else None

    def script(self, command: str) -> str | None:
        """The gate script a managed command runs (unescaped)."""
        match = self.pattern.match(command)
        return _ESCAPED.sub(r"\1", match.group(1)) + "/bin/" + match.group(2) if match else None


def owner(spec: Spec, known: Iterable[str] = ()) -> Owner:
    """Every gate of the spec counts (registered or not), plus exact commands a ledger recorded
    (gates an older spec had)."""
    gates = "|".join(re.escape(t.name) for t in spec.gates())
    env = re.escape(spec.harness.provider_env)
    pattern = re.compile(rf'^{env}=[A-Za-z0-9_.-]+ "((?:[^"\\]|\\.)*)/bin/({gates})"$')
    return Owner(pattern=pattern, extra=frozenset(known))


def commands(value: Any, name: str = "command") -> Iterator[str]:
    """Every command string (under the vendor's handler key `name`) inside a JSON/TOML value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == name and isinstance(item, str):
                yield item
            else:
                yield from commands(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from commands(item, name)


def all_ours(own: Owner, value: Any, name: str = "command") -> bool:
    """True when the value holds commands and every one is ours."""
    found = list(commands(value, name))
    return bool(found) and all(own.owns(c) for c in found)


def unit_hash(value: Any) -> str:
    """A stable hash of one managed unit (a group, a named hook, a TOML block's text)."""
    text = value if isinstance(value, str) else \
        json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
