"""Fast checks of the machinery `hookshape verify` and the live tier share (no vendor CLI needed).

The mock's scripted decisions, its four wire protocols over real HTTP, and
the runner's config-file handling (its keys in, everybody else's kept).
"""

from __future__ import annotations

import json
import os
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from hookshape.spec.profiles import load_profiles
from hookshape.verify import runner
from hookshape.verify.mock.conversation import (
    CONTEXT,
    TEXT,
    TOOL_CALL,
    TOOL_RESULT,
    USER,
    Call,
    Item,
    Script,
    ScriptError,
    Text,
    ToolCall,
)
from hookshape.verify.mock.server import MockServer

WRITE = ToolCall.write("target.txt", "hello\n")


# -- Script: decisions from the conversation's shape -----------------------------


def test_prompt_only_gets_the_tool_call():
    script = Script([WRITE], ("A", "B"))
    assert script.decide([Item(CONTEXT), Item(USER, "prompt")]) == Call(WRITE, 0)
    # hook context after the prompt changes nothing
    assert script.decide([Item(USER, "prompt"), Item(CONTEXT, "hook says")]) == Call(WRITE, 0)


def test_tool_result_gets_final_text_a_then_continuation_gets_b():
    script = Script([WRITE], ("A", "B"))
    convo = [Item(USER, "p"), Item(TOOL_CALL, name="Write"), Item(TOOL_RESULT, "blocked: x")]
    assert script.decide(convo) == Text("A")
    convo += [Item(TEXT, "A"), Item(USER, "Stop hook feedback: more")]
    assert script.decide(convo) == Text("B")
    # a stop hook that keeps blocking keeps getting the last text
    convo += [Item(TEXT, "B"), Item(CONTEXT, "<system-reminder>again</system-reminder>")]
    assert script.decide(convo) == Text("B")


def test_without_tool_calls_the_prompt_gets_text_a():
    assert Script((), ("A", "B")).decide([Item(USER, "p")]) == Text("A")


def test_tool_calls_run_in_order():
    read = ToolCall.read("f")
    edit = ToolCall.edit("f", "x", "y")
    script = Script([read, edit], ("done",))
    convo = [Item(USER, "p")]
    assert script.decide(convo) == Call(read, 0)
    convo += [Item(TOOL_CALL), Item(TOOL_RESULT)]
    assert script.decide(convo) == Call(edit, 1)
    convo += [Item(TOOL_CALL), Item(TOOL_RESULT)]
    assert script.decide(convo) == Text("done")


def test_a_text_limit_refuses_a_continuation_past_it():
    script = Script((), ("A",), text_limit=2)
    convo = [Item(USER, "p"), Item(TEXT, "A"), Item(USER, "Stop hook feedback: more")]
    assert script.decide(convo) == Text("A")  # one answer so far: the agent may go on
    convo += [Item(TEXT, "A"), Item(USER, "Stop hook feedback: more")]
    with pytest.raises(ScriptError, match="kept working after 2 final answers"):
        script.decide(convo)
    assert script.decide(convo[:-1]) == Text("A")  # a retry of the last answer is not a continuation


def test_a_retried_request_gets_the_same_text_again():
    script = Script((), ("A", "B"))
    assert script.decide([Item(USER, "p"), Item(TEXT, "A")]) == Text("A")


def test_tool_calls_are_validated():
    with pytest.raises(ValueError):
        ToolCall("delete", path="x")
    with pytest.raises(ValueError):
        ToolCall("write")


