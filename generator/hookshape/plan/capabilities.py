"""What each tentacle can promise on each vendor: enforced / best-effort / observe-only /
unsupported, with the reason, derived from the spec and the vendor profiles."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Literal

from hookshape.plan import outputs
from hookshape.spec.hooks import Group
from hookshape.spec.load import Loaded
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile
from hookshape.spec.types import ROLES, Event, Role

Level = Literal["enforced", "best-effort", "observe-only", "unsupported"]


@dataclass(frozen=True)
class Cell:
    tentacle: str
    role: str
    vendor: str
    level: Level
    reason: str
    # a gate of user hooks has a cell per answer too: what each answer of a hook becomes there
    answer: str = ""

    def to_json(self) -> dict[str, str]:
        """The cell as JSON; a cell of a whole gate has no `answer` key."""
        return {k: v for k, v in asdict(self).items() if k != "answer" or v}


def _prompt(spec: Spec, p: Profile) -> tuple[Level, str]:
    how = outputs.describe(p, "context", "prompt")
    if "prompt" not in p.output.context_roles or outputs.of(p, "context").stdout is None:
        return "unsupported", "the vendor has no context channel at turn start"
    if p.payload.turn_marker:
        return "best-effort", (f"no prompt event: {p.events.prompt} fires before every model call; "
                               f"context is injected once per turn ({how})")
    return "enforced", f"{p.events.prompt}: {how} reaches the model"


def _pre_tool(spec: Spec, p: Profile) -> tuple[Level, str]:
    how = outputs.describe(p, "deny", "pre_tool")
    allow = outputs.of(p, "allow").stdout
    if allow is not None:
        how += f"; every other answer is {outputs.describe(p, 'allow', 'pre_tool')}"
    if p.output.nonzero_denies:
        how += "; any other non-zero exit denies, so the gate exits 0 whenever it fails"
    caveat = f"; {p.vendor.caveat}" if p.vendor.caveat else ""
    if p.vendor.confidence == "low":
        return "best-effort", f"{p.events.pre_tool}: {how}; contract known only from third-party probes{caveat}"
    return "enforced", f"{p.events.pre_tool}: {how}{caveat}"


def _post_tool(spec: Spec, p: Profile) -> tuple[Level, str]:
    tentacle = spec.tentacle("post_tool")
    staged = tentacle is not None and not tentacle.registered
    why = "staged, not registered by the spec" if staged else f"{p.events.post_tool} after the tool ran"
    return "observe-only", f"records a trail line per mutated file; {why}"


def _stop(spec: Spec, p: Profile) -> tuple[Level, str]:
    how = outputs.describe(p, "stop", "stop")
    if not p.payload.stop_text:
        return "observe-only", (f"{p.events.stop} carries no last assistant message to check: "
                                "the turn is never held")
    if p.output.stop_guard == "counter":
        if spec.stop.counter_mode == "observe":
            return "observe-only", ("no stop_hook_active loop guard and a low-confidence contract: "
                                    "observes only (stop.counter_mode = observe)")
        return "best-effort", (f"{p.events.stop}: {how} with a per-conversation "
                               f"counter (at most {spec.stop.counter_max_blocks} blocks)")
    cap = f"; the vendor caps consecutive blocks at {p.output.stop_cap}" if p.output.stop_cap else \
        "; the vendor has no cap, the stop_hook_active guard and the per-session marker stop loops"
    return "enforced", f"{p.events.stop}: {how} keeps the agent working once per session{cap}"


RULES = {"prompt": _prompt, "pre_tool": _pre_tool, "post_tool": _post_tool, "stop": _stop}


def cell(spec: Spec, profile: Profile, role: Role) -> Cell:
    tentacle = spec.tentacle(role)
    name = tentacle.name if tentacle else "-"
    if tentacle is None:
        return Cell(name, role, profile.id, "unsupported", "no tentacle for this role in the spec")
    if not profile.events.of(role):
        return Cell(name, role, profile.id, "unsupported", f"{profile.vendor.display} has no event for {role}")
    if not tentacle.registered and role != "post_tool":
        return Cell(name, role, profile.id, "unsupported", "staged but not registered by the spec")
    level, reason = RULES[role](spec, profile)
    return Cell(name, role, profile.id, level, reason)


BLOCKS: dict[str, outputs.Kind] = {"pre_tool": "deny", "stop": "stop", "subagent_stop": "stop",
                                   "permission_request": "refuse"}


def _group_rule(spec: Spec, p: Profile, group: Group, role: Event) -> tuple[Level, str]:
    """What the user hooks of one event can do on one vendor."""
    event = p.events.of(role)
    kind = BLOCKS.get(role)
    if role == "prompt" and outputs.resolved(p, "block", "prompt") is not None:
        kind = "block"
    if kind is not None and outputs.resolved(p, kind, role) is None:
        kind = None
    closed = [h.name for h in group.hooks if h.failure == "closed"]
    if kind is not None:
        how = f"exit 2 becomes {outputs.describe(p, kind, role)}"
        if closed:
            how += (f"; {', '.join(closed)} fail{'s' if len(closed) == 1 else ''} closed: a crash, "
                    "timeout or missing command blocks too")
        low = p.vendor.confidence == "low"
        return ("best-effort" if low else "enforced"), (
            f"{event}: {how}" + ("; contract known only from third-party probes" if low else ""))
    fails_open = (f"; {', '.join(closed)} fail{'s' if len(closed) == 1 else ''} open here: "
                  f"{event} cannot block") if closed else ""
    if role in p.output.context_roles and outputs.of(p, "context").stdout is not None:
        what = "stdout" if role in ("prompt", "session_start") else "the reason of exit 2"
        how = outputs.describe(p, "context", role)
        if role == "prompt" and p.payload.turn_marker:
            return "best-effort", (f"no prompt event: {event} fires before every model call, and so "
                                   f"do the hooks; {what} reaches the model as {how}{fails_open}")
        return "enforced", f"{event}: {what} reaches the model as {how}{fails_open}"
    return "observe-only", f"{event}: the hooks run; nothing they say reaches the model{fails_open}"


def _async_rule(p: Profile, event: str) -> tuple[Level, str]:
    """The gate of an event's async hooks."""
    key = p.config.handler.async_key
    how = (f"the vendor runs the gate in the background ({key}: true)" if key else
           "the gate answers at once and runs the hooks detached, each under its deadline")
    return "observe-only", f"{event}: async: {how}; nothing they say is waited for"


