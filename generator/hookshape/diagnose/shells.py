"""The shells a harness's scripts are run under by `hookshape test`: the machine's `sh`, and the
shells of the project's conformance matrix, each as the argv that runs a script file."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from hookshape.errors import HookshapeError

SH = "sh"
# the conformance matrix: name -> argv prefix (the tests run every rendered script under these)
MATRIX: dict[str, tuple[str, ...]] = {
    "dash": ("dash",),
    "busybox": ("busybox", "sh"),
    "bash": ("bash",),
    "bash-posix": ("bash", "--posix"),
    "posh": ("posh",),
    "yash": ("yash", "--posix"),
    "mksh": ("mksh",),
    "ksh93": ("ksh93",),
    "zsh": ("zsh", "--emulate", "sh", "--no-rcs"),
}


@dataclass(frozen=True)
class Shell:
    """A shell by its name, and the absolute argv that runs a script under it."""

    name: str
    argv: tuple[str, ...]

    def interpreter(self, folder: Path) -> str:
        """One word for the gate's shell variable (it runs `"$VAR" <script>`): the shell itself,
        or for one that needs arguments an exec wrapper written into folder."""
        if len(self.argv) == 1:
            return self.argv[0]
        wrapper = folder / f"sh-{self.name}"
        if not wrapper.exists():
            words = " ".join("'" + a.replace("'", "'\\''") + "'" for a in self.argv)
            wrapper.write_text(f'#!/bin/sh\nexec {words} "$@"\n')
            wrapper.chmod(0o755)
        return str(wrapper)


def _found(name: str, argv: tuple[str, ...]) -> Shell | None:
    exe = shutil.which(argv[0])
    return Shell(name, (exe, *argv[1:])) if exe else None


def installed() -> list[Shell]:
    """Every shell of the matrix found on PATH, in the matrix's order."""
    return [s for s in (_found(n, a) for n, a in MATRIX.items()) if s is not None]


def pick(names: tuple[str, ...], every: bool) -> list[Shell]:
    """The shells named (`sh`, or a matrix name), or every installed one of the matrix."""
    if every:
        found = installed()
        if not found:
            raise HookshapeError(f"no shell of the matrix is installed ({', '.join(MATRIX)})")
        return found
    out = []
    for name in dict.fromkeys(names or (SH,)):
        if name != SH and name not in MATRIX:
            raise HookshapeError(f"unknown shell {name!r} (known: {SH}, {', '.join(MATRIX)})")
        shell = _found(name, MATRIX.get(name, (SH,)))
        if shell is None:
            raise HookshapeError(f"{name}: not installed (not found on PATH)")
        out.append(shell)
    return out
