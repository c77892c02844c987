"""Spec validation: every user error is one located line on stderr, exit 1, no traceback, and
nothing is written.

Each bad spec is a copy of the shipped hookshape.toml with exactly one edit (made with tomlkit so
the rest of the file, comments included, stays as shipped), run through `hookshape validate` and
`hookshape render --out <dir>`.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests import clikit

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"


def hookshape(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in this process (tests.clikit), never touching the real HOME."""
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None})


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mode)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def tentacle_index(doc: Any, role: str) -> int:
    return next(i for i, t in enumerate(doc["tentacles"]) if t["role"] == role)


# --- the edits -----------------------------------------------------------------------------


def rename_key(table: str, old: str, new: str) -> Callable[[Any], None]:
    def edit(doc: Any) -> None:
        value = doc[table][old]
        del doc[table][old]
        doc[table][new] = value
    return edit


def set_key(path: str, value: Any) -> Callable[[Any], None]:
    def edit(doc: Any) -> None:
        *parents, last = path.split(".")
        node = doc
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value
    return edit


def del_key(path: str) -> Callable[[Any], None]:
    def edit(doc: Any) -> None:
        *parents, last = path.split(".")
        node = doc
        for part in parents:
            node = node[part]
        del node[last]
    return edit


def del_tentacle_role(doc: Any) -> None:
    del doc["tentacles"][0]["role"]


def add_extra_typo(doc: Any) -> None:
    """The typo next to the real key: `deadlne_ms` added, `deadline_ms` kept."""
    doc["gate"]["deadlne_ms"] = doc["gate"]["deadline_ms"]


def tentacle_typo(doc: Any) -> None:
    doc["tentacles"][tentacle_index(doc, "stop")]["registred"] = True


def vendor_timeout_too_low(doc: Any) -> None:
    floor = int(doc["gate"]["deadline_ms"]) + int(doc["gate"]["vendor_margin_ms"])
    doc["vendors"]["claude"]["timeout_ms"] = floor - 1


def duplicate_names(doc: Any) -> None:
    doc["tentacles"][tentacle_index(doc, "stop")]["name"] = \
        str(doc["tentacles"][tentacle_index(doc, "prompt")]["name"])


def duplicate_roles(doc: Any) -> None:
    doc["tentacles"][tentacle_index(doc, "stop")]["role"] = "prompt"


def bad_matcher_regex(doc: Any) -> None:
    matcher = tomlkit.inline_table()
    matcher["claude"] = "^(Edit|Write"
    doc["tentacles"][tentacle_index(doc, "pre_tool")]["matcher"] = matcher


def matcher_unknown_vendor(doc: Any) -> None:
    matcher = tomlkit.inline_table()
    matcher["nosuch"] = "^(Edit|Write)$"
    doc["tentacles"][tentacle_index(doc, "pre_tool")]["matcher"] = matcher


def dial_value_without_meaning(doc: Any) -> None:
    # default moved along so the only fault is the value the tentacles could not act on
    doc["dials"]["suggestibility"]["values"] = ["advisory", "warn", "block"]
    doc["dials"]["suggestibility"]["default"] = "block"
    doc["dials"]["suggestibility"].pop("meaning", None)


def slow_not_below_deadline(doc: Any) -> None:
    doc["gate"]["slow_ms"] = int(doc["gate"]["deadline_ms"])


def unknown_placeholder(doc: Any) -> None:
    doc["messages"]["warn"] = str(doc["messages"]["warn"]).replace("{path}", "{file}", 1)
    assert "{file}" in str(doc["messages"]["warn"])


def vendor_without_profile(doc: Any) -> None:
    table = tomlkit.table()
    table["enabled"] = True
    table["timeout_ms"] = 5000
    doc["vendors"]["zeta"] = table


@dataclass(frozen=True)
class Bad:
    id: str
    edit: Callable[[Any], None]
    key: str  # a regex for the key path printed after the file name
    fragment: str  # must appear in the message


