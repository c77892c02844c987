"""OpenAI Responses API (`POST /v1/responses`, SSE), as Codex CLI speaks it.

Conversation shape comes from the request's `input` items:
  message role user -> USER (Codex's <environment_context> blurb -> CONTEXT);
  developer/system -> CONTEXT (UserPromptSubmit context is a developer
  message after the prompt); assistant -> TEXT;
  function_call / custom_tool_call / local_shell_call -> TOOL_CALL;
  *_call_output -> TOOL_RESULT (a PreToolUse block arrives as such an output:
  "Command blocked by PreToolUse hook: <reason>...").

Replies are SSE: response.created, response.output_item.added,
response.output_text.delta (text only), response.output_item.done,
response.completed with `usage`. Codex 0.169 fails the turn (exit 1, "stream
closed before response.completed") on a stream without response.completed;
without `usage` it carries on and reports 0 tokens.

Tool calls: a write/edit is an `apply_patch` call. When the request offers
apply_patch as a custom (freeform) tool it is a `custom_tool_call` whose
`input` is the patch text; as a function tool, a `function_call` with
{"input": patch}. A shell call uses whichever shell tool the request offers
(exec_command {"cmd"}, shell_command {"command"}, shell {"command": argv}).
Codex has no read tool: a read is `cat <path>` through the shell tool.
"""

from __future__ import annotations

import json
import shlex
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

NAME = "openai_responses"

_CALL_TYPES = (
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "tool_search_call",
    "web_search_call",
)
_OUTPUT_TYPES = (
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "tool_search_output",
)


def matches(method: str, path: str) -> bool:
    return path.rstrip("/").endswith("/responses") or path.rstrip("/").endswith(
        "/responses/compact"
    )


def conversation(body: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for it in body.get("input") or []:
        if not isinstance(it, dict):
            continue
        typ = it.get("type", "message" if "role" in it else "")
        if typ == "message":
            role = it.get("role")
            text = text_of(it.get("content"))
            if role == "user":
                # Codex's own blurbs ride in user messages; they are context.
                blurb = text.lstrip().startswith(
                    ("<environment_context>", "<user_instructions>", "# AGENTS.md")
                )
                items.append(Item(CONTEXT if blurb else USER, text))
            elif role == "assistant":
                if text.strip():
                    items.append(Item(TEXT, text))
            else:
                items.append(Item(CONTEXT, text))
        elif typ in _CALL_TYPES:
            items.append(
                Item(TOOL_CALL, str(it.get("input") or it.get("arguments") or ""), str(it.get("name", typ)))
            )
        elif typ in _OUTPUT_TYPES:
            items.append(Item(TOOL_RESULT, text_of(it.get("output")), str(it.get("name", ""))))
    return items


def _tools(body: dict[str, Any]) -> dict[str, Any]:
    """name -> tool definition, for the tools the request offers."""
    out = {}
    for t in body.get("tools") or []:
        if isinstance(t, dict) and t.get("name"):
            out[t["name"]] = t
    return out


def patch_text(call: ToolCall) -> str:
    lines = ["*** Begin Patch"]
    if call.kind == "write":
        lines.append(f"*** Add File: {call.path}")
        lines += ["+" + line for line in call.content.splitlines() or [""]]
    else:  # edit
        lines.append(f"*** Update File: {call.path}")
        lines.append("@@")
        lines += ["-" + line for line in call.old.splitlines()]
        lines += ["+" + line for line in call.new.splitlines()]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def _tool_item(call: ToolCall, call_id: str, tools: dict[str, Any]) -> dict[str, Any]:
    if call.kind in ("write", "edit"):
        patch = patch_text(call)
        spec = tools.get("apply_patch")
        if spec is None:
            raise ScriptError(
                "the request offers no apply_patch tool (Codex offers it only for a catalogue "
                "model such as gpt-5.5)"
            )
        if spec.get("type") == "function":
            return {
                "type": "function_call",
                "id": "fc_" + call_id,
                "call_id": call_id,
                "name": "apply_patch",
                "arguments": json.dumps({"input": patch}),
                "status": "completed",
            }
        return {
            "type": "custom_tool_call",
            "id": "ctc_" + call_id,
            "call_id": call_id,
            "name": "apply_patch",
            "input": patch,
            "status": "completed",
        }
    if call.kind == "subagent":
        if "spawn_agent" not in tools:
            raise ScriptError(f"the request offers no subagent tool (offered: {', '.join(sorted(tools))})")
        typed = {"agent_type": call.agent_type} if call.agent_type else {}
        return {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id, "name": "spawn_agent",
                "arguments": json.dumps({**typed, "message": call.content}), "status": "completed"}
    command = call.command if call.kind == "shell" else f"cat {shlex.quote(call.path)}"
    args: dict[str, Any]
    if "exec_command" in tools:
        name, args = "exec_command", {"cmd": command}
    elif "shell_command" in tools:
        name, args = "shell_command", {"command": command}
    elif "shell" in tools:
        name, args = "shell", {"command": ["bash", "-lc", command]}
    else:
        raise ScriptError(f"the request offers no shell tool (offered: {', '.join(sorted(tools))})")
    return {
        "type": "function_call",
        "id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(args),
        "status": "completed",
    }


def _usage() -> dict[str, Any]:
    return {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 110,
    }


def _stream(
    resp_id: str, model: str, item: dict[str, Any], reply: str, items: list[Any], kind: str = "model"
) -> Response:
    added = dict(item)
    if item.get("type") == "message":
        added = {**item, "content": [], "status": "in_progress"}
    events = [
        (
            "response.created",
            {
                "type": "response.created",
                "response": {
                    "id": resp_id,
                    "object": "response",
                    "model": model,
                    "status": "in_progress",
                    "output": [],
                },
            },
        ),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": added},
        ),
    ]
    if item.get("type") == "message":
        text = item["content"][0]["text"]
        events.append(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                },
            )
        )
    events += [
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": resp_id,
                    "object": "response",
                    "model": model,
                    "status": "completed",
                    "output": [item],
                    "usage": _usage(),
                },
            },
        ),
    ]
    return sse_response(events, reply=reply, items=items, kind=kind)


def _message(text: str, seq: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_mock_{seq}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def handle(req: Request, ctx: Context) -> Response:
    body = req.json if isinstance(req.json, dict) else {}
    model = body.get("model") or ctx.model
    resp_id = f"resp_mock_{ctx.seq}"
    if req.path.rstrip("/").endswith("/compact"):
        # Remote compaction: hand back a summary-free history.
        return json_response({"output": []}, reply="compact: empty output")
    items = conversation(body)
    if not body.get("tools"):
        # Not the agent loop (e.g. a summary or title request): plain text.
        return _stream(
            resp_id, model, _message("ok", ctx.seq), "side text 'ok'", items, kind="side"
        )
    reply = ctx.script.decide(items)
    if isinstance(reply, Call):
        item = _tool_item(reply.call, f"call_mock_{reply.index + 1}", _tools(body))
    else:
        assert isinstance(reply, Text)
        item = _message(reply.text, ctx.seq)
    return _stream(resp_id, model, item, describe(reply), items)
