"""The defaults of the spec that derive from other keys, in one place: env var names and
messages from harness.prefix, paths from harness.name and harness.state_dir, the package's
name from harness.name, dial files from matrix.project_marker, the stop messages from
stop.compliance_keyword, and the protected control files from the files the spec names.

`fill` runs before validation (Spec's before-validator) on the raw TOML table and adds every
missing section and key; a key the spec sets is kept as it is. `symbolic` is the same rule
written with placeholders (`<PREFIX>_HOME`), shown as the default in the JSON schema.

Fixed values of the sections whose models carry no defaults yet (halt, dials, stop, prompt,
gate) are filled here too; every other fixed default is a plain default of its model."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

STATE_DIR = "state"
KEYWORD = "SITREP"
GATES_DIR = "bin"  # gates in <home>/bin (bin/<tentacle_dir> holds the tentacles)
# the control files of the harness home, as the spec keys naming them: protect.home must cover
# each, so its default is these files (and the state dir and bin/ that hold the rest)
CONTROL_FILES: tuple[str, ...] = (
    "halt.sentinel_default", "halt.distress_default", "gate.kill_switch_file", "gate.ready_file",
    "gate.pid_file", "gate.heartbeat_file", "gate.armed_roots_file", "gate.debug_switch_file",
    "gate.health_dir", "matrix.file_default")


@dataclass(frozen=True)
class Basis:
    """The values the derived defaults are made of (each already valid, or a stand-in)."""

    name: str = "harness"
    prefix: str = "h"
    state: str = STATE_DIR
    marker: str = ""  # matrix.project_marker; "" = the default, `.<name>`
    keyword: str = KEYWORD

    @property
    def env(self) -> str:
        return self.prefix.upper()

    @property
    def project(self) -> str:
        return self.marker or f".{self.name}"


SYMBOLIC = Basis(name="<name>", prefix="<prefix>", state="<state_dir>", marker="<project_marker>",
                 keyword="<compliance_keyword>")

Rule = Callable[[Basis], Any]

HARNESS: dict[str, Rule] = {
    "home_env": lambda b: f"{b.env}_HOME",
    "home_default": lambda b: f"~/.{b.name}",
    "project_dir": lambda b: f".hookshape/{b.name}",
    "provider_env": lambda b: f"{b.env}_HOOK_PROVIDER",
    "actor_env": lambda b: f"{b.env}_ACTOR",
    "shell_env": lambda b: f"{b.env}_HOOK_SHELL",
}
MATRIX: dict[str, Rule] = {
    "file_env": lambda b: f"{b.env}_MATRIX_FILE",
    "lock_prefix": lambda b: f"{b.env}_LOCK_",
    "alert_prefix": lambda b: f"{b.env}_ALERT_",
    "pheromone_prefix": lambda b: f"{b.env}_PHEROMONE_",
    "file_default": lambda b: "matrix.env",
    "project_marker": lambda b: f".{b.name}",
}
HALT: dict[str, Rule] = {
    "sentinel_env": lambda b: f"{b.env}_HALT_FILE",
    "sentinel_default": lambda b: "HALT",
    "distress_env": lambda b: f"{b.env}_DISTRESS_FILE",
    "distress_default": lambda b: "DISTRESS",
    "cli": lambda b: [b.name],
    "allowed_args": lambda b: ["--help", "-h", "--version", "-V", "help", "version"],
    "shells": lambda b: ["sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "posh", "fish",
                         "busybox", "eval", "source"],
    "decoders": lambda b: ["base64", "base32", "basenc", "xxd", "openssl", "uudecode", "gpg",
                           "gunzip", "zcat", "rev", "tr"],
    "runners": lambda b: ["ssh", "su", "script", "watch", "tmux", "screen", "parallel", "at", "batch",
                          "env"],
    "scan_max_bytes": lambda b: 16384,
    "mcp_servers": lambda b: [b.name],
    "daemon_names": lambda b: [b.name],
    "daemon_verbs": lambda b: ["load", "start", "restart", "kickstart", "bootstrap", "enable", "run"],
    "seen_line": lambda b: "control SEEN",
    "complied_line": lambda b: "control COMPLIED",
}


def _dial(dial: str, values: tuple[str, ...], field: str) -> dict[str, Rule]:
    return {
        "env": lambda b: f"{b.env}_{dial.upper()}",
        "values": lambda b: list(values),
        "default": lambda b: "enforce",
        "files": lambda b: [f"{b.project}/{dial}.json", f"{b.project}/project.json"],
        "key": lambda b: dial,
        "field": lambda b: field,
    }


DIALS: dict[str, dict[str, Rule]] = {
    "suggestibility": _dial("suggestibility", ("advisory", "warn", "enforce"), "level"),
    "sitrep": _dial("sitrep", ("off", "suggest", "enforce"), "endOfTurn"),
}
STOP: dict[str, Rule] = {
    "marker_dir": lambda b: "stop-blocks",
    "block_ttl_s": lambda b: 300,
    "gc_batch": lambda b: 16,
    "compliance_keyword": lambda b: KEYWORD,
    "counter_mode": lambda b: "observe",
    "counter_max_blocks": lambda b: 1,
}
PROMPT: dict[str, Rule] = {
    "max_entries": lambda b: 2,
    "max_bytes": lambda b: 512,
    "context_max_bytes": lambda b: 4096,
}
GATE: dict[str, Rule] = {
    "deadline_ms": lambda b: 1000,
    "deadline_env": lambda b: f"{b.env}_HOOK_DEADLINE_MS",
    "slow_ms": lambda b: 250,
    "slow_env": lambda b: f"{b.env}_HOOK_SLOW_MS",
    "failure_threshold": lambda b: 3,
    "threshold_env": lambda b: f"{b.env}_HOOK_FAILURE_THRESHOLD",
    "cooldown_ms": lambda b: 300_000,
    "cooldown_env": lambda b: f"{b.env}_HOOK_BREAKER_COOLDOWN_MS",
    "kill_grace_ms": lambda b: 200,
    "watch_poll_ms": lambda b: 250,
    "vendor_margin_ms": lambda b: 1000,
    "health_dir": lambda b: f"{b.state}/health",
    "ready_file": lambda b: "daemon.ready",
    "pid_file": lambda b: "daemon.pid",
    "heartbeat_file": lambda b: "heartbeat",
    "heartbeat_max_age_s": lambda b: 30,
    "armed_roots_file": lambda b: f"{b.state}/projects",
    "kill_switch_file": lambda b: "hooks.disabled",
    "kill_switch_env": lambda b: f"{b.env}_HOOKS",
    "kill_switch_off_value": lambda b: "0",
    "debug_switch_file": lambda b: f"{b.state}/debug",
    "debug_log": lambda b: f"{b.state}/debug.log",
    "debug_log_max_bytes": lambda b: 262_144,
    "verdict_env": lambda b: f"{b.env}_GATE_VERDICT",
    "verdict_code": lambda b: 86,
}
MESSAGES: dict[str, Rule] = {
    "halt_header": lambda b: f"{b.env} HALT",
    "coordination_header": lambda b: f"{b.env} COORDINATION",
    "sitrep_contract": lambda b: (f"{b.env} {b.keyword} CONTRACT: end every turn with a "
                                 f"{b.keyword} section holding a table with this header:"),
    "halt_block": lambda b: (f"{b.env} HALT: {{reason}}. The harness CLI and its tools are "
                             "blocked until the operator lifts the halt."),
    "halt_unread": lambda b: (f"{b.env} HALT: {{reason}}. This command cannot be read without "
                              "running it during a halt (a variable, substitution, glob or brace "
                              "in a command name, eval, or quotes left open): write it out plainly."),
    "stop_directive": lambda b: (f"{b.keyword} missing: end this turn with a {b.keyword} "
                                 "section and a table with this header:"),
    "stop_suggest": lambda b: (f"Reminder: this turn ended without a {b.keyword} table. Add "
                               "one next time, with this header:"),
    "breaker_notice": lambda b: (f"{b.env} hooks: the {{phase}} hook failed {{count}} times in a "
                                 "row and is paused for {cooldown_s} s (fail-open: nothing is "
                                 "blocked meanwhile)."),
    "breaker_notice_closed": lambda b: (f"{b.env} hooks: the fail-open {{phase}} hooks failed "
                                        "{count} times in a row and are paused for {cooldown_s} s; "
                                        "the fail-closed ones still run."),
}
PACKAGE: dict[str, Rule] = {
    "name": lambda b: b.name,
    "description": lambda b: f"The {b.name} hooks for agent CLIs",
    "marketplace": lambda b: b.name,
}
TENTACLE: dict[str, Callable[[Basis, str], str]] = {
    "name": lambda b, role: f"{b.prefix}-hook-{role.replace('_', '-')}",
    "phase": lambda b, role: f"{b.env} {role.replace('_', ' ').upper()}",
}
SECTIONS: dict[str, dict[str, Rule]] = {
    "harness": HARNESS, "matrix": MATRIX, "halt": HALT, "stop": STOP, "prompt": PROMPT,
    "gate": GATE, "messages": MESSAGES, "package": PACKAGE,
}


def symbolic(section: str, key: str) -> Any:
    """A derived default written with placeholders, for the JSON schema (`<PREFIX>_HOME`)."""
    if section == "tentacles":
        return TENTACLE[key](SYMBOLIC, "<role>")
    if section == "protect":
        return PROTECT[key](_filled({}, SYMBOLIC), SYMBOLIC)
    return SECTIONS[section][key](SYMBOLIC)


Check = Callable[[str, object], bool]


def basis(data: dict[str, Any], usable: Check) -> Basis:
    """The values the defaults derive from, read off the raw spec; one that is missing or
    would not validate (`usable` says) keeps its stand-in, so a bad harness.prefix is reported
    once, at its key, and not again at every name made from it."""
    found: dict[str, str] = {}
    for attr, (section, key) in {"name": ("harness", "name"), "prefix": ("harness", "prefix"),
                                 "state": ("harness", "state_dir"),
                                 "marker": ("matrix", "project_marker"),
                                 "keyword": ("stop", "compliance_keyword")}.items():
        table = data.get(section)
        value = table.get(key) if isinstance(table, dict) else None
        if isinstance(value, str) and usable(f"{section}.{key}", value):
            found[attr] = value
    return replace(Basis(), **found)


def _filled(data: dict[str, Any], b: Basis) -> dict[str, Any]:
    """Every section and key of SECTIONS and DIALS the spec leaves out, added (a copy)."""
    out = dict(data)
    for section, rules in SECTIONS.items():
        table = out.setdefault(section, {})
        if isinstance(table, dict):
            out[section] = {**{k: rule(b) for k, rule in rules.items() if k not in table}, **table}
    dials = out.setdefault("dials", {})
    if isinstance(dials, dict):
        out["dials"] = dict(dials)
        for dial, rules in DIALS.items():
            table = out["dials"].setdefault(dial, {})
            if isinstance(table, dict):
                out["dials"][dial] = {**{k: r(b) for k, r in rules.items() if k not in table}, **table}
    return out


def _at(data: dict[str, Any], dotted: str) -> object:
    node: object = data
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _protect_home(data: dict[str, Any], b: Basis) -> list[str]:
    """The control files (as the spec names them), the state dir and bin/, less any entry
    another one already holds."""
    paths = [_at(data, key) for key in CONTROL_FILES]
    found = [p.strip("/") for p in [*paths, b.state, GATES_DIR] if isinstance(p, str)]
    return [p for i, p in enumerate(found)
            if p not in found[:i] and not any(p.startswith(o + "/") for o in found if o != p)]


def _protect_anywhere(data: dict[str, Any], b: Basis) -> list[str]:
    lists = [_at(data, f"dials.{dial}.files") for dial in DIALS]
    files = [f for found in lists if isinstance(found, list) for f in found if isinstance(f, str)]
    return list(dict.fromkeys(files))


PROTECT: dict[str, Callable[[dict[str, Any], Basis], list[str]]] = {
    "home": _protect_home, "anywhere": _protect_anywhere,
}


def fill(data: dict[str, Any], usable: Check) -> dict[str, Any]:
    """The raw spec with every missing derived section and key added; set keys are kept."""
    b = basis(data, usable)
    out = _filled(data, b)
    if "harness" not in data:
        del out["harness"]  # left out: reported as missing once, not filled
    protect = out.setdefault("protect", {})
    if isinstance(protect, dict):
        out["protect"] = {**{k: rule(out, b) for k, rule in PROTECT.items() if k not in protect},
                          **protect}
    tentacles = out.get("tentacles")
    if isinstance(tentacles, list):
        out["tentacles"] = [_tentacle(t, b) for t in tentacles]
    return out


def _tentacle(entry: object, b: Basis) -> object:
    if not isinstance(entry, dict) or not re.fullmatch(r"[a-z_]{1,16}", str(entry.get("role"))):
        return entry  # no role, or not one a name can be made of: reported at its key
    role = entry["role"]
    return {**{k: rule(b, role) for k, rule in TENTACLE.items() if k not in entry}, **entry}
