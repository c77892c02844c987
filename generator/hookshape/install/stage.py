"""The scripts to stage under the harness home: rendered in memory from the spec, or copied from
an extracted dist/ tree (`--from`), verified against its MANIFEST."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import job_files, script_artifacts
from hookshape.render import manifest
from hookshape.spec.load import Loaded

SCRIPT_MODE = 0o755


def rendered(loaded: Loaded) -> dict[str, bytes]:
    """`bin/...` path -> bytes, rendered from the spec and templates."""
    return {a.path: a.data for a in script_artifacts(loaded)}


def _manifest(source: Path) -> dict[str, str]:
    """`bin/...` path -> sha256 from `<source>/MANIFEST`."""
    listed = manifest.read(source, HookshapeError, "--from wants an extracted dist/ tree")
    return {path: entry.sha256 for path, entry in listed.items() if path.startswith("bin/")}


def from_dist(source: Path) -> dict[str, bytes]:
    """Every `bin/` file the MANIFEST lists, each checked against its sha256."""
    out = {}
    for rel, digest in sorted(_manifest(source).items()):
        path = source / rel
        if not path.is_file():
            raise HookshapeError(f"{path}: listed in MANIFEST but missing")
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise HookshapeError(f"{path}: sha256 does not match MANIFEST (corrupt or edited copy)")
        out[rel] = data
    return out


def check_complete(loaded: Loaded, scripts: dict[str, bytes], source: Path) -> None:
    """A dist copy must hold every file of every gate of the spec in use."""
    for tentacle in loaded.spec.gates():
        for rel in job_files(loaded, tentacle.name):
            if rel not in scripts:
                raise HookshapeError(f"{source}: no {rel} in MANIFEST; was it rendered from "
                                     f"another spec than {loaded.spec_path}?")


def scripts(loaded: Loaded, source: Path | None) -> dict[str, bytes]:
    if source is None:
        return rendered(loaded)
    found = from_dist(source)
    check_complete(loaded, found, source)
    return found
