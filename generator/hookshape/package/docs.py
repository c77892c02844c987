"""A plugin's README.md and LICENSE, from the spec's [package], the vendor's profile and the
hook entries the plugin carries."""

from __future__ import annotations

import re

from hookshape import __version__
from hookshape.package.common import PackageError, switch_off, when
from hookshape.package.fields import text, values
from hookshape.plan.artifacts import spec_name
from hookshape.plan.entries import HookEntry
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Plugin, Profile

SPDX_URL = "https://spdx.org/licenses/{}.html"


def _hook_line(plugin: Plugin, entry: HookEntry) -> str:
    tools = f", on tools matching `{entry.matcher}`" if entry.matcher else ""
    return f"- `{entry.event}`{tools}: `{plugin.scripts}/{entry.gate}` ({entry.role.replace('_', ' ')})"


def _install(loaded: Loaded, profile: Profile, plugin: Plugin) -> list[str]:
    fields = values(loaded, plugin)
    lines = ["```sh", *(text(line, fields) for line in plugin.install), "```", ""]
    cfg = profile.config
    if cfg.enable_switch:
        where = cfg.settings.user_path if cfg.settings is not None else cfg.user_path
        lines += [f"Older versions of {profile.vendor.display} run hooks only with "
                  f"`{cfg.enable_switch} = true` in `{where}`.", ""]
    for note in plugin.notes:
        lines += [text(note, fields), ""]
    return lines


def _state(loaded: Loaded, plugin: Plugin) -> str:
    h = loaded.spec.harness
    return (f"The scripts run from the {plugin.display}'s own directory and never write into it "
            "(it may be read-only, and an update replaces it): their state, logs and switches "
            f"are in the harness home, `{h.home_default}` (or `${h.home_env}` when it is set), "
            "which the plugin shares with every other agent CLI the harness runs in.")


def readme(loaded: Loaded, profile: Profile, found: list[HookEntry]) -> bytes:
    """What the plugin is, how to install it, what each hook runs, where its state lives and how
    to turn it off."""
    spec, pkg = loaded.spec, loaded.spec.package
    plugin = profile.plugin
    assert plugin is not None
    home = spec.harness.home_default
    about = [f"{pkg.name} {pkg.version} is a {plugin.display}: hooks that "
             f"{profile.vendor.display} runs at the agent's steps, as POSIX sh scripts in "
             f"`{plugin.scripts}/`."]
    about += [f"By {pkg.author}."] if pkg.author else []
    about += [f"Home page: {pkg.homepage}"] if pkg.homepage else []
    lines = [
        f"# {pkg.name}", "", pkg.description, "", " ".join(about), "",
        "## Install", "", *_install(loaded, profile, plugin),
        "## Hooks", "", *(_hook_line(plugin, e) for e in found), "",
        when(spec, home), "",
        "## State", "", _state(loaded, plugin), "",
        "## Switching the hooks off", "", switch_off(spec, home), "",
        "## License", "", _license_line(loaded), "",
        f"Packaged by hookshape {__version__} from `{spec_name(loaded)}`: change the spec and "
        "package it again rather than editing these files.", "",
    ]
    return "\n".join(lines).encode()


def _license_line(loaded: Loaded) -> str:
    pkg = loaded.spec.package
    if pkg.license_file or pkg.license:
        named = f"{pkg.license}: " if pkg.license else ""
        return f"{named}see `LICENSE`."
    return "None is granted: see `LICENSE`."


def license_text(loaded: Loaded) -> bytes:
    """LICENSE: the spec's license_file as it is, else the copyright line and the SPDX expression
    with where each license's text is, else a plain statement that none is granted."""
    pkg = loaded.spec.package
    if pkg.license_file:
        path = loaded.spec_path.parent / pkg.license_file
        try:
            return path.read_bytes()
        except OSError as exc:
            raise PackageError(f"{loaded.spec_path}: package.license_file: {pkg.license_file}: "
                               f"{exc.strerror or exc}") from None
    holder = pkg.author or f"the authors of {pkg.name}"
    head = [f"{pkg.name} {pkg.version}", "", f"Copyright (c) {holder}", ""]
    if not pkg.license:
        return "\n".join([*head, "No license is granted: all rights reserved.", ""]).encode()
    ids = [t for t in re.split(r" (?:AND|OR|WITH) ", pkg.license)]
    urls = [f"- {i}: {SPDX_URL.format(i)}" for i in ids]
    return "\n".join([*head, f"SPDX-License-Identifier: {pkg.license}", "",
                      "The license text:" if len(ids) == 1 else "The license texts:",
                      *urls, ""]).encode()
