"""Vendor profiles: every shipped profile validates and backs its facts with a source and a date;
a broken profile is reported with its file and key path, exit 1, no traceback."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from tests import clikit
from tests.shells import crossed

from hookshape.spec.profiles import Profile, builtin_dir, load_profile, load_profiles
from hookshape.spec.types import EVENTS

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
SHIPPED = sorted(builtin_dir().glob("*.toml"))
SHIPPED_IDS = [p.stem for p in SHIPPED]


def hookshape(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None})


def test_the_four_vendors_are_shipped() -> None:
    assert {"claude", "gemini", "codex", "agy"} <= set(SHIPPED_IDS)


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_shipped_profile_validates(path: Path) -> None:
    profile = load_profile(path)
    assert isinstance(profile, Profile)
    assert profile.id == path.stem
    assert profile.vendor.display.strip()
    # the roles a tentacle is registered for need an event (pre_tool is the point of the harness)
    assert profile.events.pre_tool
    # matcher roles only for events the vendor has
    for role in profile.matcher.roles:
        assert profile.events.of(role), f"{path.name}: matcher role {role} has no event"
    assert profile.tools.edit, f"{path.name}: no edit tools"
    assert "{server}" in profile.tools.mcp_format and "{tool}" in profile.tools.mcp_format
    assert profile.payload.tool_name and profile.payload.tool_input
    assert profile.payload.session and profile.payload.cwd
    for role in profile.output.context_roles:
        assert profile.events.of(role), f"{path.name}: context role {role} has no event"


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_event_names_and_tool_classes_are_consistent(path: Path) -> None:
    profile = load_profile(path)
    named = [profile.events.of(e) for e in EVENTS if profile.events.of(e)]
    assert len(named) == len(set(named)), f"{path.name}: one vendor event named for two events"
    tools = profile.tools
    assert not set(tools.read) & (set(tools.edit) | set(tools.shell)), \
        f"{path.name}: a read tool is also an edit or shell tool"
    assert len(tools.read) == len(set(tools.read))
    # an event named (or left out) beyond the four roles rests on a sourced fact
    assert any(f.topic == "events" for f in profile.facts), f"{path.name}: no events fact"


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_every_fact_has_a_source_and_a_date(path: Path) -> None:
    profile = load_profile(path)
    assert profile.facts, f"{path.name}: no facts"
    today = dt.date.today()
    for i, fact in enumerate(profile.facts):
        where = f"{path.name}: facts.{i} ({fact.topic})"
        assert fact.topic.strip(), where
        assert fact.fact.strip(), where
        assert fact.source.strip(), f"{where}: no source"
        m = re.fullmatch(r"(\d{4})-(\d{2})(?:-(\d{2}))?", fact.date)
        assert m, f"{where}: date {fact.date!r} is not YYYY-MM or YYYY-MM-DD"
        year, month, day = int(m[1]), int(m[2]), int(m[3] or 1)
        date = dt.date(year, month, day)  # raises on a month 13 or a 31st of June
        assert dt.date(2020, 1, 1) <= date <= today, f"{where}: date {fact.date} is implausible"


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_profile_raw_toml_has_no_stray_keys(path: Path) -> None:
    """Belt and braces next to extra="forbid": every table of the file is a model section."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    required = {name for name, field in Profile.model_fields.items() if field.is_required()}
    assert required <= set(data) <= set(Profile.model_fields), path.name


