"""[[tentacles]]: the built-in jobs."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import PhaseName, Role, ScriptName, Strict


class Tentacle(Strict):
    role: Role = Field(description="the built-in job (required): one tentacle per role")
    name: ScriptName = Field(symbolic("tentacles", "name"),
                             description="the script's name in bin/ (its gate) and bin/<tentacle_dir>")
    phase: PhaseName = Field(symbolic("tentacles", "phase"),
                             description="the label of its messages and breaker notices")
    registered: bool = Field(True, description=(
        "wired into the vendors' configs; false: installed (staged) but not wired"))
    matcher: dict[str, str] = Field({}, description=(
        "per vendor id: a regex of tool names replacing the profile's matcher"))

    @field_validator("matcher")
    @classmethod
    def _matchers_compile(cls, value: dict[str, str]) -> dict[str, str]:
        for vendor, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{vendor}: not a valid regex: {exc}") from exc
        return value

    closed: ClassVar[bool] = False  # a built-in job always fails open

    @model_validator(mode="after")
    def _matcher_roles(self) -> Tentacle:
        if self.matcher and self.role not in ("pre_tool", "post_tool"):
            raise ValueError(f"matcher: the {self.role} events take no matcher (only pre_tool and post_tool)")
        return self
