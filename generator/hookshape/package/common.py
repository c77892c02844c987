"""What every package format shares: the rendered files (in memory, or a rendered tree checked
against its MANIFEST and against the spec), the build epoch, normalised modes, and the words
that say when a gate acts."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.artifacts import DATA, EXEC, Artifact
from hookshape.plan.plan import build
from hookshape.render import manifest
from hookshape.spec.load import Loaded
from hookshape.spec.model import Spec

# 1980-01-01T00:00:00Z: the usual floor of reproducible builds (zip cannot go lower)
DEFAULT_EPOCH = 315532800
MANIFEST_NAME = manifest.NAME


class PackageError(HookshapeError):
    """The package cannot be built (a bad --from tree, a bad SOURCE_DATE_EPOCH, a name the
    format refuses, an output directory in the way)."""


def source_date_epoch(env: Mapping[str, str]) -> int:
    raw = env.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return DEFAULT_EPOCH
    if not raw.isdigit():
        raise PackageError(f"SOURCE_DATE_EPOCH={raw!r}: not a non-negative integer")
    return int(raw)


def normal_mode(mode: int) -> int:
    """0755 for anything executable by its owner, else 0644."""
    return EXEC if mode & 0o100 else DATA


def rendered(loaded: Loaded) -> list[Artifact]:
    """dist/ as the spec renders it now (in memory: the package is never stale)."""
    return [Artifact(a.path, normal_mode(a.mode), a.data) for a in build(loaded).artifacts]


def shipped(loaded: Loaded, source: Path | None) -> list[Artifact]:
    """What a package ships: the spec rendered in memory, or the --from tree when it is exactly
    that render."""
    want = rendered(loaded)
    return want if source is None else same_render(from_tree(source), want, source, loaded)


def _manifest(root: Path) -> dict[str, tuple[int, str]]:
    listed = manifest.read(root, PackageError, "is this a rendered dist/ tree?")
    return {path: (entry.mode, entry.sha256) for path, entry in listed.items()}


def from_tree(root: Path) -> list[Artifact]:
    """A rendered tree on disk. It must agree with its own MANIFEST: every listed file present
    with its hash and executable bit, nothing unlisted (so a half-edited dist/ is refused)."""
    if not root.is_dir():
        raise PackageError(f"{root}: no such directory")
    listed = _manifest(root)
    found: list[Artifact] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            raise PackageError(f"{root}/{rel}: a symlink; the package holds regular files only")
        if path.is_dir():
            continue
        if not path.is_file():
            raise PackageError(f"{root}/{rel}: not a regular file")
        data = path.read_bytes()
        mode = normal_mode(path.stat().st_mode)
        if rel != MANIFEST_NAME:
            want = listed.pop(rel, None)
            if want is None:
                raise PackageError(f"{root}/{rel}: not listed in {MANIFEST_NAME}")
            if hashlib.sha256(data).hexdigest() != want[1]:
                raise PackageError(f"{root}/{rel}: differs from {MANIFEST_NAME} (re-render it)")
            if normal_mode(want[0]) != mode:
                raise PackageError(
                    f"{root}/{rel}: mode {mode:04o}, {MANIFEST_NAME} says {want[0]:04o}")
        found.append(Artifact(rel, mode, data))
    if listed:
        missing = ", ".join(sorted(listed))
        raise PackageError(f"{root}: missing {missing} (listed in {MANIFEST_NAME})")
    return found


def same_render(tree: list[Artifact], want: list[Artifact], source: Path,
                loaded: Loaded) -> list[Artifact]:
    """A --from tree goes out with the spec (the tarball's hookshape.toml, a plugin's
    metadata): the tree must be what that spec renders, or the package would pair scripts with
    another spec."""
    if {a.path: a.data for a in tree} != {a.path: a.data for a in want}:
        raise PackageError(f"{source}: not what {loaded.spec_path} renders (re-render it, or "
                           "pass the spec it was rendered from with --spec)")
    return tree


def spec_bytes(loaded: Loaded) -> bytes:
    """The spec file as the user wrote it (comments kept): the tarball's hookshape.toml."""
    try:
        return loaded.spec_path.read_bytes()
    except OSError as exc:
        raise PackageError(f"{loaded.spec_path}: cannot read: {exc.strerror or exc}") from None


def when(spec: Spec, home: str) -> str:
    """The conditions a gate checks before its tentacle, as the spec turns them on."""
    g = spec.gate
    halt = "; a halt skips this check" if spec.halt.enabled else ""
    parts = []
    if g.readiness:
        parts.append(f"while the daemon's readiness lease holds (`{home}/{g.ready_file}` and "
                     f"`{home}/{g.pid_file}` hold the same numeric pid, and `{home}/"
                     f"{g.heartbeat_file}` was touched in the last {g.heartbeat_max_age_s} s"
                     f"{halt})")
    if g.armed_roots:
        parts.append("in a working directory at or below an absolute path listed in "
                     f"`{home}/{g.armed_roots_file}` (one per line)")
    if not parts:
        return "A gate runs its tentacle on every event, in any working directory."
    return f"A gate runs its tentacle only {' and only '.join(parts)}. Otherwise it exits 0 with no output."


def switch_off(spec: Spec, home: str) -> str:
    """How the user turns every gate off, and what the gates do when they fail."""
    g = spec.gate
    return (f"Create `{home}/{g.kill_switch_file}`, or set "
            f"`{g.kill_switch_env}={g.kill_switch_off_value}` "
            "in the CLI's environment: every gate then exits 0 at once. The gates fail open: a "
            f"crash, a timeout ({g.deadline_ms} ms) or a missing tool never blocks the agent.")
