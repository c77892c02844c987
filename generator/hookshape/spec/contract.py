"""[contract]: the view of the event a user hook is given."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec.types import PLACEHOLDER, EnvName, Strict, Text

VIEW = ("event", "vendor", "tool", "tool_class", "paths", "command", "cwd", "session", "message",
        "stop_active", "tool_input", "tool_response", "transcript", "prompt", "source", "notification",
        "subagent", "cut", "hook", "dir")


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
    tool_input: EnvName | None = Field(None, description=(
        "the tool's input as compact JSON (plain ASCII), on tool events; default <PREFIX>_TOOL_INPUT"))
    tool_response: EnvName | None = Field(None, description=(
        "what the tool answered (its text, or compact JSON), on post_tool and post_tool_failure "
        "where the vendor gives it; default <PREFIX>_TOOL_RESPONSE"))
    transcript: EnvName | None = Field(None, description=(
        "the path of the session's transcript where the vendor gives one; default <PREFIX>_TRANSCRIPT"))
    prompt: EnvName | None = Field(None, description="the user's prompt, on prompt; default <PREFIX>_PROMPT")
    source: EnvName | None = Field(None, description=(
        "why a session starts (startup, resume, clear, compact, ...), on session_start; default "
        "<PREFIX>_SOURCE"))
    notification: EnvName | None = Field(None, description=(
        "the notification's text, on notification; default <PREFIX>_NOTIFICATION"))
    subagent: EnvName | None = Field(None, description=(
        "the subagent's type, on subagent events and on a call of a subagent tool; default "
        "<PREFIX>_SUBAGENT"))
    cut: EnvName | None = Field(None, description=(
        "the names of the view's fields cut to their bound, space-separated (event: the event "
        "passed the stdin bound and stdin is its cut prefix; paths: a target was too long or one "
        "too many; command, message, tool_input, ...: the value was cut); empty when nothing was; "
        "default <PREFIX>_CUT"))
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
    cut_message: Text = Field(
        "BLOCKED: this call is too large for the {hook} hook to check (cut: {cut}). Split it into "
        "smaller calls.", description=(
            "the gate's refusal for a fail-closed hook whose view has cut fields (unless the hook "
            "says judges_cut = true); placeholders {hook} and {cut}"))
    ask_fallback: Literal["deny", "allow"] = Field("deny", description=(
        "what a hook's `ask` becomes on a vendor that cannot ask the user: deny (the reason "
        "prefixed with ask_message) or allow"))
    ask_message: Text = Field(
        "BLOCKED: the {hook} hook asks the user to confirm this call, which {vendor} cannot ask "
        "here.", description="the refusal that stands for an ask; placeholders {hook} and {vendor}")
    rewrite_message: Text = Field(
        "BLOCKED: the {hook} hook changes this call's input, which {vendor} cannot apply, so it "
        "does not run as asked either.", description=(
            "the refusal that stands for a rewrite the vendor cannot apply; placeholders {hook} "
            "and {vendor}"))

    @model_validator(mode="after")
    def _placeholders(self) -> Contract:
        for name, allowed in (("closed_message", {"hook", "why"}), ("default_reason", {"hook"}),
                              ("cut_message", {"hook", "cut"}), ("ask_message", {"hook", "vendor"}),
                              ("rewrite_message", {"hook", "vendor"})):
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
