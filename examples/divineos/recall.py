"""recall (pre_tool, edits and reads): before the agent touches a file, the logbook's earlier
work on that file comes back to it as context, so it does not work from its context window alone
when its focus moves mid-turn.

The answer is the JSON {"context": "..."}; the gate says it in the one channel that reaches the
model on the vendor (where the vendor has none on pre_tool, it is dropped). A file with no earlier
work gets nothing: the model is not told what it already knows.
"""

from __future__ import annotations

import os
import sys

import divine

PER_FILE = 3     # the newest calls recalled per file
SAID_MAX = 80    # characters of each call's response


def summary(entry: dict) -> str:
    """One earlier call: when, the tool, the vendor, and the start of what the tool answered."""
    said = " ".join(str(entry.get("response") or "").split())
    if len(said) > SAID_MAX:
        said = said[:SAID_MAX] + "..."
    head = f"{entry.get('time', '?')} {entry.get('tool', '?')} ({entry.get('vendor', '?')})"
    return f"{head}: {said}" if said else head


def main() -> int:
    wanted = divine.paths()
    if not wanted:
        return 0
    entries = divine.read("logbook.jsonl")
    lines = []
    for path in wanted:
        earlier = [e for e in entries if path in (e.get("paths") or [])][-PER_FILE:]
        if earlier:
            lines.append(f"- {os.path.basename(path)}: " + "; ".join(summary(e) for e in earlier))
    if lines:
        divine.answer(context="DivineOS recall, earlier work on the file(s) of this call:\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
