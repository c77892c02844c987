"""A vendor plugin or extension, built from the vendor profile's [plugin] section alone (a new
format is a profile, not code): the manifest, the hooks file in the vendor's shape with every
command through the plugin's root variable, the rendered scripts, a README and a LICENSE; with
a marketplace, the marketplace file beside the plugin's folder.

The scripts are dist/'s bin/ under the profile's scripts folder, unchanged: a gate finds its
tentacle beside itself and keeps its state in the harness home, so the plugin's directory is
only read (vendors install it read-only or replace it on update)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hookshape.package.common import PackageError, shipped, source_date_epoch
from hookshape.package.docs import license_text, readme
from hookshape.package.fields import document, values
from hookshape.package.outdir import write_tree
from hookshape.plan.artifacts import DATA, Artifact
from hookshape.plan.configs import body, dump_json
from hookshape.plan.entries import HookEntry, entries
from hookshape.spec.load import Loaded
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Plugin, Profile

GATES = "bin/"  # dist/'s folder of gates, tentacles and hook files
README = "README.md"
LICENSE = "LICENSE"


@dataclass(frozen=True)
class Built:
    """A plugin in memory: its files (paths relative to the output directory) and where the
    plugin itself is among them ("" unless a marketplace holds it)."""

    files: list[Artifact]
    plugin_dir: str


def formats(loaded: Loaded) -> dict[str, Profile]:
    """Each plugin format the profiles give, by its --as name."""
    found: dict[str, Profile] = {}
    for profile in loaded.profiles.values():
        if profile.plugin is None:
            continue
        other = found.get(profile.plugin.format)
        if other is not None:
            raise PackageError(f"the profiles {other.id} and {profile.id} both give the plugin "
                               f"format {profile.plugin.format!r}")
        found[profile.plugin.format] = profile
    return found


def command(spec: Spec, profile: Profile, plugin: Plugin, gate: str) -> str:
    """`<PROVIDER>=<vendor> "${<root var>}/<scripts>/<gate>"`: the vendor expands (or substitutes)
    the root variable inside the quotes, so a plugin directory with spaces stays one word."""
    return (f'{spec.harness.provider_env}={profile.id} '
            f'"${{{plugin.root_var}}}/{plugin.scripts}/{gate}"')


def plugin_entries(loaded: Loaded, profile: Profile, plugin: Plugin) -> list[HookEntry]:
    spec = loaded.spec
    found = [replace(e, command=command(spec, profile, plugin, e.gate)) for e in entries(spec, profile)]
    if not found:
        raise PackageError(f"{plugin.format}: the spec registers no hook that "
                           f"{profile.vendor.display} has an event for")
    return found


def hooks_file(loaded: Loaded, profile: Profile, plugin: Plugin, found: list[HookEntry]) -> bytes:
    """The entries as the vendor's plugin reads them: always JSON, shaped by [config] (root key,
    layout, handler keys, extras) where [plugin.hooks] does not say otherwise."""
    config = profile.plugin_config()
    shaped = profile.model_copy(update={"config": config})
    return dump_json({**config.extras, **body(loaded.spec, shaped, found)}).encode()


def check_names(loaded: Loaded, plugin: Plugin, marketplace: bool) -> None:
    pkg = loaded.spec.package
    names = [("package.name", pkg.name)] + ([("package.marketplace", pkg.marketplace)] if marketplace else [])
    for key, name in names:
        if not re.fullmatch(plugin.name_pattern, name):
            raise PackageError(f"{loaded.spec_path}: {key}: {name!r} is not a name a "
                               f"{plugin.display} can have: {plugin.name_rule}")


def vendor_of(loaded: Loaded, fmt: str) -> tuple[Profile, Plugin]:
    profile = formats(loaded).get(fmt)
    if profile is None or profile.plugin is None:
        raise PackageError(f"--as {fmt}: not a format (one of tarball, "
                           + ", ".join(sorted(formats(loaded))) + ")")
    if profile.id not in loaded.spec.enabled_vendors():
        raise PackageError(f"--as {fmt}: the spec does not enable {profile.vendor.display} "
                           f"([vendors.{profile.id}])")
    return profile, profile.plugin


def plugin_files(loaded: Loaded, profile: Profile, plugin: Plugin,
                 rendered: list[Artifact]) -> list[Artifact]:
    """The plugin's own files: manifest, hooks file, scripts, README, LICENSE."""
    found = plugin_entries(loaded, profile, plugin)
    manifest = dump_json(document(plugin.manifest.keys, values(loaded, plugin))).encode()
    scripts = [Artifact(f"{plugin.scripts}/{a.path.removeprefix(GATES)}", a.mode, a.data)
               for a in rendered if a.path.startswith(GATES)]
    return [Artifact(plugin.manifest.path, DATA, manifest),
            Artifact(plugin.hooks.path, DATA, hooks_file(loaded, profile, plugin, found)),
            *scripts,
            Artifact(README, DATA, readme(loaded, profile, found)),
            Artifact(LICENSE, DATA, license_text(loaded))]


def build_plugin(loaded: Loaded, fmt: str, rendered: list[Artifact], marketplace: bool) -> Built:
    """The files of the plugin, or of a marketplace holding it; nothing is written here."""
    profile, plugin = vendor_of(loaded, fmt)
    if marketplace and plugin.marketplace is None:
        raise PackageError(f"--marketplace: a {plugin.display} has no marketplace file")
    check_names(loaded, plugin, marketplace)
    files = plugin_files(loaded, profile, plugin, rendered)
    inside = ""
    if marketplace and plugin.marketplace is not None:
        fields = values(loaded, plugin)
        inside = fields["path"]
        listing = dump_json(document(plugin.marketplace.keys, fields)).encode()
        files = [Artifact(plugin.marketplace.path, DATA, listing),
                 *(Artifact(f"{inside}/{a.path}", a.mode, a.data) for a in files)]
    paths = [a.path for a in files]
    clash = sorted({p for p in paths if paths.count(p) > 1})
    if clash:
        raise PackageError(f"--as {fmt}: two files at {clash[0]} (the profile's paths overlap)")
    return Built(sorted(files, key=lambda a: a.path), inside)


def package_plugin(loaded: Loaded, fmt: str, out: Path, source: Path | None = None,
                   marketplace: bool = False, env: Mapping[str, str] | None = None) -> Built:
    """Build the plugin (from the spec, or from the --from tree it renders) and write it as the
    new directory out; returns what was written."""
    mtime = source_date_epoch(os.environ if env is None else env)
    built = build_plugin(loaded, fmt, shipped(loaded, source), marketplace)
    write_tree(out, built.files, mtime)
    return built