def _unwired(profile: Profile, group: Group) -> str:
    """Why a gate is not wired on this vendor."""
    if group.raw is not None:
        return f"{group.role} is {group.raw[0]}'s own event"
    if not group.runs_on(profile.id):
        return f"none of its hooks runs on {profile.id} (their `vendors`)"
    return f"{profile.vendor.display} has no {group.role} event"


def group_cell(spec: Spec, profile: Profile, group: Group) -> Cell:
    event = group.event_on(profile)
    if not event:
        return Cell(group.name, group.role, profile.id, "unsupported", _unwired(profile, group))
    if not group.registered:
        return Cell(group.name, group.role, profile.id, "unsupported", "staged but not registered by the spec")
    level: Level
    if group.detached:
        level, reason = _async_rule(profile, event)
    elif group.neutral is None:
        level, reason = "observe-only", (f"{event}: {profile.vendor.display}'s own event: the hooks "
                                         "run; nothing they say reaches the vendor")
    else:
        level, reason = _group_rule(spec, profile, group, group.neutral)
    return Cell(group.name, group.role, profile.id, level, reason)


# the answers a hook may give, per event (besides allow, which every event takes)
ANSWERS: dict[str, tuple[str, ...]] = {
    "pre_tool": ("context", "deny", "ask", "rewrite"), "stop": ("block",), "subagent_stop": ("block",),
    "prompt": ("context", "block"), "permission_request": ("grant", "refuse")}


