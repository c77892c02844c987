"""briefing (session_start): what DivineOS knows when a session starts: the latest lessons the
claims detector kept, and what the logbook holds. Printed as text: on session_start, a hook's
text on stdout is context for the model (where the vendor has a channel for it).
"""

from __future__ import annotations

import sys

import divine

LESSONS = 3


def main() -> int:
    source = divine.view("SOURCE") or "start"
    lessons = divine.read("lessons.jsonl")
    book = divine.read("logbook.jsonl")
    lines = [f"DivineOS briefing ({source}):"]
    if lessons:
        lines.append(f"{len(lessons)} lesson(s) on file; the latest:")
        for entry in lessons[-LESSONS:]:
            said = ", ".join(f"{f.get('code')} \"{f.get('match')}\"" for f in entry.get("findings") or [])
            lines.append(f"- {entry.get('time', '?')}: {said}")
        lines.append("Back every claim of success with what you ran and what it showed.")
    else:
        lines.append("no lessons on file yet.")
    if book:
        last = book[-1]
        where = ", ".join(last.get("paths") or []) or last.get("tool", "?")
        lines.append(f"The logbook holds {len(book)} recent tool call(s); the last: {last.get('tool')} on {where}.")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
