"""The hook-shape spec (hookshape.toml): a pydantic model with extra="forbid" and cross-field rules."""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Mapping
from operator import attrgetter
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from hookshape.spec import defaults
from hookshape.spec.defaults import symbolic
from hookshape.spec.validation import pattern_words

Role = Literal["prompt", "pre_tool", "post_tool", "stop"]
ROLES: tuple[Role, ...] = ("prompt", "pre_tool", "post_tool", "stop")
# the vendor-neutral lifecycle events a hook may run on (the built-in jobs use the first four roles)
Event = Literal["session_start", "prompt", "pre_tool", "post_tool", "stop", "subagent_stop",
                "pre_compact", "session_end"]
EVENTS: tuple[Event, ...] = ("session_start", "prompt", "pre_tool", "post_tool", "stop",
                             "subagent_stop", "pre_compact", "session_end")
# the awk library beside the tentacles is <this>.awk: no built-in job may take the name
AWK_LIB_NAME = "lib"
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


def _words_too(schema: dict[str, JsonValue], model: type[Any]) -> None:
    """In the JSON schema a field of a constrained type says what it is, then what it allows."""
    props = schema.get("properties")
    if not (isinstance(props, dict) and isinstance(model, type) and issubclass(model, BaseModel)):
        return
    words = pattern_words(model)
    for prop in (p for p in props.values() if isinstance(p, dict)):
        said, own = words.get(str(prop.get("pattern"))), str(prop.get("description", ""))
        if said and said not in own:
            prop["description"] = f"{own}; {said}"


class Strict(BaseModel):
    # strict: TOML values are typed already; "1000" or true for a number is a mistake, not a cast
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, json_schema_extra=_words_too)


class Harness(Strict):
    name: ScriptName = Field(description="the harness's name (required): the harness CLI, the "
                                         "home ~/.<name> and other defaults derive from it")
    prefix: Prefix = Field(description="the shell prefix (required): globals are _<prefix>_*, "
                                       "env vars <PREFIX>_*")
    home_env: EnvName = Field(symbolic("harness", "home_env"),
                              description="the env var that moves the harness home")
    home_default: HomePath = Field(symbolic("harness", "home_default"), description=(
        "the harness home when home_env is unset; `~` is the user's home at run time"))
    tentacle_dir: ScriptName = Field("hooks", description=(
        "gates are in <home>/bin, tentacles and hook files in <home>/bin/<tentacle_dir>"))
    state_dir: RelPath = Field(defaults.STATE_DIR, description=(
        "markers, locks and temp files under <home>/<state_dir>"))
    provider_env: EnvName = Field(symbolic("harness", "provider_env"),
                                  description="the env var a gate sets to the vendor's id")
    actor_env: EnvName = Field(symbolic("harness", "actor_env"),
                               description="the env var naming the agent (lock holders, trails)")
    shell_env: EnvName = Field(symbolic("harness", "shell_env"), description=(
        "the env var naming the interpreter a gate runs its tentacle with (optional at run time)"))
    stdin_max_bytes: Annotated[int, Field(ge=4096, le=16 * 1024 * 1024)] = Field(
        262_144, description="bytes of an event read from stdin; a longer event counts as cut")
    json_max_values: Annotated[int, Field(
        ge=256, le=1_000_000,
        description="values a tentacle reads from one event; past it the event counts as cut "
                    "(the oversize rule), so many tiny values cannot buy parse time")] = 8192
    session_key_max: Annotated[int, Field(ge=8, le=200)] = Field(
        64, description="characters of a vendor's session id kept in state file names")
    awk_prefer: Annotated[list[ScriptName], Field(max_length=8)] = Field(["mawk"], description=(
        "awks tried on PATH before plain `awk` (with gawk a tentacle takes about twice as long)"))


