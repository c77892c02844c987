"""hookshape simulate: every vendor x role on the built-in examples (the verdict must be what
the vendor's dialect says about the output observed, whatever today's tentacles print), the
verdict rules on synthetic runs, and the options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.installkit import SPEC, hs, loaded
from tests.shells import FAST

from hookshape.diagnose.verdict import Run, verdict
from hookshape.plan import outputs
from hookshape.spec.profiles import Profile

LOADED = loaded()
VENDORS = sorted(LOADED.profiles)
ROLES = ("prompt", "pre_tool", "post_tool", "stop")
EVENTS = ("session_start", "prompt", "pre_tool", "post_tool", "stop", "subagent_stop", "pre_compact",
          "session_end", "notification", "permission_request", "post_tool_failure", "subagent_start")


def simulate(*args: str, stdin: str | None = None) -> tuple[int, dict[str, str]]:
    result = hs("simulate", "--spec", str(SPEC), *args, stdin=stdin)
    fields: dict[str, str] = {}
    for line in result.out.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key in {"vendor", "script", "payload", "home", "exit code", "stdout", "stderr",
                           "verdict"}:
            fields[key] = value
    return result.code, fields


def obj_of(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text or text == "(empty)":
        return None
    value = json.loads(text)
    assert isinstance(value, dict), "stdout must be one JSON object or nothing"
    return value


def expected(profile: Profile, role: str, code: int, out: dict[str, Any] | None) -> str:
    """The verdict's opening words, from the profile's answers (read by hookshape.plan.outputs)."""
    name = profile.vendor.display
    if role == "stop" and outputs.read(profile, "stop", out, "stop") is not None:
        return f"{name} keeps the agent working with: "
    if role == "pre_tool" and outputs.read(profile, "deny", out, "pre_tool") is not None:
        return f"{name} blocks the "
    if role == "prompt" and outputs.read(profile, "context", out, "prompt"):
        return f"{name} adds this context to the turn: "
    if role == "pre_tool" and outputs.read(profile, "warn", out, "pre_tool"):
        return f"{name} lets the "
    if out is None and code == 0:
        return "nothing happens: "
    return ""


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_every_vendor_and_role_on_the_builtin_example(vendor: str, role: str) -> None:
    code, fields = simulate("--vendor", vendor, "--tentacle", role)
    assert code == 0, fields
    assert fields["payload"] == f"built-in example {vendor}/{role}.json"
    exit_code = int(fields["exit code"])
    assert exit_code in (0, 2), "tentacles fail open: 0, or 2 for a deliberate block"
    out = obj_of(fields["stdout"])
    profile = LOADED.profiles[vendor]
    assert fields["verdict"].startswith(expected(profile, role, exit_code, out)), fields
    assert profile.vendor.display in fields["verdict"] or fields["verdict"].startswith("nothing")


EXAMPLES = Path(__file__).resolve().parents[1] / "generator/hookshape/examples"


@pytest.mark.parametrize("vendor", VENDORS)
def test_an_example_for_every_event_the_vendor_has(vendor: str) -> None:
    """One built-in example per event the profile names, none for an event it lacks; each one
    carries the vendor's event name (where its payloads name it), session and cwd fields."""
    profile = LOADED.profiles[vendor]
    have = {p.stem for p in (EXAMPLES / vendor).glob("*.json")}
    assert have == {e for e in EVENTS if profile.events.of(e)}
    for event in have:
        data = json.loads((EXAMPLES / vendor / f"{event}.json").read_text())
        if profile.payload.event:
            assert data[profile.payload.event] == profile.events.of(event)
        assert profile.payload.session[0].split(".")[0] in data
        assert any(c.split(".")[0] in data for c in profile.payload.cwd) or vendor == "cursor"


def test_payload_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "Stop",
               "stop_hook_active": True, "last_assistant_message": "done"}
    path = tmp_path / "stop.json"
    path.write_text(json.dumps(payload))
    code, fields = simulate("--vendor", "claude", "--tentacle", "stop", "--payload", str(path))
    assert code == 0 and fields["payload"] == str(path)
    assert fields["verdict"].startswith("nothing happens"), "stop_hook_active never blocks"
    code, fields = simulate("--vendor", "claude", "--tentacle", "pd-hook-stop", "--payload", "-",
                            stdin=json.dumps(payload))
    assert code == 0 and fields["payload"] == "stdin"


