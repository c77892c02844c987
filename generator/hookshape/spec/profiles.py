"""Vendor profiles: the vendors' hook contracts as data (one TOML file per vendor)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hookshape.errors import ProfileError
from hookshape.spec.types import Event
from hookshape.spec.validation import loads_toml, read_text, validate

Ident = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$", description=(
    "an identifier: letters, digits, '_' and '.', starting with a letter or '_'"))]
Dotted = Annotated[str, Field(pattern=r"^([A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*)?$", description=(
    "a dotted key path (a.b.c): each part letters, digits, '_' and '-', starting with a letter or '_'"))]
EnvVar = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description=(
    "an environment variable name: letters, digits and '_', not starting with a digit"))]
FindingCode = Annotated[str, Field(pattern=r"^([a-z][a-z0-9]*(-[a-z0-9]+)*)?$", description=(
    "a finding code: lowercase words of letters and digits joined by '-'"))]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$", description="a date: YYYY-MM or YYYY-MM-DD")]
MatcherSyntax = Literal["exact-list-or-regex", "regex", "exact"]
Layout = Literal["groups", "flat", "groups-for-matchers", "list"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class VendorInfo(_Strict):
    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", description=(
        "a vendor id: lowercase letters, digits, '_' and '-', starting with a letter"))]
    display: str
    confidence: Literal["high", "medium", "low"]
    sniff_keys: list[Ident]
    sniff_priority: int
    caveat: str = ""  # a condition hooks need on this vendor, shown in CAPABILITIES and doctor


class Events(_Strict):
    """The vendor's name of each vendor-neutral event ("" where it has none)."""

    session_start: str = ""
    prompt: str = ""
    pre_tool: str = ""
    post_tool: str = ""
    stop: str = ""
    subagent_stop: str = ""
    pre_compact: str = ""
    session_end: str = ""
    notification: str = ""
    permission_request: str = ""
    post_tool_failure: str = ""
    subagent_start: str = ""
    other: list[str] = Field([], description=(
        "the vendor's other hook events, beside the neutral ones (with config.unknown_events, the "
        "whole list: doctor flags a name outside it)"))

    def of(self, event: Event) -> str:
        return str(getattr(self, event))

    def names(self, events: list[Event]) -> list[str]:
        return [self.of(e) for e in events]

    def known(self, name: str) -> bool:
        """Whether the vendor has a hook event of this name (a neutral one's or another)."""
        return name in self.other or any(getattr(self, e) == name for e in type(self).model_fields
                                         if e != "other")


class Matcher(_Strict):
    syntax: MatcherSyntax
    roles: list[Event] = Field(description="the events whose entries take a tool matcher")


class Tools(_Strict):
    edit: list[str]
    shell: list[str]
    read: list[str] = Field([], description="tools that only read files (the `read` tool class)")
    subagent: list[str] = Field([], description=(
        "tools that start a subagent (the `subagent` tool class: Task, Agent, spawn_agent, ...)"))
    other: list[str] = Field([], description=(
        "the vendor's other tools known by name (a hook may match them raw); validation warns "
        "about a raw name no enabled vendor is known to have"))
    mcp_format: str
    plugin_mcp_format: str = Field("", description=(
        "how a plugin's bundled MCP server names its tools ({plugin}, {server}, {tool}): a matcher "
        "written for mcp_format misses them"))


class Handler(_Strict):
    """The keys of one hook handler in the vendor's config."""

    command: str = Field("command", description="the key holding the shell command (Copilot: bash)")
    timeout: str = Field("timeout", description="the key holding the timeout (Copilot: timeoutSec)")
    type: str = Field("command", description="the value of the handler's `type` key; \"\" = no type key")
    event: str = Field("", description="layout list: the key naming the event (Kimi: event)")
    extra: dict[str, Any] = Field({}, description="constant keys every handler carries")
    async_key: str = Field("", description=(
        "the key that makes the vendor run a handler without waiting for it (`async`, set to "
        "true on the gates of async hooks); \"\": the vendor has none, and the gate detaches them"))