BAD_SPECS = [
    # unknown keys: the realistic typo (the right key is gone) and a typo next to the right key
    Bad("typo-replaces-key", rename_key("gate", "deadline_ms", "deadlne_ms"),
        r"gate\.deadl(i)?ne_ms", "did you mean 'deadline_ms'"),
    Bad("typo-extra-key", add_extra_typo, r"gate\.deadlne_ms",
        "unknown key; did you mean 'deadline_ms'"),
    Bad("typo-in-tentacle", tentacle_typo, r"tentacles\[3\]\.registred", "did you mean 'registered'"),
    Bad("typo-in-vendor-table", set_key("vendors.claude.enabld", True), r"vendors\.claude\.enabld",
        "did you mean 'enabled'"),
    Bad("unknown-table", set_key("gatekeeper", {"x": 1}), r"gatekeeper", "unknown key"),
    # missing required keys
    Bad("missing-key", del_key("harness.prefix"), r"harness\.prefix", "required key is missing"),
    Bad("missing-table", del_key("harness"), r"harness", "required key is missing"),
    Bad("missing-tentacle-role", del_tentacle_role, r"tentacles\[0\]\.role", "required key is missing"),
    # wrong types (TOML has types: a string or a bool is not an integer, a string is not a bool)
    Bad("wrong-type-str-for-str", set_key("harness.name", 42), r"harness\.name", "valid string"),
    Bad("str-for-list", set_key("halt.mcp_servers", "port-daddy"), r"halt\.mcp_servers",
        '"port-daddy" must be a list: write ["port-daddy"]'),
    Bad("wrong-type-str-for-int", set_key("gate.deadline_ms", "1000"), r"gate\.deadline_ms",
        "integer"),
    Bad("wrong-type-bool-for-int", set_key("gate.deadline_ms", True), r"gate\.deadline_ms",
        "integer"),
    Bad("wrong-type-str-for-bool", set_key("tentacles.3.registered", "yes"),
        r"tentacles\[3\]\.registered", "bool"),
    Bad("wrong-type-list-for-table", set_key("vendors.claude", [1, 2]), r"vendors\.claude",
        "valid"),
    # the bounds of the edit gate (docs/default-harness.md, "Bounds of the edit gate")
    Bad("suffix-max-too-short-for-a-hash", set_key("matrix.suffix_max", 16), r"matrix\.suffix_max", "24"),
    Bad("path-max-too-small", set_key("matrix.path_max", 10), r"matrix\.path_max", "256"),
    Bad("targets-max-zero", set_key("matrix.targets_max", 0), r"matrix\.targets_max", "1"),
    Bad("holder-max-too-large", set_key("matrix.holder_max", 1 << 20), r"matrix\.holder_max", "4096"),
    Bad("reason-max-wrong-type", set_key("matrix.reason_max", "4k"), r"matrix\.reason_max", "integer"),
    # cross-field rules
    Bad("vendor-timeout-below-deadline-plus-margin", vendor_timeout_too_low,
        r"(vendors\.claude\.timeout_ms|gate\.deadline_ms)", "is below 2000"),
    Bad("duplicate-tentacle-names", duplicate_names, r"tentacles(\[\d+\]\.name)?", "duplicate name"),
    Bad("tentacle-named-like-the-awk-library", set_key("tentacles.3.name", "lib"), r"tentacles(\[\d+\]\.name)?",
        "taken by the awk library"),
    Bad("duplicate-roles", duplicate_roles, r"tentacles(\[\d+\]\.role)?", "more than one built-in job"),
    Bad("matcher-regex-does-not-compile", bad_matcher_regex,
        r"tentacles\[1\]\.matcher\.claude", "not a valid regex"),
    Bad("dial-default-not-in-values", set_key("dials.suggestibility.default", "strict"),
        r"dials\.suggestibility\.default", "'strict' is not one of"),
    Bad("dial-value-without-meaning", dial_value_without_meaning, r"dials\.suggestibility\.meaning",
        "no meaning for the value 'block'"),
    Bad("unknown-message-placeholder", unknown_placeholder, r"messages\.warn",
        "unknown placeholder {file}"),
    Bad("placeholder-holding-a-newline", set_key("messages.warn", "{path} {x\ny}"), r"messages\.warn",
        "unknown placeholder {x\\ny}"),
    Bad("slow-not-below-deadline", slow_not_below_deadline, r"gate\.slow_ms", "must be below"),
    Bad("env-name-lowercase-harness", set_key("harness.home_env", "pd_home"), r"harness\.home_env",
        "must be an environment variable name"),
    Bad("env-name-lowercase-dial", set_key("dials.sitrep.env", "PD_sitrep"), r"dials\.sitrep\.env",
        "must be an environment variable name"),
    Bad("env-name-lowercase-gate", set_key("gate.kill_switch_env", "pd_hooks"),
        r"gate\.kill_switch_env", "must be an environment variable name"),
    Bad("enabled-vendor-without-profile", vendor_without_profile, r"vendors\.zeta",
        "no vendor profile named 'zeta'"),
    Bad("matcher-for-unknown-vendor", matcher_unknown_vendor,
        r"tentacles\[1\]\.matcher\.nosuch", "no such vendor"),
    Bad("awk-prefer-not-a-command-name", set_key("harness.awk_prefer", ["mawk", "gawk --posix"]),
        r"harness\.awk_prefer(\[1\])?", "must be a command or file name"),
    Bad("awk-prefer-a-path", set_key("harness.awk_prefer", ["/usr/bin/mawk"]),
        r"harness\.awk_prefer(\[0\])?", "must be a command or file name"),
    # path keys stay inside their base directory: no `..` segment, no absolute path (state_dir
    # ".." made the prompt tentacle remove ~/halt when a halt was lifted)
    # the distress lines are one printable ASCII line each (they reach the distress file as they are)
    Bad("seen-line-two-lines", set_key("halt.seen_line", "a\nb"), r"halt\.seen_line", "printable ASCII"),
    Bad("complied-line-non-ascii", set_key("halt.complied_line", "fertig \u00e9"), r"halt\.complied_line",
        "printable ASCII"),
    Bad("state-dir-dotdot", set_key("harness.state_dir", ".."), r"harness\.state_dir", "'..' segment"),
    Bad("state-dir-dotdot-inside", set_key("harness.state_dir", "a/../../b"), r"harness\.state_dir",
        "'..' segment"),
    Bad("state-dir-dotdot-last", set_key("harness.state_dir", "squid/.."), r"harness\.state_dir",
        "'..' segment"),
    Bad("state-dir-absolute", set_key("harness.state_dir", "/tmp/squid"), r"harness\.state_dir",
        "absolute path"),
    Bad("home-default-dotdot", set_key("harness.home_default", "~/../other"), r"harness\.home_default",
        "'..' segment"),
    Bad("home-default-absolute", set_key("harness.home_default", "/etc/pd"), r"harness\.home_default",
        "absolute path"),
    Bad("matrix-file-dotdot", set_key("matrix.file_default", "../matrix.env"), r"matrix\.file_default",
        "'..' segment"),
    Bad("project-marker-dotdot", set_key("matrix.project_marker", ".."), r"matrix\.project_marker",
        "'..' segment"),
    Bad("project-marker-absolute", set_key("matrix.project_marker", "/.pd"), r"matrix\.project_marker",
        "absolute path"),
    Bad("dial-file-dotdot", set_key("dials.sitrep.files", ["agent.config.json", "../up.json"]),
        r"dials\.sitrep\.files\[1\]", "'..' segment"),
    Bad("dial-file-absolute", set_key("dials.suggestibility.files", ["/etc/pd.json"]),
        r"dials\.suggestibility\.files\[0\]", "absolute path"),
    Bad("sentinel-dotdot", set_key("halt.sentinel_default", "../HALT"), r"halt\.sentinel_default",
        "'..' segment"),
    Bad("distress-absolute", set_key("halt.distress_default", "/tmp/DISTRESS"), r"halt\.distress_default",
        "absolute path"),
    Bad("health-dir-dotdot", set_key("gate.health_dir", "health/../.."), r"gate\.health_dir",
        "'..' segment"),
    Bad("kill-switch-dotdot", set_key("gate.kill_switch_file", "../hooks.disabled"),
        r"gate\.kill_switch_file", "'..' segment"),
    Bad("debug-log-absolute", set_key("gate.debug_log", "/var/log/pd.log"), r"gate\.debug_log",
        "absolute path"),
]


