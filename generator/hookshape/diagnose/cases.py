"""The harness's own test cases: `hookshape.tests.toml` beside the spec, `[[tests]]` tables, each
an event in vendor-neutral terms (or a payload file) and what the vendor must make of the answer.
Validated like the spec: pydantic with unknown keys refused, one located line per problem, the
near key or value suggested; then checked against the spec (its vendors and gates)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, JsonValue, model_validator

from hookshape.errors import HookshapeError
from hookshape.spec.hooks import NeutralEvent
from hookshape.spec.load import Loaded
from hookshape.spec.types import TOOL_EVENTS, RelPath, Strict, Word
from hookshape.spec.validation import parse_toml, validate

TESTS_SUFFIX = ".tests.toml"
TESTS_NAME = f"hookshape{TESTS_SUFFIX}"  # beside hookshape.toml
Expect = Literal["allow", "deny", "ask", "block", "context"]
# what each expectation can be said of: the events whose answer can be it
EXPECT_EVENTS: dict[str, tuple[str, ...]] = {
    "deny": ("pre_tool", "permission_request"), "ask": ("pre_tool",), "block": ("stop", "subagent_stop")}
STOP_EVENTS = ("stop", "subagent_stop")
NEUTRAL = ("tool", "command", "paths", "subagent", "tool_input", "prompt", "message", "stop_active",
           "session", "cwd", "transcript")

CaseName = Annotated[str, Field(pattern=r"^[^\x00-\x1f\x7f]{1,200}$", description=(
    "the case's name: one line of 1 to 200 characters"))]
ToolName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,128}$", description=(
    "a tool class (edit, shell, read), mcp:<server>, or a vendor's raw tool name: letters, "
    "digits, '_', '.', ':' and '-'"))]
Value = Annotated[str, Field(pattern=r"^[^\x00]*$", max_length=65536, description=(
    "text of at most 65536 characters, no NUL"))]
AnyEnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description=(
    "an environment variable name: letters, digits and '_', not starting with a digit"))]


class TestsError(HookshapeError):
    """The tests file is unreadable, not TOML, invalid, or does not fit the spec."""


class Case(Strict):
    """One case: an event as the vendors send it, and what each must make of the answer."""

    name: CaseName = Field(description="the case's name, unique in the file")
    event: NeutralEvent = Field(description="the vendor-neutral event the case sends")
    vendors: list[Word] | None = Field(None, description=(
        "the vendors to send it as (default: every vendor the spec enables)"))
    tool: ToolName | None = Field(None, description=(
        "pre_tool, post_tool: the call's tool, a class (edit, shell, read, subagent), mcp:<server> "
        "or a raw name (default: shell with a command, edit with paths, subagent with a subagent "
        "type, else the vendor's example)"))
    command: Value | None = Field(None, description="the shell command of the call")
    paths: list[Annotated[str, Field(pattern=r"^[^\x00]{1,4096}$")]] = Field([], description=(
        "the paths the call edits or reads (relative ones are joined to the cwd by the adapter)"))
    subagent: Annotated[str, Field(pattern=r"^[^\x00-\x1f\x7f]{1,200}$")] | None = Field(None, description=(
        "pre_tool, post_tool: a call of the vendor's subagent tool that starts this subagent type "
        "(written where the vendor's profile puts it)"))
    tool_input: dict[str, JsonValue] | None = Field(None, description=(
        "pre_tool, post_tool: keys written into the call's input as the vendor's tool takes them "
        "(e.g. a subagent's prompt)"))
    prompt: Value | None = Field(None, description="prompt: the user's prompt")
    message: Value | None = Field(None, description=(
        "stop, subagent_stop: the last assistant message (where the vendor sends one)"))
    stop_active: bool | None = Field(None, description=(
        "stop, subagent_stop: the vendor's stop_hook_active flag (where it has one)"))
    transcript: RelPath | None = Field(None, description=(
        "the session's transcript: a file of the scratch project (lay it out with `files`) whose "
        "path goes where the vendor sends one; a vendor that sends none is skipped"))
    session: Annotated[str, Field(pattern=r"^[A-Za-z0-9._:-]{1,128}$")] | None = Field(None, description=(
        "the session id (default: the vendor's example)"))
    cwd: Annotated[str, Field(pattern=r"^[^\x00]{1,4096}$")] | None = Field(None, description=(
        "the event's cwd: relative to a scratch project (made for the case), or absolute; default "
        "the scratch project"))
    env: dict[AnyEnvName, Value] = Field({}, description="environment variables for the run")
    files: dict[RelPath, Value] = Field({}, description=(
        "files written into the scratch project before the run (path: text)"))
    payload: RelPath | None = Field(None, description=(
        "the event as a file (relative to the tests file), sent as it is instead of the neutral "
        "keys"))
    expect: Expect = Field(description=(
        "what the vendor makes of the answer: allow (the call, turn or stop goes on; context may "
        "ride along), deny or ask (pre_tool), block (stop, subagent_stop: the agent keeps "
        "working), context (context reaches the model)"))
    reason_contains: Value | None = Field(None, description=(
        "deny, ask, block: text the reason must contain"))
    context_contains: Value | None = Field(None, description=(
        "allow, context: text the context must contain"))
    input: dict[str, JsonValue] | None = Field(None, description=(
        "pre_tool: the tool input the hook's rewrite must give"))

    @model_validator(mode="after")
    def _fits_the_event(self) -> Case:
        wrong = self._keys_off_event()
        if wrong:
            raise ValueError(wrong)
        if self.payload is not None:
            given = [k for k in NEUTRAL if getattr(self, k) not in (None, [])]
            if given:
                raise ValueError(f"payload: the event is the payload file as it is: leave out "
                                 f"{', '.join(given)}")
        if self.cwd is not None and not self.cwd.startswith("/") and ".." in self.cwd.split("/"):
            raise ValueError(f"cwd: {self.cwd!r} has a '..' segment: a relative cwd stays inside "
                             "the scratch project (an absolute one is sent as it is)")
        if self.tool == "any":
            raise ValueError("tool: a call has one tool: a class (edit, shell, read, subagent), "
                             "mcp:<server> or a raw name")
        if self.subagent is not None and (self.paths or self.command is not None):
            raise ValueError(f"subagent: a subagent call has no {'paths' if self.paths else 'command'}")
        if self.subagent is not None and self.tool not in (None, "subagent"):
            raise ValueError(f"subagent: the type is of a subagent call, not of a {self.tool} call")
        if self.command is not None and self.tool in ("edit", "read"):
            raise ValueError(f"command: an {self.tool} call has no command: leave out tool "
                             "(or tool = \"shell\")")
        if self.paths and self.tool == "shell":
            raise ValueError("paths: a shell call has a command, not paths")
        if self.command is not None and self.paths and self.tool is None:
            raise ValueError("paths: a call with a command is a shell call; give tool for another")
        return self._expectation_fits()

    def _keys_off_event(self) -> str:
        event = self.event
        checks = ((("tool", "command", "paths", "subagent", "tool_input"), TOOL_EVENTS,
                   "pre_tool, post_tool, permission_request and post_tool_failure"),
                  (("input",), ("pre_tool",), "pre_tool"),
                  (("prompt",), ("prompt",), "prompt"),
                  (("message", "stop_active"), STOP_EVENTS, "stop and subagent_stop"))
        for keys, events, said in checks:
            for key in keys:
                if getattr(self, key) not in (None, []) and event not in events:
                    return f"{key}: the {event} event has none (only {said})"
        return ""

    def _expectation_fits(self) -> Case:
        events = EXPECT_EVENTS.get(self.expect)
        if events is not None and self.event not in events:
            fix = "block" if self.event in STOP_EVENTS else (
                "deny" if self.event in EXPECT_EVENTS["deny"] else "allow or context")
            raise ValueError(f"expect: {self.expect!r} is for {' and '.join(events)}; a "
                             f"{self.event} answer is {fix}")
        if self.reason_contains is not None and self.expect not in ("deny", "ask", "block"):
            raise ValueError(f"reason_contains: an {self.expect} has no reason (expect deny, ask "
                             "or block)")
        if self.context_contains is not None and self.expect not in ("allow", "context"):
            raise ValueError(f"context_contains: with expect = {self.expect!r} the context is not "
                             "checked (expect context)")
        if self.input is not None and (self.event != "pre_tool" or self.expect != "allow"):
            raise ValueError("input: a rewrite is checked on pre_tool with expect = \"allow\"")
        return self


class TestsFile(Strict):
    tests: Annotated[list[Case], Field(min_length=1)] = Field(description=(
        "the cases, run in order"))

    @model_validator(mode="after")
    def _unique(self) -> TestsFile:
        names = [c.name for c in self.tests]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tests: duplicate name(s) {', '.join(repr(n) for n in dupes)}")
        return self


@dataclass(frozen=True)
class Tests:
    path: Path
    cases: list[Case]


def default_path(loaded: Loaded) -> Path:
    """<spec name>.tests.toml beside the spec (hookshape.tests.toml beside hookshape.toml); for
    the built-in spec, hookshape.tests.toml in the working directory."""
    if loaded.builtin:
        return Path.cwd() / TESTS_NAME
    return loaded.spec_path.parent / f"{loaded.spec_path.stem}{TESTS_SUFFIX}"


def load_tests(path: Path | None, loaded: Loaded) -> Tests:
    """The tests file, validated, then checked against the spec: every problem one located line."""
    file = path or default_path(loaded)
    if not file.is_file():
        how = "" if path else f": write {file.name} beside the spec, or pass --tests FILE"
        raise TestsError(f"{file}: no such tests file{how}")
    parsed: TestsFile = validate(file, TestsFile, parse_toml(file, TestsError), TestsError)
    problems = [f"{file}: tests[{i}].{p}" for i, case in enumerate(parsed.tests)
                for p in fits_spec(case, loaded, file.parent)]
    if problems:
        raise TestsError("\n".join(problems))
    return Tests(file, parsed.tests)


def fits_spec(case: Case, loaded: Loaded, base: Path) -> list[str]:
    """What in a case the spec cannot run: a vendor it does not enable, an event it has no
    registered gate on, a payload file that is not there."""
    out = []
    enabled = loaded.spec.enabled_vendors()
    for vid in case.vendors or ():
        if vid not in loaded.profiles:
            near = difflib.get_close_matches(vid, sorted(loaded.profiles), n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            out.append(f"vendors: {vid!r} is no vendor ({hint}known: {', '.join(sorted(loaded.profiles))})")
        elif vid not in enabled:
            out.append(f"vendors: {vid!r} is not enabled in {loaded.spec_path} (enabled: "
                       f"{', '.join(enabled)}): add [vendors.{vid}] to the spec, or leave it out here")
    gates = [g for g in loaded.spec.gates() if g.role == case.event]
    if not any(g.registered for g in gates):
        have = ", ".join(dict.fromkeys(g.role for g in loaded.spec.gates() if g.registered))
        why = "only staged (registered = false)" if gates else "no hook or tentacle"
        out.append(f"event: the spec has {why} on {case.event}, so no vendor runs one there "
                   f"(its events: {have})")
    if case.payload is not None and not (base / case.payload).is_file():
        out.append(f"payload: {case.payload}: no such file beside the tests file")
    return out