class SettingsFile(_Strict):
    """The vendor's settings file beside a hooks file of its own (Codex: config.toml beside
    hooks.json): the switches and the trust records live there, and hook entries written there
    are read too."""

    syntax: Literal["json", "toml"]
    user_path: str
    project_path: str = ""
    hooks: bool = Field(False, description=(
        "the vendor also reads hook entries there (under [config].root, in [config].layout): "
        "install moves entries an older install put there into the hooks file"))
    strict: bool = Field(False, description="a key the vendor does not know fails the file")


class ConfigInfo(_Strict):
    """Where the vendor reads hooks, how an entry is shaped there, and the settings around them
    that `doctor` checks. The fields after `timeout_unit` are optional: a profile that leaves one
    out gets no check for it."""

    syntax: Literal["json", "toml"] = Field(description=(
        "the file's syntax; a TOML config gets its entries as one marked block of its own"))
    root: str = Field("hooks", description=(
        "the key holding the entries: a top-level key, \"\" (the events are the top-level keys), or "
        "\"{name}\" (a member named after the harness, holding its events: a named bundle)"))
    layout: Layout = Field(description=(
        "how entries sit per event: groups ({matcher?, hooks:[handler]}), flat (handlers with their "
        "matcher), groups-for-matchers (groups where a matcher is, else flat handlers), or list (one "
        "array of handlers under root, each naming its event in handler.event)"))
    extras: dict[str, Any] = Field({}, description=(
        "top-level keys the file must hold beside the entries (e.g. version = 1)"))
    handler: Handler = Field(Handler(), description="the keys of one handler")
    fail_closed: dict[str, Any] = Field({}, description=(
        "handler keys that make a hook fail closed (Claude: onFailure = \"block\"): never written on a "
        "gate of ours; doctor flags an entry that carries them"))
    strict: bool = Field(False, description=(
        "a key the vendor does not know fails the file: doctor flags foreign keys in entries"))
    user_path: str
    project_path: str
    timeout_unit: Literal["s", "ms"]
    # The top-level keys the file may hold ([] = any): another key drops the whole file.
    root_keys: list[str] = []
    # The vendor's settings file beside the hooks file, where the switches and trust records
    # are (none: they are in the hooks file itself).
    settings: SettingsFile | None = None
    enable_switch: str = ""
    legacy_switches: list[str] = []
    # Files this vendor version also reads hooks from (`~/...` = user home, else the project).
    also_read: list[str] = []
    # Files older versions read but this one does not: entries there never fire.
    legacy_paths: list[str] = []
    # The JSON config may hold // and /* */ comments (the vendor strips them before parsing).
    json_comments: bool = False
    # A settings key that must be set when one of auth_env is in the environment (to auth_value
    # when given), e.g. Gemini: security.auth.selectedType = gemini-api-key for GEMINI_API_KEY.
    auth_key: Dotted = ""
    auth_value: str = ""
    auth_env: list[EnvVar] = []
    # Where the vendor records hooks a user reviewed and trusted, and the key that marks one
    # trusted (Codex: [hooks.state."<key>"] trusted_hash); hooks without it are skipped.
    trust_table: Dotted = ""
    trust_key: str = ""
    # How the vendor keys and hashes one hook's trust record (doctor computes both and tells a
    # trusted entry from one never reviewed or changed since): the record's key, with {file}
    # (the config file's absolute path), {event_snake}, {group} and {handler} (positions), and
    # the hash rule (hookshape.diagnose.trust), with the timeout an entry without one counts as.
    trust_entry: str = ""
    trust_hash: Literal["", "definition-sha256"] = ""
    trust_default_timeout: int = 0
    # Events whose timeout the vendor bounds before it hashes: vendor event -> [default, max].
    trust_timeouts: dict[str, Annotated[list[int], Field(min_length=2, max_length=2)]] = {}
    # The user-config key that must hold project_trust_value before the vendor loads a project's
    # hooks at all ({root}: the project root), e.g. Codex: projects.{root}.trust_level = trusted.
    project_trust: str = ""
    project_trust_value: str = ""
    # Keys under root that are settings, not events (Gemini: enabled, disabled, notifications).
    root_fields: list[str] = []
    # What the vendor does with an event name it does not know ("skipped": the entries never
    # run); doctor names the vendor whose name it is. Needs the whole list (events + other).
    unknown_events: Literal["", "skipped"] = ""
    # Identical commands on one event run once (a differently spelled one runs again).
    dedup_identical: bool = False
    # Other vendors' config files this vendor also runs the hooks of: vendor id -> files (`~/...`
    # = user home, else the project), read in that vendor's format.
    also_runs: dict[str, list[str]] = {}
    # The index of installed plugins (`~/...`), whose bundled MCP servers rename their tools
    # (tools.plugin_mcp_format); and the settings key that enables each (`<key>: false` = off).
    plugins_index: str = ""
    plugins_enabled: Dotted = ""
    # The environment variable that names the host a session runs in, and the hosts that run
    # settings-file hooks only when their caller passes setting sources (Claude's Agent SDK).
    host_env: str = ""
    sdk_hosts: list[str] = []

    @property
    def bundled(self) -> bool:
        """A standalone hooks file whose top-level keys are hook names (root `{name}`)."""
        return self.root == "{name}"

    @property
    def switches(self) -> list[str]:
        """The dotted keys that turn the vendor's hooks on: the current one, then older names."""
        return [s for s in [self.enable_switch, *self.legacy_switches] if s]

    @model_validator(mode="after")
    def _pairs(self) -> ConfigInfo:
        if (self.trust_entry or self.trust_hash) and not (self.trust_entry and self.trust_hash
                                                          and self.trust_table):
            raise ValueError("trust_entry and trust_hash: together, with trust_table")
        if bool(self.project_trust) != bool(self.project_trust_value):
            raise ValueError("project_trust and project_trust_value: together")
        if bool(self.auth_key) != bool(self.auth_env):
            missing = "auth_env" if self.auth_key else "auth_key"
            raise ValueError(f"{missing}: required with "
                             f"{'auth_key' if self.auth_key else 'auth_env'}")
        if self.auth_value and not self.auth_key:
            raise ValueError("auth_key: required with auth_value")
        if bool(self.trust_table) != bool(self.trust_key):
            missing = "trust_key" if self.trust_table else "trust_table"
            raise ValueError(f"{missing}: required with "
                             f"{'trust_table' if self.trust_table else 'trust_key'}")
        if self.json_comments and self.syntax != "json":
            raise ValueError("json_comments: only for a JSON config")
        if (self.layout == "list") != bool(self.handler.event):
            raise ValueError("handler.event: required with layout list, and only there")
        if self.layout == "list" and not self.root:
            raise ValueError("root: layout list needs a key to hold its array")
        if self.syntax == "toml" and (self.extras or self.root == "{name}" or not self.root):
            raise ValueError("a TOML config takes its entries under a plain root key, with no extras")
        if "{" in self.root and self.root != "{name}":
            raise ValueError("root: a key, \"\" or \"{name}\"")
        if self.root_keys and self.root not in [*self.root_keys, "", "{name}"]:
            raise ValueError(f"root_keys: must name the root key {self.root!r}")
        if self.settings is not None and self.settings.hooks and self.settings.syntax == "toml" \
                and (not self.root or self.root == "{name}"):
            raise ValueError("settings: a TOML settings file holds entries under a plain root key")
        return self