def write_bad(tmp_path: Path, bad: Bad) -> Path:
    doc = tomlkit.parse(SPEC.read_text(encoding="utf-8"))
    assert doc["tentacles"][3]["role"] == "stop" and doc["tentacles"][1]["role"] == "pre_tool", \
        "the cases above address tentacles by index: update them with the spec"
    bad.edit(doc)
    path = tmp_path / "spec" / "hookshape.toml"
    path.parent.mkdir()
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return path


def assert_user_error(proc: subprocess.CompletedProcess[str], spec: Path, key: str | None,
                      fragment: str) -> None:
    err = proc.stderr
    assert proc.returncode == 1, f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {err}"
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    prefix = re.escape(f"hookshape: error: {spec}")
    pattern = prefix + (rf": {key}: " if key is not None else r"(:\d+:\d+)?: ")
    assert re.match(pattern, lines[0]), f"stderr does not start with {pattern!r}:\n{lines[0]}"
    assert fragment in lines[0], f"{fragment!r} not in:\n{lines[0]}"


def assert_nothing_written(spec: Path, tmp_path: Path, key: str | None, fragment: str) -> None:
    absent = tmp_path / "out-absent"
    proc = hookshape("render", "--spec", spec, "--out", absent)
    assert_user_error(proc, spec, key, fragment)
    assert not absent.exists(), "render wrote output for an invalid spec"
    existing = tmp_path / "out-existing"
    (existing / "bin").mkdir(parents=True)
    (existing / "bin" / "old").write_text("old\n")
    (existing / "MANIFEST").write_text("stale\n")
    before = snapshot(existing)
    proc = hookshape("render", "--spec", spec, "--out", existing)
    assert_user_error(proc, spec, key, fragment)
    assert snapshot(existing) == before, "render touched an existing --out dir for an invalid spec"
    # and nothing next to the spec either (the default --out is dist/ beside it)
    assert sorted(p.name for p in spec.parent.iterdir()) == [spec.name]


