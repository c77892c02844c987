"""OpenAI Chat Completions (`POST /v1/chat/completions`), as Copilot CLI (BYOK), Qwen Code and Kimi Code speak it.

Conversation shape comes from `messages`:
  system/developer -> CONTEXT; user text -> USER, except the parts hooks and
  CLIs wrap in a tag of their own (see `_CONTEXT_TAGS`): a separate part that
  starts with one, or a tagged block inside the prompt's text (Copilot appends
  prompt-hook context to the prompt as `<system_reminder>...</system_reminder>`),
  is CONTEXT; assistant `content` -> TEXT; assistant `tool_calls` -> TOOL_CALL;
  role `tool` -> TOOL_RESULT (a pre-tool block arrives as the tool's result).

Replies: with `stream: true`, SSE `chat.completion.chunk` frames (unnamed
`data:` lines): a role delta, then either the text as one `content` delta or
one `tool_calls` delta (index 0, id, function name, the arguments as a JSON
string), a chunk with `finish_reason` ("stop" / "tool_calls"), a usage chunk
when `stream_options.include_usage` asks for it, and `data: [DONE]`. Without
`stream`, one `chat.completion` object.

Tools: the mock uses whichever tool the request offers under a known name
(write: create / write_file / Write; edit: edit / replace / Edit /
str_replace_editor; read: view / read_file / Read; shell: bash /
run_shell_command / Bash / Shell) and names the arguments after the tool's own
JSON schema (path or file_path, old_str or old_string, file_text or content,
...); a required parameter it does not know gets a neutral value. Paths are
absolute (resolved against the mock's cwd).

Side requests: a request without tools (titles, summaries, a next-speaker
check) gets plain text "ok".
"""

from __future__ import annotations

import json
import re
from typing import Any

from .conversation import (
    CONTEXT,
    TEXT,
    TOOL_CALL,
    TOOL_RESULT,
    USER,
    Call,
    Item,
    ScriptError,
    Text,
    ToolCall,
    describe,
)
from .wire import Context, Request, Response, json_response, sse, text_of

NAME = "openai_chat"

# Tags that mark a user-role text as context rather than the user's words.
_CONTEXT_TAGS = (
    "system_reminder",  # Copilot CLI: prompt-hook context appended to the prompt
    "system-reminder",
    "qwen:user-prompt-submit-context",  # Qwen Code: prompt-hook context, a part of its own
    "hook_result",  # Kimi Code: prompt-hook context, a user message before the prompt
    "hook_context",
    "session_context",
    "environment_context",
    "current_datetime",
    "reminder",
)
_TAGGED = re.compile(
    r"<(" + "|".join(re.escape(t) for t in _CONTEXT_TAGS) + r")\b[^>]*>.*?</\1>", re.DOTALL
)

# Tool names per scripted kind, most specific first.
TOOL_NAMES = {
    "write": ("create", "write_file", "Write", "WriteFile"),
    "edit": ("edit", "replace", "Edit", "str_replace_editor", "StrReplaceFile"),
    "read": ("view", "read_file", "Read", "ReadFile"),
    "shell": ("bash", "run_shell_command", "Bash", "Shell"),
    "subagent": ("task", "agent", "Agent", "Task"),
}
# Argument names per role, tried in order against the tool's schema.
_PATH = ("path", "file_path", "absolute_path", "filePath")
_CONTENT = ("file_text", "content", "text")
_OLD = ("old_str", "old_string", "oldString", "old")
_NEW = ("new_str", "new_string", "newString", "new")
_COMMAND = ("command", "cmd")
_AGENT_TYPE = ("subagent_type", "agent_type", "agent_name")
_PROMPT = ("prompt", "message", "task")


def matches(method: str, path: str) -> bool:
    return path.rstrip("/").endswith("/chat/completions")


def split_user_text(text: str) -> list[Item]:
    """A user text as items: tagged context blocks apart from the user's own words."""
    items: list[Item] = []
    pos = 0
    for m in _TAGGED.finditer(text):
        before = text[pos : m.start()]
        if before.strip():
            items.append(Item(USER, before.strip()))
        items.append(Item(CONTEXT, m.group(0)))
        pos = m.end()
    rest = text[pos:]
    if rest.strip() or not items:
        items.append(Item(USER, rest.strip() if items else rest))
    return items


def _parts(content: object) -> list[str]:
    if isinstance(content, list):
        return [text_of(p) for p in content if text_of(p).strip()]
    return [text_of(content)]


