"""One entry point per config shape (profile `[config]`: syntax, root, layout), never per vendor
name: a TOML config gets a marked block of its own, a JSON named bundle one member, any other JSON
config its entries merged into the `<root>.<Event>` arrays."""

from __future__ import annotations

import json
from pathlib import Path

from hookshape.edit import bundlejson, hooksjson, jsonedit, tomledit
from hookshape.edit.hooksjson import Tree
from hookshape.edit.managed import Owner
from hookshape.edit.units import Known, Outcome
from hookshape.plan.configs import markers
from hookshape.plan.wiring import Want
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile


def tree(profile: Profile) -> Tree:
    c = profile.config
    return Tree(root=c.root, command=c.handler.command, extras=dict(c.extras))


def marker_block(spec: Spec) -> str:
    start, end = markers(spec)
    return f"{start}\n{end}\n"


def merge(profile: Profile, text: str, path: Path, own: Owner, wanted: Want, known: Known,
          force: bool) -> Outcome:
    if profile.config.syntax == "toml":
        return tomledit.merge(text, path, wanted, known, force)
    comments, key = profile.config.json_comments, profile.config.handler.command
    if profile.config.bundled:
        return bundlejson.merge(text, path, own, wanted, known, force, comments, key)
    return hooksjson.merge(text, path, own, wanted, known, force, comments, tree(profile))


def unmerge(spec: Spec, profile: Profile, text: str, path: Path, own: Owner, known: Known,
            force: bool) -> Outcome:
    if profile.config.syntax == "toml":
        return tomledit.unmerge(text, path, marker_block(spec), known, force)
    comments, key = profile.config.json_comments, profile.config.handler.command
    if profile.config.bundled:
        return bundlejson.unmerge(text, path, own, known, force, comments, key)
    return hooksjson.unmerge(text, path, own, known, force, comments, tree(profile))


def settle(profile: Profile, text: str, path: Path, want: Want, known: Known,
           force: bool) -> Outcome:
    """The vendor's settings file beside its hooks file (profile [config.settings]): entries of
    ours an older install wrote there taken out (they are in the hooks file now), and the
    switches that are explicitly off turned on."""
    settings = profile.config.settings
    assert settings is not None
    if settings.syntax == "toml":
        hint = "\n".join(want.moved) + "\n" if want.moved else ""
        return tomledit.settle(text, path, hint, want.switches, known, force)
    text = hooksjson.normalise(text)
    jsonedit.parse(text, path)
    done, switched = hooksjson.set_switches(text, want.switches, True,
                                            hooksjson.style_of(text, jsonedit.scan(text)))
    return Outcome(text=done, switches=switched)


def unsettle(spec: Spec, profile: Profile, text: str, path: Path, known: Known,
             force: bool) -> Outcome:
    """The settings file on uninstall: any block of ours out, the switches we turned on back off."""
    settings = profile.config.settings
    assert settings is not None
    if settings.syntax == "toml":
        return tomledit.unmerge(text, path, marker_block(spec), known, force)
    text = hooksjson.normalise(text)
    jsonedit.parse(text, path)
    done, _ = hooksjson.set_switches(text, list(known.switches), False,
                                     hooksjson.style_of(text, jsonedit.scan(text)))
    return Outcome(text=done)


def settings_data(profile: Profile, text: str, path: Path) -> object:
    """A settings file's parsed data."""
    settings = profile.config.settings
    if settings is not None and settings.syntax == "toml":
        return tomledit.loads(text, path)
    return jsonedit.loads(text, path) if text.strip() else {}


def settings_empty(profile: Profile, text: str) -> bool:
    settings = profile.config.settings
    if (settings is not None and settings.syntax == "toml") or not text.strip():
        return not text.strip()
    return not jsonedit.has_comment(text) and json.loads(text) == {}


def data(profile: Profile, text: str, path: Path) -> object:
    """A config's parsed data (a malformed file is a located user error)."""
    if profile.config.syntax == "toml":
        return tomledit.loads(text, path)
    return jsonedit.loads(text, path, profile.config.json_comments) if text.strip() else {}


def is_empty(profile: Profile, text: str) -> bool:
    """Nothing but an empty document left (a file the install created may then go; not when
    someone wrote a comment in it)."""
    if profile.config.syntax == "toml" or not text.strip():
        return not text.strip()
    return not jsonedit.has_comment(text) and json.loads(text) == {}


def shape(profile: Profile, settings: bool = False) -> str:
    """The config's shape in a word or three, for the ledger (e.g. `json hooks groups`; a
    settings file: `toml settings`)."""
    c = profile.config
    if settings and c.settings is not None:
        return f"{c.settings.syntax} settings"
    return " ".join(p for p in (c.syntax, c.root or "(top level)", c.layout) if p)
