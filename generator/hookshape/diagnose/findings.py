"""What doctor reports: findings of one severity each, a report per vendor (and one for
the harness home), and the context every check reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hookshape.edit.managed import Owner
from hookshape.plan.homes import Homes
from hookshape.spec.load import Loaded

Severity = Literal["error", "warn", "info"]


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    fix: str = ""


@dataclass
class Report:
    """Findings about one vendor (or, with vendor "harness", about the harness home)."""

    vendor: str
    display: str
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def wired(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


@dataclass(frozen=True)
class Ctx:
    loaded: Loaded
    homes: Homes
    project: Path
    env: Mapping[str, str]
    own: Owner
    again: str = ""  # the --spec/--home/... the user gave doctor, repeated in every suggestion

    def hs(self, args: str) -> str:
        """A suggested hookshape command line, with the user's own --spec/--home."""
        return f"hookshape {args}{self.again}"