def answer_cells(spec: Spec, profile: Profile, group: Group) -> list[Cell]:
    """One cell per answer a hook of this event may give: what it becomes on this vendor (none
    for a vendor's own event: its hooks only observe)."""
    role = group.neutral
    if role is None or not group.event_on(profile) or not group.registered:
        return []
    if group.detached:
        why = (f"{profile.events.of(role)}: async: the agent does not wait for the hooks, and what "
               "they say may be dropped")
        return [Cell(group.name, role, profile.id, "unsupported", why, answer=a)
                for a in ANSWERS.get(role, ("context",))]
    return [Cell(group.name, role, profile.id, *_answer_rule(spec, profile, role, a), answer=a)
            for a in ANSWERS.get(role, ("context",))]


# the vendor's answer that says each answer of a hook (a refusal at stop keeps the agent working)
SAID_AS: dict[str, outputs.Kind] = {"context": "context", "deny": "deny", "ask": "ask",
                                    "rewrite": "rewrite", "grant": "grant", "refuse": "refuse"}


def _answer_rule(spec: Spec, p: Profile, role: Event, answer: str) -> tuple[Level, str]:
    event = p.events.of(role)
    sure: Level = "best-effort" if p.vendor.confidence == "low" else "enforced"
    kind = SAID_AS.get(answer) or ("block" if role == "prompt" else "stop")
    if kind == "context" and role not in p.output.context_roles:
        return "unsupported", f"{event}: no channel reaches the model: a hook's context is dropped"
    if outputs.resolved(p, kind, role) is not None:
        verb = " reaches the model" if kind == "context" else ""
        return sure, f"{event}: {outputs.describe(p, kind, role)}{verb}"
    if answer == "ask":
        return "best-effort", (f"{event}: no ask: it becomes a {spec.contract.ask_fallback} "
                               "(contract.ask_fallback)")
    if answer == "rewrite":
        return "best-effort", f"{event}: no new input can be applied: the call is refused instead"
    if kind == "block":
        return "unsupported", f"{event}: a prompt cannot be refused: the reason is context where it has a channel"
    return "unsupported", f"{event}: no {answer} answer"


def table(loaded: Loaded) -> list[Cell]:
    spec = loaded.spec
    cells = [cell(spec, p, role) for role in ROLES for p in loaded.vendors if spec.tentacle(role)]
    for g in spec.groups():
        for p in loaded.vendors:
            cells += [group_cell(spec, p, g), *answer_cells(spec, p, g)]
    return cells


def to_json(cells: list[Cell]) -> str:
    return json.dumps({"capabilities": [c.to_json() for c in cells]}, indent=2) + "\n"


def to_markdown(loaded: Loaded, cells: list[Cell], header: str) -> str:
    vendors = loaded.vendors
    lines = [header, "", f"# Capabilities of the {loaded.spec.harness.name} harness", "",
             "| tentacle | " + " | ".join(p.vendor.display for p in vendors) + " |",
             "|---|" + "---|" * len(vendors)]
    by_key = {(c.tentacle, c.vendor, c.answer): c for c in cells}
    for tentacle in loaded.spec.gates():
        row = [by_key[(tentacle.name, p.id, "")].level for p in vendors]
        lines.append(f"| `{tentacle.name}` | " + " | ".join(row) + " |")
        answers = ANSWERS.get(tentacle.role, ("context",)) if isinstance(tentacle, Group) and \
            tentacle.neutral is not None else ()
        for answer in answers:
            row = [by_key[(tentacle.name, p.id, answer)].level if (tentacle.name, p.id, answer) in by_key
                   else "unsupported" for p in vendors]
            lines.append(f"| `{tentacle.name}` {answer} | " + " | ".join(row) + " |")
    lines += ["", "## Why", ""]
    for c in cells:
        what = f" ({c.answer})" if c.answer else ""
        lines.append(f"- `{c.tentacle}`{what} on {c.vendor}: **{c.level}**: {c.reason}.")
    return "\n".join(lines) + "\n"
