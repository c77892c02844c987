"""[vendors.<id>]: the agent CLIs to render configs for."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from hookshape.spec.types import Strict


class Vendor(Strict):
    enabled: bool = Field(True, description="render and install this vendor's config")
    timeout_ms: Annotated[int, Field(ge=100, le=3_600_000)] = Field(5000, description=(
        "the vendor's hook timeout (in its unit); at least the longest gate deadline + "
        "gate.vendor_margin_ms"))
