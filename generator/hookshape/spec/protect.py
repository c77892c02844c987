"""[protect]: the control files the agent may not change."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import RelPath, ScriptName, Strict

# commands that run the next word of their line as a command (the reader looks through them)
LAUNCHERS = ("sudo", "doas", "env", "nohup", "setsid", "command", "exec", "builtin", "nice", "ionice",
             "stdbuf", "unbuffer", "time", "timeout", "chrt", "taskset", "flock", "xargs", "npx",
             "bunx", "pnpx", "strace", "ltrace", "unshare", "chroot", "busybox", "caffeinate",
             "chronic", "firejail", "torsocks", "proxychains", "proxychains4", "catchsegv")
READERS = ("cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ls", "stat", "wc",
           "diff", "cmp", "file", "test", "md5sum", "sha1sum", "sha256sum", "jq", "echo", "printf",
           "readlink", "realpath", "du", "cd", "pushd")
# git subcommands that only read the paths they name
GIT_READERS = ("diff", "log", "show", "status", "blame", "ls-files")


class Protect(Strict):
    """Control files the agent's edit and shell tools may not change, move or remove."""

    home: Annotated[list[RelPath], Field(min_length=1)] = Field(symbolic("protect", "home"), description=(
        "under the harness home: the path, anything in it, any directory above it (default: "
        "every control file the spec names, the state dir and bin)"))
    anywhere: list[RelPath] = Field(symbolic("protect", "anywhere"), description=(
        "matched by their tail in any directory (default: the dial files)"))
    readers: list[ScriptName] = Field(list(READERS), description=(
        "commands that only read the paths they name"))
    git_readers: list[ScriptName] = Field(list(GIT_READERS), description=(
        "git subcommands that only read the paths they name (git diff, git log, ...): their "
        "operands may name a control file, unless git runs behind an assignment or a global "
        "option other than -C and --no-pager, or the operand follows --output"))
    launchers: list[ScriptName] = Field(list(LAUNCHERS), description=(
        "commands that run the command named after them (sudo, env, xargs, timeout, ...): the "
        "shell reader looks through them for the command that runs"))
    vendor_configs: bool | None = Field(None, description=(
        "the enabled vendors' hook configs (their profiles' user and project files, and the "
        "settings files beside them) are control files too; default: on when halt is enabled or "
        "a hook fails closed"))
    scan_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(16384, description=(
        "a longer command is not read: it is blocked when it holds the harness home's name, its "
        "env var or a protected name that is no plain lowercase word"))
    glob_max: Annotated[int, Field(ge=8, le=4096)] = Field(128, description=(
        "a shell command with more glob patterns than this is blocked, naming the harness home "
        "(each pattern is matched against every protected path: an unbounded count would make "
        "the check slow enough to open the gate's breaker)"))
    echo_max_bytes: Annotated[int, Field(ge=32, le=4096)] = Field(256, description=(
        "the block message shows at most this much of the path"))
