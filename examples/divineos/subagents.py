"""subagent-guard (pre_tool, the subagent tools; fail closed): a subagent starts only as one of
the types registered in agents.txt, with a prompt, and a sealed type only with its sealed prompt.

The type is $DOS_SUBAGENT (the gate reads it from the call where the vendor's profile says it
is); the prompt is in the call's input, $DOS_TOOL_INPUT. A refusal is the JSON answer
{"decision": "deny", "reason": "..."}. The hook is fail closed: if Python is missing, this script
crashes or hangs, or the view was cut, the gate refuses the call itself, saying why.
"""

from __future__ import annotations

import json
import os
import sys

import divine

PROMPT_KEYS = ("prompt", "message", "task")  # where the vendors' subagent tools take the prompt


def registry() -> dict[str, bool]:
    """Registered type -> sealed, from agents.txt beside this script."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = {}
    with open(os.path.join(here, "agents.txt"), encoding="utf-8") as fh:
        for line in fh:
            words = line.split("#", 1)[0].split()
            if words:
                found[words[0]] = "sealed" in words[1:]
    return found


def prompt_of(call: object) -> str:
    if isinstance(call, dict):
        for key in PROMPT_KEYS:
            if isinstance(call.get(key), str):
                return call[key]
    return ""


def verdict() -> str:
    """The reason to refuse the call, or "" to let it start."""
    known = registry()
    kind = divine.view("SUBAGENT") or "default"
    if kind not in known:
        return (f"DivineOS: no subagent type {kind!r} is registered (registered: "
                f"{', '.join(sorted(known))}); start one of those, or register the type in agents.txt.")
    prompt = prompt_of(json.loads(divine.view("TOOL_INPUT") or "{}"))
    if not prompt.strip():
        return ("DivineOS: a subagent starts with no memory of this conversation: give it a prompt "
                "that says the goal and what is already known.")
    if known[kind]:
        sealed = divine.home() / "sealed" / f"{kind}.txt"
        try:
            want = sealed.read_text(encoding="utf-8")
        except OSError:
            return f"DivineOS: {kind} is reached only through its sealed prompt, and there is none ({sealed})."
        if prompt != want:
            return (f"DivineOS: {kind} is reached only through its sealed prompt: send the exact "
                    f"text of {sealed}, not a prompt of your own.")
    return ""


def main() -> int:
    reason = verdict()
    if reason:
        divine.answer(decision="deny", reason=reason)
    return 0


if __name__ == "__main__":
    sys.exit(main())