def test_gate_runs_in_a_prepared_scratch_home() -> None:
    code, fields = simulate("--vendor", "codex", "--tentacle", "prompt", "--gate")
    assert code == 0
    assert fields["script"] == "bin/pd-hook-prompt (gate pd-hook-prompt), rendered from the spec in memory"
    assert "scratch" in fields["home"]
    out = obj_of(fields["stdout"])
    assert fields["verdict"].startswith(expected(LOADED.profiles["codex"], "prompt", 0, out))


def test_gate_with_a_home_that_is_not_ready_does_nothing(tmp_path: Path) -> None:
    code, fields = simulate("--vendor", "claude", "--tentacle", "stop", "--gate",
                            "--home", str(tmp_path))
    assert code == 0
    assert fields["stdout"] == "(empty)"
    assert fields["verdict"] == "nothing happens: the agent stops"


def test_a_named_shell_runs_the_script() -> None:
    code, fields = simulate("--vendor", "gemini", "--tentacle", "prompt", "--shell", "sh")
    assert code == 0 and int(fields["exit code"]) == 0


def test_unknown_tentacle_is_a_user_error() -> None:
    result = hs("simulate", "--spec", str(SPEC), "--vendor", "claude", "--tentacle", "nope")
    assert result.code == 1 and result.out == ""
    gates = ", ".join(f"{r} (pd-hook-{r.replace('_', '-')})" for r in ROLES)
    assert result.err == f"hookshape: error: no gate or event 'nope' in {SPEC} (its gates: {gates})"


MINIMAL = Path(__file__).resolve().parents[1] / "examples" / "minimal.toml"


