"""Vendor profiles: the vendors' hook contracts as data (one TOML file per vendor)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hookshape.errors import ProfileError
from hookshape.spec import Role
from hookshape.validation import parse_toml, validate

Ident = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")]
ContextDialect = Literal["hso", "inject-steps", "none"]
ToolBlock = Literal["hso-deny", "decision-deny", "decision-deny-agy", "exit2-stderr"]
ToolWarn = Literal["context", "stderr", "none"]
StopBlock = Literal["decision-block", "decision-deny", "decision-continue", "exit2-stderr"]
StopSuggest = Literal["system-message", "stderr", "none"]
MatcherSyntax = Literal["exact-list-or-regex", "regex", "exact"]
ConfigFormat = Literal["hooks-json", "codex-toml", "agy-json"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class VendorInfo(_Strict):
    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    display: str
    confidence: Literal["high", "medium", "low"]
    sniff_keys: list[Ident]
    sniff_priority: int
    caveat: str = ""  # a condition hooks need on this vendor, shown in CAPABILITIES and doctor


class Events(_Strict):
    prompt: str = ""
    pre_tool: str = ""
    post_tool: str = ""
    stop: str = ""

    def of(self, role: Role) -> str:
        return str(getattr(self, role))


class Matcher(_Strict):
    syntax: MatcherSyntax
    roles: list[Role]


class Tools(_Strict):
    edit: list[str]
    shell: list[str]
    mcp_format: str


class ConfigInfo(_Strict):
    format: ConfigFormat
    user_path: str
    project_path: str
    other_paths: list[str] = []
    timeout_unit: Literal["s", "ms"]
    enable_switch: str = ""
    legacy_switches: list[str] = []
    runs_with: str


class Dialect(_Strict):
    context: ContextDialect
    context_roles: list[Role]
    tool_block: ToolBlock
    tool_warn: ToolWarn
    stop_block: StopBlock
    stop_suggest: StopSuggest
    stop_guard: Literal["stop_hook_active", "counter"]
    stop_cap: int


class Payload(_Strict):
    case: Literal["snake", "camel"]
    session: list[str]
    cwd: list[str]
    event: str
    tool_name: str
    tool_input: str
    path_fields: list[str]
    command_field: str
    patch_field: str
    stop_active: str
    stop_text: list[str]
    turn_marker: str = ""


class Fact(_Strict):
    topic: str
    fact: str
    source: str
    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$")]


class Profile(_Strict):
    vendor: VendorInfo
    events: Events
    matcher: Matcher
    tools: Tools
    config: ConfigInfo
    dialect: Dialect
    payload: Payload
    facts: Annotated[list[Fact], Field(min_length=1)]

    @property
    def id(self) -> str:
        return self.vendor.id

    def timeout(self, timeout_ms: int) -> int:
        """A spec timeout (ms) in the vendor's unit, rounded up."""
        return timeout_ms if self.config.timeout_unit == "ms" else -(-timeout_ms // 1000)


def builtin_dir() -> Path:
    return Path(str(resources.files("hookshape") / "vendors"))


def load_profile(path: Path) -> Profile:
    data = parse_toml(path, ProfileError)
    profile: Profile = validate(path, Profile, data, ProfileError)
    if profile.id != path.stem:
        raise ProfileError(f"{path}: vendor.id: {profile.id!r} must match the file name {path.stem!r}")
    return profile


def load_profiles(extra_dirs: list[Path] | None = None) -> dict[str, Profile]:
    """Built-in profiles, then any extra directories (a later file of the same id wins)."""
    found: dict[str, Profile] = {}
    for folder in [builtin_dir(), *(extra_dirs or [])]:
        for path in sorted(folder.glob("*.toml")):
            profile = load_profile(path)
            found[profile.id] = profile
    return found
