"""claims (stop): before the agent stops, its last answer is read from the session's transcript
($DOS_TRANSCRIPT) and checked for claims it did not back: "should work", "probably fixed", "tests
pass" with nothing shown. A finding keeps the agent working, once, with the JSON answer
{"decision": "block", "reason": "..."}, and is kept as a lesson in <home>/lessons.jsonl (the
session_start briefing shows the latest).

The hook keeps no loop guard of its own: when the agent stops again after the block, the vendor
says so (stop_hook_active) and the gate lets it stop whatever this hook answers (on a vendor
without that flag, the gate counts the blocks of the session). The transcripts differ per vendor,
all JSON lines (or one JSON document) of messages: the last assistant text is found in any of
them. Where there is no transcript, or it holds no assistant text yet, $DOS_MESSAGE (the last
assistant message, where the vendor sends it) is read instead; with neither, nothing is checked.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from typing import Any

import divine

TAIL_BYTES = 4 * 1024 * 1024
ROLES = ("assistant", "model")
TYPES = ("assistant", "gemini", "assistant.message", "agent_message", "AgentMessage")
DETECTORS = (
    ("unverified-claim",
     r"\b(should (now )?work|probably (works|fixed)|(i think|i believe) (it|this) (works|is fixed))\b"),
    ("hedged-done", r"\b(seems|appears) to (work|be fixed)\b"),
    ("tests-claimed", r"\b(all )?tests (pass|passed|are passing)\b"),
)


def text_of(value: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [p.get("text") for p in value if isinstance(p, dict) and p.get("type", "text") in
                 ("text", "output_text", "Text")]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def assistant_text(record: Any, outer: str = "") -> str:
    """The assistant text a transcript record holds ("" when it holds none): the record is the
    assistant's by its own role or type, or by the type of the record around it (Copilot's
    events keep the message in `data`, Codex's items in `payload` and `item`)."""
    if not isinstance(record, dict):
        return ""
    kind, role = record.get("type", ""), record.get("role", "")
    if role and role not in ROLES:
        return ""  # the user's, a tool's, the system's
    if role in ROLES or kind in TYPES or outer in TYPES:
        for key in ("content", "parts", "text", "message"):
            found = text_of(record.get(key))
            if found.strip():
                return found
    for inner in ("message", "payload", "data", "item"):
        found = assistant_text(record.get(inner), kind)
        if found:
            return found
    return ""


def records(data: bytes) -> list[Any]:
    """A transcript's records: one JSON document (its list of messages), or JSON lines."""
    try:
        whole = json.loads(data)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return [m for key in ("messages", "history", "items") for m in whole.get(key) or []]
    if isinstance(whole, list):
        return whole
    out = []
    for line in data.split(b"\n"):
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def last_said() -> tuple[str, str]:
    """(the last assistant text, where it was read: transcript or message)."""
    path = divine.view("TRANSCRIPT")
    if path:
        try:
            with open(path, "rb") as fh:
                fh.seek(0, 2)
                fh.seek(max(0, fh.tell() - TAIL_BYTES))
                data = fh.read()
        except OSError:
            data = b""
        for record in reversed(records(data)):
            text = assistant_text(record)
            if text.strip():
                return text, "transcript"
    return divine.view("MESSAGE"), "message"


def findings(text: str) -> list[dict[str, str]]:
    found = []
    for code, pattern in DETECTORS:
        hit = re.search(pattern, text, re.I)
        if hit:
            found.append({"code": code, "match": hit.group(0)})
    return found


def main() -> int:
    text, source = last_said()
    found = findings(text) if text.strip() else []
    if not found:
        return 0
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    session = divine.view("SESSION")
    if not any(e.get("session") == session and e.get("digest") == digest for e in divine.read("lessons.jsonl")):
        divine.append("lessons.jsonl", {"time": divine.now(), "session": session, "vendor": divine.view("VENDOR"),
                                        "from": source, "digest": digest, "findings": found})
    said = ", ".join(f'"{f["match"]}"' for f in found)
    divine.answer(decision="block", reason=(
        f"DivineOS: your last answer says {said} without showing it. Check it (run it, read the "
        "result) and say what you saw, or say plainly that it is unverified."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