def test_a_subagent_call_is_made_with_each_protocols_subagent_tool(tmp_path):
    """ToolCall.spawn(type, prompt): the tool each CLI offers to start a subagent, its arguments
    named after that tool's own schema; a request that offers none is a loud error."""
    from hookshape.verify.mock import anthropic, gemini, openai_chat, openai_responses
    from hookshape.verify.mock.wire import Context

    call = ToolCall.spawn("explorer", "map the parser")
    ctx = Context(Script([call]), tmp_path, "m", 1)
    assert call.describe() == "subagent 'explorer'"
    assert anthropic.tool_use(call, ctx) == (
        "Agent", {"subagent_type": "explorer", "prompt": "map the parser", "description": "a subagent"})
    decls = {"invoke_agent": {"name": "invoke_agent", "parametersJsonSchema": {
        "properties": {"agent_name": {}, "prompt": {}}}}}
    assert gemini.function_call(call, ctx, decls) == {
        "name": "invoke_agent", "args": {"agent_name": "explorer", "prompt": "map the parser"}}
    copilot = {"task": {"properties": {"description": {}, "prompt": {}, "agent_type": {}}}}
    assert openai_chat.tool_call(call, ctx, copilot) == (
        "task", {"agent_type": "explorer", "prompt": "map the parser", "description": "a subagent"})
    qwen = {"agent": {"properties": {"subagent_type": {}, "prompt": {}}}}
    assert openai_chat.tool_call(call, ctx, qwen) == (
        "agent", {"subagent_type": "explorer", "prompt": "map the parser"})
    item = openai_responses._tool_item(call, "c1", {"spawn_agent": {"type": "function", "name": "spawn_agent"}})
    assert (item["name"], json.loads(item["arguments"])) == (
        "spawn_agent", {"agent_type": "explorer", "message": "map the parser"})
    with pytest.raises(ScriptError, match="offers no subagent tool"):
        openai_responses._tool_item(call, "c1", {"exec_command": {"type": "function"}})
    with pytest.raises(ScriptError, match="offers no subagent tool"):
        openai_chat.tool_call(call, ctx, {"bash": {}})
    with pytest.raises(ValueError):
        ToolCall("subagent", agent_type="explorer")  # no prompt


# -- the wire protocols over HTTP -------------------------------------------------


def post(url: str, body: dict, headers: dict | None = None) -> tuple[str, bytes]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.headers.get("Content-Type", ""), resp.read()


def sse_events(raw: bytes) -> list[tuple[str | None, dict]]:
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        events.append((name, json.loads("\n".join(data))))
    return events


def test_openai_responses_tool_call_then_text(tmp_path):
    with MockServer(Script([WRITE], ("A", "B")), cwd=tmp_path) as mock:
        tools = [
            {"type": "function", "name": "exec_command"},
            {"type": "custom", "name": "apply_patch"},
        ]
        prompt = {
            "model": "gpt-5.5",
            "tools": tools,
            "stream": True,
            "input": [
                {
                    "type": "message",
                    "role": "developer",
                    "content": [{"type": "input_text", "text": "sys"}],
                },
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "go"}],
                },
            ],
        }
        ctype, raw = post(mock.url + "/v1/responses", prompt, {"X-Test": "1"})
        assert ctype == "text/event-stream"
        events = sse_events(raw)
        assert [n for n, _ in events] == [
            "response.created",
            "response.output_item.added",
            "response.output_item.done",
            "response.completed",
        ]
        item = events[2][1]["item"]
        assert item["type"] == "custom_tool_call" and item["name"] == "apply_patch"
        assert item["input"] == "*** Begin Patch\n*** Add File: target.txt\n+hello\n*** End Patch\n"
        assert events[-1][1]["response"]["usage"]["total_tokens"] > 0
        after = dict(
            prompt,
            input=prompt["input"]
            + [
                item,
                {
                    "type": "custom_tool_call_output",
                    "call_id": item["call_id"],
                    "output": "Command blocked by PreToolUse hook: no",
                },
            ],
        )
        _, raw = post(mock.url + "/v1/responses", after)
        done = next(d for n, d in sse_events(raw) if n == "response.output_item.done")["item"]
        assert done["type"] == "message" and done["content"][0]["text"] == "A"
    assert [r.reply for r in mock.requests] == ["tool_call write target.txt", "text 'A'"]
    assert mock.requests[0].headers["x-test"] == "1"
    assert mock.requests[0].json["model"] == "gpt-5.5"
    assert mock.requests[1].contains("Command blocked by PreToolUse hook: no")
    assert mock.requests_after_tool_call() == [mock.requests[1]]


