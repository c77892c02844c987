"""Spec defaults: a spec of a [harness] name and prefix, its hooks and its vendors is complete;
every other section and key defaults, the names derived from the harness (defaults.py), a key
the spec sets is kept, and the default spec (every key spelled out) renders the same dist/."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hookshape.commands.schema import schema
from hookshape.spec import defaults
from hookshape.spec.load import load
from hookshape.spec.model import Spec, _usable
from test_spec import SPEC, assert_user_error, hookshape

MINIMAL = """\
[harness]
name = "acme-guard"
prefix = "acme"

[[hooks]]
name = "lint"
event = "pre_tool"
match = ["edit"]
run = "sh -c 'exit 0'"

[vendors.claude]
"""
# the minimal spec's placeholders, as the schema's defaults write them
FILLED = {"<PREFIX>": "ACME", "<prefix>": "acme", "<name>": "acme-guard", "<state_dir>": "state",
          "<project_marker>": ".acme-guard", "<compliance_keyword>": "SITREP"}


def write(tmp_path: Path, text: str, name: str = "hookshape.toml") -> Path:
    folder = tmp_path / "spec"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def spec_of(tmp_path: Path, text: str) -> Spec:
    return load(write(tmp_path, text)).spec


def test_minimal_spec_validates_and_renders(tmp_path: Path) -> None:
    """Valid, and warned only that its gates wait for a daemon (hooks alone, [gate] left out)."""
    spec = write(tmp_path, MINIMAL)
    warned = [f"hookshape: warning: {spec}: {w}" for w in load(spec).spec.daemon_warnings()]
    assert len(warned) == 2
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 0 and proc.stderr.splitlines() == warned, proc.stderr
    out = tmp_path / "out"
    proc = hookshape("render", "--spec", spec, "--out", out)
    assert proc.returncode == 0 and proc.stderr.splitlines() == warned, proc.stderr
    assert (out / "MANIFEST").is_file() and (out / "config" / "claude" / "settings.json").is_file()
    check = hookshape("render", "--spec", spec, "--out", out, "--check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_minimal_spec_with_tentacles_renders_scripts_named_from_the_harness(tmp_path: Path) -> None:
    """[[tentacles]] with only a role: the scripts are named <prefix>-hook-<role>."""
    text = MINIMAL + "".join(f'\n[[tentacles]]\nrole = "{r}"\n' for r in ("prompt", "pre_tool"))
    out = tmp_path / "out"
    proc = hookshape("render", "--spec", write(tmp_path, text), "--out", out)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.relative_to(out).as_posix() for p in (out / "bin").rglob("*") if p.is_file())
    # the built-in jobs' gates and tentacles, and the gate of the pre_tool hook, each tentacle and
    # gate of hooks with its awk program, and the awk library
    assert names == ["bin/acme-guard-pre-tool", "bin/acme-hook-pre-tool", "bin/acme-hook-prompt",
                     "bin/hooks/acme-guard-pre-tool.awk",
                     "bin/hooks/acme-hook-pre-tool", "bin/hooks/acme-hook-pre-tool.awk",
                     "bin/hooks/acme-hook-prompt", "bin/hooks/acme-hook-prompt.awk", "bin/hooks/lib.awk"]
    gate = (out / "bin" / "acme-hook-prompt").read_text(encoding="utf-8")
    assert "ACME_HOME" in gate and ".acme-guard" in gate and "PD_" not in gate


def test_derived_names(tmp_path: Path) -> None:
    """The names the defaults table of docs/reference.md documents, for name acme-guard and prefix acme."""
    spec = spec_of(tmp_path, MINIMAL)
    h, m, g, halt = spec.harness, spec.matrix, spec.gate, spec.halt
    assert (h.home_env, h.home_default, h.tentacle_dir, h.state_dir) == \
        ("ACME_HOME", "~/.acme-guard", "hooks", "state")
    assert (h.provider_env, h.actor_env, h.shell_env) == \
        ("ACME_HOOK_PROVIDER", "ACME_ACTOR", "ACME_HOOK_SHELL")
    assert (m.file_env, m.file_default, m.lock_prefix, m.alert_prefix, m.pheromone_prefix,
            m.project_marker) == ("ACME_MATRIX_FILE", "matrix.env", "ACME_LOCK_", "ACME_ALERT_",
                                  "ACME_PHEROMONE_", ".acme-guard")
    assert (spec.dials.suggestibility.env, spec.dials.sitrep.env) == \
        ("ACME_SUGGESTIBILITY", "ACME_SITREP")
    assert spec.dials.sitrep.files == [".acme-guard/sitrep.json", ".acme-guard/project.json"]
    assert (halt.sentinel_env, halt.distress_env, halt.cli, halt.mcp_servers) == \
        ("ACME_HALT_FILE", "ACME_DISTRESS_FILE", ["acme-guard"], ["acme-guard"])
    assert (g.deadline_env, g.slow_env, g.threshold_env, g.cooldown_env, g.kill_switch_env,
            g.verdict_env) == ("ACME_HOOK_DEADLINE_MS", "ACME_HOOK_SLOW_MS",
                               "ACME_HOOK_FAILURE_THRESHOLD", "ACME_HOOK_BREAKER_COOLDOWN_MS",
                               "ACME_HOOKS", "ACME_GATE_VERDICT")
    assert (g.health_dir, g.armed_roots_file, g.debug_switch_file, g.debug_log) == \
        ("state/health", "state/projects", "state/debug", "state/debug.log")
    assert spec.protect.home == ["HALT", "DISTRESS", "hooks.disabled", "daemon.ready", "daemon.pid",
                                 "heartbeat", "matrix.env", "state", "bin"]
    assert spec.protect.anywhere == [".acme-guard/suggestibility.json", ".acme-guard/project.json",
                                     ".acme-guard/sitrep.json"]
    assert spec.messages.coordination_header == "ACME COORDINATION"
    assert spec.messages.halt_block.startswith("ACME HALT: {reason}.")
    assert spec.vendors["claude"].enabled and spec.vendors["claude"].timeout_ms == 5000


def _defaults_of(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[1]]
    return {k: p["default"] for k, p in node.get("properties", {}).items() if "default" in p}


def _placed(value: Any) -> Any:
    text = json.dumps(value)
    for mark, filled in FILLED.items():
        text = text.replace(mark, filled)
    return json.loads(text)


def test_every_schema_default_is_what_a_left_out_key_gets(tmp_path: Path) -> None:
    """The schema's defaults (placeholders filled in for acme) are the values the minimal spec
    gets: the schema documents what the model does."""
    body, spec = schema(), spec_of(tmp_path, MINIMAL).model_dump()
    defs = body["$defs"]
    sections = {k: p for k, p in body["properties"].items() if "$ref" in p}
    compared = 0
    for section, prop in sections.items():
        for key, default in _defaults_of(prop, defs).items():
            assert spec[section][key] == _placed(default), f"{section}.{key}"
            compared += 1
    vendor = _defaults_of(*body["properties"]["vendors"]["patternProperties"].values(), defs)
    assert spec["vendors"]["claude"] == vendor
    assert compared > 40


def test_a_key_the_spec_sets_is_kept(tmp_path: Path) -> None:
    text = MINIMAL.replace('prefix = "acme"\n', 'prefix = "acme"\nstate_dir = "var"\n') + """
