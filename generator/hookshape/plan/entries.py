"""The hook entries a vendor config carries: one per registered tentacle, pointing at its gate."""

from __future__ import annotations

from dataclasses import dataclass

from hookshape.plan.homes import Scope
from hookshape.plan.matchers import group_matcher, matcher
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile
from hookshape.spec.types import ROLES


@dataclass(frozen=True)
class HookEntry:
    """One registered hook: the vendor event, its matcher (None for lifecycle events), the
    shell command (`PD_HOOK_PROVIDER=<vendor> "<home>/bin/<gate>"`) and the timeout in the
    vendor's own unit."""

    role: str
    event: str
    matcher: str | None
    command: str
    timeout: int
    gate: str
    detached: bool = False  # the gate of async hooks: the vendor need not wait for it


def home_reference(spec: Spec) -> str:
    """dist/ form of the harness home: `~/.port-daddy` -> `$HOME/.port-daddy`."""
    return "$HOME/" + spec.harness.home_default.removeprefix("~/")


def dq_escape(text: str) -> str:
    """Text that stays data inside double quotes of `sh -c`: \\ " ` $ escaped."""
    for special in ("\\", '"', "`", "$"):
        text = text.replace(special, "\\" + special)
    return text


def project_reference(spec: Spec, profile: Profile) -> str:
    """The folder of a project setup's scripts as the vendor's command names it: the project's
    root the way the vendor gives it (`${CLAUDE_PROJECT_DIR}`, `$(git rev-parse ...)`), then
    the spec's project_dir (`.../.hookshape/<name>`)."""
    return f"{profile.project.root}/{dq_escape(spec.harness.project_dir)}"


def gate_command(spec: Spec, profile: Profile, home: str, gate: str) -> str:
    """The configured command, double-quoted. `home` is the `$HOME/...` reference in dist/
    (expanded by the vendor's shell), a project setup's reference (the vendor expands it), or
    an absolute path when installed (escaped, so any path survives `sh -c` as data)."""
    raw = home in (home_reference(spec), project_reference(spec, profile))
    base = home if raw else dq_escape(home)
    return f'{spec.harness.provider_env}={profile.id} "{base}/bin/{dq_escape(gate)}"'


def entries(spec: Spec, profile: Profile, home: str | None = None,
            scope: Scope = "user") -> list[HookEntry]:
    """Registered hook entries for one vendor, in role order. Roles the vendor has no event for
    are left out (see CAPABILITIES). At project scope the commands run the project's scripts
    through the vendor's way of naming the project (its [project] root)."""
    if scope == "project":
        home = project_reference(spec, profile)
    base = home if home is not None else home_reference(spec)
    timeout = profile.timeout(spec.vendors[profile.id].timeout_ms)
    found = []
    for role in ROLES:
        tentacle = spec.tentacle(role)
        event = profile.events.of(role)
        if tentacle is None or not tentacle.registered or not event:
            continue
        found.append(HookEntry(role=role, event=event, matcher=matcher(spec, profile, role),
                               command=gate_command(spec, profile, base, tentacle.name),
                               timeout=timeout, gate=tentacle.name))
    for group in spec.groups():
        # a gate none of whose hooks runs on this vendor (their `vendors`, a vendor's own event)
        # is not wired there
        event = group.event_on(profile)
        if not group.registered or not event:
            continue
        found.append(HookEntry(role=group.role, event=event, matcher=group_matcher(spec, profile, group),
                               command=gate_command(spec, profile, base, group.name),
                               timeout=timeout, gate=group.name, detached=group.detached))
    return found
