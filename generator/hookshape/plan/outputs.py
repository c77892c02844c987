"""The vendors' answers as data, read in one place.

A profile's `[output.<kind>]` says how a hook answers on that vendor: a JSON object on stdout
(`stdout`, whose string values may be the placeholders `{text}` and `{event}`), the text as one
line on stderr (`stderr = true`; exit 2 when the answer blocks), the context answer of the same
role (`context = true`, for a warning), or nothing. Every consumer reads the answers through this
module: the awk tables of the tentacles, the gate's breaker notice, simulate's verdict reader, the
capabilities text and the tests' expectations. No second copy of a shape exists anywhere.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from hookshape.spec.profiles import Answer, Profile
from hookshape.spec.types import Event

Kind = Literal["context", "deny", "allow", "warn", "stop", "suggest", "ask", "rewrite", "block",
               "grant", "refuse"]
KINDS: tuple[Kind, ...] = ("context", "deny", "allow", "warn", "stop", "suggest", "ask", "rewrite",
                           "block", "grant", "refuse")
# the answers that are verdicts: given on stderr, they go with the blocking exit code
BLOCKING: frozenset[Kind] = frozenset({"deny", "stop", "block", "refuse"})
TEXT = "{text}"
EVENT = "{event}"
INPUT = "{input}"
# in an awk template the placeholders become this byte and a letter (t: text, e: event)
MARK = "\x1c"


def of(profile: Profile, kind: Kind) -> Answer:
    answer: Answer = getattr(profile.output, kind)
    return answer


def fill(shape: Any, text: str, event: str, given: Any = None) -> Any:
    """The shape with its placeholders replaced ({input}: `given`, a rewrite's new input)."""
    if isinstance(shape, dict):
        return {k: fill(v, text, event, given) for k, v in shape.items()}
    if isinstance(shape, list):
        return [fill(v, text, event, given) for v in shape]
    if shape == TEXT:
        return text
    if shape == EVENT:
        return event
    if shape == INPUT:
        return given
    return shape


def resolved(profile: Profile, kind: Kind, role: Event) -> Answer | None:
    """The answer of a kind, with `context = true` resolved to the context answer of the role
    (None: nothing is said)."""
    answer = of(profile, kind)
    if answer.context or kind == "context":
        if role not in profile.output.context_roles:
            return None
        answer = profile.output.context
    if answer.stdout is None and not answer.stderr:
        return None
    return answer


def stdout_object(profile: Profile, kind: Kind, text: str, role: Event,
                  given: Any = None) -> dict[str, Any] | None:
    """The JSON object this answer prints on stdout, or None when it prints nothing there."""
    answer = resolved(profile, kind, role)
    if answer is None or answer.stdout is None:
        return None
    if kind == "context" and text == "":
        return None
    obj: dict[str, Any] = fill(answer.stdout, text, profile.events.of(role), given)
    return obj


def stdout_text(profile: Profile, kind: Kind, text: str, role: Event) -> str:
    """The answer's stdout as the tentacles print it: compact JSON in plain ASCII, or ""."""
    obj = stdout_object(profile, kind, text, role)
    return "" if obj is None else json.dumps(obj, separators=(",", ":"))


def on_stderr(profile: Profile, kind: Kind, role: Event) -> bool:
    answer = resolved(profile, kind, role)
    return answer is not None and answer.stdout is None and answer.stderr


def awk_template(profile: Profile, kind: Kind) -> str:
    """The stdout shape as compact JSON text with MARK+t / MARK+e where the escaped text and
    event go, MARK+i where a rewrite's input goes (as JSON) ("" when the answer prints no
    JSON)."""
    answer = of(profile, kind)
    if answer.stdout is None:
        return ""
    text, event, given = "@@hookshape-text@@", "@@hookshape-event@@", "@@hookshape-input@@"
    dumped = json.dumps(fill(answer.stdout, text, event, given), separators=(",", ":"))
    return (dumped.replace(text, MARK + "t").replace(event, MARK + "e")
            .replace(json.dumps(given), MARK + "i"))


def read(profile: Profile, kind: Kind, obj: Any, role: Event, exact: bool = False) -> str | None:
    """The text an object on stdout carries when it is this answer (the text placeholder's value,
    "" for a shape without one), else None. The event placeholder must hold the role's event.
    Keys the shape does not name are allowed, unless exact."""
    answer = resolved(profile, kind, role)
    if answer is None or answer.stdout is None:
        return None
    found: list[str] = []
    if not _match(answer.stdout, obj, found, profile.events.of(role), exact):
        return None
    return found[0] if found else ""


def _match(shape: Any, value: Any, found: list[str], event: str, exact: bool) -> bool:
    if isinstance(shape, dict):
        if not isinstance(value, dict) or (exact and set(value) != set(shape)):
            return False
        return all(k in value and _match(v, value[k], found, event, exact) for k, v in shape.items())
    if isinstance(shape, list):
        return (isinstance(value, list) and len(value) == len(shape)
                and all(_match(s, v, found, event, exact) for s, v in zip(shape, value, strict=True)))
    if shape == TEXT:
        if isinstance(value, str):
            found.append(value)
            return True
        return False
    if shape == EVENT:
        return isinstance(value, str) and value == event
    if shape == INPUT:
        found.append(json.dumps(value, separators=(",", ":")))
        return isinstance(value, dict)
    same: bool = type(shape) is type(value) and shape == value
    return same


def describe(profile: Profile, kind: Kind, role: Event) -> str:
    """The answer in words for CAPABILITIES: the JSON with <text> where the text goes."""
    answer = resolved(profile, kind, role)
    if answer is None:
        return "nothing"
    if answer.stdout is None:
        return "exit 2 with the text on stderr" if kind in BLOCKING else "the text on stderr"
    shape = fill(answer.stdout, "<text>", profile.events.of(role), "<input>")
    return json.dumps(shape, separators=(",", ":"), ensure_ascii=False) + " on stdout"