PLACEHOLDERS = ("{text}", "{event}", "{input}")


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


class Answer(_Strict):
    """One answer of a hook on this vendor: a JSON object on stdout (string values may be the
    placeholders {text} and {event}), the text on stderr, the context answer of the role (for a
    warning), or nothing (all unset)."""

    stdout: dict[str, Any] | None = Field(None, description=(
        "the JSON object printed on stdout; a string value \"{text}\" is the answer's text, "
        "\"{event}\" the vendor's event name of the role, \"{input}\" (rewrite only) the new "
        "tool input, an object"))
    stderr: bool = Field(False, description=(
        "the text as one line on stderr (with exit 2 when the answer blocks)"))
    context: bool = Field(False, description="the context answer of the same role (warn only)")

    @model_validator(mode="after")
    def _one_channel(self) -> Answer:
        if sum([self.stdout is not None, self.stderr, self.context]) > 1:
            raise ValueError("give one of stdout, stderr and context")
        for s in _strings(self.stdout or {}):
            if "{" in s and s not in PLACEHOLDERS:
                raise ValueError(f"a placeholder is a whole string value (stdout holds {s!r}), "
                                 "\"{text}\", \"{event}\" or \"{input}\"")
        return self

    @property
    def said(self) -> bool:
        return self.stdout is not None or self.stderr or self.context


