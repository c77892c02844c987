"""Vendor profiles: the vendors' hook contracts as data (one TOML file per vendor)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from hookshape.errors import ProfileError
from hookshape.spec import Role
from hookshape.validation import parse_toml, validate

Ident = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$", description=(
    "an identifier: letters, digits, '_' and '.', starting with a letter or '_'"))]
Dotted = Annotated[str, Field(pattern=r"^([A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*)?$", description=(
    "a dotted key path (a.b.c): each part letters, digits, '_' and '-', starting with a letter or '_'"))]
EnvVar = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description=(
    "an environment variable name: letters, digits and '_', not starting with a digit"))]
FindingCode = Annotated[str, Field(pattern=r"^([a-z][a-z0-9]*(-[a-z0-9]+)*)?$", description=(
    "a finding code: lowercase words of letters and digits joined by '-'"))]
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
    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", description=(
        "a vendor id: lowercase letters, digits, '_' and '-', starting with a letter"))]
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
    """Where the vendor reads hooks, and the settings around them that `doctor` checks. The
    fields after `runs_with` are optional: a profile that leaves one out gets no check for it."""

    format: ConfigFormat
    user_path: str
    project_path: str
    timeout_unit: Literal["s", "ms"]
    enable_switch: str = ""
    legacy_switches: list[str] = []
    runs_with: str
    # Files this vendor version also reads hooks from (`~/...` = user home, else the project).
    also_read: list[str] = []
    # Files older versions read but this one does not: entries there never fire.
    legacy_paths: list[str] = []
    # Replaced by also_read + legacy_paths; accepted (empty) so older profile copies still load.
    other_paths: list[str] = []
    # The JSON config may hold // and /* */ comments (the vendor strips them before parsing).
    json_comments: bool = False
    # A settings key that must be set when one of auth_env is in the environment (to auth_value
    # when given), e.g. Gemini: security.auth.selectedType = gemini-api-key for GEMINI_API_KEY.
    auth_key: Dotted = ""
    auth_value: str = ""
    auth_env: list[EnvVar] = []
    # Where the vendor records hooks a user reviewed and trusted, and the key that marks one
    # trusted (Codex: [hooks.state."<key>"] trusted_hash); hooks without it are skipped.
    trust_table: Dotted = ""
    trust_key: str = ""

    @field_validator("other_paths")
    @classmethod
    def _no_other_paths(cls, value: list[str]) -> list[str]:
        if value:
            raise ValueError("split into also_read (files this version also reads) and "
                             "legacy_paths (files only older versions read)")
        return value

    @model_validator(mode="after")
    def _pairs(self) -> ConfigInfo:
        if bool(self.auth_key) != bool(self.auth_env):
            missing = "auth_env" if self.auth_key else "auth_key"
            raise ValueError(f"{missing}: required with "
                             f"{'auth_key' if self.auth_key else 'auth_env'}")
        if self.auth_value and not self.auth_key:
            raise ValueError("auth_key: required with auth_value")
        if bool(self.trust_table) != bool(self.trust_key):
            missing = "trust_key" if self.trust_table else "trust_table"
            raise ValueError(f"{missing}: required with "
                             f"{'trust_table' if self.trust_table else 'trust_key'}")
        if self.json_comments and self.format == "codex-toml":
            raise ValueError("json_comments: only for a JSON config format")
        return self


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

    @model_validator(mode="after")
    def _cwd_not_from_tool_args(self) -> Payload:
        # tool arguments are written by the model: a cwd taken from them would let it move the
        # dial walk and the joins of relative targets to a directory of its choice
        args = self.tool_input
        inside = [c for c in self.cwd if args and (c == args or c.startswith(args + "."))]
        if inside:
            raise ValueError(f"cwd: {', '.join(inside)} is inside tool_input ({self.tool_input}); "
                             "take the cwd from the vendor's own fields")
        return self


class Fact(_Strict):
    topic: str
    fact: str
    source: str
    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$", description="a date: YYYY-MM or YYYY-MM-DD")]
    # When set, `doctor` shows this fact as an info finding under this code (e.g.
    # "write-before-read"): vendor behaviour worth knowing when a hook seems not to work.
    doctor: FindingCode = ""


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
