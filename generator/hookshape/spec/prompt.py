"""[prompt]: the coordination block and the inbox probe."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import (
    BeforeValidator,
    Field,
    field_validator,
)

from hookshape.spec.types import PLACEHOLDER, Strict

LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")
_INBOX_PATH = re.compile(r"(/[A-Za-z0-9._~/%?&=+,:@-]*)?")


def _loopback_url(value: object) -> object:
    """The inbox URL: plain http:// to a host of this machine, an optional port, a plain path."""
    if not isinstance(value, str):
        return value
    m = re.fullmatch(r"http://([^/?#]*)(.*)", value, re.DOTALL)
    if not m:
        raise ValueError(f"{value!r}: the inbox URL is http://<host>:<port>/<path> (plain HTTP)")
    host, port = m.group(1), ""
    if (hp := re.fullmatch(r"(.*):([0-9]{1,5})", host)) is not None:
        host, port = hp.groups()
    if host not in LOOPBACK_HOSTS:
        raise ValueError(f"{value!r}: the inbox is probed on this machine only: the host must be "
                         f"{', '.join(LOOPBACK_HOSTS[:-1])} or {LOOPBACK_HOSTS[-1]}")
    if port and not 1 <= int(port) <= 65535:
        raise ValueError(f"{value!r}: the port must be 1 to 65535")
    if not _INBOX_PATH.fullmatch(m.group(2)):
        raise ValueError(f"{value!r}: the path starts with '/' and holds letters, digits and "
                         "._~/%?&=+,:@- only")
    return value


class Inbox(Strict):
    """The inbox probe of the prompt tentacle: one GET to the harness daemon on this machine
    (0.1 s to connect, 0.2 s in all, with curl when it is on PATH, not under halt); only the
    integer at `field` of its JSON reply enters the context, as `line`. Any failure (no curl,
    no daemon, a timeout, another reply) and a count of 0 leave the line out."""

    url: Annotated[str, BeforeValidator(_loopback_url), Field(max_length=2048)] = Field(
        "http://127.0.0.1:9876/inbox/unread", description=(
            "http://<host>[:<port>]/<path>, host 127.0.0.1, [::1] or localhost"))
    field: Annotated[str, Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*){0,7}$",
        description="a JSON key, or up to 8 keys joined by '.'")] = Field(
        "unread", description=(
            "a JSON key (letters, digits, '_' and '-', starting with a letter or '_'), or up to 8 "
            "keys joined by '.' for a nested one: the field of the reply that holds the count"))
    line: Annotated[str, Field(pattern=r"^[^\x00-\x1f\x7f]{1,500}$",
                               description="one line of 1 to 500 characters, no control character")] = Field(
        "INBOX: {count} unread message(s) for this agent", description=(
            "one line of 1 to 500 characters, no control character: the context line, where "
            "{count} (the only placeholder) is the count"))

    @field_validator("line")
    @classmethod
    def _count_only(cls, value: str) -> str:
        for found in PLACEHOLDER.findall(value):
            if found != "count":
                raise ValueError(f"unknown placeholder {{{repr(found)[1:-1]}}} (allowed: count)")
        return value


class Prompt(Strict):
    max_entries: Annotated[int, Field(ge=0, le=50)] = Field(2, description=(
        "alerts and trails listed in the coordination block, at most"))
    max_bytes: Annotated[int, Field(ge=64, le=65536)] = Field(512, description=(
        "bytes of one listed entry, at most"))
    context_max_bytes: Annotated[int, Field(ge=256, le=65536)] = Field(4096, description=(
        "bytes of the whole turn-start context, at most"))
    inbox: Inbox | None = Field(None, description=(
        "the inbox probe: a count of unread items for the coordination block (absent: off)"))
