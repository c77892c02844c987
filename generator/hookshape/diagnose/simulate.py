"""`hookshape simulate`: run one rendered tentacle (or its gate) on a payload, as the vendor
would (PROVIDER_ENV=<vendor>, the event on stdin), and say what the vendor does with it."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from hookshape.diagnose.events import example_path
from hookshape.diagnose.scratch import harness_dir, prepare, rendered
from hookshape.diagnose.verdict import Run, as_object, verdict
from hookshape.errors import HookshapeError
from hookshape.plan.homes import harness_home, user_home
from hookshape.spec.hooks import Group
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile
from hookshape.spec.tentacles import Tentacle
from hookshape.spec.types import EVENTS, Event


@dataclass(frozen=True)
class Target:
    loaded: Loaded
    profile: Profile
    tentacle: Tentacle | Group
    gate: bool

    @property
    def rel(self) -> str:
        """The script run: the gate, or a built-in job's tentacle (the gate of user hooks runs
        them itself: it is the script either way)."""
        sub = self.loaded.spec.harness.tentacle_dir
        name = self.tentacle.name
        return f"bin/{name}" if self.gate or isinstance(self.tentacle, Group) else f"bin/{sub}/{name}"


def gates_said(loaded: Loaded) -> str:
    """The spec's gates as `event (gate name)`, for an error that lists what exists."""
    return ", ".join(f"{g.role} ({g.name})" for g in loaded.spec.gates())


def find_tentacle(loaded: Loaded, name: str) -> Tentacle | Group:
    """A gate of the spec by its name, or by its event (`pre_tool`, `pre-tool`) when the spec
    has one gate on it; an error lists the gates the spec has."""
    gates = loaded.spec.gates()
    for gate in gates:
        if name == gate.name:
            return gate
    event = name.replace("-", "_")
    on = [g for g in gates if g.role == event]
    if len(on) == 1:
        return on[0]
    if on:
        raise HookshapeError(f"the {event} event has {len(on)} gates in {loaded.spec_path}: "
                             f"{', '.join(g.name for g in on)}; name one")
    what = f"no hook or tentacle on {event}" if event in EVENTS else f"no gate or event {name!r}"
    raise HookshapeError(f"{what} in {loaded.spec_path} (its gates: {gates_said(loaded)})")


def example(profile: Profile, event: Event) -> tuple[bytes, str]:
    if not profile.events.of(event):
        have = ", ".join(e for e in EVENTS if profile.events.of(e))
        raise HookshapeError(f"{profile.vendor.display} has no {event} event, so it never runs "
                             f"these hooks (its events: {have}); pass --payload FILE to run "
                             "them anyway")
    found = example_path(profile.id, event)
    if not found.is_file():
        raise HookshapeError(f"no built-in {event} example for {profile.id}; pass --payload FILE")
    return found.read_bytes(), f"built-in example {profile.id}/{event}.json"


def payload(source: str | None, profile: Profile, role: Event) -> tuple[bytes, str]:
    if source is None:
        return example(profile, role)
    if source == "-":
        return sys.stdin.buffer.read(), "stdin"
    try:
        return Path(source).read_bytes(), source
    except OSError as exc:
        raise HookshapeError(f"{source}: cannot read: {exc.strerror or exc}") from None


def payload_warnings(profile: Profile, role: Event, data: bytes) -> list[str]:
    """Why this payload is not one the vendor would send to this tentacle: not JSON, not an
    object, or (where the profile names the payload's event field) another event."""
    display = profile.vendor.display
    try:
        value = json.loads(data)
    except ValueError:
        return [f"the payload is not JSON: {display} never sends that; the verdict shows only "
                "how the script treats garbage"]
    if not isinstance(value, dict):
        return [f"the payload is JSON but not an object: {display} always sends an object"]
    want, field = profile.events.of(role), profile.payload.event
    if not want or not field:
        return []
    node: Any = value
    for key in field.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    if node == want:
        return []
    got = "no " + field if node is None else f"{field} {json.dumps(node)}"
    return [f"the payload has {got}, but {display} sends {field} {json.dumps(want)} to the "
            f"{role} tentacle: the verdict is for an event this tentacle never gets"]


