"""`hookshape verify`: the vendor's real CLI, found on PATH (or given), runs one scripted turn
offline against the bundled mock model, in a scratch home and project where the user's harness
is installed as `install` installs it; then, per event of the harness, what happened."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hookshape.diagnose.doctor import context
from hookshape.diagnose.findings import Finding
from hookshape.diagnose.survey import matcher
from hookshape.diagnose.vendor_checks import vendor_report
from hookshape.errors import HookshapeError
from hookshape.plan.homes import Homes
from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Profile
from hookshape.verify import probe, runner, scratch, versions
from hookshape.verify.mock.conversation import Script, ToolCall
from hookshape.verify.mock.server import MockServer
from hookshape.verify.outcome import EventResult, Turn, judge, registered

PROMPT = "Write the file, read the readme and run the command, as scripted (a hookshape verify turn)."
WRITTEN = "hookshape-verify.txt"
README = "README.md"
COMMAND = "echo hookshape-verify"
DONE = "Done: the file is written, the readme read and the command run."
TEXT_LIMIT = 6  # final answers before the mock refuses to go on (a stop hook that never lets go)


@dataclass(frozen=True)
class Options:
    binary: Path | None = None
    timeout: float = 120.0
    keep: bool = False


@dataclass
class Verified:
    profile: Profile
    binary: Path
    version: str
    proven: list[str]
    events: list[EventResult]
    turn: Turn
    seconds: float
    kept: Path | None

    @property
    def ok(self) -> bool:
        return all(e.status != "not fired" for e in self.events)


def driven(profile: Profile) -> Profile:
    """The profile, when verify can run its CLI; else a one-line error saying why not."""
    if profile.drive.cannot:
        raise HookshapeError(f"verify cannot drive {profile.vendor.display}: {profile.drive.cannot}")
    return profile


def find_binary(profile: Profile, option: Path | None, env: Mapping[str, str]) -> Path:
    """--bin, else the CLI's command on PATH; absolute."""
    name = profile.drive.binary
    if option is not None:
        if not option.is_file() or not os.access(option, os.X_OK):
            raise HookshapeError(f"--bin {option}: not an executable file")
        return option.absolute()
    found = shutil.which(name, path=env.get("PATH", os.defpath))
    if found is None:
        raise HookshapeError(f"{name} is not on PATH: install {profile.vendor.display} "
                             f"(npm install -g {profile.drive.package}) or pass --bin PATH")
    return Path(found).absolute()


def script(profile: Profile) -> Script:
    """The scripted turn: a write of a new file, a read of the project's readme (where the vendor
    has a read tool its hooks see), a harmless shell command, then the final answer."""
    calls = [ToolCall.write(WRITTEN, "written in a scripted turn\n")]
    if profile.tools.read:
        calls.append(ToolCall.read(README))
    calls.append(ToolCall.shell(COMMAND))
    return Script(calls, (DONE,), text_limit=TEXT_LIMIT)


def _findings(loaded: Loaded, profile: Profile, where: scratch.Scratch, env: Mapping[str, str]) -> list[Finding]:
    """Doctor's findings on the scratch home, for the reasons of a hook that did not fire."""
    ctx = context(loaded, Homes(where.home, where.harness(loaded)), where.work, env)
    return vendor_report(ctx, profile).findings


def run(loaded: Loaded, profile: Profile, opts: Options, env: Mapping[str, str],
        warn: Callable[[str], None]) -> Verified:
    driven(profile)
    binary = find_binary(profile, opts.binary, env)
    with scratch.scratch_dir(opts.keep) as where:
        cli = runner.Cli(profile, binary)
        version = versions.version_of(binary, profile.drive.package,
                                      runner.turn_env(cli, where.root, "http://127.0.0.1:9"), where.root)
        proven = versions.proven(profile.drive.package)
        if version not in proven:
            warn(f"{profile.vendor.display} {version or '(version unknown)'} has not been proven with "
                 f"hookshape verify (proven: {', '.join(proven) or 'none'}); running it anyway")
        scratch.prepare(loaded, profile, where)
        (where.work / README).write_text("The scratch project of a hookshape verify turn.\n")
        survey, handlers = scratch.ours(loaded, profile, where)
        if not handlers:
            raise HookshapeError(f"the harness registers no hook for {profile.vendor.display}: "
                                 "nothing to verify")
        results = registered(profile, handlers, lambda h: Path(scratch.gate_of(loaded, h) or "").name,
                             lambda h: matcher(survey, h) or "")
        harness_env = {loaded.spec.harness.home_env: str(where.harness(loaded))}
        start = time.monotonic()
        with MockServer(script(profile)) as mock:
            try:
                result = runner.run_turn(cli, PROMPT, scratch=where.root, mock=mock, env_extra=harness_env,
                                         timeout=opts.timeout)
            except OSError as exc:
                raise HookshapeError(f"{binary}: cannot run it: {exc.strerror or exc}") from None
            turn_env = runner.turn_env(cli, where.root, mock.url, harness_env)
        seconds = time.monotonic() - start
        refused = [r.reply.removeprefix("script error: ") for r in mock.requests
                   if r.reply.startswith("script error")]
        turn = Turn(profile, version, proven, result, mock.model_requests(), probe.calls(where.calls),
                    _findings(loaded, profile, where, turn_env), refused)
        judge(results, turn)
        return Verified(profile, binary, version, proven, results, turn, seconds,
                        where.root if opts.keep else None)
