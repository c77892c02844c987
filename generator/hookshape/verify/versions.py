"""Which version of a vendor CLI this is, and the versions `hookshape verify` was proven with
(proven.txt: the npm specs the project's live tier installs and runs every scenario on)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")


def proven(package: str) -> list[str]:
    """The proven versions of an npm package, in the file's order."""
    text = (resources.files("hookshape") / "verify" / "proven.txt").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        spec = line.split("#", 1)[0].strip()
        name, at, version = spec.rpartition("@")
        if at and name == package:
            out.append(version)
    return out


def from_package(binary: Path, package: str) -> str:
    """The version in the package.json of the npm package the binary belongs to ('' if none)."""
    try:
        real = binary.resolve()
    except OSError:
        return ""
    for folder in list(real.parents)[:6]:
        manifest = folder / "package.json"
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name") == package:
            version = data.get("version")
            return version if isinstance(version, str) else ""
    return ""


def from_cli(binary: Path, env: Mapping[str, str], cwd: Path) -> str:
    """The version the CLI prints for --version ('' if it prints none)."""
    try:
        done = subprocess.run([str(binary), "--version"], env=dict(env), cwd=cwd, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    found = _VERSION.search(done.stdout) or _VERSION.search(done.stderr)
    return found.group(0) if found else ""


def version_of(binary: Path, package: str, env: Mapping[str, str], cwd: Path) -> str:
    return from_package(binary, package) or from_cli(binary, env, cwd)
