"""Load the spec and the vendor profiles it names; every failure is a located one-line error."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hookshape.errors import SpecError
from hookshape.profiles import Profile, load_profiles
from hookshape.spec import Spec
from hookshape.validation import parse_toml, validate

SPEC_NAME = "hookshape.toml"
PACKAGED_SPEC_NAME = "default-spec.toml"  # hookshape.toml as the wheel ships it


@dataclass(frozen=True)
class Loaded:
    """A validated spec with the profiles of its enabled vendors, in a stable order."""

    spec: Spec
    spec_path: Path
    profiles: dict[str, Profile]

    @property
    def vendors(self) -> list[Profile]:
        return [self.profiles[v] for v in self.spec.enabled_vendors()]


def default_spec_path() -> Path:
    """The spec in the current directory, else the default spec shipped in the package."""
    local = Path(SPEC_NAME)
    if local.is_file():
        return local
    packaged = Path(str(resources.files("hookshape") / PACKAGED_SPEC_NAME))
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / SPEC_NAME


def load(spec_path: Path | None = None, profile_dirs: list[Path] | None = None) -> Loaded:
    path = spec_path or default_spec_path()
    if not path.is_file():
        raise SpecError(f"{path}: no such spec file")
    spec: Spec = validate(path, Spec, parse_toml(path, SpecError), SpecError)
    profiles = load_profiles(profile_dirs)
    for vid in spec.enabled_vendors():
        if vid not in profiles:
            known = ", ".join(sorted(profiles))
            raise SpecError(f"{path}: vendors.{vid}: no vendor profile named {vid!r} (known: {known})")
    for index, tentacle in enumerate(spec.tentacles):
        for vid in tentacle.matcher:
            if vid not in spec.vendors:
                raise SpecError(f"{path}: tentacles[{index}].matcher.{vid}: no such vendor in [vendors]")
    return Loaded(spec=spec, spec_path=path, profiles=profiles)
