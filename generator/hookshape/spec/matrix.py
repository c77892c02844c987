"""[matrix]: the coordination file and the edit gate's bounds."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import EnvName, FileName, JsonKey, PosInt, RelPath, ScriptName, Strict

# how a command of the shell writes the paths it names: every operand, the last one (the rest
# are read), every operand once an in-place option is given, or the value of an of= operand
WriteKind = Literal["operands", "last", "in-place", "of="]
WRITERS: dict[str, WriteKind] = {
    "rm": "operands", "rmdir": "operands", "unlink": "operands", "shred": "operands",
    "truncate": "operands", "touch": "operands", "tee": "operands", "mv": "operands",
    "chmod": "operands", "chown": "operands", "chgrp": "operands", "cp": "last", "install": "last",
    "ln": "last", "rsync": "last", "sed": "in-place", "perl": "in-place", "dd": "of="}
MCP_PATH_KEYS = ("path", "paths", "file_path", "filePath", "source", "destination", "target", "file",
                 "filename")
MCP_READ_VERBS = ("read", "list", "get", "search", "find", "view", "directory", "stat", "info",
                  "describe", "glob", "grep", "open", "tree")


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
    shell_writers: dict[ScriptName, WriteKind] = Field(dict(WRITERS), description=(
        "shell commands whose operands a lock covers, and which: every operand, the last (the "
        "rest are read), every operand with an in-place option, or of= (dd); a redirection's "
        "target is written whatever the command"))
    mcp_path_keys: list[JsonKey] = Field(list(MCP_PATH_KEYS), description=(
        "the arguments of an MCP tool that name the paths it works on (a string or a list)"))
    mcp_read_verbs: list[ScriptName] = Field(list(MCP_READ_VERBS), description=(
        "an MCP tool whose name starts with one of these only reads: its paths are free"))
    trail_max: Annotated[int, Field(ge=16, le=65536)] = Field(512, description=(
        "trail entries kept in the matrix: once post-tool passes it, the oldest go and the newest "
        "half stay"))