@pytest.mark.parametrize("bad", BAD_SPECS, ids=[b.id for b in BAD_SPECS])
def test_bad_spec_is_one_located_line_and_writes_nothing(bad: Bad, tmp_path: Path) -> None:
    spec = write_bad(tmp_path, bad)
    assert_user_error(hookshape("validate", "--spec", spec), spec, bad.key, bad.fragment)
    assert_nothing_written(spec, tmp_path, bad.key, bad.fragment)


def test_bad_toml_reports_file_line_col(tmp_path: Path) -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert text.count("\n[gate]\n") == 1
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    spec.write_text(text.replace("\n[gate]\n", "\n[gate\n"), encoding="utf-8")
    line = text[: text.index("\n[gate]\n") + 1].count("\n") + 1
    for proc in (hookshape("validate", "--spec", spec),):
        assert_user_error(proc, spec, None, "invalid TOML")
        assert re.match(re.escape(f"hookshape: error: {spec}:{line}:") + r"\d+: invalid TOML: ",
                        proc.stderr), proc.stderr
    assert_nothing_written(spec, tmp_path, None, "invalid TOML")


def test_spec_file_that_does_not_exist(tmp_path: Path) -> None:
    spec = tmp_path / "spec" / "nope.toml"
    spec.parent.mkdir()
    proc = hookshape("validate", "--spec", spec)
    assert_user_error(proc, spec, None, "no such spec file")
    assert proc.stderr == f"hookshape: error: {spec}: no such spec file\n"
    out = tmp_path / "out"
    proc = hookshape("render", "--spec", spec, "--out", out)
    assert_user_error(proc, spec, None, "no such spec file")
    assert not out.exists()
    assert list(spec.parent.iterdir()) == []


def test_non_utf8_spec(tmp_path: Path) -> None:
    raw = SPEC.read_bytes()
    assert raw.count(b"SECURITE HALT") >= 1
    spec = tmp_path / "spec" / "hookshape.toml"
    spec.parent.mkdir()
    # one edit: the operator's editor saved an accented word as Latin-1
    spec.write_bytes(raw.replace(b"SECURITE HALT", "SÉCURITÉ HALT".encode("latin-1"), 1))
    assert_user_error(hookshape("validate", "--spec", spec), spec, None, "not UTF-8")
    assert_nothing_written(spec, tmp_path, None, "not UTF-8")


def test_spec_path_is_a_directory(tmp_path: Path) -> None:
    proc = hookshape("validate", "--spec", tmp_path)
    assert proc.returncode == 1, proc
    assert "Traceback" not in proc.stderr
    assert str(tmp_path) in proc.stderr or "directory" in proc.stderr


