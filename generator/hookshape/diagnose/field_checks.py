"""Doctor's checks of the ways hooks fail silently in the field, each driven by a profile fact:
trust records a vendor wants per hook (and per project), hosts that skip settings-file hooks,
MCP matchers that name no tool, plugin-bundled MCP servers whose tools are named otherwise,
event names the vendor skips, other vendors' files the vendor also runs, and one command
registered twice."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookshape.diagnose import survey as surveys
from hookshape.diagnose import trust
from hookshape.diagnose.findings import Ctx, Finding
from hookshape.diagnose.survey import Handler, Survey, lookup, matcher
from hookshape.install.paths import config_path, expand, records_path
from hookshape.spec.profiles import Profile, load_profiles
from hookshape.spec.types import EVENTS

if TYPE_CHECKING:
    from hookshape.diagnose.vendor_checks import Seen


def _user(ctx: Ctx, profile: Profile) -> Path:
    """The user file holding the vendor's trust records (its settings file, else its config)."""
    return records_path(profile, ctx.homes.user, ctx.project, ctx.loaded.spec.harness.name)


def _gate(ctx: Ctx, handler: Handler) -> str:
    return (ctx.own.script(handler.command) or "").rsplit("/", 1)[-1]


# -- trust records ------------------------------------------------------------------------------


def check_trust(ctx: Ctx, s: Seen) -> list[Finding]:
    """Where the profile has a trust rule: is each entry of ours trusted (the record's hash is the
    entry's), never reviewed, changed since, or disabled; and is its project trusted at all."""
    cfg, display = s.profile.config, s.profile.vendor.display
    if not cfg.trust_table or not s.ours(ctx):
        return []
    user_path = _user(ctx, s.profile)
    user = next((v.data for v in s.configs() if v.path == user_path), {})
    if not cfg.trust_hash:  # a table and a key, no rule to compute the hash: any record will do
        if surveys.trusted(user, cfg.trust_table, cfg.trust_key):
            return []
        return [_untrusted(ctx, s.profile, f"{user_path}: no {cfg.trust_table}.<hook> entries with "
                           f"{cfg.trust_key}")]
    out = _project_trust(ctx, s, user, user_path)
    states: dict[str, list[str]] = defaultdict(list)
    for v, h in s.ours(ctx):
        found = trust.trust_of(s.profile, v, h, user)
        if found is not None and found.status != "trusted":
            states[found.status].append(f"{_gate(ctx, h)} on {h.event}")
    if states.get("untrusted"):
        out.append(_untrusted(ctx, s.profile, f"{user_path}: no trust record for "
                              f"{_listed(states['untrusted'])}"))
    if states.get("modified"):
        out.append(Finding("warn", "trust-changed", f"{user_path}: the trust records of "
                           f"{_listed(states['modified'])} hold another hash than the entry's: the entry "
                           f"changed since it was reviewed, and {display} skips it until it is "
                           "reviewed again", _review(ctx, s.profile)))
    if states.get("disabled"):
        out.append(Finding("error", "trust-disabled", f"{user_path}: {cfg.trust_table} disables "
                           f"{_listed(states['disabled'])} (enabled = false): {display} never runs it",
                           f"remove `enabled = false` from those {cfg.trust_table} records"))
    return out


def _listed(items: list[str]) -> str:
    return ", ".join(items[:4]) + (f" (+{len(items) - 4} more)" if len(items) > 4 else "")


def _review(ctx: Ctx, profile: Profile) -> str:
    caveat = f" ({profile.vendor.caveat})" if profile.vendor.caveat else ""
    return (f"start {profile.vendor.display}, review its hooks and trust the "
            f"{ctx.loaded.spec.harness.name} hooks{caveat}")


def _untrusted(ctx: Ctx, profile: Profile, what: str) -> Finding:
    return Finding("warn", "untrusted", f"{what}: {profile.vendor.display} skips hooks nobody "
                   "reviewed and trusted, silently", _review(ctx, profile))


