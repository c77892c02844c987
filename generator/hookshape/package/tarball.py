"""The release artifact: a reproducible tarball of the rendered dist/ tree plus an INSTALL.md and
the spec it was rendered from (hookshape.toml, which `install --from` uses), and a SHA256SUMS
beside it.

Reproducible means two runs give the same bytes: members sorted, fixed owner, normalised modes,
one mtime (SOURCE_DATE_EPOCH, else a constant), gzip without a timestamp or a file name."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hookshape import __version__
from hookshape.package.common import (
    PackageError,
    normal_mode,
    shipped,
    source_date_epoch,
    spec_bytes,
    switch_off,
    when,
)
from hookshape.plan.artifacts import DATA, Artifact
from hookshape.plan.entries import home_reference
from hookshape.render.write import write_atomic
from hookshape.spec.load import SPEC_NAME, Loaded

DIR_MODE = 0o755
INSTALL_NAME = "INSTALL.md"
SUMS_NAME = "SHA256SUMS"


@dataclass(frozen=True)
class Package:
    tarball: Path
    sums: Path
    sha256: str
    members: int


def top_name(loaded: Loaded) -> str:
    """`<harness>-hooks-<hookshape version>`: the tarball's stem and its top folder."""
    return f"{loaded.spec.harness.name}-hooks-{__version__}"


# -- INSTALL.md ----------------------------------------------------------------------------

def _switch_note(switch: str, legacy: list[str]) -> str:
    note = f"set `{switch} = true`" if switch else ""
    if switch and legacy:
        note += " (and leave none of " + ", ".join(f"`{s}`" for s in legacy) + " set to false)"
    return note


def _merge_step(loaded: Loaded, vid: str, filename: str) -> str:
    profile = loaded.profiles[vid]
    cfg = profile.config
    src = f"`config/{vid}/{filename}`"
    dst = f"`{cfg.user_path}` (user) or `{cfg.project_path}` (one project)"
    entries = {"groups": "matcher groups", "flat": "handlers", "list": "handlers",
               "groups-for-matchers": "entries"}[cfg.layout]
    if cfg.syntax == "toml":
        how = f"append the managed block of {src} (between its markers) to {dst}"
    elif cfg.root == "{name}":
        how = (f"add the `{loaded.spec.harness.name}` key of {src} to the top-level object of "
               f"{dst}, keep every other key")
    else:
        where = f"the `{cfg.root}` object" if cfg.root else "the events"
        how = (f"merge {where} of {src} into {dst}: append each event's {entries} to the same "
               "event's list, keep every other key")
        if cfg.extras:
            how += " (and add " + ", ".join(f"`{k}`" for k in cfg.extras) + " where missing)"
    switch = _switch_note(cfg.enable_switch, list(cfg.legacy_switches))
    if switch and cfg.settings is not None:
        switch += f" in `{cfg.settings.user_path}`"
    if switch:
        how += f"; {switch}"
    return f"- **{profile.vendor.display}** (`{vid}`): {how}."


