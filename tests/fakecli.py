"""A stand-in for Claude Code's CLI, for testing `hookshape verify` without a real one: a Python
script laid out as the npm package @anthropic-ai/claude-code (so verify reads its version from
package.json) that runs one `-p` turn the way the real CLI does, in small: the hooks of
$CLAUDE_CONFIG_DIR/settings.json (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop,
with the matcher of each group), the Anthropic Messages API at $ANTHROPIC_BASE_URL (not streamed), the
prompt hooks' context as a system reminder, a deny (JSON or exit 2) as an error tool result, a
stop block as "Stop hook feedback". Tools are not run. Knobs: events it never fires, and a
message to exit 1 with before anything else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PACKAGE = "@anthropic-ai/claude-code"

SOURCE = r'''#!__PYTHON__
import json, os, re, subprocess, sys, urllib.request

SKIP = set(__SKIP__)
FAIL = __FAIL__
if FAIL:
    print(FAIL, file=sys.stderr)
    sys.exit(1)
prompt = sys.argv[sys.argv.index("-p") + 1]
path = os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "settings.json")
hooks = json.load(open(path)).get("hooks", {}) if os.path.exists(path) else {}
common = {"session_id": "fake-session", "cwd": os.getcwd(), "transcript_path": "/dev/null"}


def run(event, payload, tool=None):
    if event in SKIP:
        return []
    done = []
    for group in hooks.get(event, []):
        matcher = group.get("matcher", "")
        if tool is not None and matcher not in ("", "*") and not re.search(matcher, tool):
            continue
        for h in group.get("hooks", []):
            data = json.dumps({**common, "hook_event_name": event, **payload})
            done.append(subprocess.run(h["command"], shell=True, input=data, capture_output=True,
                                       text=True))
    return done


def answer(runs, key):
    for p in runs:
        if p.returncode == 2 and p.stderr.strip():
            return p.stderr.strip()
        try:
            out = json.loads(p.stdout) if p.stdout.strip() else {}
        except ValueError:
            continue
        spec = out.get("hookSpecificOutput") or {}
        if key == "deny" and spec.get("permissionDecision") == "deny":
            return spec.get("permissionDecisionReason", "")
        if key == "context" and spec.get("additionalContext"):
            return spec["additionalContext"]
        if key == "block" and out.get("decision") == "block":
            return out.get("reason", "")
    return ""


def ask(messages):
    tools = [{"name": n, "input_schema": {"type": "object"}} for n in ("Write", "Read", "Bash")]
    body = json.dumps({"model": "fake", "max_tokens": 100, "messages": messages, "tools": tools})
    req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", body.encode(),
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


first = [{"type": "text", "text": prompt}]
for event, payload in (("UserPromptSubmit", {"prompt": prompt}), ("SessionStart", {"source": "startup"})):
    context = answer(run(event, payload), "context")
    if context:
        reminder = f"<system-reminder>\n{event} hook additional context: {context}\n</system-reminder>"
        first.insert(0, {"type": "text", "text": reminder})
messages = [{"role": "user", "content": first}]
active = False
for _ in range(20):
    block = ask(messages)["content"][0]
    messages.append({"role": "assistant", "content": [block]})
    if block["type"] == "tool_use":
        payload = {"tool_name": block["name"], "tool_input": block["input"]}
        reason = answer(run("PreToolUse", payload, block["name"]), "deny")
        if reason:
            result = {"type": "tool_result", "tool_use_id": block["id"], "is_error": True,
                      "content": f"PreToolUse:{block['name']} hook error: {reason}"}
        else:
            run("PostToolUse", {**payload, "tool_response": "ok"}, block["name"])
            result = {"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}
        messages.append({"role": "user", "content": [result]})
        continue
    reason = answer(run("Stop", {"stop_hook_active": active, "last_assistant_message": block["text"]}),
                    "block")
    if reason and not active:
        active = True
        messages.append({"role": "user", "content": [{"type": "text", "text": "Stop hook feedback:\n" + reason}]})
        continue
    print(json.dumps({"result": block["text"]}))
    sys.exit(0)
sys.exit(3)
'''


def fake_claude(root: Path, version: str, skip: tuple[str, ...] = (), fail: str = "") -> Path:
    """The fake CLI under root/node_modules/@anthropic-ai/claude-code (package.json: version),
    linked as root/bin/claude; returns the bin directory (for PATH)."""
    package = root / "node_modules" / PACKAGE
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": PACKAGE, "version": version}))
    script = package / "cli.py"
    text = (SOURCE.replace("__PYTHON__", sys.executable).replace("__SKIP__", repr(list(skip)))
            .replace("__FAIL__", repr(fail)))
    script.write_text(text)
    script.chmod(0o755)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(script)
    return bin_dir
