"""A scripted model server for `hookshape verify` and the live test tier (stdlib only).

    with MockServer(Script.writing("target.txt", "hello")) as mock:
        ... point a CLI at mock.url, run one turn ...
        mock.requests            # every request: .method .path .headers .json
        mock.model_requests()    # only the ones the script answered

One server speaks four wire protocols (OpenAI Responses for Codex, OpenAI
Chat Completions for Copilot CLI and Qwen Code, Gemini generateContent for
Gemini CLI, Anthropic Messages for Claude Code), told apart by path. It binds
127.0.0.1 on a free port. Anything it does not know gets a harmless answer
(an empty JSON object, or an empty list for a GET), so that a CLI's side
request never breaks a turn; it is still recorded.
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from . import anthropic, gemini, openai_chat, openai_responses
from .conversation import Call, Item, Recorded, Script, ScriptError, Text, ToolCall  # noqa: F401 (re-exported)
from .wire import Context, Request, Response, json_response

PROTOCOLS = (openai_responses, openai_chat, gemini, anthropic)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True


class MockServer:
    """Context manager running the mock in a background thread.

    script    the scenario (may be swapped between turns)
    cwd       where relative tool-call paths point (run_turn sets the work dir)
    url       http://127.0.0.1:<port>, no trailing slash and no /v1
    requests  every request, oldest first (`Recorded`: method, path, headers,
              json, raw, protocol, kind "model"/"side", reply, items)
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        cwd: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.script = script or Script()
        self.cwd = Path(cwd) if cwd else None
        self.host = host
        self.port = port
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------
    def start(self) -> MockServer:
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer((self.host, self.port), _make_handler(self))
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"mock-model-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- facts ---------------------------------------------------------
    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. http://127.0.0.1:40123."""
        if self._httpd is None:
            raise RuntimeError("MockServer is not running")
        return f"http://{self.host}:{self.port}"

    def model_requests(self, protocol: str | None = None) -> list[Recorded]:
        """Requests the script answered (not side requests), oldest first."""
        with self._lock:
            return [
                r
                for r in self.requests
                if r.kind == "model" and (protocol is None or r.protocol == protocol)
            ]

    def requests_after_tool_call(self) -> list[Recorded]:
        """Model requests that followed the first scripted tool call reply."""
        seen = False
        out = []
        for r in self.model_requests():
            if seen:
                out.append(r)
            elif r.reply.startswith("tool_call"):
                seen = True
        return out

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    def log(self) -> str:
        """One line per request, for assertion messages."""
        with self._lock:
            return "\n".join(
                f"{r.method} {r.path} [{r.protocol or '-'}/{r.kind}] -> {r.reply}"
                for r in self.requests
            )

    # -- dispatch (called from handler threads) -------------------------
    def _dispatch(self, method: str, raw_path: str, headers: dict[str, Any], raw: bytes) -> Response:
        parts = urlsplit(raw_path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        body: object | None = None
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                body = None
        with self._lock:
            seq = len(self.requests) + 1
            rec = Recorded(method, parts.path, headers, body, raw)
            self.requests.append(rec)
        req = Request(method, parts.path, query, headers, body)
        ctx = Context(script=self.script, cwd=self.cwd, model="mock-model", seq=seq)
        resp: Response | None = None
        for proto in PROTOCOLS:
            if proto.matches(method, parts.path):
                rec.protocol = proto.NAME
                try:
                    resp = proto.handle(req, ctx)
                except ScriptError as exc:
                    resp = json_response(
                        {
                            "error": {
                                "type": "invalid_request_error",
                                "code": 400,
                                "message": f"mock model: {exc}",
                            }
                        },
                        400,
                        reply=f"script error: {exc}",
                    )
                except Exception as exc:  # a bug in the mock: say so loudly, in the CLI's face
                    resp = json_response(
                        {"error": {"message": f"mock server error: {exc!r}"}},
                        500,
                        reply=f"error {exc!r}",
                    )
                break
        if resp is None:
            if method == "GET":
                resp = json_response(
                    {"object": "list", "data": [], "models": []}, reply="unknown GET: empty list"
                )
            else:
                resp = json_response({}, reply="unknown request: {}")
        rec.kind, rec.reply, rec.items = resp.kind, resp.reply, resp.items
        return resp


def _decode_body(raw: bytes, encoding: str) -> bytes:
    encoding = (encoding or "").strip().lower()
    try:
        if encoding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
    except (OSError, zlib.error):
        return raw
    return raw  # identity, or something stdlib cannot decode (kept raw)


def _make_handler(mock: MockServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "hookshape-mock/1"
        timeout = 30  # idle keep-alive connections give up eventually

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size_line = self.rfile.readline()
                    size = int(size_line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                raw = b"".join(chunks)
            else:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
            return _decode_body(raw, self.headers.get("Content-Encoding", ""))

        def _serve(self) -> None:
            raw = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            resp = mock._dispatch(self.command, self.path, headers, raw)
            self.send_response(resp.status)
            self.send_header("Content-Type", resp.content_type)
            self.send_header("Content-Length", str(len(resp.body)))
            if resp.content_type == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(resp.body)
                self.wfile.flush()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

    return Handler