def install_md(loaded: Loaded, artifacts: list[Artifact]) -> bytes:
    """How to install from the extracted folder: with hookshape, or by hand. Built from the
    spec and the vendor profiles, so it names this harness's own paths and switches."""
    spec = loaded.spec
    h = spec.harness
    top = top_name(loaded)
    home = h.home_default
    gates = sorted(a.path for a in artifacts
                   if a.path.startswith("bin/") and a.path.count("/") == 1)
    configs = {a.path.split("/")[1]: a.path.split("/", 2)[2]
               for a in artifacts if a.path.startswith("config/") and a.path.count("/") == 2}
    lines = [
        f"# {h.name} hooks {__version__}",
        "",
        f"The `{h.name}` hook harness, rendered by hookshape {__version__} from its spec: "
        "POSIX-sh gates and tentacles (`bin/`), one config block per agent CLI (`config/`), "
        "what each CLI supports (`CAPABILITIES.md`), the hash of every file (`MANIFEST`) and "
        f"the spec itself (`{SPEC_NAME}`).",
        "",
        "Vendors: " + ", ".join(f"{loaded.profiles[v].vendor.display} (`{v}`)"
                                for v in spec.enabled_vendors()) + ".",
        "",
        "## Install with hookshape",
        "",
        "```sh",
        f"tar -xzf {top}.tar.gz",
        f"pip install 'hookshape=={__version__}'   # or: pipx install 'hookshape=={__version__}'",
        f"hookshape install --from {top}",
        "```",
        "",
        f"This copies `bin/` into the harness home (`{home}`, or `${h.home_env}` when set) and "
        "merges the hook entries into each CLI's user config, leaving your own settings alone. "
        "`hookshape install --help` lists its options.",
        "",
        f"`{SPEC_NAME}` in this folder is the spec these files were rendered from; "
        "`install --from` uses it. Keep it for later: "
        f"`hookshape doctor --spec {top}/{SPEC_NAME}` checks the wiring, "
        f"`hookshape uninstall --spec {top}/{SPEC_NAME}` takes the harness out again.",
        "",
        "## Install by hand",
        "",
        "1. Copy the scripts into the harness home, keeping their modes:",
        "",
        "   ```sh",
        f"   mkdir -p {home}/bin",
        f"   cp -Rp {top}/bin/. {home}/bin/",
        "   ```",
        "",
        f"2. Wire each CLI. The commands in `config/` run `{home_reference(spec)}/bin/<gate>`; "
        f"if you use another home (`{h.home_env}`), change that path in the commands too.",
        "",
    ]
    lines += ["   " + _merge_step(loaded, vid, configs[vid]) for vid in sorted(configs)]
    lines += [
        "",
        "3. Check a file against `MANIFEST` if in doubt: `sha256sum bin/<gate>` must match "
        "its line.",
        "",
        "## Gates",
        "",
    ]
    for path in gates:
        name = path.removeprefix("bin/")
        tentacle = next((t for t in spec.gates() if t.name == name), None)
        what = f"{tentacle.role} ({tentacle.phase})" if tentacle else ""
        staged = "" if tentacle is None or tentacle.registered else "; staged, not registered"
        lines.append(f"- `{path}`: {what}{staged}")
    lines += [
        "",
        "## When the gates act",
        "",
        when(spec, home),
        "",
        "## Switching the hooks off",
        "",
        switch_off(spec, home),
        "",
    ]
    return "\n".join(lines).encode()


# -- the tarball ---------------------------------------------------------------------------

def _dirs(paths: list[str]) -> set[str]:
    out: set[str] = set()
    for path in paths:
        out.update(p.as_posix() for p in PurePosixPath(path).parents if p.as_posix() != ".")
    return out


def _info(name: str, mode: int, mtime: int, size: int = 0,
          directory: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE if directory else tarfile.REGTYPE
    info.mode = mode
    info.mtime = mtime
    info.size = size
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def tarball(top: str, artifacts: list[Artifact], mtime: int) -> bytes:
    """A gzipped tar of the artifacts under `top/`: sorted, owner 0:0, modes 0755/0644, one
    mtime, and a gzip header without timestamp or name."""
    files = {f"{top}/{a.path}": a for a in artifacts}
    if len(files) != len(artifacts):
        raise PackageError("two files with the same path")
    dirs = _dirs(list(files)) | {top}
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT, encoding="utf-8") as tar:
        for name in sorted(dirs | set(files)):
            if name in dirs:
                tar.addfile(_info(name, DIR_MODE, mtime, directory=True))
                continue
            art = files[name]
            info = _info(name, normal_mode(art.mode), mtime, len(art.data))
            tar.addfile(info, io.BytesIO(art.data))
    return raw.getvalue()


def package(loaded: Loaded, out: Path, source: Path | None = None,
            env: Mapping[str, str] | None = None) -> Package:
    """Build `<out>/<top>.tar.gz` and `<out>/SHA256SUMS`; returns what was written."""
    mtime = source_date_epoch(os.environ if env is None else env)
    files = shipped(loaded, source)
    for name in (INSTALL_NAME, SPEC_NAME):
        if any(a.path == name for a in files):
            raise PackageError(f"the tree already holds a {name}")
    files = [*files, Artifact(INSTALL_NAME, DATA, install_md(loaded, files)),
             Artifact(SPEC_NAME, DATA, spec_bytes(loaded))]
    top = top_name(loaded)
    data = tarball(top, files, mtime)
    digest = hashlib.sha256(data).hexdigest()
    target = out / f"{top}.tar.gz"
    sums = out / SUMS_NAME
    write_all(((target, data), (sums, f"{digest}  {target.name}\n".encode())))
    return Package(tarball=target, sums=sums, sha256=digest, members=len(files))


def write_all(files: tuple[tuple[Path, bytes], ...]) -> None:
    """Write each file atomically; on an error take back the files this call created, and say
    which path failed in one line."""
    created: list[Path] = []
    try:
        for path, data in files:
            new = not path.exists()
            write_atomic(path, data, DATA)
            if new:
                created.append(path)
    except OSError as exc:
        for path in created:
            path.unlink(missing_ok=True)
        raise PackageError(f"{exc.filename or path}: cannot write: {exc.strerror or exc}") from None
