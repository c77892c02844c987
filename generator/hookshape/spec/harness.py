"""[harness]: names and paths of the harness."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from hookshape.spec import defaults
from hookshape.spec.defaults import symbolic
from hookshape.spec.types import EnvName, HomePath, Prefix, ProjectPath, RelPath, ScriptName, Strict

# Where install stages the scripts, under the harness home: gates in bin/, tentacles, adapters and
# hook files in bin/<tentacle_dir>/.
SCRIPTS_DIR = "bin"


class Harness(Strict):
    name: ScriptName = Field(description="the harness's name (required): the harness CLI, the "
                                         "home ~/.<name> and other defaults derive from it")
    prefix: Prefix = Field(description="the shell prefix (required): globals are _<prefix>_*, "
                                       "env vars <PREFIX>_*")
    home_env: EnvName = Field(symbolic("harness", "home_env"),
                              description="the env var that moves the harness home")
    home_default: HomePath = Field(symbolic("harness", "home_default"), description=(
        "the harness home when home_env is unset; `~` is the user's home at run time"))
    project_dir: ProjectPath = Field(symbolic("harness", "project_dir"), description=(
        "where `install --scope project` puts the scripts, relative to the project's root: the "
        "folder a team commits with the project (the harness home stays per user)"))
    tentacle_dir: ScriptName = Field("hooks", description=(
        "gates are in <home>/bin, tentacles and hook files in <home>/bin/<tentacle_dir>"))
    state_dir: RelPath = Field(defaults.STATE_DIR, description=(
        "markers, locks and temp files under <home>/<state_dir>"))
    provider_env: EnvName = Field(symbolic("harness", "provider_env"),
                                  description="the env var a gate sets to the vendor's id")
    actor_env: EnvName = Field(symbolic("harness", "actor_env"),
                               description="the env var naming the agent (lock holders, trails)")
    shell_env: EnvName = Field(symbolic("harness", "shell_env"), description=(
        "the env var naming the interpreter a gate runs its tentacle with (optional at run time)"))
    stdin_max_bytes: Annotated[int, Field(ge=4096, le=16 * 1024 * 1024)] = Field(
        262_144, description="bytes of an event read from stdin; a longer event counts as cut")
    json_max_values: Annotated[int, Field(
        ge=256, le=1_000_000,
        description="values a tentacle reads from one event; past it the event counts as cut "
                    "(the oversize rule), so many tiny values cannot buy parse time")] = 8192
    session_key_max: Annotated[int, Field(ge=8, le=200)] = Field(
        64, description="characters of a vendor's session id kept in state file names")
    awk_prefer: Annotated[list[ScriptName], Field(max_length=8)] = Field(["mawk"], description=(
        "awks tried on PATH before plain `awk` (with gawk a tentacle takes about twice as long)"))
