"""Shared names and constrained types of the spec's models: the vendor-neutral events, the
string types that say in words what they allow, and the strict base model."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
)

from hookshape.spec.validation import pattern_words

Role = Literal["prompt", "pre_tool", "post_tool", "stop"]
ROLES: tuple[Role, ...] = ("prompt", "pre_tool", "post_tool", "stop")
# the vendor-neutral lifecycle events a hook may run on (the built-in jobs use the first four roles)
Event = Literal["session_start", "prompt", "pre_tool", "post_tool", "stop", "subagent_stop",
                "pre_compact", "session_end", "notification", "permission_request",
                "post_tool_failure", "subagent_start"]
EVENTS: tuple[Event, ...] = ("session_start", "prompt", "pre_tool", "post_tool", "stop",
                             "subagent_stop", "pre_compact", "session_end", "notification",
                             "permission_request", "post_tool_failure", "subagent_start")
# the awk library beside the tentacles is <this>.awk: no built-in job may take the name
AWK_LIB_NAME = "lib"
# events about one tool call: their hooks take a tool matcher (and path globs)
TOOL_EVENTS: frozenset[str] = frozenset({"pre_tool", "post_tool", "permission_request", "post_tool_failure"})
# events whose hooks can hold the agent up with a refusal (a tool call, a stop, a prompt, a
# permission): their hooks cannot run detached
BLOCKING_EVENTS: frozenset[str] = frozenset({"pre_tool", "stop", "subagent_stop", "prompt",
                                             "permission_request"})
# tool classes of a vendor-neutral matcher; anything else is a vendor's raw tool name
TOOL_CLASSES: frozenset[str] = frozenset({"any", "edit", "shell", "read", "subagent"})

def _inside(value: object) -> object:
    """A path key stays inside its base directory (the harness home, or for dial files each
    directory of the walk): no absolute path, no `..` segment. Checked before the pattern, so
    the error says which rule the value breaks."""
    if not isinstance(value, str):
        return value
    rest = value[2:] if value.startswith("~/") else value
    if rest.startswith("/"):
        raise ValueError(f"{value!r} is an absolute path; a path here is relative and stays inside "
                         "its base directory")
    if ".." in rest.split("/"):
        raise ValueError(f"{value!r} has a '..' segment; a path here is relative and stays inside "
                         "its base directory")
    return value


def _a_folder(value: object) -> object:
    """A folder below the base directory, never the base itself (a `.` part)."""
    if isinstance(value, str) and "." in value.split("/"):
        raise ValueError(f"{value!r} has a '.' part; name a folder inside the project")
    return value


# Every constrained string type says what it allows in words (its description): validation
# errors and the JSON schema show these words, never the regex.
EnvName = Annotated[str, Field(
    pattern=r"^[A-Z_][A-Z0-9_]*$",
    description="an environment variable name: A-Z, 0-9 and _, not starting with a digit")]
FileName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._-][A-Za-z0-9._/ -]*$",
    description="a relative file name: letters, digits, '.', '_', '-', '/' and spaces, not "
                "starting with '/' or a space"), BeforeValidator(_inside)]
RelPath = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._-][A-Za-z0-9._/-]*$",
    description="a relative path: letters, digits, '.', '_', '-' and '/', not starting with '/'"),
    BeforeValidator(_inside)]
ProjectPath = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$",
    description="a folder inside the project: letters, digits, '.', '_', '-' and '/', not "
                "starting with '/'"),
    BeforeValidator(_a_folder), BeforeValidator(_inside)]
ScriptName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
    description="a command or file name: letters, digits, '.', '_' and '-', starting with a "
                "letter or digit")]
Prefix = Annotated[str, Field(
    pattern=r"^[a-z][a-z0-9]{0,11}$",
    description="a shell variable prefix: 1 to 12 lowercase letters and digits, starting with a "
                "letter")]
HomePath = Annotated[str, Field(
    pattern=r"^~/[A-Za-z0-9._/-]+$",
    description="a path in the user's home: '~/' then letters, digits, '.', '_', '-' and '/'"),
    BeforeValidator(_inside)]
Word = Annotated[str, Field(
    pattern=r"^[a-z][a-z0-9_-]*$",
    description="a lowercase word: a-z, 0-9, '_' and '-', starting with a letter")]
JsonKey = Annotated[str, Field(
    pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$",
    description="a JSON key: letters, digits, '_' and '-', starting with a letter or '_'")]
ArgWord = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9-]+$",
    description="a command-line word: letters, digits and '-'")]
ProcessName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._@-]+$",
    description="a process or service name: letters, digits, '.', '_', '@' and '-'")]
Keyword = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9 _-]+$",
    description="letters, digits, spaces, '_' and '-'")]
PhaseName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9 _-]{1,32}$",
    description="1 to 32 letters, digits, spaces, '_' and '-'")]
Alnum = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9]+$",
    description="letters and digits only")]
PosInt = Annotated[int, Field(gt=0)]
Text = Annotated[str, Field(min_length=1, max_length=2000)]
AsciiLine = Annotated[str, Field(
    pattern=r"^[ -~]{1,200}$",
    description="one line of printable ASCII, 1 to 200 characters (it is written into the "
                "distress file as it is)")]


def _words_too(schema: dict[str, JsonValue], model: type[Any]) -> None:
    """In the JSON schema a field of a constrained type says what it is, then what it allows."""
    props = schema.get("properties")
    if not (isinstance(props, dict) and isinstance(model, type) and issubclass(model, BaseModel)):
        return
    words = pattern_words(model)
    for prop in (p for p in props.values() if isinstance(p, dict)):
        said, own = words.get(str(prop.get("pattern"))), str(prop.get("description", ""))
        if said and said not in own:
            prop["description"] = f"{own}; {said}"


class Strict(BaseModel):
    # strict: TOML values are typed already; "1000" or true for a number is a mistake, not a cast
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, json_schema_extra=_words_too)


# a {placeholder} in a text of the spec
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
