"""[[hooks]]: the user's own hooks, and the group of one event's hooks."""

from __future__ import annotations

import difflib
import functools
import re
import shlex
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)

from hookshape.errors import HookshapeError
from hookshape.spec.gate import Gate
from hookshape.spec.profiles import load_profiles
from hookshape.spec.types import EVENTS, TOOL_EVENTS, Event, RelPath, Role, ScriptName, Strict


def _argv(value: object) -> object:
    """`run` as one string is split into words the way sh would (quotes kept together), once,
    at load: the gate runs the words with exec, never through a shell."""
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}") from None
    return value


@functools.cache
def _vendor_names() -> dict[str, dict[str, list[str]]]:
    """A vendor's event name (lowercased) -> neutral event -> the vendors that call it so, read
    off the shipped profiles."""
    try:
        profiles = load_profiles()
    except HookshapeError:
        return {}
    found: dict[str, dict[str, list[str]]] = {}
    for profile in profiles.values():
        for event in EVENTS:
            name = profile.events.of(event)
            if name:
                found.setdefault(name.lower(), {}).setdefault(event, []).append(profile.vendor.display)
    return found


def _neutral(value: object) -> object:
    """An event that is not one of ours: a vendor's own name (`PreToolUse`) says which of ours it
    is, a near miss (`pre-tool`, `pretool`) gets the near one; anything else lists ours."""
    if not isinstance(value, str) or value in EVENTS:
        return value
    ours = ", ".join(EVENTS)
    theirs = _vendor_names().get(value.lower())
    if theirs:
        said = " or ".join(f"{event} ({', '.join(sorted(who))})" for event, who in theirs.items())
        means = " or ".join(repr(event) for event in theirs)
        raise ValueError(f"{value!r} is what vendors call {said}: did you mean {means}? the "
                         f"events are vendor-neutral: {ours}")
    squashed = {e.replace("_", ""): e for e in EVENTS}
    key = value.lower().replace("-", "_").replace(" ", "_")
    near = [squashed[key.replace("_", "")]] if key.replace("_", "") in squashed else \
        difflib.get_close_matches(key, EVENTS, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise ValueError(f"{value!r} is not an event: {hint}the events are: {ours}")


# a vendor-neutral event, with a did-you-mean for a vendor's name of one (`PreToolUse`) or a near miss
NeutralEvent = Annotated[Event, BeforeValidator(_neutral)]
RUN_WORD = r"^[^\x00]+$"
RUN_WORD_WORDS = "one word of the command: 1 to 65536 characters, no NUL (a script for sh -c may span lines)"
RunWord = Annotated[str, Field(pattern=RUN_WORD, max_length=65536, description=RUN_WORD_WORDS)]
HOOK_DIR = "{dir}"
# the built-in jobs a hook may use, and the event each runs on
JOB_EVENTS: dict[str, Role] = {"context": "prompt", "lock-gate": "pre_tool", "trace": "post_tool",
                               "closeout": "stop"}
MatchItem = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9_.:*-]{1,128}$",
    description="a tool class (any, edit, shell, read), mcp:<server>, or a vendor's tool name: 1 to "
                "128 letters, digits, '_', '.', ':', '*' and '-'")]