def test_openai_responses_shell_uses_the_offered_tool():
    with MockServer(Script.shell("ls -l")) as mock:
        body = {
            "tools": [{"type": "function", "name": "exec_command"}],
            "input": [{"type": "message", "role": "user", "content": "go"}],
        }
        _, raw = post(mock.url + "/v1/responses", body)
    item = next(d for n, d in sse_events(raw) if n == "response.output_item.done")["item"]
    assert item["type"] == "function_call" and item["name"] == "exec_command"
    assert json.loads(item["arguments"]) == {"cmd": "ls -l"}


def test_gemini_function_call_and_side_requests(tmp_path):
    with MockServer(Script([WRITE], ("A",)), cwd=tmp_path) as mock:
        base = mock.url + "/v1beta/models/gemini-2.5-flash"
        body = {
            "contents": [
                {
                    "role": "user",
                    "parts": [{"text": "go"}, {"text": "<hook_context>c</hook_context>"}],
                }
            ],
            "tools": [{"functionDeclarations": [{"name": "write_file"}]}],
        }
        ctype, raw = post(base + ":streamGenerateContent?alt=sse", body)
        assert ctype == "text/event-stream"
        ((name, chunk),) = sse_events(raw)
        assert name is None
        part = chunk["candidates"][0]["content"]["parts"][0]
        assert part["functionCall"] == {
            "name": "write_file",
            "args": {"file_path": str(tmp_path / "target.txt"), "content": "hello\n"},
        }
        body["contents"] += [
            {"role": "model", "parts": [part]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "write_file",
                            "response": {"error": "Tool execution blocked: no"},
                        }
                    }
                ],
            },
        ]
        _, raw = post(base + ":streamGenerateContent?alt=sse", body)
        assert sse_events(raw)[0][1]["candidates"][0]["content"]["parts"][0] == {"text": "A"}
        # side requests: router classifier (JSON schema), token count
        router = {
            "contents": body["contents"][:1],
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": {
                    "type": "OBJECT",
                    "properties": {
                        "complexity_reasoning": {"type": "STRING"},
                        "complexity_score": {"type": "INTEGER"},
                    },
                },
            },
        }
        _, raw = post(mock.url + "/v1beta/models/flash-lite:generateContent", router)
        text = json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(text) == {"complexity_reasoning": "mock", "complexity_score": 1}
        _, raw = post(base + ":countTokens", {"contents": []})
        assert json.loads(raw)["totalTokens"] > 0
    assert [r.kind for r in mock.requests] == ["model", "model", "side", "side"]
    assert mock.requests[0].items[1].kind == CONTEXT


def test_anthropic_tool_use_stream(tmp_path):
    with MockServer(Script([WRITE], ("A",)), cwd=tmp_path) as mock:
        body = {
            "model": "claude-x",
            "stream": True,
            "tools": [{"name": "Write"}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "<system-reminder>env</system-reminder>"},
                        {"type": "text", "text": "go"},
                    ],
                }
            ],
        }
        ctype, raw = post(mock.url + "/v1/messages?beta=true", body)
        assert ctype == "text/event-stream"
        events = sse_events(raw)
        assert [n for n, _ in events] == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        block = events[1][1]["content_block"]
        assert block["type"] == "tool_use" and block["name"] == "Write"
        assert json.loads(events[2][1]["delta"]["partial_json"]) == {
            "file_path": str(tmp_path / "target.txt"),
            "content": "hello\n",
        }
        assert events[4][1]["delta"]["stop_reason"] == "tool_use"
        # non-streaming, tool-less side request; token count
        _, raw = post(
            mock.url + "/v1/messages", {"messages": [{"role": "user", "content": "title?"}]}
        )
        assert json.loads(raw)["content"][0]["text"] == "ok"
        _, raw = post(mock.url + "/v1/messages/count_tokens", {"messages": []})
        assert json.loads(raw)["input_tokens"] > 0
    assert [r.kind for r in mock.requests] == ["model", "side", "side"]


def test_unknown_requests_get_harmless_answers():
    with MockServer() as mock:
        with urllib.request.urlopen(mock.url + "/v1/models", timeout=5) as resp:
            assert json.loads(resp.read())["data"] == []
        _, raw = post(mock.url + "/api/event_logging/batch", {"events": []})
        assert json.loads(raw) == {}
        url = mock.url
    assert [r.path for r in mock.requests] == ["/v1/models", "/api/event_logging/batch"]
    with pytest.raises(RuntimeError):
        _ = mock.url  # stopped
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=2)


