"""[matrix]: the coordination file and the edit gate's bounds."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import EnvName, FileName, PosInt, RelPath, Strict


class Matrix(Strict):
    file_env: EnvName = Field(symbolic("matrix", "file_env"),
                              description="the env var that moves the coordination file")
    file_default: RelPath = Field(symbolic("matrix", "file_default"), description=(
        "the coordination file (locks, alerts, trails), relative to the harness home"))
    lock_prefix: EnvName = Field(symbolic("matrix", "lock_prefix"),
                                 description="the key prefix of a file lock in the matrix")
    alert_prefix: EnvName = Field(symbolic("matrix", "alert_prefix"),
                                  description="the key prefix of an alert in the matrix")
    pheromone_prefix: EnvName = Field(symbolic("matrix", "pheromone_prefix"),
                                      description="the key prefix of a trail in the matrix")
    # a hashed key is the tail of the path's form, "__" and 14 hash digits: at least 8 of the tail
    suffix_max: Annotated[int, Field(ge=24, le=200)] = Field(80, description=(
        "characters of a key after its prefix; a longer path's key is hashed"))
    pheromone_ttl_s: PosInt = Field(1800, description="seconds a trail is shown")
    project_marker: FileName = Field(symbolic("matrix", "project_marker"), description=(
        "the nearest ancestor holding this directory is the project"))
    path_max: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a normalised edit target; a longer one is not checked"))
    targets_max: Annotated[int, Field(ge=1, le=1024)] = Field(64, description=(
        "targets checked per tool call; a call naming more is not checked"))
    holder_max: Annotated[int, Field(ge=8, le=4096)] = Field(128, description=(
        "bytes of a lock holder's name shown in a message"))
    reason_max: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a block or warn text (one line per locked target)"))
    trail_max: Annotated[int, Field(ge=16, le=65536)] = Field(512, description=(
        "trail entries kept in the matrix: once post-tool passes it, the oldest go and the newest "
        "half stay"))
