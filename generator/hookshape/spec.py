"""The hook-shape spec (hookshape.toml): a pydantic model with extra="forbid" and cross-field rules."""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Mapping
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

Role = Literal["prompt", "pre_tool", "post_tool", "stop"]
ROLES: tuple[Role, ...] = ("prompt", "pre_tool", "post_tool", "stop")
# the vendor-neutral lifecycle events a hook may run on (the built-in jobs use the first four roles)
Event = Literal["session_start", "prompt", "pre_tool", "post_tool", "stop", "subagent_stop",
                "pre_compact", "session_end"]
EVENTS: tuple[Event, ...] = ("session_start", "prompt", "pre_tool", "post_tool", "stop",
                             "subagent_stop", "pre_compact", "session_end")
# events whose entries take a tool matcher
TOOL_EVENTS: frozenset[str] = frozenset({"pre_tool", "post_tool"})
# tool classes of a vendor-neutral matcher; anything else is a vendor's raw tool name
TOOL_CLASSES: frozenset[str] = frozenset({"any", "edit", "shell", "read"})

def _inside(value: object) -> object:
    """A path key stays inside its base directory (the harness home, or for dial files each
    directory of the walk): no absolute path, no `..` segment. Checked before the pattern, so
    the error says which rule the value breaks."""
    if not isinstance(value, str):
        return value
    rest = value[2:] if value.startswith("~/") else value
    if rest.startswith("/"):
        raise ValueError(f"{value!r} is an absolute path; a path here is relative and stays inside "
                         "its base directory")
    if ".." in rest.split("/"):
        raise ValueError(f"{value!r} has a '..' segment; a path here is relative and stays inside "
                         "its base directory")
    return value


# Every constrained string type says what it allows in words (its description): validation
# errors and the JSON schema show these words, never the regex.
EnvName = Annotated[str, Field(
    pattern=r"^[A-Z_][A-Z0-9_]*$",
    description="an environment variable name: A-Z, 0-9 and _, not starting with a digit")]
FileName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._-][A-Za-z0-9._/ -]*$",
    description="a relative file name: letters, digits, '.', '_', '-', '/' and spaces, not "
                "starting with '/' or a space"), BeforeValidator(_inside)]
RelPath = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._-][A-Za-z0-9._/-]*$",
    description="a relative path: letters, digits, '.', '_', '-' and '/', not starting with '/'"),
    BeforeValidator(_inside)]
ScriptName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
    description="a command or file name: letters, digits, '.', '_' and '-', starting with a "
                "letter or digit")]
Prefix = Annotated[str, Field(
    pattern=r"^[a-z][a-z0-9]{0,11}$",
    description="a shell variable prefix: 1 to 12 lowercase letters and digits, starting with a "
                "letter")]
HomePath = Annotated[str, Field(
    pattern=r"^~/[A-Za-z0-9._/-]+$",
    description="a path in the user's home: '~/' then letters, digits, '.', '_', '-' and '/'"),
    BeforeValidator(_inside)]
Word = Annotated[str, Field(
    pattern=r"^[a-z][a-z0-9_-]*$",
    description="a lowercase word: a-z, 0-9, '_' and '-', starting with a letter")]
JsonKey = Annotated[str, Field(
    pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$",
    description="a JSON key: letters, digits, '_' and '-', starting with a letter or '_'")]
ArgWord = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9-]+$",
    description="a command-line word: letters, digits and '-'")]
ProcessName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9._@-]+$",
    description="a process or service name: letters, digits, '.', '_', '@' and '-'")]
Keyword = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9 _-]+$",
    description="letters, digits, spaces, '_' and '-'")]
PhaseName = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9 _-]{1,32}$",
    description="1 to 32 letters, digits, spaces, '_' and '-'")]
Alnum = Annotated[str, Field(
    pattern=r"^[A-Za-z0-9]+$",
    description="letters and digits only")]
PosInt = Annotated[int, Field(gt=0)]
Text = Annotated[str, Field(min_length=1, max_length=2000)]
AsciiLine = Annotated[str, Field(
    pattern=r"^[ -~]{1,200}$",
    description="one line of printable ASCII, 1 to 200 characters (it is written into the "
                "distress file as it is)")]