# -- runner: its own keys in the config files, everybody else's kept --------------

PROFILES = load_profiles()
DRIVEN = ("codex", "gemini", "claude", "copilot", "qwen", "kimi")
MOCK_ID = "hookshape_mock"  # the provider id the profiles' settings name


def cli(vendor: str, binary: Path = Path("/nonexistent"), *first: Path) -> runner.Cli:
    return runner.Cli(PROFILES[vendor], binary, first)


def settings(vendor: str, scratch: Path) -> Path:
    path = runner.settings_path(PROFILES[vendor], scratch)
    assert path is not None
    return path


def test_codex_config_keeps_hooks_and_foreign_keys(tmp_path):
    path = settings("codex", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(
        'model = "o3"\napproval_policy = "never"\n\n[features]\nhooks = true\n\n'
        '[[hooks.PreToolUse]]\nmatcher = "Edit|Write"\n[[hooks.PreToolUse.hooks]]\n'
        'type = "command"\ncommand = """sh -c \'\n[not a table]\necho hi\'"""\n\n'
        '[hooks.state."k"]\ntrusted_hash = "h"\n'
    )
    runner.prepare_home(cli("codex"), tmp_path, "http://127.0.0.1:1")
    runner.prepare_home(cli("codex"), tmp_path, "http://127.0.0.1:2")
    data = tomllib.loads(path.read_text())
    assert data["model"] == "gpt-5.5" and data["model_provider"] == MOCK_ID
    assert data["model_providers"][MOCK_ID]["base_url"] == "http://127.0.0.1:2/v1"
    assert data["approval_policy"] == "never"
    assert data["features"] == {"hooks": True, "plugins": False}
    assert (
        data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "sh -c '\n[not a table]\necho hi'"
    )
    assert data["hooks"]["state"] == {"k": {"trusted_hash": "h"}}


@pytest.mark.parametrize("vendor", ["gemini", "qwen"])
def test_json_settings_keep_hooks(vendor, tmp_path):
    path = settings(vendor, tmp_path)
    hooks = {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]
    }
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": hooks, "security": {"folderTrust": {"enabled": True}}}))
    runner.prepare_home(cli(vendor), tmp_path, "http://127.0.0.1:1")
    data = json.loads(path.read_text())
    assert data["hooks"] == hooks
    assert data["security"]["folderTrust"] == {"enabled": True}
    if vendor == "gemini":
        assert data["security"]["auth"]["selectedType"] == "gemini-api-key"
    if vendor == "qwen":
        assert data["$version"] == 4 and data["memory"]["enableManagedAutoMemory"] is False


def test_missing_settings_are_created_valid_and_claude_and_copilot_need_none(tmp_path):
    for vendor in DRIVEN:
        path = runner.prepare_home(cli(vendor), tmp_path / vendor, "http://127.0.0.1:1")
        if vendor in ("claude", "copilot"):  # everything they need comes from the environment
            assert path is None
            continue
        assert path is not None and path.exists()
        if path.suffix == ".toml":  # codex, kimi
            tomllib.loads(path.read_text())
        else:
            assert isinstance(json.loads(path.read_text()), dict)
    home = runner.home_dir(tmp_path)
    assert settings("gemini", tmp_path) == home / ".gemini" / "settings.json"
    assert settings("codex", tmp_path) == home / ".codex" / "config.toml"
    assert settings("qwen", tmp_path) == home / ".qwen" / "settings.json"
    assert settings("kimi", tmp_path) == home / ".kimi-code" / "config.toml"


