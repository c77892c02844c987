"""What one install/uninstall/doctor run is about: spec, vendors, scope, homes, project."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hookshape.errors import HookshapeError
from hookshape.install.paths import Scope, config_path, project_dir, settings_path
from hookshape.plan.homes import Homes, homes
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile


@dataclass(frozen=True)
class Request:
    loaded: Loaded
    profiles: list[Profile]
    scope: Scope
    homes: Homes
    project: Path
    force: bool = False
    dry_run: bool = False
    skipped: list[str] = field(default_factory=list)  # vendors this scope has no config for

    def config_path(self, profile: Profile) -> Path:
        return config_path(profile, self.scope, self.homes.user, self.project, self.loaded.spec.harness.name)

    def settings_path(self, profile: Profile) -> Path | None:
        """The vendor's settings file beside its hooks file in this scope (None: it has none)."""
        return settings_path(profile, self.scope, self.homes.user, self.project,
                             self.loaded.spec.harness.name)

    @property
    def stage(self) -> Path:
        """Where the scripts go: the harness home, or at project scope the project's folder of
        them (harness.project_dir), which the project commits."""
        if self.scope == "project":
            return self.project / self.loaded.spec.harness.project_dir
        return self.homes.harness

    def file_key(self, rel: str) -> str:
        """A staged script's key in the ledger: its path under the harness home, or the absolute
        path of one staged elsewhere (in a project)."""
        return rel if self.stage == self.homes.harness else str(self.stage / rel)


def pick(loaded: Loaded, names: tuple[str, ...], enabled_only: bool = True) -> list[Profile]:
    """The profiles named (all the spec enables when none), each checked against the spec."""
    if not names:
        return loaded.vendors
    out = []
    for name in dict.fromkeys(names):
        if name not in loaded.profiles:
            known = ", ".join(sorted(loaded.profiles))
            near = difflib.get_close_matches(name, sorted(loaded.profiles), n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise HookshapeError(f"unknown vendor {name!r} ({hint}known: {known})")
        vendor = loaded.spec.vendors.get(name)
        if enabled_only and (vendor is None or not vendor.enabled):
            fix = (f"add a [vendors.{name}] table to it" if vendor is None
                   else f"set enabled = true under [vendors.{name}]")
            raise HookshapeError(f"{loaded.spec_path}: vendors.{name} is not enabled in the spec: {fix}")
        out.append(loaded.profiles[name])
    return out


def make(loaded: Loaded, names: tuple[str, ...], scope: Scope, project: Path | None,
         home: Path | None, force: bool = False, dry_run: bool = False,
         env: Mapping[str, str] | None = None, enabled_only: bool = True,
         named: bool | None = None, runs: bool = True) -> Request:
    where = homes(loaded.spec, home, os.environ if env is None else env)
    return make_at(loaded, names, scope, project, where, force, dry_run, enabled_only, named, runs)


def make_at(loaded: Loaded, names: tuple[str, ...], scope: Scope, project: Path | None,
            where: Homes, force: bool = False, dry_run: bool = False,
            enabled_only: bool = True, named: bool | None = None, runs: bool = True) -> Request:
    """The request for homes already resolved (those a plan was made for). `named`: the vendors
    were named by the user (default: when any are given), so one this scope leaves out is an
    error; `runs`: at project scope, only the vendors that can run a project's setup."""
    chosen = pick(loaded, names, enabled_only)
    profiles, skipped = in_scope(chosen, scope, bool(names) if named is None else named, runs)
    return Request(loaded=loaded, profiles=profiles, scope=scope, homes=where,
                   project=project_dir(project), force=force, dry_run=dry_run, skipped=skipped)


def _left_out(p: Profile, scope: Scope, runs: bool) -> str:
    """Why this scope leaves the vendor out ("" when it does not)."""
    raw = p.config.user_path if scope == "user" else p.config.project_path
    if scope == "project" and runs and p.project.cannot:
        return f"{p.id}: {p.vendor.display} cannot run a project's setup: {p.project.cannot}"
    if not raw:
        return (f"{p.id}: {p.vendor.display} reads hooks from no {scope} config file (its user "
                f"config: {p.config.user_path})")
    return ""


def in_scope(profiles: list[Profile], scope: Scope, named: bool,
             runs: bool = True) -> tuple[list[Profile], list[str]]:
    """The profiles with a config file in this scope (at project scope, with `runs`, only those
    that can run a project's setup), and a note for each left out (a vendor named on the
    command line is an error instead)."""
    keep, notes = [], []
    for p in profiles:
        note = _left_out(p, scope, runs)
        if not note:
            keep.append(p)
        elif named:
            raise HookshapeError(note)
        else:
            notes.append(note + ": skipped")
    return keep, notes


def decode(data: bytes | None, path: Path) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HookshapeError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def diff(path: Path, before: bytes | None, after: bytes | None) -> str:
    """A unified diff of one file (`/dev/null` for a file created or removed)."""
    old = decode(before, path).splitlines(keepends=True)
    new = decode(after, path).splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, "/dev/null" if before is None else f"a{path}",
                                 "/dev/null" if after is None else f"b{path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