class Strict(BaseModel):
    # strict: TOML values are typed already; "1000" or true for a number is a mistake, not a cast
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Harness(Strict):
    name: ScriptName
    prefix: Prefix
    home_env: EnvName
    home_default: HomePath
    tentacle_dir: ScriptName
    state_dir: RelPath
    provider_env: EnvName
    actor_env: EnvName
    shell_env: EnvName
    stdin_max_bytes: Annotated[int, Field(ge=4096, le=16 * 1024 * 1024)]
    json_max_values: Annotated[int, Field(
        ge=256, le=1_000_000,
        description="values a tentacle reads from one event; past it the event counts as cut "
                    "(the oversize rule), so many tiny values cannot buy parse time")] = 8192
    session_key_max: Annotated[int, Field(ge=8, le=200)]
    awk_prefer: Annotated[list[ScriptName], Field(max_length=8)]


class Matrix(Strict):
    file_env: EnvName
    file_default: RelPath
    lock_prefix: EnvName
    alert_prefix: EnvName
    pheromone_prefix: EnvName
    # a hashed key is the tail of the path's form, "__" and 14 hash digits: at least 8 of the tail
    suffix_max: Annotated[int, Field(ge=24, le=200)]
    pheromone_ttl_s: PosInt
    project_marker: FileName
    path_max: Annotated[int, Field(ge=256, le=65536)]
    targets_max: Annotated[int, Field(ge=1, le=1024)]
    holder_max: Annotated[int, Field(ge=8, le=4096)]
    reason_max: Annotated[int, Field(ge=256, le=65536)]


class Dial(Strict):
    env: EnvName
    values: Annotated[list[Word], Field(min_length=2)]
    default: str
    files: Annotated[list[RelPath], Field(min_length=1)]
    key: JsonKey
    field: JsonKey
    # the tentacles act on what a value means, never on the word (each kind of dial narrows this)
    meaning: Mapping[Word, str] = Field(default_factory=dict)
    # the built-in words and their meanings: a value the meaning table leaves out keeps its own
    BUILT_IN: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _built_in_meanings(cls, data: object) -> object:
        if not isinstance(data, dict) or not isinstance(data.get("values"), list):
            return data
        given = data.get("meaning", {})
        if not isinstance(given, dict):
            return data
        known = {v: cls.BUILT_IN[v] for v in data["values"]
                 if isinstance(v, str) and v in cls.BUILT_IN and v not in given}
        return {**data, "meaning": {**given, **known}} if known else data

    @model_validator(mode="after")
    def _default_in_values(self) -> Dial:
        if self.default not in self.values:
            raise ValueError(f"default: {self.default!r} is not one of {self.values}")
        if len(set(self.values)) != len(self.values):
            raise ValueError("values: must be unique")
        allowed = "|".join(dict.fromkeys(type(self).BUILT_IN.values()))
        for value in self.values:
            if value not in self.meaning:
                raise ValueError(f"meaning: no meaning for the value {value!r} "
                                 f"(give meaning = {{ {value} = \"{allowed}\", ... }})")
        for value in self.meaning:
            if value not in self.values:
                raise ValueError(f"meaning: {value!r} is not one of the values {self.values}")
        return self

    def meanings(self) -> list[str]:
        """The meaning of each value, in the order of the values."""
        return [self.meaning[v] for v in self.values]


