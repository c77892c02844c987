"""The hook-shape spec (hookshape.toml): the root model, its sections (one module each, beside
this one) and the rules across them."""

from __future__ import annotations

import posixpath
import re
from operator import attrgetter
from typing import Any

from pydantic import (
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from hookshape.spec import defaults
from hookshape.spec.contract import Contract
from hookshape.spec.dials import Dials
from hookshape.spec.gate import Gate
from hookshape.spec.halt import Halt
from hookshape.spec.harness import SCRIPTS_DIR, Harness
from hookshape.spec.hooks import JOB_EVENTS, Group, Hook
from hookshape.spec.matrix import Matrix
from hookshape.spec.messages import Messages
from hookshape.spec.package import Package
from hookshape.spec.prompt import Prompt
from hookshape.spec.protect import Protect
from hookshape.spec.stop import Stop
from hookshape.spec.tentacles import Tentacle
from hookshape.spec.types import (
    AWK_LIB_NAME,
    EVENTS,
    FileName,
    Keyword,
    Prefix,
    RelPath,
    Role,
    ScriptName,
    Strict,
    Word,
)
from hookshape.spec.vendors import Vendor

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


def _section(about: str) -> Any:
    """A section that may be left out whole (its default is {}: every key defaults); Spec's
    before-validator fills it before the model sees it."""
    return Field({}, description=f"{about}; every key defaults (docs/reference.md: Defaults)")


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
    package: Package = _section("what a vendor plugin or extension of the harness says about itself")
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
        self._state_outside_scripts()
        gate_deadline, why, lower = self._longest_deadline()
        floor = gate_deadline + self.gate.vendor_margin_ms
        for vid, vendor in self.vendors.items():
            if vendor.enabled and vendor.timeout_ms < floor:
                raise ValueError(
                    f"vendors.{vid}.timeout_ms: {vendor.timeout_ms} is below {floor}, the longest "
                    f"gate deadline + gate.vendor_margin_ms ({self.gate.vendor_margin_ms}), so "
                    f"the vendor would kill the gate before its deadline fires ({why}); raise "
                    f"timeout_ms to {floor}, or lower {lower}"
                )
        return self

    def _groups_consistent(self, tentacle_names: list[str]) -> None:
        names = [h.name for h in self.hooks if h.job is None]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"hooks: duplicate name(s) {', '.join(dupes)}")
        taken = set(tentacle_names) | set(names)
        for event in self.hook_events():
            on = [h for h in self.hooks if h.event == event and h.job is None]
            for detached in (False, True):
                gated = [h for h in on if h.detached == detached]
                if len({h.registered for h in gated}) > 1:
                    which = "async " if detached else ""
                    raise ValueError(f"hooks: the {which}{event} hooks run through one gate: give "
                                     "them all the same `registered`")
            rewriters = [h.name for h in on if h.rewrite]
            if len(rewriters) > 1:
                raise ValueError(f"hooks: {', '.join(rewriters)} all rewrite the {event} input: one "
                                 "rewriter per event (the vendors apply one input)")
            if rewriters and on[-1].name != rewriters[0]:
                raise ValueError(f"hooks: the rewriter {rewriters[0]} must be the last {event} hook "
                                 "in the spec: a hook after it would judge the input as it was "
                                 "asked, not as it runs")
        for group in self.groups():
            if group.name in taken:
                raise ValueError(f"hooks: the gate of the {group.role} hooks is named "
                                 f"{group.name!r}, which a hook or tentacle already uses")
        gates = [g.name for g in self.groups()]
        clash = sorted({n for n in gates if gates.count(n) > 1})
        if clash:
            raise ValueError(f"hooks: two gates would be named {clash[0]!r}: name the vendors' own "
                             "events apart")

    def _longest_deadline(self) -> tuple[int, str, str]:
        """The longest gate deadline, where it comes from in words, and the keys that lower it."""
        longest = (self.gate.deadline_ms, f"the built-in jobs' gate.deadline_ms is "
                   f"{self.gate.deadline_ms}", "gate.deadline_ms") if self.jobs() else (0, "", "")
        for group in self.groups():
            total = self.deadline(group)
            if total > longest[0]:
                parts = ", ".join(f"{h.name} {h.deadline(self.gate)} ms" for h in group.hooks)
                keys = [f"hooks[{self.hooks.index(h)}].deadline_ms" if h.deadline_ms is not None
                        else "gate.deadline_ms" for h in group.hooks]
                longest = (total, f"the {group.role} gate runs {parts}, each with "
                                  f"gate.kill_grace_ms {self.gate.kill_grace_ms}: {total} ms",
                           " or ".join(dict.fromkeys(keys)))
        return longest

    def group_name(self, event: str, detached: bool = False) -> str:
        """The gate of an event's hooks: <harness>-<event> (a vendor's own event kebab-cased:
        acme-claude-post-compact), -async for its async hooks."""
        slug = event.replace("_", "-")
        if ":" in event:
            vendor, name = event.split(":", 1)
            slug = vendor + "-" + re.sub(r"[^a-z0-9]+", "-", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower())
        return f"{self.harness.name}-{slug.strip('-')}" + ("-async" if detached else "")

    def hook_events(self) -> list[str]:
        """The events the user hooks run on: the neutral ones in event order, then the vendors'
        own in spec order."""
        raw = [h.event for h in self.hooks if h.job is None and h.raw is not None]
        return [e for e in EVENTS if any(h.event == e and h.job is None for h in self.hooks)] + \
            list(dict.fromkeys(raw))

    def groups(self) -> list[Group]:
        """The user hooks by event, in event order (the async ones of an event in a gate of their
        own, after it); each group keeps the hooks' spec order."""
        out = []
        for event in self.hook_events():
            for detached in (False, True):
                on = tuple(h for h in self.hooks if h.event == event and h.job is None
                           and h.detached == detached)
                if on:
                    phase = event.upper().replace(":", " ") + (" ASYNC" if detached else "")
                    out.append(Group(name=self.group_name(event, detached), role=event, phase=phase,
                                     registered=on[0].registered, hooks=on, detached=detached))
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

    def daemon_warnings(self) -> list[str]:
        """A harness of user hooks alone that leaves the daemon's checks at their defaults (on):
        without a daemon that holds the lease and arms projects, its guards would not run. One
        line each, saying what to write; none once the spec says either way."""
        if not self.groups() or self.tentacles:
            return []
        said = self.gate.model_fields_set
        out = []
        if self.gate.armed_roots and "armed_roots" not in said:
            out.append("gate.armed_roots is on (the default): every gate, fail-closed hooks too, lets "
                       f"events through in a project not listed in <harness home>/{self.gate.armed_roots_file}; "
                       "without a daemon that arms projects, write armed_roots = false in [gate]")
        if self.gate.readiness and "readiness" not in said:
            out.append("gate.readiness is on (the default): while no daemon holds the readiness lease "
                       "only the fail-closed hooks run; without a daemon, write readiness = false in [gate]")
        return out

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

    def protects_vendor_configs(self) -> bool:
        """protect.vendor_configs, or by default: on when the halt is enabled or a hook fails
        closed (an agent that rewrote the vendor's config would switch either off)."""
        if self.protect.vendor_configs is not None:
            return self.protect.vendor_configs
        return self.halt.enabled or any(h.failure == "closed" for h in self.hooks)

    def _state_outside_scripts(self) -> None:
        """The state directories stay out of the scripts' directory: state there would mix with
        the files install stages and the last uninstall takes away."""
        for key in ("harness.state_dir", "gate.health_dir"):
            value = str(attrgetter(key)(self))
            path = posixpath.normpath(value)
            if path == SCRIPTS_DIR or path.startswith(SCRIPTS_DIR + "/"):
                raise ValueError(f"{key}: {value!r} lies in the scripts' directory (<home>/"
                                 f"{SCRIPTS_DIR}, where install stages the gates and tentacles): "
                                 "choose a directory of its own")

    def tentacle(self, role: Role) -> Tentacle | None:
        return next((t for t in self.jobs() if t.role == role), None)

    def enabled_vendors(self) -> list[str]:
        return sorted(v for v, cfg in self.vendors.items() if cfg.enabled)
