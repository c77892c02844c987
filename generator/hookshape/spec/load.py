"""Load the spec and the vendor profiles it names; every failure is a located one-line error.

Which spec: `--spec FILE` (or $HOOKSHAPE_SPEC), else ./hookshape.toml, else the built-in default
harness only when asked for (`--default`); with none of these a command refuses to guess."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import cast

from hookshape.errors import SpecError
from hookshape.spec.hooks import Hook
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile, load_profiles
from hookshape.spec.types import EVENTS, Event
from hookshape.spec.validation import loads_toml, read_text, validate

SPEC_NAME = "hookshape.toml"
PACKAGED_SPEC_NAME = "default-spec.toml"  # hookshape.toml as the wheel ships it
SPEC_ENV = "HOOKSHAPE_SPEC"
NO_SPEC = ("no {name} in {cwd}: create {name}, or pass --spec FILE, or --default to use the "
           "built-in default harness")


@dataclass(frozen=True)
class Loaded:
    """A validated spec with the profiles of its enabled vendors, in a stable order."""

    spec: Spec
    spec_path: Path
    profiles: dict[str, Profile]
    builtin: bool = False  # the default spec shipped in the package (its folder is not the user's)

    @property
    def vendors(self) -> list[Profile]:
        return [self.profiles[v] for v in self.spec.enabled_vendors()]


def builtin_spec_path() -> Path:
    """The default spec shipped in the package (the repository's own in a source checkout)."""
    packaged = Path(str(resources.files("hookshape") / PACKAGED_SPEC_NAME))
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[3] / SPEC_NAME


@dataclass(frozen=True)
class SpecChoice:
    """What the user said about the spec: a file (--spec or $HOOKSHAPE_SPEC), the built-in
    default (--default), or nothing (then ./hookshape.toml, or a one-line refusal)."""

    given: Path | None = None
    builtin: bool = False

    def path(self) -> Path | None:
        """The spec file to load; None for the built-in default."""
        if self.given is not None:
            return self.given
        if self.builtin:
            return None
        local = Path(SPEC_NAME)
        if local.is_file():
            return local
        raise SpecError(NO_SPEC.format(name=SPEC_NAME, cwd=Path.cwd()))

    def load(self, profile_dirs: list[Path] | tuple[Path, ...] = ()) -> Loaded:
        return load(self.path(), list(profile_dirs))

    def carried_by(self, tree: Path) -> SpecChoice:
        """For `install --from TREE`: the spec the tree carries (a release tarball holds its
        hookshape.toml) is the one its scripts were rendered from, so it wins; a different
        --spec, or --default, is refused. A tree without one (a plain dist/) keeps this choice."""
        carried = tree / SPEC_NAME
        if not carried.is_file():
            return self
        if self.builtin or (self.given is not None and not _same_file(self.given, carried)):
            raise SpecError(f"{tree} carries its own spec ({carried}): install it without "
                            "--spec/--default, or render the other spec instead")
        return SpecChoice(given=carried)


def _same_file(one: Path, two: Path) -> bool:
    try:
        return one.read_bytes() == two.read_bytes()
    except OSError:
        return False


def config_dir_in(home: PurePosixPath, profiles: dict[str, Profile], name: str) -> tuple[Profile, PurePosixPath] | None:
    """The first vendor whose user config directory is `home` or lies inside it (`~/...` paths),
    with that directory."""
    for profile in profiles.values():
        raw = profile.config.user_path.replace("{name}", name)
        folder = PurePosixPath(raw).parent
        if raw.startswith("~/") and (folder == home or home in folder.parents):
            return profile, folder
    return None


def _home_of_its_own(path: Path, spec: Spec, profiles: dict[str, Profile]) -> None:
    """The harness home holds the scripts, the ledger and backups, and the last uninstall takes
    it away: it cannot be (or hold) a vendor's config directory."""
    home = spec.harness.home_default
    found = config_dir_in(PurePosixPath(home), profiles, spec.harness.name)
    if found is not None:
        profile, folder = found
        what = "is" if str(folder) == home else "holds"
        raise SpecError(f"{path}: harness.home_default: {home!r} {what} the config directory of "
                        f"{profile.vendor.display} ({folder}); the harness home holds the scripts, "
                        "the ledger and backups, and the last uninstall takes it away: choose a "
                        "directory of its own")


@lru_cache(maxsize=32)
def _spec(path: Path, text: str) -> Spec:
    """The spec in a file's text, validated: once per process for the same text (a spec is
    frozen; simulate, test and install read it more than once)."""
    spec: Spec = validate(path, Spec, loads_toml(text, path, SpecError), SpecError)
    return spec


def load(spec_path: Path | None = None, profile_dirs: list[Path] | None = None) -> Loaded:
    """Load a spec file; None loads the built-in default spec."""
    builtin = spec_path is None
    path = builtin_spec_path() if spec_path is None else spec_path
    if not path.is_file():
        raise SpecError(f"{path}: no such spec file")
    spec = _spec(path, read_text(path, SpecError))
    profiles = load_profiles(profile_dirs)
    _home_of_its_own(path, spec, profiles)
    for vid in spec.enabled_vendors():
        if vid not in profiles:
            known = ", ".join(sorted(profiles))
            raise SpecError(f"{path}: vendors.{vid}: no vendor profile named {vid!r} (known: {known})")
    for index, tentacle in enumerate(spec.tentacles):
        for vid in tentacle.matcher:
            if vid not in spec.vendors:
                raise SpecError(f"{path}: tentacles[{index}].matcher.{vid}: no such vendor in [vendors]")
    for index, hook in enumerate(spec.hooks):
        for name in hook.files:
            if not (path.parent / name).is_file():
                raise SpecError(f"{path}: hooks[{index}].files: {name}: no such file beside the spec")
        problem = _raw_event_problem(spec, profiles, hook) or _vendors_problem(spec, profiles, hook)
        if problem:
            raise SpecError(f"{path}: hooks[{index}].{problem}")
    return Loaded(spec=spec, spec_path=path, profiles=profiles, builtin=builtin)


def _raw_event_problem(spec: Spec, profiles: dict[str, Profile], hook: Hook) -> str:
    """A vendor's own event: a vendor of the spec whose profile lists that event, and not one a
    neutral event names."""
    if hook.raw is None:
        return ""
    vid, name = hook.raw
    if vid not in spec.vendors:
        return f"event: {vid!r}: no such vendor in [vendors]"
    profile = profiles.get(vid)
    if profile is None:
        return f"event: no vendor profile named {vid!r}"
    for event in EVENTS:
        if profile.events.of(event) == name:
            return (f"event: {name} is {profile.vendor.display}'s {event}: write event = "
                    f"\"{event}\" with vendors = [\"{vid}\"]")
    if not profile.events.known(name):
        near = difflib.get_close_matches(name, profile.events.other, n=1)
        hint = f"did you mean {vid}:{near[0]}? " if near else ""
        return (f"event: {profile.vendor.display} has no hook event {name!r}: {hint}its other "
                f"events are: {', '.join(profile.events.other) or 'none'}")
    return ""


def _vendors_problem(spec: Spec, profiles: dict[str, Profile], hook: Hook) -> str:
    """`vendors`: each a vendor of the spec, and one of them at least with the hook's event."""
    if hook.vendors is None or hook.raw is not None:
        return ""
    for vid in hook.vendors:
        if vid not in spec.vendors:
            return f"vendors: {vid!r}: no such vendor in [vendors]"
    event = cast(Event, hook.event)
    if not any(profiles[v].events.of(event) for v in hook.vendors if v in profiles):
        return (f"vendors: none of {', '.join(hook.vendors)} has a {hook.event} event: the hook "
                "would never run")
    return ""