def observed(profile: Profile) -> str:
    """The verdict on a vendor's own event: its hooks only observe."""
    return (f"nothing happens: the hooks of a vendor's own event only observe; {profile.vendor.display} "
            "goes on as it would without them")



@contextmanager
def home_for(loaded: Loaded, option: Path | None,
             env: Mapping[str, str]) -> Iterator[tuple[Path, str]]:
    """(user home, how to describe it): --home/$HOOKSHAPE_HOME, else a prepared scratch home."""
    if option is not None or env.get("HOOKSHAPE_HOME"):
        home = user_home(option, env)
        yield home, f"{home}"
        return
    with tempfile.TemporaryDirectory(prefix="hookshape-home-") as tmp:
        home = Path(tmp)
        prepare(loaded, harness_dir(loaded, home))
        yield home, f"{home} (scratch: lease held, armed; --home uses a real one)"


def environment(loaded: Loaded, profile: Profile, home: Path, base: Mapping[str, str],
                scratch: bool) -> dict[str, str]:
    env = dict(base)
    harness = loaded.spec.harness
    env["HOME"] = str(home)
    env[harness.provider_env] = profile.id
    env[harness.home_env] = str(harness_dir(loaded, home)) if scratch \
        else str(harness_home(loaded.spec, home, base))
    return env


def execute(script: Path, shell: str | None, data: bytes, env: dict[str, str],
            timeout_s: float) -> Run:
    argv = [shell, str(script)] if shell else [str(script)]
    try:
        done = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=timeout_s,
                              check=False)
    except FileNotFoundError as exc:
        raise HookshapeError(f"{exc.filename}: not found") from None
    except subprocess.TimeoutExpired:
        raise HookshapeError(f"{script}: still running after {timeout_s:g} s") from None
    return Run(done.returncode, done.stdout.decode("utf-8", "replace"),
               done.stderr.decode("utf-8", "replace"))


def block(label: str, text: str) -> list[str]:
    if not text:
        return [f"{label}: (empty)"]
    lines = text.rstrip("\n").split("\n")
    return [f"{label}: {lines[0]}"] + [f"{' ' * len(label)}  {line}" for line in lines[1:]]


@dataclass(frozen=True)
class Options:
    payload: str | None
    shell: str | None
    home: Path | None


def simulate(target: Target, opts: Options, base: Mapping[str, str],
             warn: Callable[[str], None] = lambda _: None) -> list[str]:
    raw = isinstance(target.tentacle, Group) and target.tentacle.raw is not None
    if raw and opts.payload is None:
        raise HookshapeError(f"{target.tentacle.role} is a vendor's own event: there is no built-in "
                             "example of it; pass --payload FILE")
    role = cast(Event, target.tentacle.role)
    data, origin = payload(opts.payload, target.profile, role)
    for problem in [] if raw else payload_warnings(target.profile, role, data):
        warn(problem)
    timeout_s = max(10.0, 3 * target.loaded.spec.deadline(target.tentacle) / 1000)
    scratch = opts.home is None and not base.get("HOOKSHAPE_HOME")
    with home_for(target.loaded, opts.home, base) as (home, described), \
            rendered(target.loaded) as tree:
        script = tree / target.rel
        env = environment(target.loaded, target.profile, home, base, scratch)
        run = execute(script, opts.shell, data, env, timeout_s)
        name = target.tentacle.event_on(target.profile) if isinstance(target.tentacle, Group) else \
            target.profile.events.of(role)
        lines = [f"vendor: {target.profile.id} ({target.profile.vendor.display}), event "
                 f"{name or '(none)'}",
                 f"script: {target.rel} ({'gate' if target.gate else 'tentacle'} "
                 f"{target.tentacle.name}), rendered from the spec in memory",
                 f"payload: {origin}", f"home: {described}"]
    lines += [f"exit code: {run.code}", *block("stdout", run.stdout), *block("stderr", run.stderr),
              f"verdict: {observed(target.profile) if raw else verdict(target.profile, role, as_object(data), run)}"]
    return lines
