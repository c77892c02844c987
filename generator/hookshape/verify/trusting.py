"""The trust a user's review gives hooks, recorded in a scratch home: where a vendor runs only
hooks reviewed and trusted (the profile's trust rule), a scripted turn trusts them the way the
vendor's own review would, so they run as they do for a user who trusted them."""

from __future__ import annotations

from pathlib import Path

from hookshape.diagnose import survey
from hookshape.diagnose.trust import records
from hookshape.spec.profiles import Profile
from hookshape.verify.settings import update


def trust_all(profile: Profile, config: Path, into: Path | None = None) -> int:
    """Record trust for every hook of this config file in the user file the vendor reads its
    trust records from (`into`: its settings file; default: the config file itself); returns
    how many."""
    if not profile.config.trust_hash or not config.is_file():
        return 0
    found = survey.load(profile, config)
    if found.error or not found.handlers:
        return 0
    update(into or config, records(profile, found, found.handlers))
    return len(found.handlers)