class Matrix(Strict):
    file_env: EnvName = Field(symbolic("matrix", "file_env"),
                              description="the env var that moves the coordination file")
    file_default: RelPath = Field(symbolic("matrix", "file_default"), description=(
        "the coordination file (locks, alerts, trails), relative to the harness home"))
    lock_prefix: EnvName = Field(symbolic("matrix", "lock_prefix"),
                                 description="the key prefix of a file lock in the matrix")
    alert_prefix: EnvName = Field(symbolic("matrix", "alert_prefix"),
                                  description="the key prefix of an alert in the matrix")
    pheromone_prefix: EnvName = Field(symbolic("matrix", "pheromone_prefix"),
                                      description="the key prefix of a trail in the matrix")
    # a hashed key is the tail of the path's form, "__" and 14 hash digits: at least 8 of the tail
    suffix_max: Annotated[int, Field(ge=24, le=200)] = Field(80, description=(
        "characters of a key after its prefix; a longer path's key is hashed"))
    pheromone_ttl_s: PosInt = Field(1800, description="seconds a trail is shown")
    project_marker: FileName = Field(symbolic("matrix", "project_marker"), description=(
        "the nearest ancestor holding this directory is the project"))
    path_max: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a normalised edit target; a longer one is not checked"))
    targets_max: Annotated[int, Field(ge=1, le=1024)] = Field(64, description=(
        "targets checked per tool call; a call naming more is not checked"))
    holder_max: Annotated[int, Field(ge=8, le=4096)] = Field(128, description=(
        "bytes of a lock holder's name shown in a message"))
    reason_max: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a block or warn text (one line per locked target)"))


