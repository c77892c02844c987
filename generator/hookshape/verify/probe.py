"""A recorder in front of each installed gate of the scratch home: it keeps what the CLI sent
the gate (the event on stdin) and what the gate answered (stdout, stderr, exit code), then gives
the CLI that same answer. The gate itself runs unchanged, from its own directory."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REAL_SUFFIX = ".verified"  # the gate moves beside its recorder under this name

RECORDER = """#!/bin/sh
# hookshape verify: keeps what the CLI sent this gate and what it answered, then answers the same.
_hsv_d=$(mktemp -d {calls}) || exec {real} "$@"
cat >"$_hsv_d/in"
{real} "$@" <"$_hsv_d/in" >"$_hsv_d/out" 2>"$_hsv_d/err"
_hsv_rc=$?
cat "$_hsv_d/out"
cat "$_hsv_d/err" >&2
printf '%s\\n' "$_hsv_rc" >"$_hsv_d/rc"
exit "$_hsv_rc"
"""


def wrap(gate: Path, calls: Path) -> None:
    """Put a recorder in front of the gate at `gate` (idempotent); its calls go under `calls`."""
    real = gate.with_name(gate.name + REAL_SUFFIX)
    if not real.exists():
        gate.rename(real)
    calls.mkdir(parents=True, exist_ok=True)
    text = RECORDER.format(calls=shlex.quote(f"{calls}/{gate.name}.XXXXXX"), real=shlex.quote(str(real)))
    gate.write_text(text)
    gate.chmod(0o755)


@dataclass(frozen=True)
class Call:
    """One run of a gate: what the CLI sent and what the gate answered (code None: the gate
    never finished, e.g. the CLI killed it)."""

    gate: str
    started: int  # ns, for the order of the calls
    payload: bytes
    stdout: str
    stderr: str
    code: int | None

    def event(self) -> dict[str, Any]:
        """The event as a JSON object ({} when it is not one)."""
        try:
            value = json.loads(self.payload)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def calls(folder: Path) -> list[Call]:
    """Every recorded call, oldest first."""
    out = []
    for run in folder.iterdir() if folder.is_dir() else ():
        stdin = run / "in"
        if not run.is_dir() or not stdin.is_file():
            continue
        code = _text(run / "rc").strip()
        out.append(Call(run.name.rsplit(".", 1)[0], stdin.stat().st_mtime_ns, stdin.read_bytes(),
                        _text(run / "out"), _text(run / "err"), int(code) if code.isdigit() else None))
    return sorted(out, key=lambda c: c.started)
