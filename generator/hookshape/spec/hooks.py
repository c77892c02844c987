"""[[hooks]]: the user's own hooks, and the group of one event's hooks."""

from __future__ import annotations

import difflib
import functools
import re
import shlex
from typing import Annotated, Literal, cast

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
from hookshape.spec.profiles import Profile, load_profiles
from hookshape.spec.types import (
    BLOCKING_EVENTS,
    EVENTS,
    TOOL_EVENTS,
    Event,
    RelPath,
    Role,
    ScriptName,
    Strict,
    Word,
)

# the words that open shell syntax rather than name a command (sh's reserved words, bash's too)
_SH_SYNTAX = frozenset({"!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for",
                        "if", "in", "then", "until", "while", "[[", "function", "select", "(", "(("})


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
# a vendor's own event, for what has no neutral name: `<vendor>:<Event>`
RAW_EVENT = r"^[a-z][a-z0-9_-]*:[A-Za-z][A-Za-z0-9_.-]{0,63}$"
RAW_EVENT_WORDS = "<vendor>:<its event>, e.g. claude:PostCompact"


def _hook_event(value: object) -> object:
    """A hook's event: a neutral one (checked as NeutralEvent checks it) or a vendor's own
    (`claude:PostCompact`, checked against the profile at load)."""
    if isinstance(value, str) and ":" in value:
        if not re.fullmatch(RAW_EVENT, value):
            raise ValueError(f"{value!r} is not a vendor's event: write {RAW_EVENT_WORDS}")
        return value
    return _neutral(value)


HookEvent = Annotated[str, BeforeValidator(_hook_event), WithJsonSchema({
    "anyOf": [{"enum": list(EVENTS)}, {"type": "string", "description": RAW_EVENT_WORDS}]})]
