"""[messages]: every text the agent sees."""

from __future__ import annotations

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import PLACEHOLDER, Strict, Text

PLACEHOLDERS: dict[str, frozenset[str]] = {
    "alert_line": frozenset({"id", "text"}),
    "pheromone_line": frozenset({"path", "note", "actor", "ts"}),
    "warn": frozenset({"path", "holder"}),
    "block": frozenset({"path", "holder"}),
    "halt_block": frozenset({"reason"}),
    "halt_unread": frozenset({"reason"}),
    "protect_block": frozenset({"path"}),
    "breaker_notice": frozenset({"phase", "count", "cooldown_s"}),
    "breaker_notice_closed": frozenset({"phase", "count", "cooldown_s"}),
    "post_note": frozenset({"tool"}),
    "answer_lost": frozenset({"phase"}),
}


class Messages(Strict):
    """Every text the agent sees; {placeholders} are checked (PLACEHOLDERS)."""

    halt_header: Text = Field(symbolic("messages", "halt_header"),
                              description="the first line of the halt notice")
    halt_body: Text = Field("The harness is halted by its operator. Do not start, stop or call "
                            "the harness CLI or its tools until the halt is lifted.",
                            description="the halt notice under its header")
    coordination_header: Text = Field(symbolic("messages", "coordination_header"),
                                      description="the header of the coordination block")
    alert_line: Text = Field("ALERT {id}: {text}", description="one alert of the block")
    pheromone_line: Text = Field("TRAIL {path} | {note} | {actor} | {ts}",
                                 description="one trail of the block")
    sitrep_header: Text = Field("| Change | Status | Next step |", description=(
        "the header of the table the stop gate asks for"))
    sitrep_contract: Text = Field(symbolic("messages", "sitrep_contract"), description=(
        "the prompt's reminder of the end-of-turn table (the header follows)"))
    warn: Text = Field("WARNING: {path} is locked by {holder}. Coordinate with {holder} before "
                       "you change it.", description="an edit of a locked file, not blocked")
    block: Text = Field("BLOCKED: {path} is locked by {holder}. Ask {holder} to release the "
                        "lock, or leave this file alone.",
                        description="an edit of a locked file, blocked")
    unchecked: Text = Field(
        "BLOCKED: this edit is too large to check against the file locks other agents hold (its "
        "event passed the size, nesting or value-count bound, or it names a path or more files "
        "than the bounds allow). Split it into smaller edits.",
        description="an edit past the bounds of the edit gate, blocked under enforce")
    halt_block: Text = Field(symbolic("messages", "halt_block"),
                             description="a call of the harness CLI or its tools under halt")
    halt_unread: Text = Field(symbolic("messages", "halt_unread"), description=(
        "a shell command under halt that cannot be read without running it"))
    protect_block: Text = Field(
        "PROTECTED: {path} is a control file of the harness. The agent may not change, move or "
        "remove it; ask the operator.", description="a change of a control file, blocked")
    stop_directive: Text = Field(symbolic("messages", "stop_directive"), description=(
        "the stop gate keeps the agent working: the table is missing (the header follows)"))
    stop_suggest: Text = Field(symbolic("messages", "stop_suggest"), description=(
        "the stop gate's reminder when it only suggests (the header follows)"))
    breaker_notice: Text = Field(symbolic("messages", "breaker_notice"), description=(
        "a gate's breaker opened after repeated failures"))
    breaker_notice_closed: Text = Field(symbolic("messages", "breaker_notice_closed"), description=(
        "the breaker of a gate of user hooks with fail-closed ones opened: the fail-open hooks "
        "are paused, the fail-closed ones still run"))
    post_note: Text = Field("mutated via {tool}", description="the trail note of an edit")
    answer_lost: Text = Field(
        "BLOCKED: {phase} decided to block this call, but its answer could not be written (no "
        "space left on the disk). Free some space, then try again.", description=(
            "a gate's own block when its job decided on a verdict whose answer could not be "
            "written (a full disk): free space never turns a verdict into an allow"))

    @model_validator(mode="after")
    def _placeholders(self) -> Messages:
        for name in type(self).model_fields:
            allowed = PLACEHOLDERS.get(name, frozenset())
            for found in PLACEHOLDER.findall(getattr(self, name)):
                if found not in allowed:
                    hint = f" (allowed: {', '.join(sorted(allowed))})" if allowed else ""
                    shown = repr(found)[1:-1]  # one line, whatever the braces hold
                    raise ValueError(f"{name}: unknown placeholder {{{shown}}}{hint}")
        return self
