"""[gate]: deadline, breaker, switches and logs of every gate."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import Alnum, EnvName, PosInt, RelPath, Strict


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