def test_kimi_config_keeps_hook_tables(tmp_path):
    path = settings("kimi", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(
        '# >>> managed >>>\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "^(Edit)$"\n'
        'command = "sh hook.sh"\ntimeout = 5\n# <<< managed <<<\n'
    )
    runner.prepare_home(cli("kimi"), tmp_path, "http://127.0.0.1:1")
    runner.prepare_home(cli("kimi"), tmp_path, "http://127.0.0.1:2")
    data = tomllib.loads(path.read_text())
    assert data["hooks"] == [
        {"event": "PreToolUse", "matcher": "^(Edit)$", "command": "sh hook.sh", "timeout": 5}
    ]
    assert data["default_model"] == MOCK_ID
    provider = data["providers"][MOCK_ID]
    assert provider["type"] == "openai" and provider["base_url"] == "http://127.0.0.1:2/v1"
    assert data["models"][MOCK_ID]["max_context_size"] == 128000
    node = Path("/opt/node22/bin")
    env = runner.turn_env(cli("kimi", Path("/x/kimi"), node), tmp_path, "http://127.0.0.1:2", {"PATH": "/fake/bin"})
    assert env["PATH"] == f"{node}{os.pathsep}/fake/bin"  # the CLI's own PATH dirs stay first


def test_hook_configs_in_the_scratch_home(tmp_path):
    home = runner.home_dir(tmp_path)
    assert runner.hook_config(PROFILES["copilot"], tmp_path, "acme") == home / ".copilot" / "hooks" / "acme.json"
    assert runner.hook_config(PROFILES["claude"], tmp_path, "acme") == home / ".claude" / "settings.json"


@pytest.mark.parametrize("vendor", ["copilot", "qwen"])
def test_chat_completions_vendors_point_at_the_mock(vendor, tmp_path):
    env = runner.turn_env(cli(vendor), tmp_path, "http://127.0.0.1:9")
    base = env["COPILOT_PROVIDER_BASE_URL" if vendor == "copilot" else "OPENAI_BASE_URL"]
    assert base == "http://127.0.0.1:9/v1"
    model = PROFILES[vendor].drive.model
    if vendor == "copilot":
        assert env["COPILOT_OFFLINE"] == "true" and env["COPILOT_MODEL"] == model
    else:
        assert env["OPENAI_API_KEY"] == runner.MOCK_KEY and env["OPENAI_MODEL"] == model
    argv = runner.command(cli(vendor, Path(f"/bin/{vendor}")), "hi")
    assert argv[0] == f"/bin/{vendor}" and argv[1:3] == ["-p", "hi"]


def test_turn_env_is_isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "real-key")
    monkeypatch.setenv("OPENAI_API_KEY", "real-key")
    env = runner.turn_env(
        cli("claude"), tmp_path, "http://127.0.0.1:9", {"EXTRA": "1", "DISABLE_TELEMETRY": None}
    )
    assert env["HOME"] == str(runner.home_dir(tmp_path))
    assert env["ANTHROPIC_API_KEY"] == runner.MOCK_KEY and "OPENAI_API_KEY" not in env
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["EXTRA"] == "1" and "DISABLE_TELEMETRY" not in env
    assert Path(env["CLAUDE_CONFIG_DIR"]) == runner.home_dir(tmp_path) / ".claude"


def fake_cli(tmp_path: Path, body: str) -> runner.Cli:
    """A stand-in for Claude's CLI: a sh script."""
    path = tmp_path / "clis" / "claude"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return cli("claude", path)


def test_timeout_from_counts_from_the_marker(tmp_path):
    """The turn is given up `timeout` seconds after the marker appeared, not after the start."""
    marker = tmp_path / "started"
    fake = fake_cli(tmp_path, f"sleep 1\n: >{marker}\necho before\nexec sleep 60\n")
    with MockServer() as mock:
        result = runner.run_turn(fake, "hi", scratch=tmp_path / "s", mock=mock, timeout=0.5,
                                 timeout_from=marker, start_limit=30)
    assert result.timed_out and result.exit_code == runner.TIMEOUT_EXIT, result.describe()
    assert result.timeout_started is not None and result.timeout_started >= 1, result.describe()
    assert 0.5 <= result.duration - result.timeout_started < 4, result.describe()
    assert "before" in result.stdout  # what the CLI wrote while the runner waited is kept


def test_timeout_from_a_marker_that_never_comes(tmp_path):
    marker = tmp_path / "started"
    fake = fake_cli(tmp_path, "exec sleep 60\n")
    with MockServer() as mock:
        result = runner.run_turn(fake, "hi", scratch=tmp_path / "s", mock=mock, timeout=0.1,
                                 timeout_from=marker, start_limit=1)
    assert result.timed_out and result.timeout_started is None, result.describe()
    assert 1 <= result.duration < 5, result.describe()