class Output(_Strict):
    """How a hook answers on this vendor, and the facts about exit codes that go with it."""

    context_roles: list[Event] = Field(description=(
        "the events whose context answer (the [output.context] shape, {event} = the vendor's name "
        "of the event) reaches the model; an event with another context shape is left out"))
    context: Answer = Field(description="context for the model, on the events context_roles lists")
    deny: Answer = Field(description="pre_tool: the call is blocked, with {text} as the reason")
    allow: Answer = Field(Answer(), description="pre_tool: the call may run (default: nothing)")
    warn: Answer = Field(description="pre_tool: the call runs, {text} is a warning")
    stop: Answer = Field(description="stop: the agent keeps working, {text} says why")
    suggest: Answer = Field(description="stop: the agent stops, {text} is shown")
    ask: Answer = Field(Answer(), description=(
        "pre_tool: the user is asked to confirm the call, {text} says why (nothing: the vendor "
        "cannot ask; contract.ask_fallback decides)"))
    rewrite: Answer = Field(Answer(), description=(
        "pre_tool: the call runs with \"{input}\", a whole new tool input (nothing: the vendor "
        "cannot apply one, and a rewrite is refused instead)"))
    block: Answer = Field(Answer(), description=(
        "prompt: the prompt is refused, {text} says why (nothing: it cannot be; the reason is "
        "context where the prompt has a channel)"))
    grant: Answer = Field(Answer(), description="permission_request: allowed for the user")
    refuse: Answer = Field(Answer(), description="permission_request: denied for the user, {text} says why")
    stop_guard: Literal["stop_hook_active", "counter"] = Field(description=(
        "how a stop loop is caught: the vendor's stop_hook_active flag, or a per-session counter"))
    stop_cap: int = Field(0, description="consecutive stop blocks the vendor allows (0: no cap)")
    exit_ignored: bool = Field(False, description="the vendor ignores a hook's exit code: only stdout counts")
    exit2_needs_empty_stdout: bool = Field(False, description=(
        "exit 2 blocks only with nothing on stdout"))
    empty_object_denies: bool = Field(False, description="`{}` on stdout of pre_tool denies the call")
    nonzero_denies: bool = Field(False, description=(
        "any non-zero exit (a crash too) of a pre_tool hook denies: fail-open means exit 0"))

    @model_validator(mode="after")
    def _kinds(self) -> Output:
        for kind in ("context", "deny", "allow", "stop", "suggest", "ask", "rewrite", "block",
                     "grant", "refuse"):
            if getattr(self, kind).context:
                raise ValueError(f"{kind}: context = true is for warn only")
            takes_input = kind == "rewrite"
            holds = "{input}" in _strings(getattr(self, kind).stdout or {})
            if holds != (takes_input and getattr(self, kind).stdout is not None):
                raise ValueError(f"{kind}: \"{{input}}\" " + ("is required in a rewrite's stdout"
                                 if takes_input else "is for rewrite only"))
        if self.rewrite.stderr:
            raise ValueError("rewrite: stdout or nothing")
        if self.context.stderr:
            raise ValueError("context: stdout or nothing")
        if self.allow.stderr:
            raise ValueError("allow: stdout or nothing")
        return self