def _project_trust(ctx: Ctx, s: Seen, user: dict[str, Any], user_path: Path) -> list[Finding]:
    """Entries of ours in a project's config load only in a project the user config trusts."""
    cfg = s.profile.config
    if not cfg.project_trust or not cfg.project_path:
        return []
    project_file = config_path(s.profile, "project", ctx.homes.user, ctx.project,
                               ctx.loaded.spec.harness.name)
    if not any(v.path == project_file for v, _ in s.ours(ctx)):
        return []
    root = trust.project_root(ctx.project)
    if trust.project_trusted(s.profile, user, root):
        return []
    key = cfg.project_trust.replace("{root}", json.dumps(str(root)))
    return [Finding("error", "project-untrusted",
                    f"{project_file}: {s.profile.vendor.display} loads no hooks of the project {root} "
                    f"until {user_path} sets {key} = {json.dumps(cfg.project_trust_value)} (it does not "
                    "even list them)", f"trust the project in {s.profile.vendor.display} (or set "
                    f"{key} = {json.dumps(cfg.project_trust_value)} in {user_path})")]


# -- where hooks run ------------------------------------------------------------------------------


def check_sdk_host(ctx: Ctx, s: Seen) -> list[Finding]:
    """Doctor runs inside a host that loads settings-file hooks only when asked to."""
    cfg = s.profile.config
    host = ctx.env.get(cfg.host_env, "") if cfg.host_env else ""
    if host not in cfg.sdk_hosts:
        return []
    return [Finding("warn", "sdk-host", f"this environment runs under {cfg.host_env}={host}: such a "
                    f"host runs the hooks of {s.profile.vendor.display}'s settings files only when its "
                    "caller passes setting sources; in the CLI they run",
                    "pass settingSources (TypeScript) / setting_sources (Python) with \"user\" and "
                    "\"project\" to the Agent SDK, or run the CLI itself")]


# -- matchers -------------------------------------------------------------------------------------


def _mcp_parts(fmt: str) -> tuple[str, str] | None:
    """(prefix, separator) of an MCP tool name format like `mcp__{server}__{tool}`."""
    found = re.fullmatch(r"([^{]*)\{server\}([^{]+)\{tool\}", fmt)
    return (found.group(1), found.group(2)) if found and found.group(1) else None


def _exact_list(profile: Profile, value: str) -> list[str] | None:
    """The names of a matcher the vendor reads as an exact list (None: it is a regex)."""
    if profile.matcher.syntax != "exact-list-or-regex" or not re.fullmatch(r"[A-Za-z0-9_ ,|-]+", value):
        return None
    return [p.strip() for p in re.split(r"[|,]", value) if p.strip()]


def _tool_matchers(s: Seen) -> list[tuple[Survey, Handler, str]]:
    roles = {s.profile.events.of(r) for r in s.profile.matcher.roles}
    out = []
    for v in s.read:
        for h in v.handlers:
            m = matcher(v, h)
            if m and h.event in roles:
                out.append((v, h, m))
    return list({(str(v.path), h.where): (v, h, m) for v, h, m in out}.values())


def check_mcp_matchers(ctx: Ctx, s: Seen) -> list[Finding]:
    """`mcp__<server>` in an exact-list matcher names no tool: the tools are mcp__<server>__<x>."""
    parts = _mcp_parts(s.profile.tools.mcp_format)
    if parts is None:
        return []
    prefix, sep = parts
    out = []
    for v, h, m in _tool_matchers(s):
        names = _exact_list(s.profile, m) or []
        bare = [n for n in names if n.startswith(prefix) and sep not in n[len(prefix):]]
        for name in bare:
            out.append(Finding("warn", "mcp-matcher", f"{v.path}: {h.where}: the matcher names {name}, "
                               f"which matches no tool: {s.profile.vendor.display} reads "
                               f"{json.dumps(m)} as an exact list, and MCP tools are named "
                               f"{name}{sep}<tool>", f"match {name}{sep}.* instead"))
    return out


