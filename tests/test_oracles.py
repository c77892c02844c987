"""What hookshape prints and writes, checked against the vendors' own published rules.

Codex generates a JSON Schema for each hook's output from its wire types and checks more at
parse time; SchemaStore carries Claude Code's settings schema and Codex's hooks.json schema. The
schemas below are written here from the rules of those files (the files themselves are
third-party data and stay out of the repository), each naming where its rules come from:

* Codex hook output, per event: `codex-rs/hooks/schema/generated/<event>.command.output.schema.json`
  of openai/codex as the codex 0.171.0 release binary embeds them (npm
  @openai/codex-linux-x64@0.171.0, the pinned CLI; newer than every copy of the repository's
  files seen for these events but user-prompt-submit's), with user-prompt-submit's rule that a
  block has a non-blank reason from the repository's copy @ 6fff509bb33fbafd45065060950f6318dc621fbe;
  and the parse-time rules of `codex-rs/hooks/src/engine/output_parser.rs` @
  0ea83813ef8631debc8ad777641fe532f0deffc2 (PreToolUse: permissionDecision allow only with
  updatedInput and updatedInput only with allow, ask unsupported, deny and a legacy block with a
  non-blank reason, no reason without a decision, no continue:false, stopReason or
  suppressOutput; PostToolUse: a block with a non-blank reason, no reason without a decision, no
  suppressOutput; Stop and SubagentStop: a block with a non-blank reason; PermissionRequest: no
  updatedInput, updatedPermissions or interrupt:true, no continue:false, stopReason or
  suppressOutput).
* Claude Code settings, its `hooks` object: SchemaStore/schemastore
  `src/schemas/json/claude-code-settings.json` @ 3b6446ad8a077bac56f4a4796c0b7fd88927fc8e (the file
  last changed in d2cbdcde9855c1bf9ea99c336163cc6c93753e39): the events it names, each a list of
  matcher groups (`matcher`, `hooks`, nothing else), each command handler `type` "command",
  `command` (non-empty), `timeout` (> 0) and the other keys it names, nothing else (not even
  Claude Code 2.1.295's `onFailure`, newer than the schema: a fail-closed hook's gate refuses by
  itself, so no entry needs it).
* Codex hooks.json: SchemaStore/schemastore `src/schemas/json/codex-hooks.json` @ 3b6446ad (last
  changed in bb45ad1d): `hooks` alone at the root, each event a non-empty list of matcher groups
  with a non-empty `hooks` list, each command handler `type` "command", `command` (non-empty),
  an integer `timeout` >= 0. Its groups and handlers take other keys; Codex itself fails a
  config file with a key it does not know (the profile's config.strict), so every key written
  here must be one the schema names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tests.hookkit import PROFILES, Box, answer, edit_doc, event_doc, raw, render, stop_doc, write_spec
from tests.hookkit import probe as probe_hook
from tests.shells import ROOT

from hookshape.package.plugin import hooks_file, plugin_entries, vendor_of
from hookshape.plan import outputs, plan
from hookshape.plan.capabilities import ANSWERS, SAID_AS
from hookshape.spec.load import load
from hookshape.spec.types import EVENTS, Event

pytest_plugins = ["tests.hookkit"]  # fixtures: box

SPECS = [ROOT / "hookshape.toml", *sorted((ROOT / "examples").glob("*.toml"))]
SPECS = [s for s in SPECS if not s.name.endswith(".tests.toml")]
CODEX = PROFILES["codex"]

# ------------------------------------------------------------------ the Codex output rules --

STRING: dict[str, Any] = {"type": "string"}
NONBLANK: dict[str, Any] = {"type": "string", "pattern": r"\S"}
UNIVERSAL: dict[str, Any] = {"continue": {"type": "boolean"}, "stopReason": STRING,
                             "suppressOutput": {"type": "boolean"}, "systemMessage": STRING}
BLOCK: dict[str, Any] = {"enum": ["block"], "type": "string"}


def closed(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object of these keys and no other (every Codex output schema: additionalProperties false)."""
    return {"type": "object", "additionalProperties": False, "properties": props, "required": list(required)}


def specific(event: str, **props: Any) -> dict[str, Any]:
    """hookSpecificOutput: hookEventName is required and is this event's name (const)."""
    return closed({"hookEventName": {"const": event, "type": "string"}, **props}, ("hookEventName",))


