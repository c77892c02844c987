"""[dials]: the operator's dials (suggestibility, sitrep)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    Field,
    model_validator,
)

from hookshape.spec import defaults
from hookshape.spec.types import EnvName, JsonKey, RelPath, Strict, Word


class Dial(Strict):
    """An operator's dial: its value comes from its env var, else from the nearest of its JSON
    files walked up from the event's cwd, else its default. (Defaults: defaults.DIALS.)"""

    env: EnvName = Field("<PREFIX>_<DIAL>", description="the env var that sets the dial (it wins)")
    values: Annotated[list[Word], Field(min_length=2)] = Field(
        ["<the built-in words of the dial>"], description="the words the dial takes")
    default: str = Field("enforce", description="the value when neither the env var nor a file sets one")
    files: Annotated[list[RelPath], Field(min_length=1)] = Field(
        ["<project_marker>/<dial>.json", "<project_marker>/project.json"], description=(
            "JSON files looked for in the event's cwd and each directory above it, nearest first"))
    key: JsonKey = Field("<dial>", description="the file's key holding the dial")
    field: JsonKey = Field("level", description=(
        "the field of that key holding the value (`.<key>.<field>`, or `.<key>` as a bare string); "
        "sitrep: endOfTurn"))
    # the tentacles act on what a value means, never on the word (each kind of dial narrows this)
    meaning: Mapping[Word, str] = Field(default_factory=dict)
    # the built-in words and their meanings: a value the meaning table leaves out keeps its own
    BUILT_IN: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _built_in_meanings(cls, data: object) -> object:
        if not isinstance(data, dict) or not isinstance(data.get("values"), list):
            return data
        given = data.get("meaning", {})
        if not isinstance(given, dict):
            return data
        known = {v: cls.BUILT_IN[v] for v in data["values"]
                 if isinstance(v, str) and v in cls.BUILT_IN and v not in given}
        return {**data, "meaning": {**given, **known}} if known else data

    @model_validator(mode="after")
    def _default_in_values(self) -> Dial:
        if self.default not in self.values:
            raise ValueError(f"default: {self.default!r} is not one of {self.values}")
        if len(set(self.values)) != len(self.values):
            raise ValueError("values: must be unique")
        allowed = "|".join(dict.fromkeys(type(self).BUILT_IN.values()))
        for value in self.values:
            if value not in self.meaning:
                raise ValueError(f"meaning: no meaning for the value {value!r} "
                                 f"(give meaning = {{ {value} = \"{allowed}\", ... }})")
        for value in self.meaning:
            if value not in self.values:
                raise ValueError(f"meaning: {value!r} is not one of the values {self.values}")
        return self

    def meanings(self) -> list[str]:
        """The meaning of each value, in the order of the values."""
        return [self.meaning[v] for v in self.values]


class SuggestibilityDial(Dial):
    """What the pre-tool tentacle does with an edit of a file another actor has locked."""

    meaning: dict[Word, Literal["allow", "warn", "block"]] = Field({}, description=(
        "what each value means: allow (say nothing), warn (let the edit through with the warn "
        "message), block (refuse it with the block message); a value left out that is one of "
        "advisory, warn, enforce means allow, warn, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"advisory": "allow", "warn": "warn", "enforce": "block"}


class SitrepDial(Dial):
    """What the stop tentacle does with a closing message that fails the closeout check (and
    whether the prompt tentacle states the contract)."""

    meaning: dict[Word, Literal["off", "suggest", "block"]] = Field({}, description=(
        "what each value means: off (no contract at turn start, no check at stop), suggest (a "
        "reminder), block (keep the agent working once per session and TTL); a value left out "
        "that is one of off, suggest, enforce means off, suggest, block"))
    BUILT_IN: ClassVar[dict[str, str]] = {"off": "off", "suggest": "suggest", "enforce": "block"}


def _dial_default(name: str, kind: type[Dial]) -> dict[str, Any]:
    """A dial as a left-out one is filled (defaults.DIALS), with placeholders, for the schema."""
    out = {key: rule(defaults.SYMBOLIC) for key, rule in defaults.DIALS[name].items()}
    return {**out, "meaning": dict(kind.BUILT_IN)}


class Dials(Strict):
    suggestibility: SuggestibilityDial = Field(
        _dial_default("suggestibility", SuggestibilityDial), description=(  # type: ignore[assignment]
            "what the pre-tool tentacle does with an edit of a file another actor has locked"))
    sitrep: SitrepDial = Field(_dial_default("sitrep", SitrepDial), description=(  # type: ignore[assignment]
        "the end-of-turn contract: stated at turn start, checked at stop"))