def test_timeout_from_a_turn_that_ends_first(tmp_path):
    fake = fake_cli(tmp_path, "echo done\n")
    with MockServer() as mock:
        result = runner.run_turn(fake, "hi", scratch=tmp_path / "s", mock=mock, timeout=0.1,
                                 timeout_from=tmp_path / "started", start_limit=30)
    assert not result.timed_out and result.exit_code == 0 and result.stdout == "done\n", result.describe()
    assert result.timeout_started is None


def test_a_tool_the_request_does_not_offer_is_a_loud_400():
    with MockServer(Script([WRITE])) as mock:
        body = {
            "tools": [{"type": "function", "name": "exec_command"}],
            "input": [{"type": "message", "role": "user", "content": "go"}],
        }
        with pytest.raises(urllib.error.HTTPError) as err:
            post(mock.url + "/v1/responses", body)
    assert err.value.code == 400
    assert "no apply_patch tool" in json.loads(err.value.read())["error"]["message"]
    assert mock.requests[0].reply.startswith("script error")


# -- OpenAI Chat Completions (Copilot CLI, Qwen Code) -------------------------------


def chat_chunks(raw: bytes) -> list:
    """The `data:` payloads of a Chat Completions stream; the last must be [DONE]."""
    datas = [line[6:] for line in raw.decode().splitlines() if line.startswith("data: ")]
    assert datas[-1] == "[DONE]"
    return [json.loads(d) for d in datas[:-1]]


def chat_tool(name: str, *props: str, required: tuple = ()) -> dict:
    params = {"type": "object", "properties": {p: {"type": "string"} for p in props}}
    if required:
        params["required"] = list(required)
    return {"type": "function", "function": {"name": name, "parameters": params}}


COPILOT_TOOLS = [
    chat_tool("bash", "command", "description", required=("command", "description")),
    chat_tool("view", "path"),
    chat_tool("create", "path", "file_text"),
    chat_tool("edit", "path", "old_str", "new_str"),
]
QWEN_TOOLS = [
    chat_tool("run_shell_command", "command", "is_background", required=("command", "is_background")),
    chat_tool("read_file", "file_path"),
    chat_tool("write_file", "file_path", "content"),
    chat_tool("edit", "file_path", "old_string", "new_string"),
]


def test_openai_chat_streams_a_tool_call_then_text(tmp_path):
    edit = ToolCall.edit("src/a.txt", "x", "y")
    with MockServer(Script([edit], ("A", "B")), cwd=tmp_path) as mock:
        messages = [
            {"role": "system", "content": "You are a CLI."},
            {"role": "user", "content": "go"},
        ]
        body = {
            "model": "gpt-4.1",
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": COPILOT_TOOLS,
            "messages": messages,
        }
        ctype, raw = post(mock.url + "/v1/chat/completions", body)
        assert ctype == "text/event-stream"
        chunks = chat_chunks(raw)
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)
        calls = [tc for c in chunks for ch in c["choices"] for tc in ch["delta"].get("tool_calls") or []]
        assert len(calls) == 1 and calls[0]["index"] == 0 and calls[0]["id"] == "call_mock_1"
        assert calls[0]["function"]["name"] == "edit"
        args = json.loads(calls[0]["function"]["arguments"])
        assert args == {"path": str(tmp_path / "src/a.txt"), "old_str": "x", "new_str": "y"}
        finishes = [ch["finish_reason"] for c in chunks for ch in c["choices"] if ch["finish_reason"]]
        assert finishes == ["tool_calls"]
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 110

        # the tool's result (here a hook's deny) comes back: the final text
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [{**calls[0], "type": "function"}]},
            {"role": "tool", "tool_call_id": "call_mock_1", "content": "Denied by preToolUse hook: no"},
        ]
        _, raw = post(mock.url + "/v1/chat/completions", body)
        chunks = chat_chunks(raw)
        text = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
        assert text == "A"
        assert [ch["finish_reason"] for c in chunks for ch in c["choices"] if ch["finish_reason"]] == ["stop"]

    first, second = mock.model_requests()
    assert first.protocol == "openai_chat" and first.reply == "tool_call edit src/a.txt"
    assert [i.kind for i in first.items] == [CONTEXT, USER]
    assert [i.kind for i in second.items] == [CONTEXT, USER, TOOL_CALL, TOOL_RESULT]
    assert second.items[2].name == "edit"
    assert second.items[3].text == "Denied by preToolUse hook: no"