@pytest.fixture(scope="module")
def minimal_no_codex(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = tmp_path_factory.mktemp("no-codex") / "hookshape.toml"
    spec.write_text(MINIMAL.read_text().replace("[vendors.codex]\n", ""))
    return spec
MINIMAL_GATES = "prompt (acme-guard-prompt), pre_tool (acme-guard-pre-tool)"


@pytest.mark.parametrize("name", ["stop", "session_start", "post-tool"])
def test_an_event_the_spec_has_no_gate_on_lists_what_it_has(name: str) -> None:
    result = hs("simulate", "--spec", str(MINIMAL), "--vendor", "claude", "--event", name)
    assert result.code == 1 and result.out == ""
    event = name.replace("-", "_")
    assert result.err == (f"hookshape: error: no hook or tentacle on {event} in {MINIMAL} "
                          f"(its gates: {MINIMAL_GATES})")


def test_an_event_with_two_gates_asks_for_one(tmp_path: Path) -> None:
    text = SPEC.read_text() + ('\n[[hooks]]\nname = "mine"\nevent = "stop"\n'
                               'run = ["true"]\n')
    spec = tmp_path / "hookshape.toml"
    spec.write_text(text)
    result = hs("simulate", "--spec", str(spec), "--vendor", "claude", "--event", "stop")
    assert result.code == 1
    assert result.err == (f"hookshape: error: the stop event has 2 gates in {spec}: pd-hook-stop, "
                          "giant-squid-stop; name one")
    result = hs("simulate", "--spec", str(spec), "--vendor", "claude", "--event", "giant-squid-stop", "--gate")
    assert result.code == 0, result.err


def test_an_event_the_vendor_lacks_needs_a_payload(tmp_path: Path) -> None:
    spec = all_events_spec(tmp_path)
    result = hs("simulate", "--spec", str(spec), "--vendor", "gemini", "--event", "subagent_stop")
    assert result.code == 1 and result.out == ""
    assert result.err == ("hookshape: error: Gemini CLI has no subagent_stop event, so it never "
                          "runs these hooks (its events: session_start, prompt, pre_tool, post_tool, "
                          "stop, pre_compact, session_end, notification); pass --payload FILE to run them "
                          "anyway")


def test_the_spec_is_rendered_not_a_stale_dist(tmp_path: Path) -> None:
    """A dist/ beside the spec that an older spec rendered is never what simulate runs."""
    spec = tmp_path / "hookshape.toml"
    spec.write_text(MINIMAL.read_text())
    assert hs("render", "--spec", str(spec)).code == 0
    spec.write_text(MINIMAL.read_text().replace("Reminder: never read", "Reminder, new: never read"))
    code, fields = simulate_spec(spec, "--vendor", "claude", "--event", "prompt", "--gate")
    assert code == 0
    assert fields["verdict"].startswith("Claude Code adds this context to the turn: Reminder, new:")


# --- every event of every vendor: a hook on each that says something and exits 2 ----------

SAYS = 'echo "out $AE_EVENT"; echo "why $AE_EVENT" >&2; exit 2'


def all_events_spec(folder: Path) -> Path:
    lines = ['[harness]\nname = "all-events"\nprefix = "ae"\n[gate]\nreadiness = false\n'
             "armed_roots = false\n[halt]\nenabled = false\n"]
    for event in EVENTS:
        lines.append(f'[[hooks]]\nname = "on-{event.replace("_", "-")}"\nevent = "{event}"\n'
                     f"run = [\"sh\", \"-c\", '{SAYS}']\n")
    lines += [f"[vendors.{v}]\n" for v in VENDORS]
    spec = folder / "hookshape.toml"
    spec.write_text("".join(lines))
    return spec


def simulate_spec(spec: Path, *args: str) -> tuple[int, dict[str, str]]:
    result = hs("simulate", "--spec", str(spec), *args)
    fields = {}
    for line in result.out.splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            fields[key] = value
    return result.code, fields


def expected_reading(profile: Profile, event: str) -> str:
    """What the vendor makes of `why <event>` on stderr with exit 2 (the adapter's answer)."""
    name, why = profile.vendor.display, f"why {event}"
    if event == "pre_tool":
        return f"{name} blocks the "
    if event in ("stop", "subagent_stop"):
        who = "the subagent" if event == "subagent_stop" else "the agent"
        return f"{name} keeps {who} working with: {why}"
    if event == "prompt" and outputs.resolved(profile, "block", "prompt") is not None:
        return f"{name} rejects the prompt and shows: {why}"
    if event == "permission_request":
        refuses = outputs.resolved(profile, "refuse", event) is not None
        return f"{name} denies the " if refuses else "nothing happens: "
    if outputs.resolved(profile, "context", event) is None:
        return "nothing happens: "
    return {"session_start": f"{name} adds this context to the session: ",
            "prompt": f"{name} adds this context to the turn: ",
            "post_tool": f"{name} adds this context after the ",
            "post_tool_failure": f"{name} adds this context after the ",
            }.get(event, f"{name} adds this context (")


@pytest.fixture(scope="module")
def every_event(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return all_events_spec(tmp_path_factory.mktemp("every-event"))


def events_tried(vendor: str) -> list[str]:
    """The events the vendor has; in fast mode a third of them, the k-th vendor taking every
    third event from the k-th on (every event still meets some vendor: a test says so)."""
    k = VENDORS.index(vendor)
    return [e for i, e in enumerate(EVENTS)
            if LOADED.profiles[vendor].events.of(e) and (not FAST or (i + k) % 3 == 0)]


def test_every_event_is_tried_on_some_vendor() -> None:
    tried = {e for v in VENDORS for e in events_tried(v)}
    assert tried == {e for e in EVENTS if any(LOADED.profiles[v].events.of(e) for v in VENDORS)}
    assert all(events_tried(v) for v in VENDORS)


@pytest.mark.parametrize("vendor", VENDORS)
def test_every_event_of_every_vendor_has_a_verdict(vendor: str, every_event: Path) -> None:
    """On every event the vendor has, the built-in example through the gate: a verdict in words,
    never a traceback, that says what the vendor makes of the hook's exit 2."""
    profile = LOADED.profiles[vendor]
    for event in events_tried(vendor):
        code, fields = simulate_spec(every_event, "--vendor", vendor, "--event", event, "--gate")
        assert code == 0, (event, fields)
        assert fields["payload"] == f"built-in example {vendor}/{event}.json"
        assert fields["verdict"].startswith(expected_reading(profile, event)), (event, fields)


# --- the verdict rules, on synthetic runs ------------------------------------------------

PAYLOAD = {"tool_name": "Write", "toolCall": {"name": "write_to_file"}}
DENY_HSO = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "deny",
                                              "permissionDecisionReason": "BLOCKED: a.ts"}})