OPTIONAL_CONFIG = ("also_read", "legacy_paths", "json_comments", "auth_key",
                   "auth_value", "auth_env", "trust_table", "trust_key", "trust_entry", "trust_hash",
                   "trust_default_timeout", "project_trust", "project_trust_value")


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
def test_doctor_fields_are_optional(path: Path) -> None:
    """A profile without the doctor-only fields (a minimal made-up vendor) still validates, and
    gets no auth, trust, comment or extra-path checks."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key in OPTIONAL_CONFIG:
        data["config"].pop(key, None)
    for fact in data["facts"]:
        fact.pop("doctor", None)
    profile = Profile.model_validate(data)
    cfg = profile.config
    assert cfg.also_read == cfg.legacy_paths == cfg.auth_env == []
    assert not (cfg.auth_key or cfg.auth_value or cfg.trust_table or cfg.trust_key)
    assert cfg.json_comments is False
    assert all(f.doctor == "" for f in profile.facts)


def test_shipped_doctor_contracts() -> None:
    """The vendor contracts doctor checks live in the profiles, as data."""
    found = load_profiles()
    gemini, codex = found["gemini"].config, found["codex"].config
    assert (gemini.auth_key, gemini.auth_value, gemini.auth_env) == (
        "security.auth.selectedType", "gemini-api-key", ["GEMINI_API_KEY"])
    assert gemini.json_comments and not found["claude"].config.json_comments
    assert (codex.trust_table, codex.trust_key) == ("hooks.state", "trusted_hash")
    assert found["claude"].config.also_read == [".claude/settings.local.json"]
    assert found["agy"].config.legacy_paths == ["~/.gemini/antigravity-cli/hooks.json",
                                                "~/.gemini/hooks.json"]
    codes = {vid: {f.doctor for f in p.facts if f.doctor} for vid, p in found.items()}
    assert codes["claude"] == {"write-before-read", "where-hooks-run"}
    assert codes["gemini"] == {"context-escaping", "prompt-refire"}
    assert codes["codex"] == {"block-reason-suffix", "retrust-after-change"}
    # the switch that would turn a gate fail-closed, where the vendor has one
    assert found["claude"].config.fail_closed == {"onFailure": "block"}
    assert found["cursor"].config.fail_closed == {"failClosed": True}
    # the field's silent failures: trust records, event names, other vendors' files, hosts
    assert (codex.trust_entry, codex.trust_hash) == ("{file}:{event_snake}:{group}:{handler}",
                                                     "definition-sha256")
    assert codex.project_trust == "projects.{root}.trust_level"
    assert gemini.unknown_events == "skipped" and "BeforeModel" in found["gemini"].events.other
    assert found["copilot"].config.also_runs == {"claude": [".claude/settings.json",
                                                            ".claude/settings.local.json"]}
    assert found["claude"].tools.plugin_mcp_format == "mcp__plugin_{plugin}_{server}__{tool}"
    assert found["claude"].config.dedup_identical and found["kimi"].config.dedup_identical


def test_load_profiles_all_shipped() -> None:
    found = load_profiles()
    assert sorted(found) == SHIPPED_IDS


def test_validate_with_shipped_profiles_exits_0() -> None:
    proc = hookshape("validate", "--spec", SPEC, "--profiles", builtin_dir())
    assert proc.returncode == 0, proc.stderr


# --- invalid profiles -------------------------------------------------------------------------


def broken_copy(tmp_path: Path, vendor: str, old: str, new: str) -> Path:
    src = builtin_dir() / f"{vendor}.toml"
    text = src.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not once in {src.name}: update the test"
    folder = tmp_path / "profiles"
    folder.mkdir(exist_ok=True)
    path = folder / f"{vendor}.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


BROKEN = [
    # (id, vendor, old text, new text, key path regex, message fragment)
    ("unknown-key", "claude", 'display = "Claude Code"',
     'display = "Claude Code"\ncolour = "orange"',
     r"vendor\.colour", "unknown key"),
    ("unknown-key-typo", "gemini", 'sniff_priority = 30', 'sniff_priority = 30\nsnif_keys = []',
     r"vendor\.snif_keys", "did you mean 'sniff_keys'"),
    ("unknown-section", "codex", "[output]", "[output]\nbogus = 1", r"output\.bogus",
     "unknown key"),
    ("bad-enum-timeout-unit", "claude", 'timeout_unit = "s"', 'timeout_unit = "minutes"',
     r"config\.timeout_unit", "'s' or 'ms'"),
    ("bad-enum-config-syntax", "gemini", 'syntax = "json"', 'syntax = "yaml"',
     r"config\.syntax", "'json' or 'toml'"),
    ("list-without-event-key", "codex", 'layout = "groups"', 'layout = "list"',
     r"config\.handler\.event", "required with layout list"),
    ("bad-stop-guard", "codex", 'stop_guard = "stop_hook_active"', 'stop_guard = "flag"',
     r"output\.stop_guard", "stop_hook_active"),
    ("two-channels", "codex", "stderr = true", "stderr = true\ncontext = true", r"output\.warn",
     "one of stdout, stderr and context"),
    ("partial-placeholder", "claude", 'stdout = { systemMessage = "{text}" }',
     'stdout = { systemMessage = "note: {text}" }', r"output\.suggest", "a placeholder is a whole string"),
    ("bad-enum-confidence", "agy", 'confidence = "low"', 'confidence = "certain"',
     r"vendor\.confidence", "'high'"),
    ("bad-fact-date", "claude", 'date = "2026-08"\n\n[[facts]]\ntopic = "block channel"',
     'date = "August 2026"\n\n[[facts]]\ntopic = "block channel"', r"facts\[0\]\.date", "a date: YYYY-MM"),
    ("missing-fact-source", "gemini", 'source = "Gemini CLI source 0.56 nightly"\ndate = "2026-08"',
     'date = "2026-08"', r"facts\[1\]\.source", "required key is missing"),
    ("id-not-the-file-name", "agy", 'id = "agy"', 'id = "antigravity"', r"vendor\.id",
     "must match the file name"),
    ("other-paths-is-gone", "claude", 'also_read = [".claude/settings.local.json"]',
     'other_paths = [".claude/settings.local.json"]', r"config\.other_paths", "unknown key"),
    ("auth-key-without-env", "gemini", 'auth_env = ["GEMINI_API_KEY"]\n', "",
     r"config\.auth_env", "required with auth_key"),
    ("trust-table-without-key", "codex", 'trust_key = "trusted_hash"\n', "",
     r"config\.trust_key", "required with trust_table"),
    ("bad-env-name", "gemini", 'auth_env = ["GEMINI_API_KEY"]', 'auth_env = ["GEMINI API KEY"]',
     r"config\.auth_env\[0\]", "an environment variable name"),
    ("bad-doctor-code", "codex", 'doctor = "block-reason-suffix"', 'doctor = "Block Reason"',
     r"facts\[6\]\.doctor", "a finding code"),
    ("project-root-and-cannot", "claude", 'needs = ""', 'needs = ""\ncannot = "it cannot"',
     r"project", "give root, or cannot saying why"),
    ("project-root-quoted", "qwen", 'root = "${QWEN_PROJECT_DIR}"', 'root = "\\"${QWEN_PROJECT_DIR}\\""',
     r"project\.root", "inside double quotes"),
    ("project-root-without-its-shell", "factory", 'shell = ["sh", "-c"]\n', "",
     r"project\.root", "shell, source and date go with it"),
    ("root-keys-without-the-root", "codex", 'root_keys = ["description", "hooks"]',
     'root_keys = ["description"]', r"config\.root_keys", "must name the root key"),
]


# validate and render fail in the same call (spec.load with the profile dirs), before render writes
# anything: the two commands take the broken copies in turn (each still meets half of them)
@pytest.mark.parametrize(("case", "command"), crossed(BROKEN, ["validate", "render"], everywhere=True),
                         ids=lambda v: v[0] if isinstance(v, tuple) else str(v))
def test_invalid_profile_is_located(tmp_path: Path, case: tuple[str, ...], command: str) -> None:
    _, vendor, old, new, key, fragment = case
    path = broken_copy(tmp_path, vendor, old, new)
    out = tmp_path / "out"
    extra = ["--out", str(out)] if command == "render" else []
    proc = hookshape(command, "--spec", SPEC, "--profiles", path.parent, *extra)
    assert proc.returncode == 1, proc
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    pattern = re.escape(f"hookshape: error: {path}: ") + key + ": "
    assert re.match(pattern, lines[0]), f"{pattern!r} !~ {lines[0]!r}"
    assert fragment in lines[0], lines[0]
    assert not out.exists()


def test_invalid_profile_toml_syntax(tmp_path: Path) -> None:
    path = broken_copy(tmp_path, "claude", "[events]", "[events")
    line = path.read_text().splitlines().index("[events") + 1
    proc = hookshape("validate", "--spec", SPEC, "--profiles", path.parent)
    assert proc.returncode == 1
    assert re.match(re.escape(f"hookshape: error: {path}:{line}:") + r"\d+: invalid TOML",
                    proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr


def test_profiles_dir_must_exist(tmp_path: Path) -> None:
    proc = hookshape("validate", "--spec", SPEC, "--profiles", tmp_path / "nope")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "nope" in proc.stderr


def test_profile_override_same_id_wins(tmp_path: Path) -> None:
    """A later directory's profile of the same id replaces the shipped one (documented order)."""
    folder = tmp_path / "profiles"
    folder.mkdir()
    shutil.copy(builtin_dir() / "claude.toml", folder / "claude.toml")
    text = (folder / "claude.toml").read_text()
    (folder / "claude.toml").write_text(text.replace('display = "Claude Code"',
                                                     'display = "Claude Override"'))
    found = load_profiles([folder])
    assert found["claude"].vendor.display == "Claude Override"
    proc = hookshape("capabilities", "--spec", SPEC, "--profiles", folder)
    assert proc.returncode == 0, proc.stderr
    assert "Claude Override" in proc.stdout