def test_openai_chat_names_arguments_after_the_offered_schema(tmp_path):
    script = Script(
        [ToolCall.read("a"), ToolCall.write("b", "hi\n"), ToolCall.shell("ls")], ("done",)
    )
    with MockServer(script, cwd=tmp_path) as mock:
        convo: list = [{"role": "user", "content": "go"}]
        got = []
        for n in range(3):
            body = {"model": "m", "tools": QWEN_TOOLS, "messages": convo}  # not streamed
            _, raw = post(mock.url + "/v1/chat/completions", body)
            data = json.loads(raw)
            assert data["object"] == "chat.completion"
            msg = data["choices"][0]["message"]
            assert data["choices"][0]["finish_reason"] == "tool_calls"
            call = msg["tool_calls"][0]
            got.append((call["function"]["name"], json.loads(call["function"]["arguments"])))
            convo += [msg, {"role": "tool", "tool_call_id": call["id"], "content": f"out {n}"}]
    assert got == [
        ("read_file", {"file_path": str(tmp_path / "a")}),
        ("write_file", {"file_path": str(tmp_path / "b"), "content": "hi\n"}),
        # a required parameter the mock does not know gets a neutral value of its type
        ("run_shell_command", {"command": "ls", "is_background": "mock"}),
    ]


def test_openai_chat_tells_hook_context_from_the_prompt():
    copilot_prompt = "MOCK_PROMPT do it\n\n<system_reminder>\nPD COORDINATION\n</system_reminder>"
    qwen_parts = [
        {"type": "text", "text": "MOCK_PROMPT do it"},
        {"type": "text", "text": "<qwen:user-prompt-submit-context>\nPD\n</qwen:user-prompt-submit-context>"},
    ]
    kimi_messages = [
        {"role": "user", "content": '<hook_result hook_event="UserPromptSubmit">\nPD\n</hook_result>'},
        {"role": "user", "content": "MOCK_PROMPT do it"},
    ]
    with MockServer(Script((), ("A",))) as mock:
        body = {"tools": COPILOT_TOOLS, "messages": kimi_messages}
        post(mock.url + "/v1/chat/completions", body)
        for content in (copilot_prompt, qwen_parts):
            body = {"tools": COPILOT_TOOLS, "messages": [{"role": "user", "content": content}]}
            post(mock.url + "/v1/chat/completions", body)
    kimi, copilot, qwen = mock.model_requests()
    assert [i.kind for i in kimi.items] == [CONTEXT, USER]
    assert [(i.kind, i.text) for i in copilot.items] == [
        (USER, "MOCK_PROMPT do it"),
        (CONTEXT, "<system_reminder>\nPD COORDINATION\n</system_reminder>"),
    ]
    assert [i.kind for i in qwen.items] == [USER, CONTEXT]
    assert qwen.items[1].text.startswith("<qwen:user-prompt-submit-context>\nPD")
    assert copilot.reply == qwen.reply == "text 'A'"


def test_openai_chat_side_requests_and_missing_tools():
    with MockServer(Script([ToolCall.write("f", "x")])) as mock:
        # no tools: a title or summary request, answered "ok" and not scripted
        _, raw = post(mock.url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "title?"}]})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "ok"
        assert mock.requests[0].kind == "side"
        # the scripted write is not offered: a loud 400
        body = {"tools": [chat_tool("bash", "command")], "messages": [{"role": "user", "content": "go"}]}
        with pytest.raises(urllib.error.HTTPError) as err:
            post(mock.url + "/v1/chat/completions", body)
    assert err.value.code == 400
    assert "no write tool" in json.loads(err.value.read())["error"]["message"]
