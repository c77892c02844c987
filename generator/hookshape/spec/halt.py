"""[halt]: what is blocked under the operator's halt."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import ArgWord, AsciiLine, EnvName, ProcessName, RelPath, ScriptName, Strict


class Halt(Strict):
    enabled: bool = Field(True, description=(
        "the halt model: a sentinel file the operator creates blocks the harness CLI, its MCP "
        "tools and daemon starts, and tells the agent; false: no sentinel check, no halt rule, "
        "no halt text is rendered (the other [halt] keys are then unused)"))
    sentinel_env: EnvName = Field(symbolic("halt", "sentinel_env"), description=(
        "the env var that moves the halt sentinel"))
    sentinel_default: RelPath = Field(symbolic("halt", "sentinel_default"), description=(
        "the halt sentinel under the harness home: while it exists the harness is halted; its "
        "first line is the reason"))
    distress_env: EnvName = Field(symbolic("halt", "distress_env"), description=(
        "the env var that moves the distress file"))
    distress_default: RelPath = Field(symbolic("halt", "distress_default"), description=(
        "the distress file under the harness home (SEEN / COMPLIED lines are appended to it)"))
    cli: Annotated[list[ScriptName], Field(min_length=1)] = Field(symbolic("halt", "cli"), description=(
        "the harness CLI names: blocked under halt except with allowed_args"))
    allowed_args: list[ArgWord] = Field(symbolic("halt", "allowed_args"), description=(
        "arguments with which the harness CLI stays allowed under halt"))
    shells: list[ScriptName] = Field(symbolic("halt", "shells"), description=(
        "what runs decoded text: with a decoder in one command, blocked under halt"))
    decoders: list[ScriptName] = Field(symbolic("halt", "decoders"), description=(
        "decoders that, with a shell or eval in the same command, are blocked under halt"))
    runners: list[ScriptName] = Field(symbolic("halt", "runners"), description=(
        "commands whose arguments (joined) and standard input are shell code: read as shell "
        "under halt (ssh, su, script, watch, ...)"))
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(symbolic("halt", "scan_max_bytes"), description=(
        "a longer shell command is blocked under halt without a scan"))
    mcp_servers: list[ScriptName] = Field(symbolic("halt", "mcp_servers"), description=(
        "the harness's MCP servers: under halt every tool of each is blocked (empty: none)"))
    daemon_managers: list[ScriptName] = Field(["launchctl", "brew"], description=(
        "service managers whose start verb naming a daemon_names entry is blocked under halt "
        "(empty: none)"))
    daemon_names: list[ProcessName] = Field(symbolic("halt", "daemon_names"), description=(
        "the harness daemon's names: starting one through a daemon manager is blocked under halt"))
    daemon_verbs: list[ScriptName] = Field(symbolic("halt", "daemon_verbs"), description=(
        "the start verbs of the daemon managers"))
    seen_line: AsciiLine = Field(symbolic("halt", "seen_line"), description=(
        "the line written to the distress file when the agent first meets the halt"))
    complied_line: AsciiLine = Field(symbolic("halt", "complied_line"), description=(
        "the line written when a halted turn ends without a blocked call"))

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: object) -> object:
        if isinstance(data, dict) and "mcp_server" in data:
            raise ValueError("mcp_server: renamed to mcp_servers, a list "
                             "(mcp_servers = [\"<server>\"], or [] for none)")
        return data
