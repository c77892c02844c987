"""Where a plan goes: the user home every `~` means (`--home`, else $HOOKSHAPE_HOME, else the
real one) and the harness home in it (the spec's env var, e.g. PD_HOME, else its default under
the user home). A plan is made for its harness home: the commands its vendor entries run point
there."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hookshape.spec.model import Spec

HOME_ENV = "HOOKSHAPE_HOME"
# Where an install goes: the user's own configs (scripts under the harness home), or a
# project's (scripts in the project, committed with it; the harness home keeps the state).
Scope = Literal["user", "project"]


@dataclass(frozen=True)
class Homes:
    """The user home every `~` means, and the harness home scripts and the ledger live in."""

    user: Path
    harness: Path


def user_home(option: Path | None, env: Mapping[str, str]) -> Path:
    """`--home`, else $HOOKSHAPE_HOME, else the real home; always absolute."""
    raw = option or (Path(env[HOME_ENV]) if env.get(HOME_ENV) else None) or Path.home()
    return Path(os.path.abspath(raw.expanduser()))


def harness_home(spec: Spec, home: Path, env: Mapping[str, str]) -> Path:
    """The harness's own env var (e.g. PD_HOME) wins; else the spec's default under `home`."""
    override = env.get(spec.harness.home_env, "")
    if override:
        return Path(os.path.abspath(Path(override).expanduser()))
    return home / spec.harness.home_default.removeprefix("~/")


def homes(spec: Spec, option: Path | None, env: Mapping[str, str]) -> Homes:
    home = user_home(option, env)
    return Homes(user=home, harness=harness_home(spec, home, env))
