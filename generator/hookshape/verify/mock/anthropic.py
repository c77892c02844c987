"""Anthropic Messages API (`POST /v1/messages`, SSE), as Claude Code speaks it.

Conversation shape comes from `messages`:
  user text -> USER (a `<system-reminder>` block -> CONTEXT: Claude puts hook
  context and other reminders there); user tool_result blocks -> TOOL_RESULT
  (a PreToolUse block arrives as a tool_result with is_error and the reason);
  assistant text -> TEXT; assistant tool_use -> TOOL_CALL.

Replies are SSE: message_start, content_block_start (text, or a tool_use such
as Write), content_block_delta (text_delta / input_json_delta),
content_block_stop, message_delta (stop_reason end_turn / tool_use),
message_stop. A non-streaming request gets the same message as JSON.

Tools: write -> Write {file_path, content}; edit -> Edit {file_path,
old_string, new_string}; read -> Read {file_path}; shell -> Bash {command,
description}. Paths are made absolute against the mock's cwd (Claude's file
tools reject relative paths).

Side requests: count_tokens gets a count; a request without tools (title,
topic or quota checks, if any slip through) gets plain text "ok".
"""

from __future__ import annotations

import json
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
from .wire import Context, Request, Response, json_response, sse_response, text_of

NAME = "anthropic"


def matches(method: str, path: str) -> bool:
    return path.rstrip("/").endswith("/messages") or path.rstrip("/").endswith(
        "/messages/count_tokens"
    )


def _user_text_item(text: str) -> Item:
    if text.lstrip().startswith("<system-reminder>"):
        return Item(CONTEXT, text)
    return Item(USER, text)


def conversation(body: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        content = msg.get("content")
        blocks = (
            [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        )
        for block in blocks:
            if not isinstance(block, dict):
                continue
            typ = block.get("type")
            if role == "assistant":
                if typ == "text" and str(block.get("text", "")).strip():
                    items.append(Item(TEXT, block["text"]))
                elif typ in ("tool_use", "server_tool_use"):
                    items.append(
                        Item(TOOL_CALL, json.dumps(block.get("input")), block.get("name", ""))
                    )
            else:
                if typ == "tool_result":
                    items.append(Item(TOOL_RESULT, text_of(block.get("content"))))
                elif typ == "text":
                    items.append(_user_text_item(str(block.get("text", ""))))
    return items


def tool_use(call: ToolCall, ctx: Context) -> tuple[str, dict[str, Any]]:
    if call.kind == "write":
        return "Write", {"file_path": ctx.abspath(call.path), "content": call.content}
    if call.kind == "edit":
        return "Edit", {
            "file_path": ctx.abspath(call.path),
            "old_string": call.old,
            "new_string": call.new,
        }
    if call.kind == "read":
        return "Read", {"file_path": ctx.abspath(call.path)}
    if call.kind == "subagent":
        typed = {"subagent_type": call.agent_type} if call.agent_type else {}
        return "Agent", {**typed, "prompt": call.content, "description": "a subagent"}
    return "Bash", {"command": call.command, "description": "run a command"}


def _usage() -> dict[str, Any]:
    return {
        "input_tokens": 100,
        "output_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(model: str, msg_id: str, blocks: list[Any], stop_reason: str | None) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(),
    }


def _stream(
    model: str, msg_id: str, block: dict[str, Any], stop_reason: str, *, kind: str, reply: str, items: list[Any]
) -> Response:
    start = _message(model, msg_id, [], None)
    start["usage"] = {**_usage(), "output_tokens": 1}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    if block["type"] == "text":
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": block["text"]},
                },
            ),
        ]
    else:
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                },
            ),
        ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return sse_response(events, kind=kind, reply=reply, items=items)


def _answer(
    body: dict[str, Any], ctx: Context, block: dict[str, Any], stop_reason: str, *, kind: str, reply: str,
    items: list[Any],
) -> Response:
    model = body.get("model") or ctx.model
    msg_id = f"msg_mock_{ctx.seq}"
    if body.get("stream"):
        return _stream(model, msg_id, block, stop_reason, kind=kind, reply=reply, items=items)
    resp = json_response(_message(model, msg_id, [block], stop_reason), reply=reply)
    resp.kind, resp.items = kind, items
    return resp


def handle(req: Request, ctx: Context) -> Response:
    body = req.json if isinstance(req.json, dict) else {}
    if req.path.rstrip("/").endswith("/count_tokens"):
        return json_response({"input_tokens": 100}, reply="count_tokens")
    items = conversation(body)
    if not body.get("tools"):
        return _answer(
            body,
            ctx,
            {"type": "text", "text": "ok"},
            "end_turn",
            kind="side",
            reply="side text 'ok'",
            items=items,
        )
    reply = ctx.script.decide(items)
    if isinstance(reply, Call):
        name, args = tool_use(reply.call, ctx)
        offered = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if name not in offered:
            names = ", ".join(sorted(map(str, offered)))
            raise ScriptError(f"the request offers no {name} tool (offered: {names})")
        block = {
            "type": "tool_use",
            "id": f"toolu_mock_{reply.index + 1}",
            "name": name,
            "input": args,
        }
        return _answer(
            body, ctx, block, "tool_use", kind="model", reply=describe(reply), items=items
        )
    assert isinstance(reply, Text)
    return _answer(
        body,
        ctx,
        {"type": "text", "text": reply.text},
        "end_turn",
        kind="model",
        reply=describe(reply),
        items=items,
    )