def conversation(body: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            for part in _parts(content):
                items += split_user_text(part)
        elif role == "assistant":
            text = text_of(content)
            if text.strip():
                items.append(Item(TEXT, text))
            for call in msg.get("tool_calls") or []:
                fn = (call or {}).get("function") or {}
                items.append(Item(TOOL_CALL, str(fn.get("arguments") or ""), str(fn.get("name") or "")))
        elif role in ("tool", "function"):
            items.append(Item(TOOL_RESULT, text_of(content), str(msg.get("name") or "")))
        else:  # system, developer
            items.append(Item(CONTEXT, text_of(content)))
    return items


def _tools(body: dict[str, Any]) -> dict[str, Any]:
    """name -> JSON schema of the parameters, for the function tools the request offers."""
    out: dict[str, Any] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        fn: dict[str, Any] = tool["function"] if isinstance(tool.get("function"), dict) else tool
        if fn.get("name"):
            out[fn["name"]] = fn.get("parameters") or {}
    return out


def _pick(props: dict[str, Any], candidates: tuple[str, ...]) -> str:
    for name in candidates:
        if name in props:
            return name
    return candidates[0]


def _neutral(schema: object) -> object:
    typ = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), None)
    if typ == "boolean":
        return False
    if typ in ("integer", "number"):
        return 0
    if typ == "array":
        return []
    if typ == "object":
        return {}
    return "mock"


def tool_call(call: ToolCall, ctx: Context, tools: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(tool name, arguments) of a scripted call, shaped after the offered tool."""
    name = next((n for n in TOOL_NAMES[call.kind] if n in tools), None)
    if name is None:
        offered = ", ".join(sorted(tools))
        raise ScriptError(f"the request offers no {call.kind} tool (offered: {offered})")
    schema = tools[name] if isinstance(tools[name], dict) else {}
    props = schema.get("properties") or {}
    args: dict[str, Any] = {}
    if call.kind == "shell":
        args[_pick(props, _COMMAND)] = call.command
        if "description" in props:
            args["description"] = "run a command"
    elif call.kind == "subagent":
        if call.agent_type:
            args[_pick(props, _AGENT_TYPE)] = call.agent_type
        args[_pick(props, _PROMPT)] = call.content
        if "description" in props:
            args["description"] = "a subagent"
    else:
        args[_pick(props, _PATH)] = ctx.abspath(call.path)
        if call.kind == "write":
            args[_pick(props, _CONTENT)] = call.content
        elif call.kind == "edit":
            args[_pick(props, _OLD)] = call.old
            args[_pick(props, _NEW)] = call.new
    for req in schema.get("required") or []:
        if req not in args:
            args[req] = _neutral(props.get(req))
    return name, args


def _usage() -> dict[str, Any]:
    return {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def _chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def _answer(
    body: dict[str, Any], ctx: Context, message: dict[str, Any], finish: str, *, kind: str, reply: str, items: list[Any]
) -> Response:
    model = body.get("model") or ctx.model
    cid = f"chatcmpl-mock-{ctx.seq}"
    if not body.get("stream"):
        resp = json_response(
            {
                "id": cid,
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": _usage(),
            },
            reply=reply,
        )
        resp.kind, resp.items = kind, items
        return resp
    frames = [_chunk(cid, model, {"role": "assistant", "content": ""}, None)]
    if message.get("tool_calls"):
        call = message["tool_calls"][0]
        frames.append(_chunk(cid, model, {"tool_calls": [{"index": 0, **call}]}, None))
    else:
        frames.append(_chunk(cid, model, {"content": message["content"]}, None))
    frames.append(_chunk(cid, model, {}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        frames.append({**_chunk(cid, model, {}, None), "choices": [], "usage": _usage()})
    raw = sse([("", f) for f in frames], named=False) + b"data: [DONE]\n\n"
    return Response(200, "text/event-stream", raw, kind=kind, reply=reply, items=list(items))


def handle(req: Request, ctx: Context) -> Response:
    body = req.json if isinstance(req.json, dict) else {}
    items = conversation(body)
    if not body.get("tools"):
        side = {"role": "assistant", "content": "ok"}
        return _answer(body, ctx, side, "stop", kind="side", reply="side text 'ok'", items=items)
    reply = ctx.script.decide(items)
    if isinstance(reply, Call):
        name, args = tool_call(reply.call, ctx, _tools(body))
        call = {
            "id": f"call_mock_{reply.index + 1}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        msg: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        return _answer(body, ctx, msg, "tool_calls", kind="model", reply=describe(reply), items=items)
    assert isinstance(reply, Text)
    text = {"role": "assistant", "content": reply.text}
    return _answer(body, ctx, text, "stop", kind="model", reply=describe(reply), items=items)