DENY_DECISION = json.dumps({"decision": "deny", "reason": "BLOCKED: a.ts"})


def say(vendor: str, role: str, code: int, stdout: str = "", stderr: str = "") -> str:
    return verdict(LOADED.profiles[vendor], role, PAYLOAD, Run(code, stdout, stderr))


def test_hso_deny_blocks() -> None:
    assert say("claude", "pre_tool", 0, DENY_HSO) == \
        "Claude Code blocks the Write call and shows the agent: BLOCKED: a.ts"


def test_decision_deny_blocks() -> None:
    assert say("gemini", "pre_tool", 0, DENY_DECISION).startswith("Gemini CLI blocks the Write")
    assert say("agy", "pre_tool", 0, DENY_DECISION).startswith(
        "Antigravity blocks the write_to_file")


def test_exit_2_with_stderr_blocks_where_the_exit_code_counts() -> None:
    assert say("codex", "pre_tool", 2, "", "BLOCKED: a.ts").startswith("Codex CLI blocks")
    assert say("gemini", "pre_tool", 2, "", "BLOCKED: a.ts").startswith("Gemini CLI blocks")
    assert say("agy", "pre_tool", 2, "", "BLOCKED: a.ts").startswith("nothing happens")


def test_exit_2_with_json_or_no_text_does_not_block_where_the_dialect_says_so() -> None:
    assert say("gemini", "pre_tool", 2, '{"x":1}', "BLOCKED").startswith("nothing happens")
    assert say("claude", "pre_tool", 2, "", "").startswith("nothing happens")


def test_allow_answers_and_empty_object_denies() -> None:
    """agy: {"decision":"allow"} is its allow answer; `{}` denies (profile output.allow and
    output.empty_object_denies)."""
    assert say("agy", "pre_tool", 0, '{"decision":"allow"}') == \
        "Antigravity runs the write_to_file call (the hook said allow)"
    assert say("agy", "pre_tool", 0, "{}").startswith("Antigravity blocks the write_to_file call")
    assert say("claude", "pre_tool", 0, "{}").startswith("nothing happens")


def test_warning_channels() -> None:
    ctx = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "additionalContext": "WARNING: a.ts"}})
    assert say("claude", "pre_tool", 0, ctx) == \
        "Claude Code lets the Write call run and adds this context: WARNING: a.ts"
    assert say("codex", "pre_tool", 0, "", "WARNING: a.ts") == \
        "Codex CLI lets the Write call run and shows this warning: WARNING: a.ts"


def test_prompt_context_channels() -> None:
    hso = json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeAgent",
                                             "additionalContext": "line one\nline two"}})
    assert say("gemini", "prompt", 0, hso) == \
        "Gemini CLI adds this context to the turn: line one line two"
    steps = json.dumps({"injectSteps": [{"ephemeralMessage": "hello"}]})
    assert say("agy", "prompt", 0, steps) == \
        "Antigravity adds this context to the turn: hello"
    assert say("agy", "prompt", 0, hso).startswith("nothing happens")


def test_stop_channels_follow_the_dialect() -> None:
    block = json.dumps({"decision": "block", "reason": "SITREP missing"})
    deny = json.dumps({"decision": "deny", "reason": "SITREP missing"})
    cont = json.dumps({"decision": "continue", "reason": "SITREP missing"})
    assert say("claude", "stop", 0, block) == \
        "Claude Code keeps the agent working with: SITREP missing"
    assert say("codex", "stop", 0, block).startswith("Codex CLI keeps the agent working")
    assert say("gemini", "stop", 0, deny).startswith("Gemini CLI keeps the agent working")
    assert say("agy", "stop", 0, cont).startswith("Antigravity keeps the agent working")
    assert say("gemini", "stop", 0, block).startswith("nothing happens")
    message = json.dumps({"systemMessage": "Reminder: add a SITREP"})
    assert say("claude", "stop", 0, message) == \
        "Claude Code lets the agent stop and shows the user: Reminder: add a SITREP"
    assert say("codex", "stop", 0, message).startswith("nothing happens")


def test_broken_output_is_nothing() -> None:
    assert say("gemini", "pre_tool", 0, "not json") == ("nothing happens: stdout is not JSON, so "
                                                         "Gemini CLI ignores it; Gemini CLI runs "
                                                         "the Write call")
    assert say("claude", "stop", 1, "", "boom").startswith(
        "nothing happens: exit 1 is a non-blocking")


