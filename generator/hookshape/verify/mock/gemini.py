"""Gemini API (`POST /v1beta/models/<m>:streamGenerateContent?alt=sse`), as Gemini CLI speaks it.

Conversation shape comes from `contents`:
  user text parts -> USER (a `<hook_context>` or `<session_context>` part -> CONTEXT);
  user functionResponse parts -> TOOL_RESULT (a BeforeTool block arrives as a
  function response whose error says "Tool execution blocked: <reason>");
  model text parts (not thoughts) -> TEXT; model functionCall parts -> TOOL_CALL.

A reply is one SSE `data:` chunk holding a candidate whose single part is a
`functionCall` (write_file {file_path, content}, replace {file_path,
old_string, new_string}, read_file {file_path}, run_shell_command {command})
or `text`, with finishReason STOP and usageMetadata.

Side requests get harmless answers: a request asking for JSON (a
responseSchema / responseJsonSchema, e.g. the next-speaker check, loop
detection or the model router) gets an object filled from that schema
("user" for next_speaker); countTokens gets a count; a request without tools
(e.g. history compression) gets plain text; GET models gets the model list.
"""

from __future__ import annotations

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
from .wire import Context, Request, Response, json_response, sse_response

NAME = "gemini"

# Preferred values for JSON side requests, by property name: the user speaks
# next (next-speaker check); the router's classifier scores 1-100 (its schema
# does not say so, its validator does) and 1 means "use the flash model".
_KNOWN_VALUES = {"next_speaker": "user", "complexity_score": 1}


def matches(method: str, path: str) -> bool:
    # /v1beta/models[/<m>[:action]]; under /v1/ only a `:action` call is
    # Gemini's (a bare /v1/models listing is left to the generic answer).
    if path.startswith(("/v1beta/models", "/v1alpha/models")):
        return True
    return path.startswith("/v1/models/") and ":" in path


def _action(path: str) -> str:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else ""


def _model_of(path: str, fallback: str) -> str:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last.split(":", 1)[0] if ":" in last else fallback


def conversation(body: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for content in body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        role = content.get("role", "user")
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if "functionCall" in part:
                fc = part["functionCall"] or {}
                items.append(Item(TOOL_CALL, str(fc.get("args", "")), fc.get("name", "")))
            elif "functionResponse" in part:
                fr = part["functionResponse"] or {}
                items.append(Item(TOOL_RESULT, str(fr.get("response", "")), fr.get("name", "")))
            elif isinstance(part.get("text"), str):
                text = part["text"]
                if role == "model":
                    if text.strip() and not part.get("thought"):
                        items.append(Item(TEXT, text))
                elif text.lstrip().startswith(("<hook_context>", "<session_context>")):
                    items.append(Item(CONTEXT, text))
                else:
                    items.append(Item(USER, text))
    return items


def _declarations(body: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            for decl in tool.get("functionDeclarations") or []:
                if isinstance(decl, dict) and decl.get("name"):
                    out[decl["name"]] = decl
    return out


def _param(decls: dict[str, Any], tool: str, *candidates: str) -> str:
    """The first candidate parameter name the declared tool accepts."""
    decl = decls.get(tool) or {}
    schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
    props = schema.get("properties") or {}
    for name in candidates:
        if name in props:
            return name
    return candidates[0]


def function_call(call: ToolCall, ctx: Context, decls: dict[str, Any]) -> dict[str, Any]:
    if call.kind == "write":
        return {
            "name": "write_file",
            "args": {
                _param(decls, "write_file", "file_path", "absolute_path"): ctx.abspath(call.path),
                "content": call.content,
            },
        }
    if call.kind == "edit":
        return {
            "name": "replace",
            "args": {
                _param(decls, "replace", "file_path", "absolute_path"): ctx.abspath(call.path),
                "old_string": call.old,
                "new_string": call.new,
                "instruction": "edit as asked",
            },
        }
    if call.kind == "read":
        return {
            "name": "read_file",
            "args": {
                _param(decls, "read_file", "file_path", "absolute_path"): ctx.abspath(call.path)
            },
        }
    if call.kind == "subagent":
        return {"name": "invoke_agent", "args": {"agent_name": call.agent_type, "prompt": call.content}}
    return {
        "name": "run_shell_command",
        "args": {"command": call.command, "description": "run a command"},
    }


def fill_schema(schema: object, name: str = "") -> object:
    """A minimal value satisfying a (JSON or OpenAPI-style) schema."""
    if not isinstance(schema, dict):
        return None
    if name in _KNOWN_VALUES:
        return _KNOWN_VALUES[name]
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return fill_schema(schema[key][0], name)
    typ = schema.get("type", "object")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "null")
    typ = str(typ).lower()
    if typ == "object":
        props = schema.get("properties") or {}
        return {k: fill_schema(v, k) for k, v in props.items()}
    if typ == "array":
        return [
            fill_schema(schema.get("items"), name) for _ in range(int(schema.get("minItems") or 0))
        ]
    if typ in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        value = 0 if low is None else low + (1 if "minimum" not in schema else 0)
        if high is not None and value > high:
            value = high
        return int(value) if typ == "integer" else value
    if typ == "boolean":
        return False
    if typ == "null":
        return None
    return "mock".ljust(int(schema.get("minLength") or 0), "k")


def _candidate(part: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 10,
            "totalTokenCount": 110,
        },
    }


def _answer(action: str, model: str, part: dict[str, Any], *, kind: str, reply: str, items: list[Any]) -> Response:
    chunk = {**_candidate(part), "modelVersion": model}
    if action == "streamGenerateContent":
        return sse_response([(None, chunk)], named=False, kind=kind, reply=reply, items=items)
    resp = json_response(chunk, reply=reply)
    resp.kind, resp.items = kind, items
    return resp


def handle(req: Request, ctx: Context) -> Response:
    action = _action(req.path)
    model = _model_of(req.path, ctx.model)
    body = req.json if isinstance(req.json, dict) else {}
    if req.method == "GET":
        return json_response(
            {
                "models": [
                    {
                        "name": f"models/{model}",
                        "supportedGenerationMethods": [
                            "generateContent",
                            "streamGenerateContent",
                            "countTokens",
                        ],
                    }
                ]
            },
            reply="model list",
        )
    if action == "countTokens":
        return json_response({"totalTokens": 100}, reply="countTokens")
    if action in ("embedContent", "batchEmbedContents"):
        return json_response({"embedding": {"values": [0.0]}}, reply="embedding")
    if action not in ("generateContent", "streamGenerateContent"):
        return json_response({}, reply=f"unknown action {action!r}: {{}}")
    items = conversation(body)
    gen = body.get("generationConfig") or {}
    schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
    if schema or gen.get("responseMimeType") == "application/json":
        import json

        value = fill_schema(schema or {"type": "object"})
        return _answer(
            action,
            model,
            {"text": json.dumps(value)},
            kind="side",
            reply=f"json {value}",
            items=items,
        )
    if not body.get("tools"):
        return _answer(
            action, model, {"text": "ok"}, kind="side", reply="side text 'ok'", items=items
        )
    reply = ctx.script.decide(items)
    if isinstance(reply, Call):
        decls = _declarations(body)
        fc = function_call(reply.call, ctx, decls)
        if fc["name"] not in decls:
            raise ScriptError(
                f"the request offers no {fc['name']} tool (offered: {', '.join(sorted(decls))})"
            )
        part: dict[str, Any] = {"functionCall": fc}
    else:
        assert isinstance(reply, Text)
        part = {"text": reply.text}
    return _answer(action, model, part, kind="model", reply=describe(reply), items=items)
