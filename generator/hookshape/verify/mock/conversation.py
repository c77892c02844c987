"""Protocol-neutral view of a model request, and the scripted replies.

Each wire-protocol module turns a request body into a list of `Item`s (what
the conversation looks like so far, oldest first) and asks a `Script` what
the model says next. The script decides from the SHAPE of the conversation,
never from a request counter: the CLIs send side requests, retry, and hooks
add items after the prompt.

Decision rules (`Script.decide`):

* nothing from the model yet (the user prompt, plus any context) ->
  the first scripted tool call, or the first final text when there is none;
* the model's last output was a tool call (so a tool result follows, be it
  the tool's output or a hook's block message) -> the next scripted tool call
  if any are left, else the next final text;
* the model's last output was text and something followed it (a
  continuation: a later user message, e.g. a stop hook's block reason)
  -> the next final text;
* final texts are used in order (A, B, ...); past the end the last one
  repeats, so a stop hook that blocks forever still gets an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# Item kinds of a normalised conversation.
USER = "user"  # a user message (prompt, continuation, stop-hook feedback)
CONTEXT = "context"  # system/developer text, hook context, environment blurbs
TEXT = "text"  # text the model produced
TOOL_CALL = "tool_call"  # a tool call the model produced
TOOL_RESULT = "tool_result"  # a tool's output or error (a hook block included)

MODEL_KINDS = (TEXT, TOOL_CALL)


class ScriptError(Exception):
    """The request cannot carry the scripted reply (e.g. the tool is not offered).

    The server answers it with HTTP 400 and this message, so the CLI fails
    the turn loudly instead of the scenario passing or failing by accident.
    """


@dataclass(frozen=True)
class Item:
    kind: str
    text: str = ""
    name: str = ""  # tool name for TOOL_CALL / TOOL_RESULT, when known


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call, vendor-neutral.

    kind:
      "write": create/overwrite `path` with `content`
      "edit":  replace `old` by `new` in `path`
      "read":  read `path` (Claude wants a Read before an Edit of an existing file)
      "shell": run `command`
      "subagent": start a subagent of type `agent_type` (the vendor's default when empty) with
                  the prompt `content`, through the CLI's subagent tool
    `path` may be relative; protocols that need absolute paths resolve it
    against the mock's `cwd` (set by the runner to the turn's work dir).
    """

    kind: str
    path: str = ""
    content: str = ""
    old: str = ""
    new: str = ""
    command: str = ""
    agent_type: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("write", "edit", "read", "shell", "subagent"):
            raise ValueError(f"unknown tool call kind {self.kind!r}")
        if self.kind == "shell" and not self.command:
            raise ValueError("a shell tool call needs a command")
        if self.kind == "subagent" and not self.content:
            raise ValueError("a subagent tool call needs a prompt")
        if self.kind not in ("shell", "subagent") and not self.path:
            raise ValueError(f"a {self.kind} tool call needs a path")

    @staticmethod
    def write(path: str, content: str) -> ToolCall:
        return ToolCall("write", path=path, content=content)

    @staticmethod
    def edit(path: str, old: str, new: str) -> ToolCall:
        return ToolCall("edit", path=path, old=old, new=new)

    @staticmethod
    def read(path: str) -> ToolCall:
        return ToolCall("read", path=path)

    @staticmethod
    def shell(command: str) -> ToolCall:
        return ToolCall("shell", command=command)

    @staticmethod
    def spawn(agent_type: str, prompt: str) -> ToolCall:
        return ToolCall("subagent", content=prompt, agent_type=agent_type)

    def describe(self) -> str:
        if self.kind == "shell":
            return f"shell {self.command!r}"
        if self.kind == "subagent":
            return f"subagent {self.agent_type!r}"
        return f"{self.kind} {self.path}"


@dataclass(frozen=True)
class Text:
    """A final text reply."""

    text: str


@dataclass(frozen=True)
class Call:
    """A tool call reply; `index` is its position in the script (for ids)."""

    call: ToolCall
    index: int


Reply = Text | Call


@dataclass
class Script:
    """A scenario as data: which tool calls (maybe none), then which texts."""

    tool_calls: Sequence[ToolCall] = ()
    final_texts: Sequence[str] = ("MOCK_DONE_1", "MOCK_DONE_2")
    # With a limit: once the model has given this many final texts, a continuation is refused
    # (ScriptError), so a stop hook that keeps the agent working cannot hold the turn forever on
    # a CLI without a cap of its own.
    text_limit: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.tool_calls, ToolCall):
            self.tool_calls = (self.tool_calls,)
        self.tool_calls = tuple(self.tool_calls)
        if isinstance(self.final_texts, str):
            self.final_texts = (self.final_texts,)
        self.final_texts = tuple(self.final_texts)
        if not self.final_texts:
            raise ValueError("a script needs at least one final text")

    @classmethod
    def writing(cls, path: str, content: str, *texts: str) -> Script:
        return cls((ToolCall.write(path, content),), texts or cls.final_texts)

    @classmethod
    def shell(cls, command: str, *texts: str) -> Script:
        return cls((ToolCall.shell(command),), texts or cls.final_texts)

    def _text(self, produced: int) -> Text:
        return Text(self.final_texts[min(produced, len(self.final_texts) - 1)])

    def decide(self, items: Sequence[Item]) -> Reply:
        texts = sum(1 for i in items if i.kind == TEXT)
        calls = sum(1 for i in items if i.kind == TOOL_CALL)
        last_model = max((n for n, i in enumerate(items) if i.kind in MODEL_KINDS), default=None)
        if last_model is None:
            if self.tool_calls:
                return Call(self.tool_calls[0], 0)
            return self._text(0)
        if items[last_model].kind == TOOL_CALL:
            if calls < len(self.tool_calls):
                return Call(self.tool_calls[calls], calls)
            return self._text(texts)
        # Last model output was text. Whatever follows it (a user message, a
        # stop hook's feedback, which some CLIs wrap as a reminder) makes this
        # a continuation; with nothing after it the CLI is re-asking the same
        # thing, so it gets the same answer again.
        if last_model < len(items) - 1:
            if 0 < self.text_limit <= texts:
                raise ScriptError(f"the agent was kept working after {texts} final answers: "
                                  "the scripted turn ends here")
            return self._text(texts)
        return self._text(max(texts - 1, 0))


def describe(reply: Reply) -> str:
    if isinstance(reply, Text):
        return f"text {reply.text!r}"
    return f"tool_call {reply.call.describe()}"


@dataclass
class Recorded:
    """One request the mock received (and what it answered)."""

    method: str
    path: str
    headers: dict[str, Any]
    json: object | None
    raw: bytes = b""
    protocol: str = ""  # "openai_responses" | "gemini" | "anthropic" | ""
    kind: str = ""  # "model" for a scripted reply, else "side"
    reply: str = ""  # a short description of the answer
    items: list[Any] = field(default_factory=list)  # normalised conversation (model requests)

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "json": self.json,
        }

    def __getitem__(self, key: str) -> Any:  # so tests may use rec["json"] as well as rec.json
        return getattr(self, key)

    def contains(self, needle: str) -> bool:
        """True when the raw body mentions `needle` (JSON-escaped or not)."""
        import json as _json

        body = self.raw.decode("utf-8", "replace")
        return needle in body or _json.dumps(needle)[1:-1] in body