def test_post_tool() -> None:
    assert say("claude", "post_tool", 0) == "nothing happens: the Write call already ran"
    assert say("claude", "post_tool", 2, "", "careful").startswith(
        "Claude Code shows the agent (after the Write call already ran): careful")


# --- what simulate refuses or warns about --------------------------------------------------

def test_a_vendor_the_spec_disables_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    text = SPEC.read_text()
    assert "[vendors.gemini]\nenabled = true" in text
    spec.write_text(text.replace("[vendors.gemini]\nenabled = true",
                                 "[vendors.gemini]\nenabled = false"))
    result = hs("simulate", "--spec", str(spec), "--vendor", "gemini", "--tentacle", "stop")
    assert result.code == 1 and result.out == ""
    assert result.err == (f"hookshape: error: {spec}: vendors.gemini is not enabled in the spec: "
                          "set enabled = true under [vendors.gemini]")


def test_a_vendor_the_spec_does_not_name_is_refused_with_the_table_to_add(minimal_no_codex: Path) -> None:
    result = hs("simulate", "--spec", str(minimal_no_codex), "--vendor", "codex", "--event", "prompt")
    assert result.code == 1 and result.out == ""
    assert result.err == (f"hookshape: error: {minimal_no_codex}: vendors.codex is not enabled in "
                          "the spec: add a [vendors.codex] table to it")


def test_an_unknown_vendor_gets_the_near_one() -> None:
    result = hs("simulate", "--spec", str(SPEC), "--vendor", "claud", "--event", "prompt")
    assert result.code == 1
    assert result.err.startswith("hookshape: error: unknown vendor 'claud' (did you mean 'claude'? "
                                 "known: agy, claude,"), result.err


def warnings_of(*args: str, stdin: str | None = None) -> tuple[list[str], str]:
    result = hs("simulate", "--spec", str(SPEC), *args, stdin=stdin)
    assert result.code == 0, result
    return result.err.splitlines(), result.out


@pytest.mark.parametrize("payload", ["not json at all", "", "{truncated"])
def test_a_payload_that_is_not_json_is_warned_about(payload: str) -> None:
    err, out = warnings_of("--vendor", "claude", "--tentacle", "stop", "--payload", "-",
                           stdin=payload)
    assert err == ["hookshape: warning: the payload is not JSON: Claude Code never sends that; "
                   "the verdict shows only how the script treats garbage"]
    assert "verdict: " in out  # the run is still shown


def test_a_payload_that_is_not_an_object_is_warned_about() -> None:
    err, _ = warnings_of("--vendor", "codex", "--tentacle", "prompt", "--payload", "-",
                         stdin="[1, 2]")
    assert err == ["hookshape: warning: the payload is JSON but not an object: Codex CLI always "
                   "sends an object"]


@pytest.mark.parametrize("vendor", [v for v in VENDORS if LOADED.profiles[v].payload.event])
def test_a_payload_of_another_event_is_warned_about(vendor: str) -> None:
    """The pre-tool example sent to the stop tentacle: the profile's event field says so."""
    profile = LOADED.profiles[vendor]
    root = Path(__file__).resolve().parents[1] / "generator/hookshape/examples"
    payload = (root / vendor / "pre_tool.json").read_text()
    err, _ = warnings_of("--vendor", vendor, "--tentacle", "stop", "--payload", "-",
                         stdin=payload)
    field = profile.payload.event
    assert err == [f'hookshape: warning: the payload has {field} "{profile.events.pre_tool}", '
                   f'but {profile.vendor.display} sends {field} "{profile.events.stop}" to the '
                   "stop tentacle: the verdict is for an event this tentacle never gets"], err
    missing = json.dumps({k: v for k, v in json.loads(payload).items() if k != field})
    err, _ = warnings_of("--vendor", vendor, "--tentacle", "pre_tool", "--payload", "-",
                         stdin=missing)
    assert len(err) == 1 and f"the payload has no {field}, but" in err[0], err


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_matching_payload_gets_no_warning(vendor: str) -> None:
    err, _ = warnings_of("--vendor", vendor, "--tentacle", "pre_tool")
    assert err == []