class Payload(_Strict):
    session: list[str]
    cwd: list[str]
    event: str
    tool_name: str
    tool_input: str
    path_fields: list[str]
    command_field: str
    patch_field: str
    stop_active: str
    stop_text: list[str]
    turn_marker: str = ""
    tool_response: list[str] = Field([], description="post_tool: what the tool answered")
    tool_error: list[str] = Field([], description="post_tool_failure: the error the tool failed with")
    tool_input_on: dict[Event, str] = Field({}, description=(
        "events whose tool input is at another path than tool_input (Copilot's permissionRequest: "
        "toolInput)"))
    transcript: list[str] = Field([], description="the transcript's path")
    prompt: list[str] = Field([], description="prompt: the user's prompt")
    source: list[str] = Field([], description="session_start: why the session starts")
    notification: list[str] = Field([], description="notification: its text")
    subagent: list[str] = Field([], description="subagent events: the subagent's type")
    subagent_arg: list[str] = Field([], description=(
        "the field of a subagent tool's input that names the subagent's type"))

    @model_validator(mode="after")
    def _cwd_not_from_tool_args(self) -> Payload:
        # tool arguments are written by the model: a cwd taken from them would let it move the
        # dial walk and the joins of relative targets to a directory of its choice
        args = self.tool_input
        inside = [c for c in self.cwd if args and (c == args or c.startswith(args + "."))]
        if inside:
            raise ValueError(f"cwd: {', '.join(inside)} is inside tool_input ({self.tool_input}); "
                             "take the cwd from the vendor's own fields")
        return self


class Fact(_Strict):
    topic: str
    fact: str
    source: str
    date: Date
    # When set, `doctor` shows this fact as an info finding under this code (e.g.
    # "write-before-read"): vendor behaviour worth knowing when a hook seems not to work.
    doctor: FindingCode = ""


Protocol = Literal["anthropic", "gemini", "openai_chat", "openai_responses"]


class Drive(_Strict):
    """How `hookshape verify` runs the vendor's CLI for one scripted turn against its mock model,
    offline. Strings may hold {home} (the scratch user home), {mock} (the mock's URL), {key} (the
    mock's API key), {model} and {prompt}. With `cannot` set, nothing else: why it cannot."""

    cannot: str = Field("", description="why verify cannot drive this CLI (then nothing else is set)")
    binary: str = Field("", description="the command's name on PATH")
    package: str = Field("", description="the npm package whose versions are proven (hookshape/verify/proven.txt)")
    protocol: Protocol | None = Field(None, description="the wire protocol the CLI speaks to the mock")
    model: str = Field("", description="a model name the CLI accepts offline")
    argv: list[str] = Field([], description="the arguments of one headless turn")
    env: dict[str, str] = Field({}, description="the turn's environment beside HOME, PATH and the locale")
    settings_file: str = Field("", description="the settings file (~/...) the settings go to")
    settings: dict[str, Any] = Field({}, description=(
        "keys the turn needs in settings_file (nested tables; only these are written, every other "
        "key of the file stays)"))
    silent: dict[Event, str] = Field({}, description=(
        "events the CLI does not fire in such a turn, and why (verify says so instead of `not fired`)"))

    @model_validator(mode="after")
    def _either(self) -> Drive:
        if self.cannot:
            if self.binary or self.argv or self.env or self.settings or self.package:
                raise ValueError("cannot: nothing else with it")
            return self
        for name in ("binary", "package", "protocol", "model", "argv"):
            if not getattr(self, name):
                raise ValueError(f"{name}: required (or `cannot`, saying why)")
        if bool(self.settings) != bool(self.settings_file):
            raise ValueError("settings and settings_file: together")
        return self


# what a plugin's manifest, marketplace, install lines and notes may say: [package] of the spec
# (owner: the author, else the name; path: where a marketplace keeps the plugin)
PLUGIN_FIELDS = ("name", "version", "description", "author", "author_email", "homepage",
                 "license", "marketplace", "owner", "path")
PluginPath = Annotated[str, Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$", description=(
    "a relative path inside the plugin: letters, digits, '.', '_' and '-', parts joined by '/'"))]


def _placeholders_known(where: str, value: Any) -> None:
    for text in _strings(value):
        for name in re.findall(r"\{([^{}]*)\}", text):
            if name not in PLUGIN_FIELDS:
                raise ValueError(f"{where}: {{{name}}} is not one of "
                                 + ", ".join(f"{{{f}}}" for f in PLUGIN_FIELDS))


