"""logbook (post_tool): one JSON line per tool call in <home>/logbook.jsonl: when, the session and
vendor, the tool and its class, the paths, the tool's input and what it answered.

Both come from the view: $DOS_TOOL_INPUT (the input as compact JSON) and $DOS_TOOL_RESPONSE (the
tool's answer: its text, or compact JSON); the response is kept up to RESPONSE_MAX characters. A
field the gate had to cut is named in $DOS_CUT, and the entry says so. Fail open: a logbook that
cannot be written never stops the agent.
"""

from __future__ import annotations

import json
import sys

import divine

RESPONSE_MAX = 2000


def main() -> int:
    raw = divine.view("TOOL_INPUT")
    try:
        given = json.loads(raw) if raw else None
    except ValueError:
        given = raw
    response = divine.view("TOOL_RESPONSE")
    entry = {"time": divine.now(), "session": divine.view("SESSION"), "vendor": divine.view("VENDOR"),
             "tool": divine.view("TOOL"), "class": divine.view("TOOL_CLASS"), "paths": divine.paths(),
             "input": given, "response": response[:RESPONSE_MAX],
             "cut": divine.view("CUT").split() + (["response"] if len(response) > RESPONSE_MAX else [])}
    divine.append("logbook.jsonl", entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
