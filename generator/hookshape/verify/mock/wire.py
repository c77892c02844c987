"""Small shared pieces of the wire protocols: request/response records, SSE."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conversation import Script


@dataclass
class Request:
    method: str
    path: str  # without the query string
    query: dict[str, Any]  # first value of each query parameter
    headers: dict[str, Any]  # lower-cased names
    json: object | None


@dataclass
class Response:
    status: int = 200
    content_type: str = "application/json"
    body: bytes = b""
    kind: str = "side"  # "model" when the script answered
    reply: str = ""  # short description, for the request log
    items: list[Any] = field(default_factory=list)


@dataclass
class Context:
    """What a protocol handler may use besides the request."""

    script: Script
    cwd: Path | None  # the turn's work dir, to resolve relative paths
    model: str  # model name to echo back when a request names none
    seq: int  # a number unique to this request (for ids)

    def abspath(self, path: str) -> str:
        p = Path(path)
        if p.is_absolute() or self.cwd is None:
            return str(p)
        return str(Path(self.cwd) / p)


def json_response(obj: object, status: int = 200, *, reply: str = "") -> Response:
    return Response(status, "application/json", json.dumps(obj).encode(), reply=reply)


def sse(events: list[Any], *, named: bool = True) -> bytes:
    """Encode (event_name, data) pairs as a text/event-stream body."""
    out = []
    for name, data in events:
        chunk = ""
        if named and name:
            chunk += f"event: {name}\n"
        chunk += f"data: {json.dumps(data, separators=(',', ':'))}\n\n"
        out.append(chunk)
    return "".join(out).encode()


def sse_response(
    events: list[Any],
    *,
    named: bool = True,
    kind: str = "model",
    reply: str = "",
    items: list[Any] | None = None,
) -> Response:
    return Response(
        200,
        "text/event-stream",
        sse(events, named=named),
        kind=kind,
        reply=reply,
        items=list(items or []),
    )


def text_of(content: object) -> str:
    """Concatenate the text of a content value that may be a string or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                t = part.get("text")
                if isinstance(t, str):
                    parts.append(t)
                elif "content" in part:
                    parts.append(text_of(part["content"]))
        return "\n".join(parts)
    if isinstance(content, dict):
        return text_of(content.get("text") or content.get("content"))
    return str(content)