class PluginFile(_Strict):
    """A JSON file of the plugin built from data: its string values may hold the spec's [package]
    fields as {placeholders}; a value that is one placeholder left empty is left out, and so is
    an object or list left empty."""

    path: PluginPath
    keys: dict[str, Any] = Field(description="the JSON document, with {placeholders}")

    @model_validator(mode="after")
    def _known(self) -> PluginFile:
        _placeholders_known(self.path, self.keys)
        return self


class PluginMarketplace(PluginFile):
    plugins_dir: PluginPath = Field("plugins", description=(
        "the folder of the marketplace that holds the plugin ({path} = <plugins_dir>/<name>)"))


class PluginHooks(_Strict):
    """The plugin's hooks file: JSON, shaped as the vendor's [config] unless overridden here."""

    path: PluginPath = "hooks/hooks.json"
    root: str | None = Field(None, description="the key holding the entries (default: [config].root)")
    layout: Layout | None = Field(None, description="how entries sit per event (default: [config].layout)")
    extras: dict[str, Any] | None = Field(None, description=(
        "top-level keys beside the entries (default: [config].extras)"))
    handler: Handler | None = Field(None, description="the keys of one handler (default: [config].handler)")

    def overrides(self) -> dict[str, Any]:
        """The [config] keys this file shapes otherwise."""
        return {k: v for k in ("root", "layout", "extras", "handler") if (v := getattr(self, k)) is not None}


class Plugin(_Strict):
    """How the vendor ships hooks in a plugin or extension: `hookshape package --as <format>`."""

    format: Annotated[str, Field(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", description=(
        "the format's name for --as: lowercase words joined by '-'"))]
    display: str = Field(description="what the vendor calls it (Claude Code plugin)")
    root_var: EnvVar = Field(description=(
        "the variable a hook command names the plugin's directory by, as ${<root_var>}"))
    scripts: PluginPath = Field("scripts", description="the plugin's folder of gates and tentacles")
    name_pattern: str = Field(description="a regex the plugin's and the marketplace's names must match")
    name_rule: str = Field(description="name_pattern in words, for the error message")
    manifest: PluginFile
    hooks: PluginHooks = PluginHooks()
    marketplace: PluginMarketplace | None = Field(None, description=(
        "the marketplace file `package --marketplace` writes (none: the vendor has no marketplace)"))
    install: list[str] = Field(description="the README's install commands, with {placeholders}")
    notes: list[str] = Field([], description="what a user must know to run it, with {placeholders}")
    source: str
    date: Date

    @model_validator(mode="after")
    def _consistent(self) -> Plugin:
        try:
            re.compile(self.name_pattern)
        except re.error as exc:
            raise ValueError(f"name_pattern: not a regex: {exc}") from None
        _placeholders_known("install", self.install)
        _placeholders_known("notes", self.notes)
        files = [self.manifest.path, self.hooks.path]
        if len(set(files)) != len(files):
            raise ValueError("manifest.path and hooks.path: two files at one path")
        inside = [f for f in files if f == self.scripts or f.startswith(self.scripts + "/")]
        if inside:
            raise ValueError(f"{inside[0]}: inside the scripts folder {self.scripts!r}")
        return self


class ProjectSetup(_Strict):
    """How the vendor runs a project's own hooks, for a setup a team commits with the project
    (`install --scope project`): the scripts in the project, each command naming the project's
    root the way the vendor lets it; or why such a setup cannot run there."""

    root: str = Field("", description=(
        "shell text that stands for the project's root at the start of a double-quoted command "
        "path: the vendor's project-dir variable, braced (${CLAUDE_PROJECT_DIR}), or a command "
        "substitution that finds the root ($(git rev-parse --show-toplevel)); empty with `cannot`"))
    cannot: str = Field("", description="why a committed setup cannot run on this vendor")
    shell: list[str] = Field([], description=(
        "how the vendor runs a hook's command: the argv before the command (bash -c)"))
    needs: str = Field("", description=(
        "what each user does once before the vendor runs a project's hooks (trust the folder, "
        "review the hooks), or \"\""))
    source: str = ""
    date: Date | None = None

    @model_validator(mode="after")
    def _either(self) -> ProjectSetup:
        if bool(self.root) == bool(self.cannot):
            raise ValueError("give root, or cannot saying why")
        if self.root and not (self.shell and self.source and self.date):
            raise ValueError("root: shell, source and date go with it")
        if any(c in self.root for c in '"\\`'):
            raise ValueError("root: it sits inside double quotes: no '\"', '\\' or '`'")
        return self