def _plugin_servers(ctx: Ctx, s: Seen) -> dict[str, list[str]]:
    """server -> the enabled plugins that bundle it, from the vendor's plugin index."""
    cfg = s.profile.config
    index = _load_json(expand(cfg.plugins_index, ctx.homes.user, ctx.project)) if cfg.plugins_index else None
    plugins = index.get("plugins") if isinstance(index, dict) else None
    if not isinstance(plugins, dict):
        return {}
    enabled = [lookup(v.data, cfg.plugins_enabled) for v in s.read] if cfg.plugins_enabled else []
    out: dict[str, list[str]] = defaultdict(list)
    for key, installs in plugins.items():
        if any(isinstance(e, dict) and e.get(key) is False for e in enabled):
            continue
        for install in installs if isinstance(installs, list) else []:
            path = install.get("installPath") if isinstance(install, dict) else None
            for server in _servers(Path(path)) if isinstance(path, str) else []:
                out[server].append(key.split("@", 1)[0])
    return out


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _servers(plugin: Path) -> list[str]:
    """The MCP servers a plugin bundles: its .mcp.json, or its manifest's mcpServers (inline or
    a file)."""
    found: list[str] = []
    manifest = _load_json(plugin / ".claude-plugin" / "plugin.json")
    sources: list[Any] = [_load_json(plugin / ".mcp.json")]
    declared = manifest.get("mcpServers") if isinstance(manifest, dict) else None
    for item in declared if isinstance(declared, list) else [declared]:
        sources.append(_load_json(plugin / item) if isinstance(item, str) else item)
    for data in sources:
        servers = data.get("mcpServers", data) if isinstance(data, dict) else None
        if isinstance(servers, dict):
            found += [k for k, v in servers.items() if isinstance(v, dict)]
    return list(dict.fromkeys(found))


def _named(fmt: str, **parts: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: parts.get(m.group(1), m.group(0)), fmt)


def check_plugin_mcp(ctx: Ctx, s: Seen) -> list[Finding]:
    """A matcher for an MCP server that an enabled plugin bundles misses the plugin's tools: they
    are named by tools.plugin_mcp_format."""
    tools = s.profile.tools
    if not tools.plugin_mcp_format:
        return []
    servers = _plugin_servers(ctx, s)
    out = []
    for v, h, m in _tool_matchers(s):
        for server, plugins in servers.items():
            plain = _named(tools.mcp_format, server=server, tool="")
            if plain not in m:
                continue
            for plugin in plugins:
                named = _named(tools.plugin_mcp_format, plugin=_norm(plugin), server=_norm(server), tool="")
                if named in m:
                    continue
                out.append(Finding("warn", "plugin-mcp-names",
                                   f"{v.path}: {h.where}: the matcher takes {plain}<tool>, but the "
                                   f"MCP server {server} comes from the plugin {plugin}, whose tools "
                                   f"{s.profile.vendor.display} names {named}<tool>: it matches none of "
                                   "them", f"match {named}.* too (a raw tool name in the hook's match)"))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


# -- event names ----------------------------------------------------------------------------------


def _known(profile: Profile) -> set[str]:
    return {profile.events.of(e) for e in EVENTS if profile.events.of(e)} | set(profile.events.other)


def _whose(name: str, profile: Profile, others: dict[str, Profile]) -> str:
    """`(X is the pre_tool event of A and B; here it is Y)`, or '' for nobody's name."""
    for event in EVENTS:
        owners = [o.vendor.display for o in others.values() if o.id != profile.id and o.events.of(event) == name]
        if owners:
            mine = profile.events.of(event)
            here = f"here it is {mine}" if mine else f"{profile.vendor.display} has no {event} event"
            names = sorted(owners)
            said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
            return f" ({name} is the {event} event of {said}; {here})"
    return ""


def check_unknown_events(ctx: Ctx, s: Seen) -> list[Finding]:
    """Event names the vendor does not know: it skips their hooks (often another vendor's name)."""
    if s.profile.config.unknown_events != "skipped":
        return []
    known, others, out = _known(s.profile), load_profiles(), []
    for v in s.read:
        for name in surveys.event_names(s.profile, v):
            if name in known:
                continue
            root = f"{s.profile.config.root}." if s.profile.config.root else ""
            out.append(Finding("warn", "unknown-event", f"{v.path}: {root}{name} is no "
                               f"{s.profile.vendor.display} event{_whose(name, s.profile, others)}: "
                               f"it skips these hooks, so they never run",
                               f"rename the key to the {s.profile.vendor.display} event it means"))
    return out


