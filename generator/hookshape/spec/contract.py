"""[contract]: the view of the event a user hook is given."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec.types import PLACEHOLDER, EnvName, Strict, Text

VIEW = ("event", "vendor", "tool", "tool_class", "paths", "command", "cwd", "session", "message",
        "stop_active", "cut", "hook", "dir")


class Contract(Strict):
    """What a user hook is given besides the event on stdin: the normalized view of the event in
    environment variables, each named `<PREFIX>_<KEY>` unless named here."""

    event: EnvName | None = Field(None, description=(
        "the vendor-neutral event (session_start, prompt, pre_tool, ...); default <PREFIX>_EVENT"))
    vendor: EnvName | None = Field(None, description="the vendor id (claude, gemini, ...); default <PREFIX>_VENDOR")
    tool: EnvName | None = Field(None, description="the vendor's raw tool name; default <PREFIX>_TOOL")
    tool_class: EnvName | None = Field(None, description=(
        "edit, shell, read, mcp:<server> or other (\"\" without a tool); default <PREFIX>_TOOL_CLASS"))
    paths: EnvName | None = Field(None, description=(
        "the absolute paths an edit targets, one per line; default <PREFIX>_PATHS"))
    command: EnvName | None = Field(None, description=(
        "the shell command of a shell tool call; default <PREFIX>_COMMAND"))
    cwd: EnvName | None = Field(None, description="the session's working directory; default <PREFIX>_CWD")
    session: EnvName | None = Field(None, description="the session id; default <PREFIX>_SESSION")
    message: EnvName | None = Field(None, description=(
        "the text of the last assistant message where the vendor gives it (stop, subagent_stop); "
        "default <PREFIX>_MESSAGE"))
    stop_active: EnvName | None = Field(None, description=(
        "1 when the vendor says this stop is a continuation a stop hook caused; default "
        "<PREFIX>_STOP_ACTIVE"))
    cut: EnvName | None = Field(None, description=(
        "1 when the event passed a size bound and what is on stdin is its cut prefix; default <PREFIX>_CUT"))
    hook: EnvName | None = Field(None, description="the hook's name; default <PREFIX>_HOOK")
    dir: EnvName | None = Field(None, description=(
        "the directory the hook's files are installed in ({dir} of run); default <PREFIX>_HOOK_DIR"))
    value_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(32768, description=(
        "bytes of one view value (a longer one is cut); an environment string is at most 128 KiB on Linux"))
    reason_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a hook's stdout or stderr passed on as context or reason"))
    closed_message: Text = Field(
        "BLOCKED: the {hook} hook could not run ({why}) and is set to fail closed: nothing it "
        "guards may go on until it runs. Tell the operator.",
        description="the reason given when a fail-closed hook crashes, times out or is missing; "
                    "placeholders {hook} and {why}")
    default_reason: Text = Field(
        "BLOCKED by the {hook} hook.",
        description="the reason of an exit 2 with nothing on stderr; placeholder {hook}")

    @model_validator(mode="after")
    def _placeholders(self) -> Contract:
        for name, allowed in (("closed_message", {"hook", "why"}), ("default_reason", {"hook"})):
            for found in PLACEHOLDER.findall(getattr(self, name)):
                if found not in allowed:
                    raise ValueError(f"{name}: unknown placeholder {{{repr(found)[1:-1]}}} "
                                     f"(allowed: {', '.join(sorted(allowed))})")
        return self

    def env(self, key: str, prefix: str) -> str:
        name: str | None = getattr(self, key)
        if name:
            return name
        return f"{prefix.upper()}_{'HOOK_DIR' if key == 'dir' else key.upper()}"