# --- the good side of the same rules ---------------------------------------------------------


def test_shipped_spec_validates() -> None:
    proc = hookshape("validate", "--spec", SPEC)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "valid" in proc.stdout


def test_vendor_timeout_exactly_deadline_plus_margin_is_accepted(tmp_path: Path) -> None:
    def edit(doc: Any) -> None:
        floor = int(doc["gate"]["deadline_ms"]) + int(doc["gate"]["vendor_margin_ms"])
        for vendor in doc["vendors"].values():
            vendor["timeout_ms"] = floor

    spec = write_bad(tmp_path, Bad("edge", edit, "", ""))
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 0, proc.stderr


def test_disabled_vendor_needs_no_profile_and_no_margin(tmp_path: Path) -> None:
    def edit(doc: Any) -> None:
        table = tomlkit.table()
        table["enabled"] = False
        table["timeout_ms"] = 100
        doc["vendors"]["zeta"] = table

    spec = write_bad(tmp_path, Bad("disabled", edit, "", ""))
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 0, proc.stderr
    assert "zeta" not in proc.stdout


def test_spec_model_in_process() -> None:
    """The pydantic model directly: the default spec loads, roles are unique, vendors sorted."""
    from hookshape.spec.load import load
    from hookshape.spec.types import ROLES

    loaded = load(SPEC)
    spec = loaded.spec
    assert sorted(t.role for t in spec.tentacles) == sorted(ROLES)
    assert spec.enabled_vendors() == sorted(spec.enabled_vendors())
    assert [p.id for p in loaded.vendors] == spec.enabled_vendors()
    for vendor in spec.vendors.values():
        assert vendor.timeout_ms >= spec.gate.deadline_ms + spec.gate.vendor_margin_ms
    assert spec.gate.slow_ms < spec.gate.deadline_ms


# --- errors that name their fix --------------------------------------------------------------

HOOKS_ONLY = """[harness]
name = "acme"
prefix = "acme"

[[hooks]]
name = "slow"
event = "pre_tool"
deadline_ms = 4000
run = ["true"]

[[hooks]]
name = "fast"
event = "pre_tool"
run = ["true"]

[vendors.claude]
timeout_ms = 3000
"""


def test_a_vendor_timeout_below_the_hooks_deadlines_names_them(tmp_path: Path) -> None:
    """The floor comes from the longest gate: the error says which gate, which hooks and which
    keys to change."""
    spec = tmp_path / "hookshape.toml"
    spec.write_text(HOOKS_ONLY, encoding="utf-8")
    proc = hookshape("validate", "--spec", spec)
    assert_user_error(proc, spec, r"vendors\.claude\.timeout_ms", "below 6400")
    assert proc.stderr == (
        f"hookshape: error: {spec}: vendors.claude.timeout_ms: 3000 is below 6400, the longest gate "
        "deadline + gate.vendor_margin_ms (1000), so the vendor would kill the gate before its "
        "deadline fires (the pre_tool gate runs slow 4000 ms, fast 1000 ms, each with "
        "gate.kill_grace_ms 200: 5400 ms); raise timeout_ms to 6400, or lower hooks[0].deadline_ms "
        "or gate.deadline_ms\n")


def test_a_vendor_timeout_below_the_jobs_deadline_names_it(tmp_path: Path) -> None:
    spec = write_bad(tmp_path, Bad("low", vendor_timeout_too_low, "", ""))
    proc = hookshape("validate", "--spec", spec)
    assert_user_error(proc, spec, r"vendors\.claude\.timeout_ms", "the built-in jobs' "
                      "gate.deadline_ms is 1000); raise timeout_ms to 2000, or lower gate.deadline_ms")


EVENTS_SAID = ("session_start, prompt, pre_tool, post_tool, stop, subagent_stop, pre_compact, "
               "session_end, notification, permission_request, post_tool_failure, subagent_start")