# -- other vendors' files -------------------------------------------------------------------------


def check_also_runs(ctx: Ctx, s: Seen) -> list[Finding]:
    """Another vendor's files this vendor also runs: their hooks run here too; ours, twice."""
    out: list[Finding] = []
    profiles = load_profiles()
    for vendor, files in s.profile.config.also_runs.items():
        other = profiles.get(vendor)
        if other is None:
            continue
        for raw in files:
            path = expand(raw, ctx.homes.user, ctx.project)
            if path.is_file():
                out += _also_run(ctx, s, other, surveys.load(other, path))
    return out


def _also_run(ctx: Ctx, s: Seen, other: Profile, v: Survey) -> list[Finding]:
    if v.error or not v.handlers:
        return []
    display, theirs = s.profile.vendor.display, other.vendor.display
    ours = [h for h in v.handlers if ctx.own.owns(h.command)]
    if ours and s.ours(ctx):
        gates = sorted({_gate(ctx, h) for h in ours})
        return [Finding("warn", "double-run", f"{v.path} ({theirs}'s) holds {len(ours)} "
                        f"{ctx.loaded.spec.harness.name} entr{'ies' if len(ours) != 1 else 'y'} "
                        f"({', '.join(gates)}), and {display} also runs that file's hooks in a trusted "
                        f"folder: under {display} each of those gates runs twice, once answering in "
                        f"{theirs}'s dialect", f"install the harness for one of them in this project "
                        f"(e.g. `{ctx.hs(f'uninstall --vendor {other.id} --scope project')}`)")]
    return [Finding("info", "also-runs", f"{display} also runs the {len(v.handlers)} hook "
                    f"entr{'ies' if len(v.handlers) != 1 else 'y'} of {v.path} ({theirs}'s) in a "
                    "trusted folder", "nothing to do, unless they should not run there")]


# -- the same command twice -----------------------------------------------------------------------

_INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "node", "python", "python3", "bun", "deno",
                           "ruby", "perl", "env"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def spelled(command: str, home: Path) -> tuple[str, ...]:
    """A command's words as they run: leading NAME=value words and the interpreter word dropped,
    `~` and $HOME spelled out, paths normalised (for telling one script spelled twice)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return (command,)
    while words and _ASSIGN.match(words[0]):
        words.pop(0)
    if words and words[0].rsplit("/", 1)[-1] in _INTERPRETERS and len(words) > 1:
        words = words[1:]
    out = []
    for w in words:
        w = re.sub(r"^(~|\$HOME|\$\{HOME\})(?=/|$)", str(home), w)
        out.append(os.path.normpath(w) if w.startswith("/") else w)
    return tuple(out)


def check_duplicate_commands(ctx: Ctx, s: Seen) -> list[Finding]:
    """Someone else's command registered more than once on one event (and matcher), across the
    files the vendor reads: it runs once per entry (an identical one once, where the vendor
    de-duplicates)."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[tuple[Survey, Handler]]] = defaultdict(list)
    for v in s.read:
        for h in v.handlers:
            if h.command and not ctx.own.owns(h.command):
                key = (h.event, matcher(v, h) or "", spelled(h.command, ctx.homes.user))
                groups[key].append((v, h))
    out = []
    for (event, _, _), found in groups.items():
        runs = len({h.command for _, h in found}) if s.profile.config.dedup_identical else len(found)
        if runs < 2:
            continue
        where = "; ".join(f"{v.path}: {h.where}" for v, h in found)
        out.append(Finding("warn", "duplicate-command", f"one command is registered {len(found)} times "
                           f"on {event} ({where}): {s.profile.vendor.display} runs it {runs} times per "
                           "event", "keep one entry (another installer may have added its own)"))
    return out