# a glob over the targets of a tool call
PATH_GLOB = r"^[A-Za-z0-9._/*?@+~,=%# -]{1,256}$"
PathGlob = Annotated[str, Field(pattern=PATH_GLOB, description=(
    "a path glob: 1 to 256 letters, digits, spaces and . _ / * ? @ + ~ , = % # -; `*` any run "
    "within a name, `?` one character, `**` any run of names"))]
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
    event: HookEvent = Field(description=(
        "the vendor-neutral event the hook runs on, or a vendor's own event for what has no "
        "neutral name (`claude:PostCompact`: wired for that vendor alone, and observed only)"))
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
        "the tool events (pre_tool, post_tool, permission_request, post_tool_failure): the tool "
        "calls the hook runs on: tool classes any, edit, shell, read, subagent, mcp:<server>, or "
        "a vendor's own tool name as it is"))
    paths: list[PathGlob] = Field([], description=(
        "the tool events: the hook runs only on a call with a target (an edit's or a read's path) "
        "that one of these globs takes: one without a `/` takes a name at any depth (`*.py`, "
        "`.env*`), one that starts with `/` the whole path, `**/` a name or path at any depth "
        "(`**/.env*`), any other is relative to the event's cwd (`src/**/*.ts`)"))
    vendors: Annotated[list[Word], Field(min_length=1)] | None = Field(None, description=(
        "only these vendors run the hook (default: every vendor of the spec that has its event)"))
    detached: bool = Field(False, alias="async", description=(
        "async: the agent does not wait for the hook (post_tool, post_tool_failure, notification, "
        "session_start, session_end, pre_compact, subagent_start and vendors' own events): the "
        "vendor runs its gate in the background where it can, else the gate answers at once and "
        "runs it detached under its deadline; what it says is not waited for and may be dropped"))
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
            raise ValueError(f"match: the {self.event} event takes no tool matcher (only "
                             f"{TOOL_EVENTS_SAID})")
        if self.event not in TOOL_EVENTS and self.paths:
            raise ValueError(f"paths: the {self.event} event has no tool call to take paths from "
                             f"(only {TOOL_EVENTS_SAID})")
        self._globs_sound()
        self._vendors_fit()
        self._async_fits()
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
        if first in _SH_SYNTAX:
            raise ValueError(f"run: {first!r} is shell syntax, and a hook's words run without a "
                             'shell: write run = ["sh", "-c", "..."] for shell code')
        if "/" in first and not first.startswith(("/", HOOK_DIR)):
            raise ValueError(f"run: {first!r} is a relative path, which would run from whatever "
                             "directory the vendor starts the hook in: give a command name (looked "
                             "up on PATH), an absolute path, or {dir}/<file> with the file in `files`")
        return self

    def _as_job(self) -> None:
        want = JOB_EVENTS[str(self.job)]
        if self.event != want:
            raise ValueError(f"job: {self.job} runs on {want}, not on {self.event}")
        given = [k for k in ("run", "files", "deadline_ms", "judges_cut", "rewrite", "paths", "vendors")
                 if getattr(self, k)]
        if self.detached:
            given.append("async")
        if self.loop_guard != "gate":
            given.append("loop_guard")
        if self.failure != "open":
            given.append("failure")
        if self.match != ["any"]:
            given.append("match")
        if given:
            raise ValueError(f"{', '.join(given)}: a built-in job takes its options from its "
                             "sections, not these keys (it fails open, under gate.deadline_ms)")

    def _globs_sound(self) -> None:
        for glob in self.paths:
            if "//" in glob or glob.endswith("/") or "***" in glob:
                raise ValueError(f"paths: {glob!r}: a glob names files: no empty name, no '/' at "
                                 "the end, no '***'")

    def _vendors_fit(self) -> None:
        if self.vendors is not None and len(set(self.vendors)) != len(self.vendors):
            raise ValueError("vendors: a vendor is named twice")
        raw = self.raw
        if raw is not None and self.vendors is not None and self.vendors != [raw[0]]:
            raise ValueError(f"vendors: the {self.event} event is {raw[0]}'s alone: leave vendors out")

    def _async_fits(self) -> None:
        if not self.detached:
            return
        if self.event in BLOCKING_EVENTS:
            raise ValueError(f"async: a {self.event} hook can refuse, so the agent must wait for it: "
                             f"async is for the events that cannot block ({ASYNC_EVENTS_SAID})")
        if self.failure == "closed":
            raise ValueError("async: a fail-closed hook must answer before the agent goes on; an "
                             "async one fails open (failure = \"open\")")

    @property
    def raw(self) -> tuple[str, str] | None:
        """A vendor's own event: (vendor, its name); None for a neutral one."""
        if ":" not in self.event:
            return None
        vendor, name = self.event.split(":", 1)
        return vendor, name

    def runs_on(self, vendor: str) -> bool:
        """Whether this vendor runs the hook (its `vendors`, or a vendor's own event's vendor)."""
        raw = self.raw
        if raw is not None:
            return vendor == raw[0]
        return self.vendors is None or vendor in self.vendors

    def deadline(self, gate: Gate) -> int:
        return self.deadline_ms if self.deadline_ms is not None else gate.deadline_ms


TOOL_EVENTS_SAID = "pre_tool, post_tool, permission_request and post_tool_failure"
ASYNC_EVENTS_SAID = ", ".join(e for e in EVENTS if e not in BLOCKING_EVENTS) + " and vendors' own events"


class Group(BaseModel):
    """The user hooks of one event: they run in spec order through one gate. The async hooks of
    an event have a gate of their own (`detached`). `role` is the event: a neutral one, or a
    vendor's own (`claude:PostCompact`)."""

    model_config = ConfigDict(frozen=True)
    name: str
    role: str
    phase: str
    registered: bool
    hooks: tuple[Hook, ...]
    detached: bool = False

    @property
    def closed(self) -> bool:
        return any(h.failure == "closed" for h in self.hooks)

    @property
    def raw(self) -> tuple[str, str] | None:
        return self.hooks[0].raw

    @property
    def neutral(self) -> Event | None:
        """The neutral event, None for a vendor's own."""
        return None if self.raw is not None else cast(Event, self.role)

    def runs_on(self, vendor: str) -> bool:
        return any(h.runs_on(vendor) for h in self.hooks)

    def event_on(self, profile: Profile) -> str:
        """The vendor's name of the event this gate is wired to ("" where none of its hooks runs
        on the vendor, or it has no such event)."""
        if not self.runs_on(profile.id):
            return ""
        raw = self.raw
        if raw is not None:
            return raw[1] if profile.events.known(raw[1]) else ""
        return profile.events.of(cast(Event, self.role))
