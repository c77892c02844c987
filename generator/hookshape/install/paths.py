"""Where each vendor's config file is, for a scope (the homes themselves: plan.homes)."""

from __future__ import annotations

import os
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.plan.homes import Scope as Scope
from hookshape.spec.profiles import Profile


def expand(raw: str, home: Path, project: Path) -> Path:
    """A profile path: `~/...` is under the user home, anything else under the project."""
    if raw == "~" or raw.startswith("~/"):
        return home / raw.removeprefix("~").lstrip("/")
    return project / raw


def config_path(profile: Profile, scope: Scope, home: Path, project: Path, name: str) -> Path:
    """The config file a scope's install edits (`{name}` in the profile's path: the harness
    name, for a vendor that reads a folder of hook files)."""
    raw = profile.config.user_path if scope == "user" else profile.config.project_path
    if not raw:
        raise HookshapeError(f"{profile.id}: the vendor profile has no {scope} config path")
    return expand(raw.replace("{name}", name), home, project)


def settings_path(profile: Profile, scope: Scope, home: Path, project: Path, name: str) -> Path | None:
    """The vendor's settings file beside its hooks file in a scope (switches, trust records;
    None: the hooks file holds them, or the scope has none)."""
    settings = profile.config.settings
    raw = None if settings is None else settings.user_path if scope == "user" else settings.project_path
    return expand(raw.replace("{name}", name), home, project) if raw else None


def records_path(profile: Profile, home: Path, project: Path, name: str) -> Path:
    """The user file the vendor keeps its trust records in: its user settings file, else its
    user hooks config."""
    found = settings_path(profile, "user", home, project, name)
    return found or config_path(profile, "user", home, project, name)


def also_read(profile: Profile, home: Path, project: Path) -> list[Path]:
    """Files this vendor version reads hooks from besides its user and project config."""
    return [expand(raw, home, project) for raw in profile.config.also_read]


def legacy_paths(profile: Profile, home: Path, project: Path) -> list[Path]:
    """Files older versions of the vendor read hooks from and this one does not."""
    return [expand(raw, home, project) for raw in profile.config.legacy_paths]


def project_dir(option: Path | None) -> Path:
    return Path(os.path.abspath(option or Path.cwd()))


def real(path: Path) -> Path:
    """Follow a symlinked config (dotfile managers) so a rewrite lands in the real file."""
    return Path(os.path.realpath(path))