class SuggestibilityDial(Dial):
    """What the pre-tool tentacle does with an edit of a file another actor has locked."""

    meaning: dict[Word, Literal["allow", "warn", "block"]] = Field(default_factory=dict, description=(
        "what each value means: allow (say nothing), warn (let the edit through with the warn "
        "message), block (refuse it with the block message); a value left out that is one of "
        "advisory, warn, enforce means allow, warn, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"advisory": "allow", "warn": "warn", "enforce": "block"}


class SitrepDial(Dial):
    """What the stop tentacle does with a closing message that fails the closeout check (and
    whether the prompt tentacle states the contract)."""

    meaning: dict[Word, Literal["off", "suggest", "block"]] = Field(default_factory=dict, description=(
        "what each value means: off (no contract at turn start, no check at stop), suggest (a "
        "reminder), block (keep the agent working once per session and TTL); a value left out "
        "that is one of off, suggest, enforce means off, suggest, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"off": "off", "suggest": "suggest", "enforce": "block"}


class Dials(Strict):
    suggestibility: SuggestibilityDial
    sitrep: SitrepDial


class Halt(Strict):
    sentinel_env: EnvName
    sentinel_default: RelPath
    distress_env: EnvName
    distress_default: RelPath
    cli: Annotated[list[ScriptName], Field(min_length=1)]
    allowed_args: list[ArgWord]
    shells: list[ScriptName]
    decoders: list[ScriptName]
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)]
    mcp_server: ScriptName
    daemon_names: list[ProcessName]
    daemon_verbs: list[ScriptName]
    seen_line: AsciiLine
    complied_line: AsciiLine


class Protect(Strict):
    """Control files the agent's edit and shell tools may not change, move or remove."""

    home: Annotated[list[RelPath], Field(min_length=1)]
    anywhere: list[RelPath]
    readers: list[ScriptName]
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)]
    echo_max_bytes: Annotated[int, Field(ge=32, le=4096)]


