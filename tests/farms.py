"""PATH farms: directories of symlinks that stand in for PATH, to run a script with a tool
missing, another program in a tool's place, or busybox applets only. One module for the
tentacle tests, the conformance matrix and the bench."""

from __future__ import annotations

import shutil
import stat
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

SYSTEM_DIRS = ("/usr/local/bin", "/usr/bin", "/bin")


def dropping(names: Iterable[str]) -> Callable[[str], bool]:
    """A drop test from names: an exact name, or a prefix ending in `*` (`python*`)."""
    exact = {n for n in names if not n.endswith("*")}
    prefixes = tuple(n[:-1] for n in names if n.endswith("*"))
    return lambda name: name in exact or (bool(prefixes) and name.startswith(prefixes))


def executables(dirs: Iterable[str] = SYSTEM_DIRS) -> dict[str, Path]:
    """Name -> path of every executable regular file (through symlinks) of those dirs, the
    first dir that has a name winning, as a PATH lookup would."""
    found: dict[str, Path] = {}
    for d in dirs:
        p = Path(d)
        if not p.is_dir():
            continue
        for entry in sorted(p.iterdir()):
            if entry.name in found:
                continue
            try:
                mode = entry.stat().st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and mode & 0o111:
                found[entry.name] = entry
    return found


def farm(dest: Path, drop: Iterable[str] | Callable[[str], bool] = (),
         swap: dict[str, str] | None = None) -> str:
    """A dir of symlinks to every executable of the system dirs except the dropped names (names
    and `prefix*` patterns, or a test); `swap` links a name to another program. Returns it as a
    PATH value."""
    gone = drop if callable(drop) else dropping(drop)
    dest.mkdir(parents=True, exist_ok=True)
    for name, path in executables().items():
        if not gone(name):
            (dest / name).symlink_to(path)
    for name, target in (swap or {}).items():
        (dest / name).unlink(missing_ok=True)
        (dest / name).symlink_to(target)
    return str(dest)


def busybox_farm(dest: Path) -> str:
    """A dir where busybox and every applet of `busybox --list` link to busybox."""
    dest.mkdir(parents=True, exist_ok=True)
    bb = shutil.which("busybox")
    assert bb, "busybox is needed for the busybox-only PATH"
    applets = subprocess.run([bb, "--list"], capture_output=True, text=True, check=True).stdout.split()
    for name in {*applets, "busybox"}:
        if "/" not in name:
            (dest / name).symlink_to(bb)
    return str(dest)