def when(present: str, then: dict[str, Any]) -> dict[str, Any]:
    return {"if": {"required": [present]}, "then": then}


def hso(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule of hookSpecificOutput, where there is one."""
    return {"properties": {"hookSpecificOutput": rule}}


def none_of(*keys_and_values: tuple[str, Any]) -> dict[str, Any]:
    """None of these keys with these values (a key with the value None: present at all)."""
    return {"not": {"anyOf": [{"required": [k]} if v is None else
                              {"required": [k], "properties": {k: {"const": v}}} for k, v in keys_and_values]}}


UNSUPPORTED_UNIVERSAL = none_of(("continue", False), ("stopReason", None), ("suppressOutput", True))
BLOCK_NEEDS_REASON = {"if": {"required": ["decision"], "properties": {"decision": {"const": "block"}}},
                      "then": {"required": ["reason"], "properties": {"reason": NONBLANK}}}

CODEX_OUTPUT: dict[str, dict[str, Any]] = {
    "PreToolUse": {**closed({**UNIVERSAL, "decision": {"enum": ["approve", "block"]}, "reason": STRING,
                             "hookSpecificOutput": specific(
                                 "PreToolUse", additionalContext=STRING,
                                 permissionDecision={"enum": ["allow", "deny", "ask"]},
                                 permissionDecisionReason=STRING, updatedInput={})}),
                   "allOf": [
                       UNSUPPORTED_UNIVERSAL,
                       # allow only with updatedInput, updatedInput only with allow
                       hso({"if": {"required": ["permissionDecision"],
                                   "properties": {"permissionDecision": {"const": "allow"}}},
                            "then": {"required": ["updatedInput"]}}),
                       hso(when("updatedInput", {"required": ["permissionDecision"],
                                                 "properties": {"permissionDecision": {"const": "allow"}}})),
                       # ask is unsupported (the hook fails open)
                       hso({"properties": {"permissionDecision": {"enum": ["allow", "deny"]}}}),
                       # deny with a non-blank reason; no reason without a decision
                       hso({"if": {"required": ["permissionDecision"],
                                   "properties": {"permissionDecision": {"const": "deny"}}},
                            "then": {"required": ["permissionDecisionReason"],
                                     "properties": {"permissionDecisionReason": NONBLANK}}}),
                       hso(when("permissionDecisionReason", {"required": ["permissionDecision"]})),
                       # the legacy decision: approve is unsupported, block has a non-blank reason
                       {"properties": {"decision": {"const": "block"}}},
                       BLOCK_NEEDS_REASON,
                       when("reason", {"required": ["decision"]}),
                   ]},
    "PostToolUse": {**closed({**UNIVERSAL, "decision": BLOCK, "reason": STRING,
                              "hookSpecificOutput": specific("PostToolUse", additionalContext=STRING,
                                                             updatedMCPToolOutput={})}),
                    "allOf": [BLOCK_NEEDS_REASON, when("reason", {"required": ["decision"]}),
                              none_of(("suppressOutput", True))]},
    "UserPromptSubmit": {**closed({**UNIVERSAL, "decision": BLOCK, "reason": STRING,
                                   "hookSpecificOutput": specific("UserPromptSubmit", additionalContext=STRING)}),
                         "allOf": [BLOCK_NEEDS_REASON]},
    "SessionStart": closed({**UNIVERSAL, "hookSpecificOutput": specific("SessionStart", additionalContext=STRING)}),
    "Stop": {**closed({**UNIVERSAL, "decision": BLOCK, "reason": STRING}), "allOf": [BLOCK_NEEDS_REASON]},
    "SubagentStop": {**closed({**UNIVERSAL, "decision": BLOCK, "reason": STRING}), "allOf": [BLOCK_NEEDS_REASON]},
    "PreCompact": closed(UNIVERSAL),
    "SubagentStart": closed({**UNIVERSAL, "hookSpecificOutput": specific("SubagentStart", additionalContext=STRING)}),
    "PermissionRequest": {**closed({**UNIVERSAL, "hookSpecificOutput": specific(
        "PermissionRequest", decision=closed({"behavior": {"enum": ["allow", "deny"]}, "message": STRING,
                                              "interrupt": {"type": "boolean"}, "updatedInput": {},
                                              "updatedPermissions": {}}, ("behavior",)))}),
        "allOf": [UNSUPPORTED_UNIVERSAL,
                  hso({"properties": {"decision": {"allOf": [
                      none_of(("updatedInput", None), ("updatedPermissions", None), ("interrupt", True))]}}})]},
    # SessionEnd: no output schema at all (0.171.0 embeds none): nothing may be printed there
}


def codex_valid(event: str, obj: Any) -> None:
    jsonschema.Draft7Validator(CODEX_OUTPUT[event]).validate(obj)


def codex_invalid(event: str, obj: Any) -> bool:
    return not jsonschema.Draft7Validator(CODEX_OUTPUT[event]).is_valid(obj)


def test_the_codex_rules_refuse_what_codex_refuses() -> None:
    """The schemas above say no where Codex does (else every check below would prove nothing)."""
    deny = {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}
    assert not codex_invalid("PreToolUse", {"hookSpecificOutput": deny})
    bad = [
        ("PreToolUse", {"hookSpecificOutput": {**deny, "permissionDecision": "ask"}}),
        ("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}),
        ("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"a": 1}}}),
        ("PreToolUse", {"hookSpecificOutput": {**deny, "permissionDecisionReason": "  "}}),
        ("PreToolUse", {"hookSpecificOutput": {**deny, "hookEventName": "PostToolUse"}}),
        ("PreToolUse", {"hookSpecificOutput": {**deny, "extra": 1}}),
        ("PreToolUse", {"hookSpecificOutput": deny, "continue": False}),
        ("PreToolUse", {"decision": "approve"}),
        ("PreToolUse", {"reason": "why"}),
        ("Stop", {"decision": "block"}),
        ("Stop", {"decision": "block", "reason": "x", "hookSpecificOutput": {"hookEventName": "Stop"}}),
        ("UserPromptSubmit", {"decision": "block", "reason": " "}),
        ("PostToolUse", {"reason": "why"}),
        ("PreCompact", {"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}}),
        ("PermissionRequest", {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                      "decision": {"behavior": "allow", "updatedInput": {}}}}),
        ("PermissionRequest", {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                      "decision": {"behavior": "deny", "interrupt": True}}}),
    ]
    for event, obj in bad:
        assert codex_invalid(event, obj), (event, obj)


# the answers the gates say, per neutral event: every hook answer (CAPABILITIES' table, said as
# capabilities.SAID_AS says), and the built-in jobs' (a tool block or warning, an allow, a stop
# block or suggestion; context on every event)
JOBS: dict[str, tuple[outputs.Kind, ...]] = {"pre_tool": ("deny", "warn", "allow"), "stop": ("stop", "suggest")}


def said(event: str) -> list[outputs.Kind]:
    kinds: list[outputs.Kind] = ["context", *JOBS.get(event, ())]
    for a in ANSWERS.get(event, ()):
        kinds.append(SAID_AS.get(a) or ("block" if event == "prompt" else "stop"))
    return list(dict.fromkeys(kinds))


NEW_INPUT = {"command": "*** Begin Patch\n*** Add File: final.txt\n+FINAL\n*** End Patch\n"}
TEXTS = ("BLOCKED: this file is locked by alice", "line one\nline two with \"quotes\" and \\ and \u00e9")


@pytest.mark.parametrize("event", [e for e in EVENTS if CODEX.events.of(e)])
def test_every_codex_answer_meets_codex_output_rules(event: str) -> None:
    """Each answer a gate can print on Codex, for each of its events, is valid output of that
    event as Codex defines it; the answers Codex cannot take (ask, a bare allow) are never
    printed: the profile has none, so the gate says the fallback instead."""
    name = CODEX.events.of(event)
    printed = 0
    for kind in said(event):
        for text in TEXTS:
            obj = outputs.stdout_object(CODEX, kind, text, event, NEW_INPUT)
            if obj is None:
                continue
            assert name in CODEX_OUTPUT, f"{name}: Codex defines no output, yet {kind} prints {obj}"
            codex_valid(name, obj)
            printed += 1
    assert outputs.stdout_object(CODEX, "ask", "x", event) is None
    assert outputs.stdout_object(CODEX, "allow", "", event) is None
    assert printed or event in ("pre_compact", "session_end"), event


def test_codex_permission_decisions_meet_codex_output_rules() -> None:
    for kind in ("grant", "refuse"):
        shape = outputs.of(CODEX, kind).stdout
        assert shape is not None, kind
        codex_valid("PermissionRequest", outputs.fill(shape, "not this one", "PermissionRequest"))


# the events a probe hook answers on, with the answers of each (the JSON a hook prints)
GATE_ANSWERS: list[tuple[Event, dict[str, Any]]] = [
    ("pre_tool", {"decision": "deny", "reason": "no edits today"}),
    ("pre_tool", {"context": "mind the lock file"}),
    ("pre_tool", {"input": NEW_INPUT}),
    ("pre_tool", {"decision": "ask", "reason": "sure?"}),
    ("post_tool", {"context": "lint: 2 warnings"}),
    ("prompt", {"context": "remember the goal"}),
    ("prompt", {"decision": "deny", "reason": "not that prompt"}),
    ("session_start", {"context": "the briefing"}),
    ("stop", {"decision": "block", "reason": "finish the table"}),
    ("subagent_stop", {"decision": "block", "reason": "say what you found"}),
    ("pre_compact", {"context": "keep the goal"}),
]


def codex_event(event: Event, project: Path) -> dict[str, Any]:
    if event in ("pre_tool", "post_tool"):
        return edit_doc("codex", "app.py", project, event)
    if event in ("stop", "subagent_stop"):
        return stop_doc("codex", "done", project, event)
    return event_doc("codex", event, project)


def test_the_gates_print_only_what_codex_takes(tmp_path: Path, box: Box) -> None:
    """Through the rendered gates (dash): a hook's every JSON answer, on every Codex event, comes
    out as one object Codex's rules accept, or as nothing where Codex has no answer for it."""
    hooks = [probe_hook(f"p-{e.replace('_', '-')}", e, **({"rewrite": True} if e == "pre_tool" else {}))
             for e in dict.fromkeys(e for e, _ in GATE_ANSWERS)]
    tree = render(write_spec(tmp_path / "spec", hooks), tmp_path / "dist")
    for event, said_json in GATE_ANSWERS:
        box.do(f"p-{event.replace('_', '-')}", out=json.dumps(said_json))
        r = box.run(tree, event, raw(codex_event(event, box.project)), "codex")
        assert r.code == 0 and r.err == b"", (event, said_json, r.brief())
        if r.out == b"":
            assert event == "pre_compact", (event, said_json)  # no context channel there
            continue
        obj = json.loads(r.out)
        codex_valid(CODEX.events.of(event), obj)
        if said_json.get("decision") == "ask":  # contract.ask_fallback: a deny that says why
            assert answer(r, "codex", "deny", "pre_tool"), r.brief()


# ---------------------------------------------------------------- Claude Code's settings --

CLAUDE_HANDLER_KEYS = ("type", "command", "timeout", "async", "asyncRewake", "shell", "if", "statusMessage", "args")
CLAUDE_EVENTS = (
    "ConfigChange", "CwdChanged", "DirectoryAdded", "Elicitation", "ElicitationResult", "FileChanged",
    "InstructionsLoaded", "MessageDisplay", "Notification", "PermissionDenied", "PermissionRequest",
    "PostCompact", "PostToolBatch", "PostToolUse", "PostToolUseFailure", "PreCompact", "PreToolUse",
    "SessionEnd", "SessionStart", "Setup", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "TaskCompleted", "TaskCreated", "TeammateIdle", "UserPromptExpansion", "UserPromptSubmit",
    "WorktreeCreate", "WorktreeRemove")
CLAUDE_COMMAND: dict[str, Any] = closed({
    "type": {"const": "command", "type": "string"}, "command": {"type": "string", "minLength": 1},
    "timeout": {"type": "number", "exclusiveMinimum": 0}, "async": {"type": "boolean"},
    "asyncRewake": {"type": "boolean"}, "shell": {"enum": ["bash", "powershell"]}, "if": STRING,
    "statusMessage": STRING, "args": {"type": "array", "items": STRING}}, ("type", "command"))
CLAUDE_HOOKS: dict[str, Any] = closed({event: {"type": "array", "items": closed({
    "matcher": STRING, "hooks": {"type": "array", "items": CLAUDE_COMMAND}}, ("hooks",))}
    for event in CLAUDE_EVENTS})
CLAUDE_SETTINGS: dict[str, Any] = {"type": "object", "properties": {"hooks": CLAUDE_HOOKS,
                                                                    "disableAllHooks": {"type": "boolean"}}}

# ----------------------------------------------------------------- Codex's hooks.json rules --

CODEX_HANDLER: dict[str, Any] = {"type": "object", "required": ["type", "command"], "properties": {
    "type": {"const": "command"}, "command": {"type": "string", "minLength": 1},
    "commandWindows": {"type": "string", "minLength": 1}, "timeout": {"type": "integer", "minimum": 0},
    "statusMessage": STRING, "async": {"type": "boolean"}}}
CODEX_GROUPS: dict[str, Any] = {"type": "array", "minItems": 1, "items": {
    "type": "object", "required": ["hooks"], "properties": {
        "matcher": STRING, "hooks": {"type": "array", "minItems": 1, "items": CODEX_HANDLER}}}}
CODEX_HOOKS_JSON: dict[str, Any] = {"type": "object", "required": ["hooks"], "additionalProperties": False,
                                    "properties": {"hooks": {"type": "object", "minProperties": 1,
                                                             "additionalProperties": CODEX_GROUPS}}}


def named_keys_only(hooks: dict[str, Any], group_keys: set[str], handler_keys: set[str]) -> None:
    """Every key written is one the schema names (Codex refuses a config with a key it does not
    know; Claude Code's schema names every key it takes)."""
    for groups in hooks.values():
        for group in groups:
            assert set(group) <= group_keys, group
            for handler in group["hooks"]:
                assert set(handler) <= handler_keys, handler


def rendered(spec: Path) -> dict[str, bytes]:
    return {a.path: a.data for a in plan.build(load(spec)).artifacts}


def plugin_hooks(spec: Path, fmt: str) -> Any:
    loaded = load(spec)
    profile, plugin = vendor_of(loaded, fmt)
    return json.loads(hooks_file(loaded, profile, plugin, plugin_entries(loaded, profile, plugin)))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_claude_settings_meet_schemastores_schema(spec: Path) -> None:
    """The settings block a spec renders for Claude Code (and its Claude Code plugin's
    hooks/hooks.json) is valid `hooks` of SchemaStore's claude-code-settings.json."""
    files = rendered(spec)
    settings = json.loads(files["config/claude/settings.json"])
    jsonschema.Draft7Validator(CLAUDE_SETTINGS).validate(settings)
    named_keys_only(settings["hooks"], {"matcher", "hooks"}, set(CLAUDE_HANDLER_KEYS))
    if "claude" in load(spec).spec.enabled_vendors():
        jsonschema.Draft7Validator(CLAUDE_SETTINGS).validate(plugin_hooks(spec, "claude-plugin"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_codex_hooks_config_meets_codex_hooks_json_rules(spec: Path) -> None:
    """The hooks a spec renders into Codex's hooks.json, and its Codex plugin's hooks.json, are
    valid as SchemaStore's codex-hooks.json defines them, with no key it does not name."""
    config = json.loads(rendered(spec)["config/codex/hooks.json"])
    assert set(config) == {"hooks"}, config  # the file holds the hook tables alone
    jsonschema.Draft7Validator(CODEX_HOOKS_JSON).validate(config)
    named_keys_only(config["hooks"], {"matcher", "hooks"}, set(CODEX_HANDLER["properties"]))
    if "codex" in load(spec).spec.enabled_vendors():
        doc = plugin_hooks(spec, "codex-plugin")
        jsonschema.Draft7Validator(CODEX_HOOKS_JSON).validate(doc)
        named_keys_only(doc["hooks"], {"matcher", "hooks"}, set(CODEX_HANDLER["properties"]))


def test_the_codex_hooks_json_rules_refuse_what_schemastore_refuses() -> None:
    """SchemaStore's own negative cases of codex-hooks.json, written out: each is refused."""
    validator = jsonschema.Draft7Validator(CODEX_HOOKS_JSON)
    handler = {"type": "command", "command": "python3 .codex/hooks/stop.py"}
    assert validator.is_valid({"hooks": {"Stop": [{"hooks": [handler]}]}})
    for bad in ({"hooks": {"Stop": [{"hooks": [{**handler, "timeout": 0.5}]}]}},
                {"hooks": {"SessionStart": {"hooks": [handler], "matcher": "startup"}}},
                {"hooks": {"Stop": [{"hooks": [{"type": "command", "timeout": 10}]}]}},
                {"$schema": "https://json.schemastore.org/codex-hooks.json",
                 "hooks": {"Stop": [{"hooks": [handler]}]}}):
        assert not validator.is_valid(bad), bad