def _awk_ere(value: str) -> str:
    """A closeout pattern is a POSIX ERE every awk reads alike: it compiles in Python's re and
    holds nothing that only Python's re (or only some awks) knows."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" on [[:digit:]]
            re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regex: {exc}") from None
    problem = _ere_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _ere_problem(value: str) -> str:
    """The first construct of the pattern that awk EREs lack, in words, or ""."""
    i, n = 0, len(value)
    prev = ""  # the previous token: "(", "|", "q" (a quantifier) or "x" (anything else)
    while i < n:
        c = value[i]
        if c == "\\":
            nxt = value[i + 1:i + 2]
            if nxt.isalnum():
                return (f"\\{nxt}: awk EREs have no backslash-letter or backslash-digit escapes "
                        "(backreferences, \\d, \\w, \\b, \\n ...): use a bracket expression such as [0-9]")
            i, prev = i + 2, "x"
            continue
        if c == "[":
            end = _bracket_end(value, i)
            if "\\" in value[i:end]:
                return ("a backslash inside [...] is read differently by the awks: put ] first and - "
                        "last instead")
            i, prev = end, "x"
            continue
        if c == "(" and value[i + 1:i + 2] == "?":
            return "(?...) groups (lookaround, non-capturing, flags, names) are not in awk EREs"
        if c == "{":
            return ("a {n,m} interval is not read by every awk (mawk takes it as text): repeat the item, "
                    "or write \\{ for a brace")
        if c in "*+?" and prev == "q":
            return f"{value[i - 1]}{c}: a lazy or repeated quantifier is not in awk EREs"
        if (c == "|" and prev in ("", "(", "|")) or (c == ")" and prev == "|"):
            return _EMPTY_ALT
        prev = "q" if c in "*+?" else c if c in "(|" else "x"
        i += 1
    return _EMPTY_ALT if prev == "|" else ""


_EMPTY_ALT = "an empty alternative ('|' at an end or beside another '|') is refused by some awks"


def _bracket_end(value: str, start: int) -> int:
    """The index just after the bracket expression opening at start ([^]...], [[:digit:]])."""
    i = start + 1
    if value[i:i + 1] == "^":
        i += 1
    if value[i:i + 1] == "]":
        i += 1
    while i < len(value) and value[i] != "]":
        if value[i] == "[" and value[i + 1:i + 2] in (":", ".", "="):
            close = value.find(value[i + 1] + "]", i + 2)
            i = close + 2 if close >= 0 else len(value)
            continue
        i += 1
    return i + 1


class Stop(Strict):
    marker_dir: ScriptName
    block_ttl_s: PosInt
    gc_batch: Annotated[int, Field(ge=1, le=1000)]
    compliance_keyword: Keyword
    counter_mode: Literal["observe", "enforce"] = Field(description=(
        "on a vendor without a stop_hook_active flag (its profile's output.stop_guard = counter): "
        "observe only, or block with a per-session counter"))
    counter_max_blocks: Annotated[int, Field(ge=1, le=8, description=(
        "blocks per session on such a vendor when counter_mode = enforce"))]
    check: Literal["keyword+table", "keyword", "regex"] = Field("keyword+table", description=(
        "what the last assistant message of a turn must hold to comply: keyword+table (the "
        "compliance keyword, any case, and a table line: two or more '|'), keyword (the "
        "compliance keyword alone, any case), regex (a match of `pattern`). messages.stop_directive, "
        "stop_suggest and sitrep_contract keep their text whatever the check (each is followed by "
        "messages.sitrep_header): write them to fit the chosen check"))
    pattern: Annotated[str, Field(
        pattern=r"^[ -~]{1,1000}$",
        description="1 to 1000 printable ASCII characters"), AfterValidator(_awk_ere)] | None = Field(
        None, description=(
            "check = regex: a POSIX ERE the message must match, as awk's ~ does (case-sensitive; "
            "^ and $ are the ends of the whole message; . and [^...] match a newline too). "
            "Refused at load: what Python's re cannot compile, and what awk EREs lack: (?...) "
            "groups (lookaround, flags), backslash-letter and backslash-digit escapes "
            "(backreferences, \\d, \\b, \\n: write [0-9]), lazy quantifiers, {n,m} intervals "
            "(mawk reads them as text: write \\{ for a brace), empty alternatives, and a "
            "backslash inside [...] (put ] first and - last instead)"))

    @model_validator(mode="after")
    def _pattern_with_regex(self) -> Stop:
        if self.check == "regex" and self.pattern is None:
            raise ValueError("pattern: the regex check needs a pattern (a POSIX ERE)")
        if self.check != "regex" and self.pattern is not None:
            raise ValueError(f"pattern: only the regex check takes a pattern (check is {self.check!r})")
        return self


class Prompt(Strict):
    max_entries: Annotated[int, Field(ge=0, le=50)]
    max_bytes: Annotated[int, Field(ge=64, le=65536)]
    context_max_bytes: Annotated[int, Field(ge=256, le=65536)]


class Gate(Strict):
    deadline_ms: Annotated[int, Field(ge=50, le=600_000)]
    deadline_env: EnvName
    slow_ms: PosInt
    slow_env: EnvName
    failure_threshold: Annotated[int, Field(ge=1, le=100)]
    threshold_env: EnvName
    cooldown_ms: PosInt
    cooldown_env: EnvName
    kill_grace_ms: Annotated[int, Field(ge=10, le=10_000)]
    watch_poll_ms: Annotated[int, Field(ge=10, le=60_000)]
    vendor_margin_ms: Annotated[int, Field(ge=100)]
    health_dir: RelPath
    ready_file: RelPath
    pid_file: RelPath
    heartbeat_file: RelPath
    heartbeat_max_age_s: PosInt
    armed_roots_file: RelPath
    kill_switch_file: RelPath
    kill_switch_env: EnvName
    kill_switch_off_value: Alnum
    debug_switch_file: RelPath
    debug_log: RelPath
    debug_log_max_bytes: Annotated[int, Field(ge=1024)]
    verdict_env: EnvName
    verdict_code: Annotated[int, Field(ge=3, le=125)]

    @model_validator(mode="after")
    def _slow_below_deadline(self) -> Gate:
        if self.slow_ms >= self.deadline_ms:
            raise ValueError(f"slow_ms: {self.slow_ms} must be below deadline_ms ({self.deadline_ms})")
        return self


PLACEHOLDERS: dict[str, frozenset[str]] = {
    "alert_line": frozenset({"id", "text"}),
    "pheromone_line": frozenset({"path", "note", "actor", "ts"}),
    "warn": frozenset({"path", "holder"}),
    "block": frozenset({"path", "holder"}),
    "halt_block": frozenset({"reason"}),
    "protect_block": frozenset({"path"}),
    "breaker_notice": frozenset({"phase", "count", "cooldown_s"}),
    "post_note": frozenset({"tool"}),
}
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class Messages(Strict):
    halt_header: Text
    halt_body: Text
    coordination_header: Text
    alert_line: Text
    pheromone_line: Text
    sitrep_header: Text
    sitrep_contract: Text
    warn: Text
    block: Text
    unchecked: Text
    halt_block: Text
    protect_block: Text
    stop_directive: Text
    stop_suggest: Text
    breaker_notice: Text
    post_note: Text

    @model_validator(mode="after")
    def _placeholders(self) -> Messages:
        for name in type(self).model_fields:
            allowed = PLACEHOLDERS.get(name, frozenset())
            for found in _PLACEHOLDER.findall(getattr(self, name)):
                if found not in allowed:
                    hint = f" (allowed: {', '.join(sorted(allowed))})" if allowed else ""
                    shown = repr(found)[1:-1]  # one line, whatever the braces hold
                    raise ValueError(f"{name}: unknown placeholder {{{shown}}}{hint}")
        return self


class Tentacle(Strict):
    role: Role
    name: ScriptName
    phase: PhaseName
    registered: bool = True
    matcher: dict[str, str] = Field(default_factory=dict)

    @field_validator("matcher")
    @classmethod
    def _matchers_compile(cls, value: dict[str, str]) -> dict[str, str]:
        for vendor, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{vendor}: not a valid regex: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _matcher_roles(self) -> Tentacle:
        if self.matcher and self.role not in ("pre_tool", "post_tool"):
            raise ValueError(f"matcher: the {self.role} events take no matcher (only pre_tool and post_tool)")
        return self


def _argv(value: object) -> object:
    """`run` as one string is split into words the way sh would (quotes kept together), once,
    at load: the gate runs the words with exec, never through a shell."""
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}") from None
    return value


RunWord = Annotated[str, Field(
    pattern=r"^[^\x00\n\r]{1,4096}$",
    description="one word of the command: 1 to 4096 characters, no NUL or line break")]
HOOK_DIR = "{dir}"


class Hook(Strict):
    """A user's own hook: a command in any language, run on one vendor-neutral event behind the
    same gate as the built-in jobs. It reads the vendor's event on stdin (unchanged) and the
    normalized view in the [contract] env vars; exit 0 allows (stdout on prompt and
    session_start is context), exit 2 with a reason on stderr blocks or keeps the agent working."""

    name: ScriptName = Field(description="the hook's name, unique in the spec (its files install "
                                         "under bin/<tentacle_dir>/<name>.d)")
    event: Event = Field(description="the vendor-neutral event the hook runs on")
    run: Annotated[list[RunWord], Field(min_length=1), BeforeValidator(_argv)] = Field(description=(
        "the command: a list of words, or one string split like sh words (no pipes, no "
        "expansions; write [\"sh\", \"-c\", \"...\"] for those). A bare first word is looked up on "
        "PATH; \"{dir}\" in a word is the directory the hook's files are installed in"))
    match: Annotated[list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:*-]{1,128}$")]],
                     Field(min_length=1)] = Field(["any"], description=(
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

    @model_validator(mode="after")
    def _match_events(self) -> Hook:
        if self.event not in TOOL_EVENTS and self.match != ["any"]:
            raise ValueError(f"match: the {self.event} event takes no tool matcher "
                             "(only pre_tool and post_tool)")
        for item in self.match:
            if item.startswith("mcp:") and not re.fullmatch(r"mcp:[A-Za-z0-9._-]+", item):
                raise ValueError(f"match: {item!r}: mcp:<server> names one server")
        return self

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


class Vendor(Strict):
    enabled: bool = True
    timeout_ms: Annotated[int, Field(ge=100, le=3_600_000)]


class Spec(Strict):
    harness: Harness
    matrix: Matrix
    dials: Dials
    halt: Halt
    protect: Protect
    stop: Stop
    prompt: Prompt
    gate: Gate
    messages: Messages
    tentacles: list[Tentacle] = Field([], description="the built-in jobs, one per role")
    hooks: list[Hook] = Field([], description="the user's own hooks, in the order they run")
    vendors: dict[Word, Vendor]

    @model_validator(mode="after")
    def _cross_field(self) -> Spec:
        names = [t.name for t in self.tentacles]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tentacles: duplicate name(s) {', '.join(dupes)}")
        roles = [t.role for t in self.tentacles]
        dup_roles = sorted({r for r in roles if roles.count(r) > 1})
        if dup_roles:
            raise ValueError(f"tentacles: more than one tentacle for role(s) {', '.join(dup_roles)}")
        if not self.tentacles and not self.hooks:
            raise ValueError("the spec runs nothing: give at least one [[hooks]] or [[tentacles]]")
        self._groups_consistent(names)
        self._protect_covers_control_files()
        deadline = max([self.gate.deadline_ms, *(self.deadline(g) for g in self.groups())])
        floor = deadline + self.gate.vendor_margin_ms
        for vid, vendor in self.vendors.items():
            if vendor.enabled and vendor.timeout_ms < floor:
                raise ValueError(
                    f"vendors.{vid}.timeout_ms: {vendor.timeout_ms} must be at least "
                    f"the longest gate deadline + gate.vendor_margin_ms ({floor}) so the gate's "
                    "deadline fires before the vendor kills the hook"
                )
        return self

    def _groups_consistent(self, tentacle_names: list[str]) -> None:
        names = [h.name for h in self.hooks]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"hooks: duplicate name(s) {', '.join(dupes)}")
        taken = set(tentacle_names) | set(names)
        for event in EVENTS:
            on = [h for h in self.hooks if h.event == event]
            if len({h.registered for h in on}) > 1:
                raise ValueError(f"hooks: the {event} hooks run through one gate: give them all "
                                 "the same `registered`")
            if on and self.group_name(event) in taken:
                raise ValueError(f"hooks: the gate of the {event} hooks is named "
                                 f"{self.group_name(event)!r}, which a hook or tentacle already uses")

    def group_name(self, event: Event) -> str:
        return f"{self.harness.name}-{event.replace('_', '-')}"

    def groups(self) -> list[Group]:
        """The user hooks by event, in event order; each group keeps the hooks' spec order."""
        out = []
        for event in EVENTS:
            on = tuple(h for h in self.hooks if h.event == event)
            if on:
                out.append(Group(name=self.group_name(event), role=event, phase=event.upper(),
                                 registered=on[0].registered, hooks=on))
        return out

    def deadline(self, unit: Tentacle | Group) -> int:
        """A gate's deadline: the spec's for a built-in job; for a group of user hooks, the sum of
        the hooks' own deadlines plus one kill grace each (each hook is killed at its own)."""
        if isinstance(unit, Tentacle):
            return self.gate.deadline_ms
        return sum(h.deadline(self.gate) + self.gate.kill_grace_ms for h in unit.hooks)

    def gates(self) -> list[Tentacle | Group]:
        """Every gate the spec renders: the built-in jobs, then the groups of user hooks."""
        return [*self.tentacles, *self.groups()]

    def _protect_covers_control_files(self) -> None:
        """Every control file of the harness home is in protect.home (or under an entry), and
        every dial file is in protect.anywhere: the agent must not lift a halt or a lock."""
        g, h = self.gate, self.halt
        control = {"halt.sentinel_default": h.sentinel_default, "halt.distress_default": h.distress_default,
                   "gate.kill_switch_file": g.kill_switch_file, "gate.ready_file": g.ready_file,
                   "gate.pid_file": g.pid_file, "gate.heartbeat_file": g.heartbeat_file,
                   "gate.armed_roots_file": g.armed_roots_file, "gate.debug_switch_file": g.debug_switch_file,
                   "gate.health_dir": g.health_dir, "matrix.file_default": self.matrix.file_default}
        entries = [e.strip("/") for e in self.protect.home]
        missing = [key for key, path in control.items()
                   if not any(path == e or path.startswith(e + "/") for e in entries)]
        if missing:
            raise ValueError(f"protect.home: must cover the control file(s) of {', '.join(missing)}")
        dials = sorted({f for name in ("suggestibility", "sitrep") for f in getattr(self.dials, name).files})
        loose = [f for f in dials if f not in self.protect.anywhere]
        if loose:
            raise ValueError(f"protect.anywhere: must list the dial file(s) {', '.join(loose)}")

    def tentacle(self, role: Role) -> Tentacle | None:
        return next((t for t in self.tentacles if t.role == role), None)

    def enabled_vendors(self) -> list[str]:
        return sorted(v for v, cfg in self.vendors.items() if cfg.enabled)