@pytest.mark.parametrize(("given", "said"), [
    ("PreToolUse", "'PreToolUse' is what vendors call pre_tool (Antigravity, Claude Code, Codex CLI, "
                   "Copilot CLI, Cursor, Factory Droid, Kimi Code CLI, Qwen Code): did you mean "
                   f"'pre_tool'? the events are vendor-neutral: {EVENTS_SAID}"),
    ("BeforeAgent", "'BeforeAgent' is what vendors call prompt (Gemini CLI): did you mean 'prompt'? "
                    f"the events are vendor-neutral: {EVENTS_SAID}"),
    ("pre-tool", f"'pre-tool' is not an event: did you mean 'pre_tool'? the events are: {EVENTS_SAID}"),
    ("pretool", f"'pretool' is not an event: did you mean 'pre_tool'? the events are: {EVENTS_SAID}"),
    ("lint", f"'lint' is not an event: the events are: {EVENTS_SAID}"),
])
def test_an_event_that_is_not_ours_gets_the_near_one(given: str, said: str, tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(HOOKS_ONLY.replace('event = "pre_tool"', f'event = "{given}"', 1)
                    .replace("timeout_ms = 3000", "timeout_ms = 9000"), encoding="utf-8")
    proc = hookshape("validate", "--spec", spec)
    assert_user_error(proc, spec, r"hooks\[0\]\.event", said)
    assert proc.stderr == f"hookshape: error: {spec}: hooks[0].event: {said}\n"


RAW_NAMES = """[harness]
name = "acme"
prefix = "acme"

[gate]
readiness = false
armed_roots = false

[[hooks]]
name = "subagents"
event = "pre_tool"
match = ["Task", "Agent", "Taks", "edit", "mcp__gh__*"]
run = ["true"]

[vendors.claude]
[vendors.gemini]
[vendors.codex]
[vendors.copilot]
"""


@pytest.mark.parametrize("verb", ["validate", "render"])
def test_a_raw_tool_name_a_vendor_lacks_is_warned_about(verb: str, tmp_path: Path) -> None:
    """`Task` and `Agent` are Claude Code's tools: the other vendors' matchers would take them as
    written and never fire; a name no vendor has gets the near one. Valid all the same."""
    spec = tmp_path / "hookshape.toml"
    spec.write_text(RAW_NAMES, encoding="utf-8")
    proc = hookshape(verb, "--spec", spec)
    assert proc.returncode == 0, proc.stderr
    tail = "their matchers take it as written, so there the hook may never run"
    assert proc.stderr.splitlines() == [
        f"hookshape: warning: {spec}: hooks[0].match: 'Task': no tool of that name is known on "
        f"codex, copilot, gemini (copilot has 'task'); {tail}",
        f"hookshape: warning: {spec}: hooks[0].match: 'Agent': no tool of that name is known on "
        f"codex, copilot, gemini; {tail}",
        f"hookshape: warning: {spec}: hooks[0].match: 'Taks': no enabled vendor is known to have a "
        "tool of that name (did you mean 'Task'?); it is matched as written, so the hook may never run"]


@pytest.mark.parametrize("verb", ["validate", "render"])
def test_a_harness_of_hooks_alone_is_told_its_gates_wait_for_a_daemon(verb: str, tmp_path: Path) -> None:
    """A spec of user hooks and no built-in jobs that leaves the daemon's checks at their
    defaults: its gates would let every event through in an unarmed project and run only the
    fail-closed hooks without the lease. One warning each, saying what to write; none once the
    spec says either way."""
    spec = tmp_path / "hookshape.toml"
    spec.write_text(RAW_NAMES.replace("readiness = false\narmed_roots = false\n", "")
                    .replace('"Task", "Agent", "Taks", ', ""), encoding="utf-8")
    proc = hookshape(verb, "--spec", spec)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"hookshape: warning: {spec}: gate.armed_roots is on (the default): every gate, fail-closed "
        "hooks too, lets events through in a project not listed in <harness home>/state/projects; "
        "without a daemon that arms projects, write armed_roots = false in [gate]",
        f"hookshape: warning: {spec}: gate.readiness is on (the default): while no daemon holds the "
        "readiness lease only the fail-closed hooks run; without a daemon, write readiness = false "
        "in [gate]"]
    spec.write_text(spec.read_text().replace("[gate]\n", "[gate]\nreadiness = true\narmed_roots = true\n"))
    proc = hookshape(verb, "--spec", spec)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.parametrize("spec", [SPEC, ROOT / "examples" / "minimal.toml",
                                  ROOT / "examples" / "goal-and-audit.toml"], ids=lambda p: p.stem)
def test_the_shipped_specs_get_no_warning(spec: Path) -> None:
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