[matrix]
project_marker = ".acme"
[gate]
deadline_env = "DEADLINE"
ready_file = "run/ready"
[stop]
compliance_keyword = "REPORT"
[messages]
coordination_header = "TEAM"
"""
    spec = spec_of(tmp_path, text)
    assert spec.gate.deadline_env == "DEADLINE" and spec.gate.slow_env == "ACME_HOOK_SLOW_MS"
    assert spec.messages.coordination_header == "TEAM"
    # the defaults made of a key follow the key the spec sets
    assert spec.gate.health_dir == "var/health"
    assert spec.dials.suggestibility.files[0] == ".acme/suggestibility.json"
    assert ".acme/sitrep.json" in spec.protect.anywhere
    assert spec.protect.home == ["HALT", "DISTRESS", "hooks.disabled", "run/ready", "daemon.pid",
                                 "heartbeat", "matrix.env", "var", "bin"]
    assert spec.messages.stop_directive.startswith("REPORT missing: end this turn with a REPORT")
    # a protect list the spec sets is kept as it is (and still checked)
    home = ["bin", "state", "matrix.env", "HALT", "DISTRESS", "daemon.ready", "daemon.pid",
            "heartbeat", "hooks.disabled", "notes"]
    kept = spec_of(tmp_path, MINIMAL + f"[protect]\nhome = {json.dumps(home)}\n")
    assert kept.protect.home == home


def test_a_section_left_partly_out_is_filled(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, MINIMAL + '[dials.sitrep]\ndefault = "off"\n[vendors.codex]\n'
                                       'timeout_ms = 9000\n')
    assert spec.dials.sitrep.default == "off" and spec.dials.sitrep.env == "ACME_SITREP"
    assert spec.dials.suggestibility.env == "ACME_SUGGESTIBILITY"
    assert spec.vendors["codex"].timeout_ms == 9000 and spec.vendors["codex"].enabled


def test_the_default_spec_spells_out_every_key() -> None:
    """hookshape.toml sets every key itself, so the defaults change nothing in it (and its
    dist/ stays as it is: `render --check` writes nothing)."""
    raw = tomllib.loads(SPEC.read_text(encoding="utf-8"))
    assert defaults.fill(raw, _usable) == raw
    proc = hookshape("render", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout


@pytest.mark.parametrize(("edit", "key", "fragment"), [
    (('prefix = "acme"', 'prefix = "Acme"'), r"harness\.prefix", "must be a shell variable prefix"),
    (('prefix = "acme"\n', ""), r"harness\.prefix", "required key is missing"),
    (('name = "acme-guard"', 'name = "acme guard"'), r"harness\.name", "must be a command or file name"),
    (('prefix = "acme"\n', 'prefix = "acme"\nstate_dir = ".."\n'), r"harness\.state_dir",
     "'..' segment"),
    (("[vendors.claude]\n", "[vendors.claude]\ntimeout_ms = 1999\n"), r"vendors\.claude\.timeout_ms",
     "is below 2200"),
    (("[vendors.claude]\n", "[vendors.claude]\ntimeot_ms = 5000\n"), r"vendors\.claude\.timeot_ms",
     "did you mean 'timeout_ms'"),
], ids=["bad-prefix", "no-prefix", "bad-name", "bad-state-dir", "vendor-timeout", "vendor-typo"])
def test_an_error_in_a_short_spec_is_one_line_at_its_key(tmp_path: Path, edit: tuple[str, str],
                                                         key: str, fragment: str) -> None:
    """A bad name the defaults derive from is reported once, at its key, not again at every
    name made from it."""
    old, new = edit
    assert old in MINIMAL
    spec = write(tmp_path, MINIMAL.replace(old, new, 1))
    assert_user_error(hookshape("validate", "--spec", spec), spec, key, fragment)


def test_no_placeholder_reaches_a_spec(tmp_path: Path) -> None:
    """The schema's `<PREFIX>` forms are for reading; the model always gets real values."""
    dumped = json.dumps(spec_of(tmp_path, MINIMAL).model_dump())
    assert "<" not in dumped