class Dial(Strict):
    """An operator's dial: its value comes from its env var, else from the nearest of its JSON
    files walked up from the event's cwd, else its default. (Defaults: defaults.DIALS.)"""

    env: EnvName = Field("<PREFIX>_<DIAL>", description="the env var that sets the dial (it wins)")
    values: Annotated[list[Word], Field(min_length=2)] = Field(
        ["<the built-in words of the dial>"], description="the words the dial takes")
    default: str = Field("enforce", description="the value when neither the env var nor a file sets one")
    files: Annotated[list[RelPath], Field(min_length=1)] = Field(
        ["<project_marker>/<dial>.json", "<project_marker>/project.json"], description=(
            "JSON files looked for in the event's cwd and each directory above it, nearest first"))
    key: JsonKey = Field("<dial>", description="the file's key holding the dial")
    field: JsonKey = Field("level", description=(
        "the field of that key holding the value (`.<key>.<field>`, or `.<key>` as a bare string); "
        "sitrep: endOfTurn"))
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

    meaning: dict[Word, Literal["allow", "warn", "block"]] = Field({}, description=(
        "what each value means: allow (say nothing), warn (let the edit through with the warn "
        "message), block (refuse it with the block message); a value left out that is one of "
        "advisory, warn, enforce means allow, warn, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"advisory": "allow", "warn": "warn", "enforce": "block"}


class SitrepDial(Dial):
    """What the stop tentacle does with a closing message that fails the closeout check (and
    whether the prompt tentacle states the contract)."""

    meaning: dict[Word, Literal["off", "suggest", "block"]] = Field({}, description=(
        "what each value means: off (no contract at turn start, no check at stop), suggest (a "
        "reminder), block (keep the agent working once per session and TTL); a value left out "
        "that is one of off, suggest, enforce means off, suggest, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"off": "off", "suggest": "suggest", "enforce": "block"}


def _dial_default(name: str, kind: type[Dial]) -> dict[str, Any]:
    """A dial as a left-out one is filled (defaults.DIALS), with placeholders, for the schema."""
    out = {key: rule(defaults.SYMBOLIC) for key, rule in defaults.DIALS[name].items()}
    return {**out, "meaning": dict(kind.BUILT_IN)}


class Dials(Strict):
    suggestibility: SuggestibilityDial = Field(
        _dial_default("suggestibility", SuggestibilityDial), description=(  # type: ignore[assignment]
            "what the pre-tool tentacle does with an edit of a file another actor has locked"))
    sitrep: SitrepDial = Field(_dial_default("sitrep", SitrepDial), description=(  # type: ignore[assignment]
        "the end-of-turn contract: stated at turn start, checked at stop"))


class Halt(Strict):
    enabled: bool = Field(True, description=(
        "the halt model: a sentinel file the operator creates blocks the harness CLI, its MCP "
        "tools and daemon starts, and tells the agent; false: no sentinel check, no halt rule, "
        "no halt text is rendered (the other [halt] keys are then unused)"))
    sentinel_env: EnvName = Field(symbolic("halt", "sentinel_env"), description=(
        "the env var that moves the halt sentinel"))
    sentinel_default: RelPath = Field(symbolic("halt", "sentinel_default"), description=(
        "the halt sentinel under the harness home: while it exists the harness is halted; its "
        "first line is the reason"))
    distress_env: EnvName = Field(symbolic("halt", "distress_env"), description=(
        "the env var that moves the distress file"))
    distress_default: RelPath = Field(symbolic("halt", "distress_default"), description=(
        "the distress file under the harness home (SEEN / COMPLIED lines are appended to it)"))
    cli: Annotated[list[ScriptName], Field(min_length=1)] = Field(symbolic("halt", "cli"), description=(
        "the harness CLI names: blocked under halt except with allowed_args"))
    allowed_args: list[ArgWord] = Field(symbolic("halt", "allowed_args"), description=(
        "arguments with which the harness CLI stays allowed under halt"))
    shells: list[ScriptName] = Field(symbolic("halt", "shells"), description=(
        "what runs decoded text: with a decoder in one command, blocked under halt"))
    decoders: list[ScriptName] = Field(symbolic("halt", "decoders"), description=(
        "decoders that, with a shell or eval in the same command, are blocked under halt"))
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(symbolic("halt", "scan_max_bytes"), description=(
        "a longer shell command is blocked under halt without a scan"))
    mcp_servers: list[ScriptName] = Field(symbolic("halt", "mcp_servers"), description=(
        "the harness's MCP servers: under halt every tool of each is blocked (empty: none)"))
    daemon_managers: list[ScriptName] = Field(["launchctl", "brew"], description=(
        "service managers whose start verb naming a daemon_names entry is blocked under halt "
        "(empty: none)"))
    daemon_names: list[ProcessName] = Field(symbolic("halt", "daemon_names"), description=(
        "the harness daemon's names: starting one through a daemon manager is blocked under halt"))
    daemon_verbs: list[ScriptName] = Field(symbolic("halt", "daemon_verbs"), description=(
        "the start verbs of the daemon managers"))
    seen_line: AsciiLine = Field(symbolic("halt", "seen_line"), description=(
        "the line written to the distress file when the agent first meets the halt"))
    complied_line: AsciiLine = Field(symbolic("halt", "complied_line"), description=(
        "the line written when a halted turn ends without a blocked call"))

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: object) -> object:
        if isinstance(data, dict) and "mcp_server" in data:
            raise ValueError("mcp_server: renamed to mcp_servers, a list "
                             "(mcp_servers = [\"<server>\"], or [] for none)")
        return data


READERS = ("cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ls", "stat", "wc",
           "diff", "cmp", "file", "test", "md5sum", "sha1sum", "sha256sum", "jq", "echo", "printf",
           "readlink", "realpath", "du", "cd", "pushd")


class Protect(Strict):
    """Control files the agent's edit and shell tools may not change, move or remove."""

    home: Annotated[list[RelPath], Field(min_length=1)] = Field(symbolic("protect", "home"), description=(
        "under the harness home: the path, anything in it, any directory above it (default: "
        "every control file the spec names, the state dir and bin)"))
    anywhere: list[RelPath] = Field(symbolic("protect", "anywhere"), description=(
        "matched by their tail in any directory (default: the dial files)"))
    readers: list[ScriptName] = Field(list(READERS), description=(
        "commands that only read the paths they name"))
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(8192, description=(
        "a longer command is scanned for the protected names only, and blocked if it holds one"))
    echo_max_bytes: Annotated[int, Field(ge=32, le=4096)] = Field(256, description=(
        "the block message shows at most this much of the path"))


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
    marker_dir: ScriptName = Field("stop-blocks", description=(
        "the per-session block markers, under <home>/<state_dir>"))
    block_ttl_s: PosInt = Field(300, description=(
        "a session is kept working at most once per this many seconds"))
    gc_batch: Annotated[int, Field(ge=1, le=1000)] = Field(16, description=(
        "stale markers removed per stop call"))
    compliance_keyword: Keyword = Field(defaults.KEYWORD, description=(
        "the word the closing message must hold (checks keyword+table and keyword)"))
    counter_mode: Literal["observe", "enforce"] = Field("observe", description=(
        "on a vendor without a stop_hook_active flag (its profile's output.stop_guard = counter): "
        "observe only, or block with a per-session counter"))
    counter_max_blocks: Annotated[int, Field(ge=1, le=8)] = Field(1, description=(
        "blocks per session on such a vendor when counter_mode = enforce"))
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


LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")
_INBOX_PATH = re.compile(r"(/[A-Za-z0-9._~/%?&=+,:@-]*)?")


def _loopback_url(value: object) -> object:
    """The inbox URL: plain http:// to a host of this machine, an optional port, a plain path."""
    if not isinstance(value, str):
        return value
    m = re.fullmatch(r"http://([^/?#]*)(.*)", value, re.DOTALL)
    if not m:
        raise ValueError(f"{value!r}: the inbox URL is http://<host>:<port>/<path> (plain HTTP)")
    host, port = m.group(1), ""
    if (hp := re.fullmatch(r"(.*):([0-9]{1,5})", host)) is not None:
        host, port = hp.groups()
    if host not in LOOPBACK_HOSTS:
        raise ValueError(f"{value!r}: the inbox is probed on this machine only: the host must be "
                         f"{', '.join(LOOPBACK_HOSTS[:-1])} or {LOOPBACK_HOSTS[-1]}")
    if port and not 1 <= int(port) <= 65535:
        raise ValueError(f"{value!r}: the port must be 1 to 65535")
    if not _INBOX_PATH.fullmatch(m.group(2)):
        raise ValueError(f"{value!r}: the path starts with '/' and holds letters, digits and "
                         "._~/%?&=+,:@- only")
    return value


class Inbox(Strict):
    """The inbox probe of the prompt tentacle: one GET to the harness daemon on this machine
    (0.1 s to connect, 0.2 s in all, with curl when it is on PATH, not under halt); only the
    integer at `field` of its JSON reply enters the context, as `line`. Any failure (no curl,
    no daemon, a timeout, another reply) and a count of 0 leave the line out."""

    url: Annotated[str, BeforeValidator(_loopback_url), Field(max_length=2048)] = Field(
        "http://127.0.0.1:9876/inbox/unread", description=(
            "http://<host>[:<port>]/<path>, host 127.0.0.1, [::1] or localhost"))
    field: Annotated[str, Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*){0,7}$",
        description="a JSON key, or up to 8 keys joined by '.'")] = Field(
        "unread", description=(
            "a JSON key (letters, digits, '_' and '-', starting with a letter or '_'), or up to 8 "
            "keys joined by '.' for a nested one: the field of the reply that holds the count"))
    line: Annotated[str, Field(pattern=r"^[^\x00-\x1f\x7f]{1,500}$",
                               description="one line of 1 to 500 characters, no control character")] = Field(
        "INBOX: {count} unread message(s) for this agent", description=(
            "one line of 1 to 500 characters, no control character: the context line, where "
            "{count} (the only placeholder) is the count"))

    @field_validator("line")
    @classmethod
    def _count_only(cls, value: str) -> str:
        for found in _PLACEHOLDER.findall(value):
            if found != "count":
                raise ValueError(f"unknown placeholder {{{repr(found)[1:-1]}}} (allowed: count)")
        return value


class Prompt(Strict):
    max_entries: Annotated[int, Field(ge=0, le=50)] = Field(2, description=(
        "alerts and trails listed in the coordination block, at most"))
    max_bytes: Annotated[int, Field(ge=64, le=65536)] = Field(512, description=(
        "bytes of one listed entry, at most"))
    context_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of the whole turn-start context, at most"))
    inbox: Inbox | None = Field(None, description=(
        "the inbox probe: a count of unread items for the coordination block (absent: off)"))


class Gate(Strict):
    deadline_ms: Annotated[int, Field(ge=50, le=600_000)] = Field(symbolic("gate", "deadline_ms"), description=(
        "the gate's deadline for its job; a job still running then is killed (TERM, kill grace, "
        "KILL) and the call allowed"))
    deadline_env: EnvName = Field(symbolic("gate", "deadline_env"), description=(
        "the env var that overrides deadline_ms at run time"))
    slow_ms: PosInt = Field(symbolic("gate", "slow_ms"), description=(
        "a built-in job slower than this counts a breaker failure (its answer still stands)"))
    slow_env: EnvName = Field(symbolic("gate", "slow_env"), description=(
        "the env var that overrides slow_ms"))
    failure_threshold: Annotated[int, Field(ge=1, le=100)] = Field(symbolic("gate", "failure_threshold"), description=(
        "failures in a row that open the breaker"))
    threshold_env: EnvName = Field(symbolic("gate", "threshold_env"), description=(
        "the env var that overrides failure_threshold"))
    cooldown_ms: PosInt = Field(symbolic("gate", "cooldown_ms"), description=(
        "how long an open breaker skips the job before one call probes it"))
    cooldown_env: EnvName = Field(symbolic("gate", "cooldown_env"), description=(
        "the env var that overrides cooldown_ms"))
    kill_grace_ms: Annotated[int, Field(ge=10, le=10_000)] = Field(symbolic("gate", "kill_grace_ms"), description=(
        "between TERM and KILL of a job past its deadline"))
    watch_poll_ms: Annotated[int, Field(ge=10, le=60_000)] = Field(symbolic("gate", "watch_poll_ms"), description=(
        "how often the deadline watchdog looks whether its job has ended"))
    vendor_margin_ms: Annotated[int, Field(ge=100)] = Field(symbolic("gate", "vendor_margin_ms"), description=(
        "every vendor timeout must exceed the longest gate deadline by at least this"))
    health_dir: RelPath = Field(symbolic("gate", "health_dir"), description=(
        "breaker state, probes and capture files, under the harness home"))
    ready_file: RelPath = Field(symbolic("gate", "ready_file"), description=(
        "readiness lease: the daemon's ready file (its first line, a pid, must match pid_file)"))
    pid_file: RelPath = Field(symbolic("gate", "pid_file"), description=(
        "readiness lease: the daemon's pid file"))
    heartbeat_file: RelPath = Field(symbolic("gate", "heartbeat_file"), description=(
        "readiness lease: a file the daemon touches"))
    heartbeat_max_age_s: PosInt = Field(symbolic("gate", "heartbeat_max_age_s"), description=(
        "readiness lease: the heartbeat's greatest age"))
    readiness: bool = Field(True, description=(
        "the readiness lease: a gate runs its job only while ready_file and pid_file agree and "
        "heartbeat_file is fresh (a harness daemon keeps them); false: no lease check at all"))
    armed_roots: bool = Field(True, description=(
        "armed roots: a gate runs its job only at or below a root listed in armed_roots_file; "
        "false: wherever it is installed"))
    armed_roots_file: RelPath = Field(symbolic("gate", "armed_roots_file"), description=(
        "one absolute project root per line: gates act at or below these only"))
    kill_switch_file: RelPath = Field(symbolic("gate", "kill_switch_file"), description=(
        "while it exists every gate exits 0 at once"))
    kill_switch_env: EnvName = Field(symbolic("gate", "kill_switch_env"), description=(
        "this env var set to kill_switch_off_value does the same"))
    kill_switch_off_value: Alnum = Field(symbolic("gate", "kill_switch_off_value"), description=(
        "the value of kill_switch_env that switches the gates off"))
    debug_switch_file: RelPath = Field(symbolic("gate", "debug_switch_file"), description=(
        "while it exists every gate logs a start and an end line per call to debug_log"))
    debug_log: RelPath = Field(symbolic("gate", "debug_log"), description=(
        "the gates' debug log (no payload content), under the harness home"))
    debug_log_max_bytes: Annotated[int, Field(ge=1024)] = Field(symbolic("gate", "debug_log_max_bytes"), description=(
        "the debug log is rotated to .1 past this size"))
    verdict_env: EnvName = Field(symbolic("gate", "verdict_env"), description=(
        "the env var by which a gate asks its job to signal a verdict with verdict_code"))
    verdict_code: Annotated[int, Field(ge=3, le=125)] = Field(symbolic("gate", "verdict_code"), description=(
        "the exit code of a job's verdict under its gate (the gate turns it into the vendor's block)"))

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
    """Every text the agent sees; {placeholders} are checked (PLACEHOLDERS)."""

    halt_header: Text = Field(symbolic("messages", "halt_header"),
                              description="the first line of the halt notice")
    halt_body: Text = Field("The harness is halted by its operator. Do not start, stop or call "
                            "the harness CLI or its tools until the halt is lifted.",
                            description="the halt notice under its header")
    coordination_header: Text = Field(symbolic("messages", "coordination_header"),
                                      description="the header of the coordination block")
    alert_line: Text = Field("ALERT {id}: {text}", description="one alert of the block")
    pheromone_line: Text = Field("TRAIL {path} | {note} | {actor} | {ts}",
                                 description="one trail of the block")
    sitrep_header: Text = Field("| Change | Status | Next step |", description=(
        "the header of the table the stop gate asks for"))
    sitrep_contract: Text = Field(symbolic("messages", "sitrep_contract"), description=(
        "the prompt's reminder of the end-of-turn table (the header follows)"))
    warn: Text = Field("WARNING: {path} is locked by {holder}. Coordinate with {holder} before "
                       "you change it.", description="an edit of a locked file, not blocked")
    block: Text = Field("BLOCKED: {path} is locked by {holder}. Ask {holder} to release the "
                        "lock, or leave this file alone.",
                        description="an edit of a locked file, blocked")
    unchecked: Text = Field(
        "BLOCKED: this edit is too large to check against the file locks other agents hold (its "
        "event passed the size, nesting or value-count bound, or it names a path or more files "
        "than the bounds allow). Split it into smaller edits.",
        description="an edit past the bounds of the edit gate, blocked under enforce")
    halt_block: Text = Field(symbolic("messages", "halt_block"),
                             description="a call of the harness CLI or its tools under halt")
    protect_block: Text = Field(
        "PROTECTED: {path} is a control file of the harness. The agent may not change, move or "
        "remove it; ask the operator.", description="a change of a control file, blocked")
    stop_directive: Text = Field(symbolic("messages", "stop_directive"), description=(
        "the stop gate keeps the agent working: the table is missing (the header follows)"))
    stop_suggest: Text = Field(symbolic("messages", "stop_suggest"), description=(
        "the stop gate's reminder when it only suggests (the header follows)"))
    breaker_notice: Text = Field(symbolic("messages", "breaker_notice"), description=(
        "a gate's breaker opened after repeated failures"))
    post_note: Text = Field("mutated via {tool}", description="the trail note of an edit")

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
    role: Role = Field(description="the built-in job (required): one tentacle per role")
    name: ScriptName = Field(symbolic("tentacles", "name"),
                             description="the script's name in bin/ (its gate) and bin/<tentacle_dir>")
    phase: PhaseName = Field(symbolic("tentacles", "phase"),
                             description="the label of its messages and breaker notices")
    registered: bool = Field(True, description=(
        "wired into the vendors' configs; false: installed (staged) but not wired"))
    matcher: dict[str, str] = Field({}, description=(
        "per vendor id: a regex of tool names replacing the profile's matcher"))

    @field_validator("matcher")
    @classmethod
    def _matchers_compile(cls, value: dict[str, str]) -> dict[str, str]:
        for vendor, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{vendor}: not a valid regex: {exc}") from exc
        return value

    closed: ClassVar[bool] = False  # a built-in job always fails open

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
    event: Event = Field(description="the vendor-neutral event the hook runs on")
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

    @model_validator(mode="after")
    def _match_events(self) -> Hook:
        if self.event not in TOOL_EVENTS and self.match != ["any"]:
            raise ValueError(f"match: the {self.event} event takes no tool matcher "
                             "(only pre_tool and post_tool)")
        for item in self.match:
            if item.startswith("mcp:") and not re.fullmatch(r"mcp:[A-Za-z0-9._-]+", item):
                raise ValueError(f"match: {item!r}: mcp:<server> names one server")
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
        given = [k for k in ("run", "files", "deadline_ms") if getattr(self, k)]
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


VIEW = ("event", "vendor", "tool", "tool_class", "paths", "command", "cwd", "session", "message",
        "stop_active", "cut", "hook", "dir")


class Contract(Strict):
    """What a user hook is given besides the event on stdin: the normalized view of the event in
    environment variables, each named `<PREFIX>_<KEY>` unless named here."""

    event: EnvName | None = Field(None, description=(
        "the vendor-neutral event (session_start, prompt, pre_tool, ...); default <PREFIX>_EVENT"))
    vendor: EnvName | None = Field(None, description="the vendor id (claude, gemini, ...); default <PREFIX>_VENDOR")
    tool: EnvName | None = Field(None, description="the vendor's raw tool name; default <PREFIX>_TOOL")
    tool_class: EnvName | None = Field(None, description=(
        "edit, shell, read, mcp:<server> or other (\"\" without a tool); default <PREFIX>_TOOL_CLASS"))
    paths: EnvName | None = Field(None, description=(
        "the absolute paths an edit targets, one per line; default <PREFIX>_PATHS"))
    command: EnvName | None = Field(None, description=(
        "the shell command of a shell tool call; default <PREFIX>_COMMAND"))
    cwd: EnvName | None = Field(None, description="the session's working directory; default <PREFIX>_CWD")
    session: EnvName | None = Field(None, description="the session id; default <PREFIX>_SESSION")
    message: EnvName | None = Field(None, description=(
        "the text of the last assistant message where the vendor gives it (stop, subagent_stop); "
        "default <PREFIX>_MESSAGE"))
    stop_active: EnvName | None = Field(None, description=(
        "1 when the vendor says this stop is a continuation a stop hook caused; default "
        "<PREFIX>_STOP_ACTIVE"))
    cut: EnvName | None = Field(None, description=(
        "1 when the event passed a size bound and what is on stdin is its cut prefix; default <PREFIX>_CUT"))
    hook: EnvName | None = Field(None, description="the hook's name; default <PREFIX>_HOOK")
    dir: EnvName | None = Field(None, description=(
        "the directory the hook's files are installed in ({dir} of run); default <PREFIX>_HOOK_DIR"))
    value_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(32768, description=(
        "bytes of one view value (a longer one is cut); an environment string is at most 128 KiB on Linux"))
    reason_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of a hook's stdout or stderr passed on as context or reason"))
    closed_message: Text = Field(
        "BLOCKED: the {hook} hook could not run ({why}) and is set to fail closed: nothing it "
        "guards may go on until it runs. Tell the operator.",
        description="the reason given when a fail-closed hook crashes, times out or is missing; "
                    "placeholders {hook} and {why}")
    default_reason: Text = Field(
        "BLOCKED by the {hook} hook.",
        description="the reason of an exit 2 with nothing on stderr; placeholder {hook}")

    @model_validator(mode="after")
    def _placeholders(self) -> Contract:
        for name, allowed in (("closed_message", {"hook", "why"}), ("default_reason", {"hook"})):
            for found in _PLACEHOLDER.findall(getattr(self, name)):
                if found not in allowed:
                    raise ValueError(f"{name}: unknown placeholder {{{repr(found)[1:-1]}}} "
                                     f"(allowed: {', '.join(sorted(allowed))})")
        return self

    def env(self, key: str, prefix: str) -> str:
        name: str | None = getattr(self, key)
        if name:
            return name
        return f"{prefix.upper()}_{'HOOK_DIR' if key == 'dir' else key.upper()}"


# the keys the derived defaults are made of: one that would not validate is not used (it is
# reported at its key, once)
_BASIS: dict[str, TypeAdapter[str]] = {
    "harness.name": TypeAdapter(ScriptName), "harness.prefix": TypeAdapter(Prefix),
    "harness.state_dir": TypeAdapter(RelPath), "matrix.project_marker": TypeAdapter(FileName),
    "stop.compliance_keyword": TypeAdapter(Keyword)}


def _usable(key: str, value: object) -> bool:
    try:
        _BASIS[key].validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


class Vendor(Strict):
    enabled: bool = Field(True, description="render and install this vendor's config")
    timeout_ms: Annotated[int, Field(ge=100, le=3_600_000)] = Field(5000, description=(
        "the vendor's hook timeout (in its unit); at least the longest gate deadline + "
        "gate.vendor_margin_ms"))


def _section(about: str) -> Any:
    """A section that may be left out whole (its default is {}: every key defaults); Spec's
    before-validator fills it before the model sees it."""
    return Field({}, description=f"{about}; every key defaults (README: Defaults)")


class Spec(Strict):
    harness: Harness = Field(description="names and paths of the harness (name and prefix "
                                         "are required)")
    matrix: Matrix = _section("the coordination file and the edit gate's bounds")
    dials: Dials = _section("the operator's dials: env var, values, files")
    halt: Halt = _section("what is blocked under the operator's halt")
    protect: Protect = _section("the control files the agent may not change")
    stop: Stop = _section("the end-of-turn table the stop gate asks for")
    prompt: Prompt = _section("the bounds of the coordination block")
    gate: Gate = _section("deadline, breaker, switches and logs of every gate")
    messages: Messages = _section("every text the agent sees")
    tentacles: list[Tentacle] = Field([], description="the built-in jobs, one per role")
    hooks: list[Hook] = Field([], description="the user's own hooks, in the order they run")
    contract: Contract = Field(Contract(), description="the view of the event a user hook is given")
    vendors: dict[Word, Vendor] = Field({}, description=(
        "the agent CLIs to render configs for, by profile id; `[vendors.claude]` with no keys "
        "enables one with the default timeout"))

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: object) -> object:
        """Missing sections and keys get their defaults, the names derived from the harness
        (defaults.py, the one place they are made)."""
        return defaults.fill(data, _usable) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _cross_field(self) -> Spec:
        names = [t.name for t in self.jobs()]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tentacles: duplicate name(s) {', '.join(dupes)}")
        if AWK_LIB_NAME in names:
            raise ValueError(f"tentacles: the name {AWK_LIB_NAME!r} is taken by the awk library "
                             f"beside the tentacles ({AWK_LIB_NAME}.awk)")
        roles = [t.role for t in self.jobs()]
        dup_roles = sorted({r for r in roles if roles.count(r) > 1})
        if dup_roles:
            raise ValueError(f"tentacles: more than one built-in job for role(s) {', '.join(dup_roles)} "
                             "(a [[tentacles]] entry or a hook with `job`)")
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
        names = [h.name for h in self.hooks if h.job is None]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"hooks: duplicate name(s) {', '.join(dupes)}")
        taken = set(tentacle_names) | set(names)
        for event in EVENTS:
            on = [h for h in self.hooks if h.event == event and h.job is None]
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
            on = tuple(h for h in self.hooks if h.event == event and h.job is None)
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

    def jobs(self) -> list[Tentacle]:
        """The built-in jobs: the [[tentacles]], then the hooks that use a `job`."""
        used = [Tentacle(role=JOB_EVENTS[h.job], name=h.name, registered=h.registered,
                         phase=f"{self.harness.prefix.upper()} {h.job.upper()}")
                for h in self.hooks if h.job is not None]
        return [*self.tentacles, *used]

    def gates(self) -> list[Tentacle | Group]:
        """Every gate the spec renders: the built-in jobs, then the groups of user hooks."""
        return [*self.jobs(), *self.groups()]

    def _protect_covers_control_files(self) -> None:
        """Every control file of the harness home is in protect.home (or under an entry), and
        every dial file is in protect.anywhere: the agent must not lift a halt or a lock."""
        g, h = self.gate, self.halt
        # a switched-off feature has no control file
        unused = {"halt.": not h.enabled, "gate.ready_file": not g.readiness,
                  "gate.pid_file": not g.readiness, "gate.heartbeat_file": not g.readiness,
                  "gate.armed_roots_file": not g.armed_roots}
        control = {key: str(attrgetter(key)(self)) for key in defaults.CONTROL_FILES
                   if not any(off and key.startswith(k) for k, off in unused.items())}
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
        return next((t for t in self.jobs() if t.role == role), None)

    def enabled_vendors(self) -> list[str]:
        return sorted(v for v, cfg in self.vendors.items() if cfg.enabled)