class Hook(Strict):
    """A user's own hook: a command in any language, run on one vendor-neutral event behind the
    same gate as the built-in jobs. It reads the vendor's event on stdin (unchanged) and the
    normalized view in the [contract] env vars; exit 0 allows (stdout on prompt and
    session_start is context), exit 2 with a reason on stderr blocks or keeps the agent working."""

    name: ScriptName = Field(description="the hook's name, unique in the spec (its files install "
                                         "under bin/<tentacle_dir>/<name>.d)")
    event: NeutralEvent = Field(description="the vendor-neutral event the hook runs on")
    job: Literal["context", "lock-gate", "trace", "closeout"] | None = Field(None, description=(
        "a built-in job instead of a command: context (prompt: halt notice, coordination block, "
        "the end-of-turn contract), lock-gate (pre_tool: file locks, the halt watch, the control "
        "files), trace (post_tool: a trail line per edited file), closeout (stop: the end-of-turn "
        "check); each takes its options from its sections ([matrix], [dials], [halt], [protect], "
        "[prompt], [stop]) and runs behind its own gate"))
    run: Annotated[list[RunWord], BeforeValidator(_argv), WithJsonSchema({
        "anyOf": [{"type": "string", "minLength": 1},
                  {"type": "array", "minItems": 1,
                   "items": {"type": "string", "pattern": RUN_WORD, "description": RUN_WORD_WORDS}}]})
    ] = Field([], description=(
        "the command: a list of words, or one string split like sh words (no pipes, no "
        "expansions; write [\"sh\", \"-c\", \"...\"] for those). A bare first word is looked up on "
        "PATH; \"{dir}\" in a word is the directory the hook's files are installed in"))
    match: Annotated[list[MatchItem], Field(min_length=1)] = Field(["any"], description=(
        "pre_tool and post_tool: the tool calls the hook runs on: tool classes any, edit, shell, "
        "read, mcp:<server>, or a vendor's own tool name as it is"))
    failure: Literal["open", "closed"] = Field("open", description=(
        "open: a crash, a timeout or a missing command allows (and counts toward the breaker); "
        "closed: it blocks with a clear reason, on the events and vendors that can block "
        "(CAPABILITIES says where)"))
    deadline_ms: Annotated[int, Field(ge=50, le=600_000)] | None = Field(None, description=(
        "the hook's own deadline (default: gate.deadline_ms)"))
    registered: bool = Field(True, description=(
        "wired into the vendors' configs; false: installed (staged) but not wired"))
    files: list[RelPath] = Field([], description=(
        "files beside the spec the command needs (scripts, data), installed into {dir}"))
    judges_cut: bool = Field(False, description=(
        "a fail-closed hook that judges a view with cut fields itself (it reads <PREFIX>_CUT); "
        "without it the gate refuses such a call for the hook (contract.cut_message)"))
    loop_guard: Literal["gate", "own"] = Field("gate", description=(
        "stop and subagent_stop: gate (the gate lets the agent stop when a block now would loop: "
        "the vendor's stop_hook_active flag, or a per-session counter on a vendor without it) or "
        "own (the hook keeps a guard of its own, and its blocks are said as they are)"))
    rewrite: bool = Field(False, description=(
        "pre_tool: this hook may answer an `input` that replaces the tool's input (one rewriter "
        "per event, the last hook of it: the hooks before it judge the input as asked)"))

    @model_validator(mode="after")
    def _match_events(self) -> Hook:
        if self.event not in TOOL_EVENTS and self.match != ["any"]:
            raise ValueError(f"match: the {self.event} event takes no tool matcher "
                             "(only pre_tool and post_tool)")
        for item in self.match:
            if item.startswith("mcp:") and not re.fullmatch(r"mcp:[A-Za-z0-9._-]+", item):
                raise ValueError(f"match: {item!r}: mcp:<server> names one server")
        if self.loop_guard != "gate" and self.event not in ("stop", "subagent_stop"):
            raise ValueError(f"loop_guard: only stop and subagent_stop keep a loop guard, not {self.event}")
        if self.rewrite and self.event != "pre_tool":
            raise ValueError(f"rewrite: only a pre_tool hook rewrites a tool's input, not {self.event}")
        if self.job is not None:
            self._as_job()
            return self
        if not self.run:
            raise ValueError("run: the command is required (or give a built-in `job`)")
        first = self.run[0]
        if "/" in first and not first.startswith(("/", HOOK_DIR)):
            raise ValueError(f"run: {first!r} is a relative path, which would run from whatever "
                             "directory the vendor starts the hook in: give a command name (looked "
                             "up on PATH), an absolute path, or {dir}/<file> with the file in `files`")
        return self

    def _as_job(self) -> None:
        want = JOB_EVENTS[str(self.job)]
        if self.event != want:
            raise ValueError(f"job: {self.job} runs on {want}, not on {self.event}")
        given = [k for k in ("run", "files", "deadline_ms", "judges_cut", "rewrite") if getattr(self, k)]
        if self.loop_guard != "gate":
            given.append("loop_guard")
        if self.failure != "open":
            given.append("failure")
        if self.match != ["any"]:
            given.append("match")
        if given:
            raise ValueError(f"{', '.join(given)}: a built-in job takes its options from its "
                             "sections, not these keys (it fails open, under gate.deadline_ms)")

    def deadline(self, gate: Gate) -> int:
        return self.deadline_ms if self.deadline_ms is not None else gate.deadline_ms


class Group(BaseModel):
    """The user hooks of one event: they run in spec order through one gate and one adapter."""

    model_config = ConfigDict(frozen=True)
    name: str
    role: Event
    phase: str
    registered: bool
    hooks: tuple[Hook, ...]

    @property
    def closed(self) -> bool:
        return any(h.failure == "closed" for h in self.hooks)