NO_PROJECT = ProjectSetup(cannot="its profile does not say how the vendor runs a project's hooks")


class Profile(_Strict):
    vendor: VendorInfo
    events: Events
    matcher: Matcher
    tools: Tools
    config: ConfigInfo
    output: Output
    payload: Payload
    plugin: Plugin | None = Field(None, description=(
        "how the vendor ships hooks in a plugin or extension (none: it has no such format)"))
    project: ProjectSetup = Field(NO_PROJECT, description=(
        "how the vendor runs a setup committed with a project (or why it cannot)"))
    facts: Annotated[list[Fact], Field(min_length=1)]
    drive: Drive = Field(Drive(cannot="no way to run it offline is known"), description=(
        "how `hookshape verify` runs the CLI (or why it cannot)"))

    @model_validator(mode="after")
    def _plugin_hooks_shape(self) -> Profile:
        """The plugin's hooks file is [config] with [plugin.hooks]'s keys over it: JSON, so the
        rules of a JSON config hold for it too."""
        if self.plugin is None:
            return self
        merged = {**self.config.model_dump(), "syntax": "json", **{
            k: v.model_dump() if isinstance(v, BaseModel) else v
            for k, v in self.plugin.hooks.overrides().items()}}
        try:
            ConfigInfo.model_validate(merged)
        except ValidationError as exc:
            raise ValueError("plugin.hooks: " + "; ".join(e["msg"].removeprefix("Value error, ")
                                                          for e in exc.errors())) from None
        return self

    def settings_config(self) -> ConfigInfo | None:
        """[config] as the settings file has it (its syntax and strictness; the same root and
        layout), for reading it (None: the vendor has none)."""
        settings = self.config.settings
        if settings is None:
            return None
        return self.config.model_copy(update={"syntax": settings.syntax, "strict": settings.strict,
                                              "json_comments": False, "root_keys": [],
                                              "settings": None})

    def plugin_config(self) -> ConfigInfo:
        """[config] as the plugin's hooks file has it (see _plugin_hooks_shape)."""
        assert self.plugin is not None
        return self.config.model_copy(update={"syntax": "json", **self.plugin.hooks.overrides()})

    @property
    def id(self) -> str:
        return self.vendor.id

    def timeout(self, timeout_ms: int) -> int:
        """A spec timeout (ms) in the vendor's unit, rounded up."""
        return timeout_ms if self.config.timeout_unit == "ms" else -(-timeout_ms // 1000)


def builtin_dir() -> Path:
    return Path(str(resources.files("hookshape") / "vendors"))


def load_profile(path: Path) -> Profile:
    """The profile in a file. The same text is parsed and validated once per process: a command
    reads the nine built-in profiles, most of them more than once, and a profile is frozen."""
    return _profile(path, read_text(path, ProfileError))


@lru_cache(maxsize=64)
def _profile(path: Path, text: str) -> Profile:
    profile: Profile = validate(path, Profile, loads_toml(text, path, ProfileError), ProfileError)
    if profile.id != path.stem:
        raise ProfileError(f"{path}: vendor.id: {profile.id!r} must match the file name {path.stem!r}")
    return profile


def load_profiles(extra_dirs: list[Path] | None = None) -> dict[str, Profile]:
    """Built-in profiles, then any extra directories (a later file of the same id wins)."""
    found: dict[str, Profile] = {}
    for folder in [builtin_dir(), *(extra_dirs or [])]:
        for path in sorted(folder.glob("*.toml")):
            profile = load_profile(path)
            found[profile.id] = profile
    return found
