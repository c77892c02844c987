"""goal-gate: no tool call before the session has a goal.

The goal is one line in <cwd>/.goals/<session id>. Writing that file (with the agent's edit tool,
or a shell command that names it) is the one call allowed without it. Exit 0 allows; exit 2 with
the reason on stderr blocks.
"""

import os
import sys
from pathlib import Path


def goal_file() -> Path | None:
    cwd, session = os.environ.get("GA_CWD", ""), os.environ.get("GA_SESSION", "")
    if not cwd or not session:
        return None
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in session)[:64]
    return Path(cwd) / ".goals" / safe


def sets_goal(goal: Path) -> bool:
    paths = [p for p in os.environ.get("GA_PATHS", "").split("\n") if p]
    if paths and all(Path(p) == goal for p in paths):
        return True
    return str(goal) in os.environ.get("GA_COMMAND", "") or f".goals/{goal.name}" in os.environ.get("GA_COMMAND", "")


def main() -> int:
    goal = goal_file()
    if goal is None:
        return 0  # no session or no cwd in this event: nothing to key a goal on
    try:
        if goal.read_text(encoding="utf-8").strip():
            return 0
    except OSError:
        pass
    if sets_goal(goal):
        return 0
    print(f"BLOCKED: this session has no goal yet. First write one line saying what this session "
          f"will achieve to {goal} (create the folder if needed); then go on.", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
