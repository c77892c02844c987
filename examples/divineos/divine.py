"""What the DivineOS hooks share: the view the gate hands them ($DOS_*), the harness home where
the logbook and the lessons are kept, and the JSON answer a hook prints.

The logbook (<home>/logbook.jsonl) and the lessons (<home>/lessons.jsonl) are JSON lines, each
appended with one write to a file opened for appending, so hooks of parallel sessions never
interleave their lines; a reader skips a line it cannot parse.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

PREFIX = "DOS_"
TAIL_BYTES = 256 * 1024  # a reader looks at the end of a file only: the newest lines


def view(name: str) -> str:
    return os.environ.get(PREFIX + name, "")


def paths() -> list[str]:
    return [p for p in view("PATHS").split("\n") if p]


def home() -> Path:
    return Path(view("HOME") or Path.home() / ".divineos")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def answer(**keys: Any) -> None:
    """The hook's one JSON answer on stdout: decision, reason, context, input."""
    print(json.dumps(keys, ensure_ascii=False))


def append(name: str, entry: dict[str, Any]) -> None:
    path = home() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read(name: str) -> list[dict[str, Any]]:
    """The newest entries of a JSON-lines file of the home, oldest first ([] when there is none)."""
    try:
        with open(home() / name, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            start = max(0, fh.tell() - TAIL_BYTES)
            fh.seek(start)
            data = fh.read()
    except OSError:
        return []
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]  # the first line may start inside an entry
    out = []
    for raw in lines:
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
