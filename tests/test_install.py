"""hookshape install / uninstall in scratch homes holding realistic vendor configs: merge
without clobbering, idempotence, exact reversal, dry run, refusal of malformed files, moved
homes, edited entries, races, project scope, --from a dist copy, and the staged tree."""

from __future__ import annotations

import getpass
import json
import os
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import testinfra
from tests.installkit import (
    FIXTURES,
    HARNESS,
    KRAKEN,
    PROVIDER,
    SCRUB,
    SEEDS,
    SETTINGS,
    SPEC,
    changes,
    fixture_text,
    hs,
    install,
    kill_points,
    lines_kept,
    loaded,
    ours,
    parse,
    proc,
    restore,
    seed,
    settings_text,
    snapshot,
    spec_variant,
    uninstall,
    unwritable,
    with_spec,
    without_ours,
)
from tests.killpoint import runs
from tests.shells import FAST

from hookshape.edit import jsonedit as je
from hookshape.edit.managed import commands
from hookshape.errors import HookshapeError
from hookshape.install import fsops
from hookshape.install import lock as locks
from hookshape.plan.artifacts import script_artifacts
from hookshape.spec.profiles import builtin_dir

pytest_plugins = ["tests.installkit"]  # fixtures: home

VENDORS = tuple(SEEDS)
GATES = {"pd-hook-prompt", "pd-hook-pre-tool", "pd-hook-stop"}
COMMAND = re.compile(rf'^{PROVIDER}=(\w+) "(/[^"]+)/bin/([a-z-]+)"$')


# --- merge -------------------------------------------------------------------------------


def test_install_merges_entries_with_absolute_quoted_paths(home: Path) -> None:
    result = install(home)
    assert result.code == 0, result.err
    harness = home / HARNESS
    for vendor, (_, rel) in SEEDS.items():
        found = ours(home / rel)
        assert len(found) == 3, (vendor, found)
        for command in found:
            match = COMMAND.match(command)
            assert match, command
            assert match.group(1) == vendor
            assert match.group(2) == str(harness)
            assert match.group(3) in GATES
            words = shlex.split(command)
            assert words[0] == f"{PROVIDER}={vendor}"
            assert Path(words[1]).is_absolute() and os.access(words[1], os.X_OK)


@pytest.mark.parametrize("vendor", ["claude", "gemini", "codex", "agy"])
def test_json_configs_keep_everything_outside_our_entries(home: Path, vendor: str) -> None:
    assert install(home).code == 0
    installed = (home / SEEDS[vendor][1]).read_text(encoding="utf-8")
    assert lines_kept(fixture_text(vendor), installed)
    assert without_ours(json.loads(installed)) == json.loads(fixture_text(vendor))
    assert list(json.loads(installed))[:len(json.loads(fixture_text(vendor)))] == \
        list(json.loads(fixture_text(vendor)))


def test_json_unicode_escapes_and_indentation_survive(home: Path) -> None:
    assert install(home).code == 0
    claude = (home / ".claude/settings.json").read_text(encoding="utf-8")
    assert '"GREETING": "h\\u00e9llo \\u2014 caf\\u00e9"' in claude
    gemini = (home / ".gemini/settings.json").read_text(encoding="utf-8")
    assert '\n        "BeforeAgent": [\n            {\n' in gemini  # the file's 4-space style


def test_codex_entries_go_to_hooks_json_and_its_config_stays(home: Path) -> None:
    """Codex's entries go to hooks.json (a shape error there loses that file's hooks; one in
    config.toml stops codex): the user's description and hooks kept, no other top-level key,
    and config.toml (its switch already on, the user's inline hooks) not touched."""
    assert install(home).code == 0
    data = parse(home / ".codex/hooks.json")
    assert list(data) == ["description", "hooks"]
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "/usr/local/bin/bash-guard --json"
    assert len(ours(home / ".codex/hooks.json")) == 3
    assert (home / ".codex/config.toml").read_text() == settings_text("codex")


def test_agy_keeps_other_named_hooks_and_flat_lifecycle_handlers(home: Path) -> None:
    assert install(home).code == 0
    data = parse(home / ".gemini/config/hooks.json")
    assert list(data) == ["lint-guard", "giant-squid"]
    ours_tree = data["giant-squid"]
    assert "hooks" not in ours_tree["Stop"][0]  # a flat handler: a group there never fires
    assert "matcher" in ours_tree["PreToolUse"][0]


# --- idempotence and reversal ------------------------------------------------------------


def test_install_twice_is_byte_identical(home: Path) -> None:
    assert install(home).code == 0
    once = snapshot(home)
    again = install(home)
    assert again.code == 0
    assert snapshot(home) == once
    assert "unchanged" in again.out


def test_uninstall_restores_every_byte(home: Path) -> None:
    before = snapshot(home)
    assert install(home).code == 0
    assert snapshot(home) != before
    result = uninstall(home)
    assert result.code == 0, result.out + result.err
    assert snapshot(home) == before


def test_fresh_home_install_uninstall_leaves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    assert install(home).code == 0
    assert (home / ".claude/settings.json").is_file()
    assert json.loads((home / ".claude/settings.json").read_text())["hooks"]
    assert uninstall(home).code == 0
    assert snapshot(home) == {}


def test_uninstall_after_user_edits_is_surgical(home: Path) -> None:
    assert install(home).code == 0
    claude = home / ".claude/settings.json"
    claude.write_text(claude.read_text().replace('"theme": "dark"', '"theme": "light"'))
    codex = home / ".codex/hooks.json"
    codex.write_text(codex.read_text().replace("Team hooks", "Our hooks"))
    gemini = home / ".gemini/settings.json"
    gemini.write_text(gemini.read_text().replace('"vimMode": true', '"vimMode": false'))
    assert uninstall(home).code == 0
    light = fixture_text("claude").replace('"theme": "dark"', '"theme": "light"')
    assert claude.read_text() == light
    assert codex.read_text() == fixture_text("codex").replace("Team hooks", "Our hooks")
    no_vim = fixture_text("gemini").replace('"vimMode": true', '"vimMode": false')
    assert gemini.read_text() == no_vim
    assert not (home / HARNESS).exists()


def test_uninstall_one_vendor_keeps_the_rest(home: Path) -> None:
    assert install(home).code == 0
    assert uninstall(home, "--vendor", "claude").code == 0
    assert (home / ".claude/settings.json").read_text() == fixture_text("claude")
    assert len(ours(home / ".codex/hooks.json")) == 3
    assert (home / HARNESS / "bin/pd-hook-stop").is_file()
    assert uninstall(home).code == 0
    assert not (home / HARNESS).exists()


def test_uninstall_without_ledger_is_an_error(home: Path) -> None:
    result = uninstall(home)
    assert result.code == 1
    assert "no hookshape ledger" in result.err


def test_symlinked_config_stays_a_symlink(home: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude.json"
    (home / ".claude/settings.json").rename(real)
    (home / ".claude/settings.json").symlink_to(real)
    assert install(home, "--vendor", "claude").code == 0
    assert (home / ".claude/settings.json").is_symlink()
    assert len(ours(real)) == 3
    assert uninstall(home).code == 0
    assert real.read_text() == fixture_text("claude")


def test_home_from_the_environment(tmp_path: Path) -> None:
    home = tmp_path / "envhome"
    home.mkdir()
    seed(home, ("claude",))
    result = hs("install", "--spec", str(SPEC), "--vendor", "claude",
                env={"HOOKSHAPE_HOME": str(home)})
    assert result.code == 0, result.err
    assert len(ours(home / ".claude/settings.json")) == 3


# A switch set to false turns off every hook of the file, the user's own too: install says so
# and turns it on only with --force; uninstall turns it off again.
# (Codex keeps its switch in config.toml beside the hooks.json install writes: it covers every
# hook of Codex; Gemini's is in the settings file that holds the hooks.)
SWITCHES = {"codex": ("hooks = true", "hooks = false", "features.hooks", "updated",
                      "every hook of Codex CLI"),
            "gemini": ('"enabled": true', '"enabled": false', "hooksConfig.enabled",
                       "hook entries merged", "every hook in this file")}


@pytest.mark.parametrize("vendor", sorted(SWITCHES))
def test_a_switched_off_config_is_turned_on_only_when_forced(home: Path, vendor: str) -> None:
    on, off, key, did, every = SWITCHES[vendor]
    fixture, rel = (SETTINGS if vendor in SETTINGS else SEEDS)[vendor]
    config = home / rel
    config.write_text((FIXTURES / fixture).read_text().replace(on, off, 1))
    before = snapshot(home)
    refused = install(home)
    assert refused.code == 1
    assert (f"conflict: {config}: {key} is false, which switches off {every}, "
            "yours too; pass --force to turn it on (your own hooks there then run again as "
            "well)\n") in refused.out
    assert refused.out.endswith("nothing was written; --force goes ahead (edited entries "
                                "replaced or removed, switched-off hooks turned on)\n")
    assert snapshot(home) == before
    forced = install(home, "--force")
    assert forced.code == 0, forced.err
    assert (f"{vendor}: {config}: {did}; turned on {key} (it was false: {every} runs again, "
            "yours too)\n") in forced.out
    assert on in config.read_text()
    assert uninstall(home).code == 0
    assert snapshot(home) == before


def test_legacy_switches_are_turned_on_and_back_off(tmp_path: Path) -> None:
    home = tmp_path / "legacy"
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir(parents=True)
    text = '{\n  "tools": {"enableHooks": false},\n  "hooks": {\n    "enabled": false\n  }\n}\n'
    settings.write_text(text)
    codex = home / ".codex/config.toml"
    codex.parent.mkdir()
    codex.write_text("[features]\ncodex_hooks = false # old name\n")
    assert install(home, "--vendor", "gemini", "--vendor", "codex").code == 1
    assert install(home, "--vendor", "gemini", "--vendor", "codex", "--force").code == 0
    data = json.loads(settings.read_text())
    assert data["tools"]["enableHooks"] is True and data["hooks"]["enabled"] is True
    assert len(data["hooks"]["BeforeAgent"]) == 1
    assert "codex_hooks = true # old name" in codex.read_text()
    settings.write_text(settings.read_text() + "\n")  # a user edit: uninstall goes surgical
    assert uninstall(home).code == 0
    assert settings.read_text() == text + "\n"
    assert codex.read_text() == "[features]\ncodex_hooks = false # old name\n"


# --- dry run and refusals ----------------------------------------------------------------


def test_dry_run_writes_nothing(home: Path) -> None:
    before = snapshot(home)
    result = install(home, "--dry-run")
    assert result.code == 0
    assert snapshot(home) == before
    assert f"+++ b{home}/.claude/settings.json" in result.out
    assert "would stage" in result.out and "pd-hook-pre-tool" in result.out
    assert "+# >>> hookshape giant-squid hooks" in result.out


def test_uninstall_dry_run_writes_nothing(home: Path) -> None:
    assert install(home).code == 0
    before = snapshot(home)
    result = uninstall(home, "--dry-run")
    assert result.code == 0
    assert snapshot(home) == before
    assert "would remove" in result.out


def test_malformed_json_is_refused_with_its_line(home: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.write_text('{\n  "theme": "dark",\n  "model": "opus"\n  "env": {}\n}\n')
    before = snapshot(home)
    result = install(home)
    assert result.code == 1
    assert f"{settings}:4:3: invalid JSON" in result.err
    assert snapshot(home) == before


def test_malformed_toml_is_refused_with_its_line(home: Path) -> None:
    config = home / ".codex/config.toml"
    config.write_text('model = "gpt-5.5"\n[features\nhooks = true\n')
    before = snapshot(home)
    result = install(home)
    assert result.code == 1
    assert re.search(rf"{re.escape(str(config))}:2:\d+: invalid TOML", result.err), result.err
    assert snapshot(home) == before


def test_toml_the_block_would_break_is_refused(home: Path) -> None:
    config = home / ".kimi-code/config.toml"
    config.parent.mkdir()
    config.write_text("hooks = []\n")
    before = snapshot(home)
    result = install(home, "--vendor", "kimi")
    assert result.code == 1
    assert "once the hookshape block is added" in result.err
    assert snapshot(home) == before


# --- homes, edits, races -----------------------------------------------------------------


def test_moved_harness_home_replaces_entries(home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "pd-one", tmp_path / "pd-two"
    assert install(home, env={"PD_HOME": str(first)}).code == 0
    assert install(home, env={"PD_HOME": str(second)}).code == 0
    for _, rel in SEEDS.values():
        found = ours(home / rel)
        assert len(found) == 3
        assert all(f'"{second}/bin/' in c for c in found), found


def test_edited_entry_is_reported_and_kept_unless_forced(home: Path) -> None:
    assert install(home).code == 0
    settings = home / ".claude/settings.json"
    edited = settings.read_text().replace('"timeout": 5', '"timeout": 7', 1)
    settings.write_text(edited)
    result = install(home)
    assert result.code == 1
    assert "was edited since the last install" in result.out
    assert settings.read_text() == edited
    forced = install(home, "--force")
    assert forced.code == 0
    assert '"timeout": 7' not in settings.read_text()
    assert len(ours(settings)) == 3


# Codex as installs before hooks.json wrote it: a marked block of [[hooks.<Event>]] tables in
# config.toml (the profile's [config] of then).
OLD_CODEX_CONFIG = """[config]
syntax = "toml"
layout = "groups"
strict = true
user_path = "~/.codex/config.toml"
project_path = ".codex/config.toml"
timeout_unit = "s"
enable_switch = "features.hooks"
legacy_switches = ["features.codex_hooks"]
trust_table = "hooks.state"
trust_key = "trusted_hash"
trust_entry = "{file}:{event_snake}:{group}:{handler}"
trust_hash = "definition-sha256"
trust_default_timeout = 600
project_trust = "projects.{root}.trust_level"
project_trust_value = "trusted"

"""


def older_codex(folder: Path) -> Path:
    """A profiles folder whose Codex profile is the one of installs before hooks.json."""
    text = (builtin_dir() / "codex.toml").read_text(encoding="utf-8")
    start, end = text.index("[config]\n"), text.index("[output]\n")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "codex.toml").write_text(text[:start] + OLD_CODEX_CONFIG + text[end:])
    return folder


def test_an_older_install_in_config_toml_moves_to_hooks_json(home: Path, tmp_path: Path) -> None:
    """A harness an older install put in config.toml moves to hooks.json on the next install
    (Codex would run both): the user's own inline hooks stay; uninstall then gives both files
    back as they were before the first install."""
    before = snapshot(home)
    config, hooks = home / ".codex/config.toml", home / ".codex/hooks.json"
    assert install(home, "--vendor", "codex", "--profiles", str(older_codex(tmp_path / "p"))).code == 0
    assert "# >>> hookshape giant-squid hooks" in config.read_text()
    assert hooks.read_text() == fixture_text("codex")
    moved = install(home, "--vendor", "codex")
    assert moved.code == 0, moved.err
    assert f"codex: {config}: hook entries of an older install moved out\n" in moved.out
    assert config.read_text() == settings_text("codex")
    assert len(ours(hooks)) == 3
    settled = snapshot(home)
    assert install(home, "--vendor", "codex").code == 0
    assert snapshot(home) == settled
    assert uninstall(home).code == 0
    assert snapshot(home) == before


def test_an_edited_older_block_moves_only_when_forced(home: Path, tmp_path: Path) -> None:
    before = snapshot(home)
    config = home / ".codex/config.toml"
    assert install(home, "--vendor", "codex", "--profiles", str(older_codex(tmp_path / "p"))).code == 0
    config.write_text(config.read_text().replace("timeout = 5", "timeout = 9", 1))
    edited = snapshot(home)
    refused = install(home, "--vendor", "codex")
    assert refused.code == 1
    assert (f"conflict: {config}: the hookshape block was edited since the last install (kept; "
            "--force moves it to the hooks file)") in refused.out
    assert snapshot(home) == edited
    assert install(home, "--vendor", "codex", "--force").code == 0
    assert config.read_text() == settings_text("codex")
    assert uninstall(home).code == 0
    assert snapshot(home) == before


def _entries(path: Path) -> list[tuple[str, int, str]]:
    """(event, position, the entry as JSON) of every entry of a hooks file, ours and the user's."""
    data = parse(path)["hooks"]
    return [(event, i, json.dumps(entry, sort_keys=True)) for event, items in data.items()
            for i, entry in enumerate(items)]


def test_codex_definitions_are_rewritten_only_when_they_change(home: Path, tmp_path: Path) -> None:
    """Codex asks for trust again for every changed definition, keyed by its position: a
    reinstall that changes nothing leaves hooks.json alone (not even rewritten), and a changed
    definition is rewritten where it stands, every other entry (the user's too) kept in place."""
    hooks = home / ".codex/hooks.json"
    assert install(home, "--vendor", "codex").code == 0
    data = parse(hooks)
    data["hooks"]["PreToolUse"].append({"matcher": "Edit", "hooks": [
        {"type": "command", "command": "/usr/local/bin/after-ours"}]})
    hooks.write_text(json.dumps(data, indent=2) + "\n")  # the user's own, after ours
    first = hooks.stat()
    once = _entries(hooks)
    assert install(home, "--vendor", "codex").code == 0
    again = hooks.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    spec = spec_variant(tmp_path / "s", {'name = "pd-hook-pre-tool"\n':
                                         'name = "pd-hook-pre-tool"\nmatcher = { codex = "^(apply_patch|Bash)$" }\n'})
    assert with_spec(spec, "install", home, "--vendor", "codex").code == 0
    changed = [(a, b) for a, b in zip(once, _entries(hooks), strict=True) if a != b]
    [(was, now)] = changed
    assert was[:2] == now[:2] == ("PreToolUse", 1)
    assert json.loads(now[2])["matcher"] == "^(apply_patch|Bash)$"
    assert "after-ours" in _entries(hooks)[2][2]  # still at :pre_tool_use:2:0


def test_concurrent_installs_leave_one_set(home: Path) -> None:
    args = ["install", "--spec", str(SPEC), "--home", str(home)]
    runs = [proc(*args) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [0, 0], outs
    for _, rel in SEEDS.values():
        assert len(ours(home / rel)) == 3
    ledger = json.loads((home / HARNESS / "hookshape-ledger.json").read_text())
    assert len(ledger["configs"]) == len(loaded().vendors)
    assert not (home / HARNESS / ".hookshape.lock").exists()


def test_a_held_lock_is_a_clear_error(home: Path) -> None:
    lock = home / HARNESS / ".hookshape.lock"
    lock.mkdir(parents=True)
    (lock / "pid").write_text(f"{os.getpid()}\n")
    with pytest.raises(HookshapeError, match="held by pid"), \
            locks.held(home / HARNESS, wait_s=0.2):
        pass


def test_a_stale_lock_is_broken(home: Path) -> None:
    lock = home / HARNESS / ".hookshape.lock"
    lock.mkdir(parents=True)
    (lock / "pid").write_text("999999999\n")
    assert install(home).code == 0
    assert not lock.exists()


# --- scope, --from, the staged tree ------------------------------------------------------


def test_install_from_an_extracted_dist(home: Path, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    assert hs("render", "--spec", str(SPEC), "--out", str(dist)).code == 0
    result = install(home, "--from", str(dist))
    assert result.code == 0, result.err
    for path in (dist / "bin").rglob("*"):
        if path.is_file():
            staged = home / HARNESS / path.relative_to(dist)
            assert staged.read_bytes() == path.read_bytes()


def test_from_refuses_a_tampered_copy(home: Path, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    assert hs("render", "--spec", str(SPEC), "--out", str(dist)).code == 0
    gate = dist / "bin/pd-hook-stop"
    gate.write_bytes(gate.read_bytes() + b"# tampered\n")
    before = snapshot(home)
    result = install(home, "--from", str(dist))
    assert result.code == 1
    assert "sha256 does not match MANIFEST" in result.err
    assert snapshot(home) == before


def test_staged_tree_modes_owner_and_contents(home: Path) -> None:
    assert install(home).code == 0
    host = testinfra.get_host("local://")
    harness = home / HARNESS
    user = getpass.getuser()
    for art in script_artifacts(loaded()):
        staged = host.file(str(harness / art.path))
        assert staged.is_file
        assert staged.mode == 0o755
        assert staged.user == user
        assert staged.content == art.data
    for folder in (harness, harness / "bin", harness / "bin/squid"):
        assert host.file(str(folder)).is_directory
        assert host.file(str(folder)).mode == 0o700
    ledger = host.file(str(harness / "hookshape-ledger.json"))
    assert ledger.mode == 0o600
    assert json.loads(ledger.content_string)["harness_home"] == str(harness)


def test_backups_hold_the_pre_install_bytes(home: Path) -> None:
    assert install(home).code == 0
    backups = list((home / HARNESS / "backups").rglob("settings.json"))
    assert {b.read_text() for b in backups} == {fixture_text("claude"), fixture_text("gemini")}


def test_unknown_vendor_is_a_user_error(home: Path) -> None:
    result = install(home, "--vendor", "nosuchagent")
    assert result.code == 1
    assert "unknown vendor 'nosuchagent'" in result.err


# A harness home (or a state directory in it) that is, or holds, a vendor's config directory,
# or state in the scripts' directory: refused when the spec is read, or when the install finds
# the home moved there by its env var; nothing written.
@pytest.mark.parametrize(("old", "new", "message"), [
    ('home_default = "~/.port-daddy"', 'home_default = "~/.claude"',
     "harness.home_default: '~/.claude' is the config directory of Claude Code (~/.claude)"),
    ('home_default = "~/.port-daddy"', 'home_default = "~/.copilot"',
     "harness.home_default: '~/.copilot' holds the config directory of Copilot CLI "
     "(~/.copilot/hooks)"),
    ('state_dir = "squid"', 'state_dir = "bin"',
     "harness.state_dir: 'bin' lies in the scripts' directory"),
    ('health_dir = "squid/health"', 'health_dir = "bin/squid/health"',
     "gate.health_dir: 'bin/squid/health' lies in the scripts' directory"),
], ids=["home-is-claude", "home-holds-copilot", "state-dir", "health-dir"])
def test_a_home_or_state_dir_of_someone_else_is_refused(tmp_path: Path, old: str, new: str,
                                                        message: str) -> None:
    spec = spec_variant(tmp_path / "spec", {old: new})
    result = hs("validate", "--spec", str(spec))
    assert result.code == 1
    assert result.err.startswith(f"hookshape: error: {spec}: {message}"), result.err


@pytest.mark.parametrize("where", [".claude", ".gemini", ""])
def test_a_harness_home_moved_onto_a_vendors_config_dir_is_refused(home: Path, where: str) -> None:
    before = snapshot(home)
    moved = home / where if where else home
    result = install(home, env={"PD_HOME": str(moved)})
    assert result.code == 1
    assert result.err.startswith(f"hookshape: error: {moved}: the harness home ")
    assert result.err.endswith(": set PD_HOME to a directory of its own")
    assert snapshot(home) == before


# Every error a run prints names the file it is about (a write that fails on a full disk names
# none by itself) and ends its line; a report that cannot be written names standard output.
@pytest.mark.parametrize("nth", [1, 2, 7, 40])
def test_a_full_disk_names_the_file(home: Path, monkeypatch: pytest.MonkeyPatch, nth: int) -> None:
    before = snapshot(home)
    calls = [0]
    real = os.fsync

    def fsync(fd: int) -> None:
        calls[0] += 1
        if calls[0] == nth:
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = install(home)
    monkeypatch.undo()
    assert result.code == 1
    match = re.fullmatch(r"hookshape: error: (/\S+): No space left on device(; rolled back: every "
                         r"file is as it was before this install)?", result.err)
    assert match, result.err
    assert Path(match.group(1)).is_relative_to(home)
    assert snapshot(home) == before


# a run's report through its echo (install), and click's own output (--version)
@pytest.mark.parametrize("args", [("install",), ("--version",)], ids=["install", "version"])
def test_a_report_that_cannot_be_written_is_one_error_line(home: Path, args: tuple[str, ...]) -> None:
    more = ("--spec", str(SPEC), "--home", str(home)) if args[0] == "install" else ()
    with open(os.devnull if not Path("/dev/full").exists() else "/dev/full", "wb") as full:
        run = subprocess.run([sys.executable, "-m", "hookshape", *args, *more], stdout=full,
                             stderr=subprocess.PIPE, cwd=home, timeout=120,
                             env={k: v for k, v in os.environ.items() if k not in SCRUB})
    assert (run.returncode, run.stderr) == (1, b"hookshape: error: standard output: No space left "
                                               b"on device\n")


# --- the JSON surgical editor ------------------------------------------------------------

STYLES = {
    "two-space": '{\n  "a": 1,\n  "list": [\n    {"x": 1}\n  ]\n}\n',
    "four-space": '{\n    "a": 1,\n    "list": []\n}',
    "tabs": '{\n\t"a": 1,\n\t"list": [\n\t\t2\n\t]\n}\n',
    "compact": '{"a":1,"list":[1,2]}',
    "crlf": '{\r\n  "a": 1,\r\n  "list": [\r\n    3\r\n  ]\r\n}\r\n',
    "empty-list-spaced": '{\n  "list": [ ]\n}\n',
}


@pytest.mark.parametrize("name", sorted(STYLES))
def test_jsonedit_append_then_remove_is_exact(name: str) -> None:
    text = STYLES[name]
    style = je.detect_style(text)
    root = je.scan(text)
    value = {"hooks": [{"type": "command", "command": "x"}]}
    grown = je.append_item(text, root.get("list"), value, style)  # type: ignore[arg-type]
    assert json.loads(grown)["list"][-1] == value
    items = je.scan(grown).get("list")
    assert items is not None
    shrunk = je.remove_item(grown, items, len(items.items) - 1)
    if name == "empty-list-spaced":
        assert json.loads(shrunk) == json.loads(text)
    else:
        assert shrunk == text
    added = je.append_member(text, root, "new", [1, {"b": None}], style)
    assert json.loads(added)["new"] == [1, {"b": None}]
    assert je.remove_member(added, je.scan(added), "new") == text


def test_jsonedit_reuses_the_files_indentation() -> None:
    text = STYLES["tabs"]
    grown = je.append_member(text, je.scan(text), "k", {"v": [1]}, je.detect_style(text))
    assert '\n\t"k": {\n\t\t"v": [\n\t\t\t1\n\t\t]\n\t}\n}' in grown


def test_jsonedit_locates_parse_errors() -> None:
    with pytest.raises(HookshapeError, match=r"x\.json:2:10: invalid JSON"):
        je.parse('{\n  "a": 1 "b": 2}', Path("x.json"))


# --- all or nothing: owners, read-only files, failures halfway ---------------------------

OTHER_UID = 1234


def owner_of(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_root_keeps_the_owner_and_group_of_a_users_config(home: Path) -> None:
    configs = [home / rel for _, rel in SEEDS.values()]
    for path in configs:
        os.chown(path, OTHER_UID, OTHER_UID + 1)
        path.chmod(0o640)
    before = snapshot(home)
    assert install(home).code == 0
    assert [owner_of(p) for p in configs] == [(OTHER_UID, OTHER_UID + 1, 0o640)] * len(configs)
    claude = home / ".claude/settings.json"
    claude.write_text(claude.read_text().replace('"theme": "dark"', '"theme": "light"'))
    os.chown(claude, OTHER_UID, OTHER_UID + 1)  # a user edit: uninstall goes surgical there
    assert uninstall(home).code == 0
    assert [owner_of(p) for p in configs] == [(OTHER_UID, OTHER_UID + 1, 0o640)] * len(configs)
    claude.write_text(fixture_text("claude"))
    assert snapshot(home) == before


def test_a_read_only_config_is_refused_unless_forced(home: Path) -> None:
    gemini = home / ".gemini/settings.json"
    gemini.chmod(0o444)
    before = snapshot(home)
    result = install(home)
    assert result.code == 1
    assert result.err == (f"hookshape: error: {gemini}: read-only (mode 0444): not replaced; "
                          "make it writable, or pass --force to replace it keeping its mode")
    assert snapshot(home) == before
    assert install(home, "--force").code == 0
    assert len(ours(gemini)) == 3 and owner_of(gemini)[2] == 0o444
    refused = uninstall(home)
    assert refused.code == 1 and "read-only (mode 0444)" in refused.err
    assert uninstall(home, "--force").code == 0
    assert snapshot(home) == before


def _fail_at(monkeypatch: pytest.MonkeyPatch, nth: int, hits: list[Path]) -> None:
    """Make the nth file write or removal of a run fail (as a full disk would)."""
    real_replace, real_unlink = fsops.os.replace, fsops.os.unlink

    def count(path: Path) -> None:
        hits.append(path)
        if len(hits) == nth:
            raise OSError(28, "No space left on device", str(path))

    def replace(src: str, dst: str) -> None:
        count(Path(dst))
        real_replace(src, dst)

    def unlink(path: str) -> None:
        count(Path(path))
        real_unlink(path)

    monkeypatch.setattr(fsops, "_rename", replace)
    monkeypatch.setattr(fsops, "_unlink", unlink)


def _writes(home: Path, run: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many writes and removals a run makes (on a copy of the state, undone after)."""
    hits: list[Path] = []
    _fail_at(monkeypatch, 10**6, hits)
    state = snapshot(home)
    run()
    monkeypatch.undo()
    restore(home, state)
    return len(hits)


@pytest.mark.parametrize("where", ["first", "second", "middle", "last"])
def test_a_failed_install_rolls_back_every_byte(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                 where: str) -> None:
    total = _writes(home, lambda: install(home), monkeypatch)
    nth = {"first": 1, "second": 2, "middle": total // 2 + 1, "last": total}[where]
    before = snapshot(home)
    hits: list[Path] = []
    _fail_at(monkeypatch, nth, hits)
    result = install(home)
    monkeypatch.undo()
    assert result.code == 1
    assert result.err == (f"hookshape: error: {hits[nth - 1]}: No space left on device; "
                          "rolled back: every file is as it was before this install")
    assert result.out == ""
    assert snapshot(home) == before
    assert install(home).code == 0  # the next install starts clean, and still reverses exactly
    assert uninstall(home).code == 0
    assert snapshot(home) == before


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_failed_reinstall_or_uninstall_rolls_back(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                    where: str) -> None:
    pristine = snapshot(home)
    assert install(home).code == 0
    claude = home / ".claude/settings.json"
    claude.write_text(claude.read_text().replace('"timeout": 5', '"timeout": 6'))
    for verb in (install, uninstall):
        total = _writes(home, lambda: verb(home, "--force"), monkeypatch)  # noqa: B023
        nth = {"first": 1, "middle": total // 2 + 1, "last": total}[where]
        before = snapshot(home)
        _fail_at(monkeypatch, nth, [])
        result = verb(home, "--force")
        monkeypatch.undo()
        assert result.code == 1 and "; rolled back: every file is as it was" in result.err
        assert snapshot(home) == before, verb
    assert uninstall(home, "--force").code == 0
    assert snapshot(home) == pristine


# A run killed at any step (SIGKILL, so no rollback of its own) leaves nothing the next run
# cannot undo or finish: every step of an install and of an uninstall in turn (fast mode: a
# sample), then the next runs, and the home is byte for byte as it was before the install; a
# project setup's too (the project inside the home, so the snapshot holds both).
SWEEP = [pytest.param(verb, scope, 40 if FAST else 1, marks=[] if FAST else [pytest.mark.slow],
                      id=verb if scope == "user" else f"{verb}-{scope}")
         for scope in ("user", "project") for verb in ("install", "uninstall")]


@pytest.mark.parametrize(("verb", "scope", "every"), SWEEP)
def test_a_run_killed_at_any_step_leaves_nothing_behind(home: Path, verb: str, scope: str,
                                                        every: int) -> None:
    if scope == "project":
        (home / "proj").mkdir()
    run = runs(home, scope)
    pristine = snapshot(home)
    if verb == "uninstall":
        assert run["install"]() == 0
    start = snapshot(home)
    total = changes(run[verb])
    tried = []
    with kill_points(home, scope) as killed:
        for step in [*range(1, total + 1, every), total, total + 1]:
            restore(home, start)
            assert killed(verb, step) == (step <= total)
            if verb == "install" and step % 2:
                assert run["install"]() == 0, step  # undoes the stopped one, then installs
            try:
                assert run["uninstall"]() == 0, step
            except HookshapeError as exc:  # an install stopped before it had made the home
                assert "no hookshape ledger here" in str(exc), step
            assert snapshot(home) == pristine, f"{verb} killed before change {step} of {total}"
            tried.append(step)
    assert len(tried) >= total // every


@pytest.mark.parametrize("folder", [".claude", ".codex"])  # the first vendor, the third
def test_a_read_only_vendor_dir_rolls_back(home: Path, folder: str) -> None:
    before = snapshot(home)
    with unwritable(home / folder):
        result = install(home)
    assert result.code == 1
    assert result.err.startswith(f"hookshape: error: {home}/{folder}/")
    assert result.err.endswith("; rolled back: every file is as it was before this install")
    assert snapshot(home) == before
    assert install(home).code == 0
    assert uninstall(home).code == 0
    assert snapshot(home) == before


def test_cli_rolls_back_and_says_so_in_one_line(home: Path) -> None:
    before = snapshot(home)
    with unwritable(home / ".gemini"):
        run = proc("install", "--spec", str(SPEC), "--home", str(home))
        out, err = run.communicate(timeout=120)
    assert run.returncode == 1
    lines = err.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"hookshape: error: {home}/.gemini/")
    assert lines[0].endswith("; rolled back: every file is as it was before this install")
    assert out == b""
    assert snapshot(home) == before


# --- two harnesses in one config, renamed gates ------------------------------------------


@pytest.mark.parametrize("seeded", [True, False], ids=["seeded", "fresh"])
@pytest.mark.parametrize("order", ["crossed", "nested"])
def test_two_harnesses_uninstall_to_the_original_bytes(tmp_path: Path, order: str,
                                                       seeded: bool) -> None:
    home = tmp_path / "home"
    home.mkdir()
    if seeded:
        seed(home)
        (home / ".claude/settings.json").write_text('{\n  "theme": "dark"\n}\n')
    kraken = spec_variant(tmp_path / "kraken", KRAKEN)
    before = snapshot(home)
    assert install(home).code == 0
    assert with_spec(kraken, "install", home).code == 0
    first, second = (SPEC, kraken) if order == "crossed" else (kraken, SPEC)
    assert with_spec(first, "uninstall", home).code == 0
    for _, rel in SEEDS.values():
        assert len(parse_commands(home / rel)) == 3, rel  # the other harness still wired
    if seeded:
        gemini = parse(home / ".gemini/settings.json")
        assert gemini["hooksConfig"]["enabled"] is True  # its hooks still need the switch
        assert "hooks = true" in (home / ".codex/config.toml").read_text()
    assert with_spec(second, "uninstall", home).code == 0
    assert snapshot(home) == before


def parse_commands(path: Path) -> list[str]:
    return [c for c in commands(parse(path)) if "_HOOK_PROVIDER=" in c]


def test_a_renamed_gate_leaves_no_stale_script(home: Path, tmp_path: Path) -> None:
    before = snapshot(home)
    assert install(home).code == 0
    renamed = spec_variant(tmp_path / "renamed", {'"pd-hook-stop"': '"pd-hook-close"'})
    assert with_spec(renamed, "install", home).code == 0
    harness = home / HARNESS
    assert not (harness / "bin/pd-hook-stop").exists()
    assert not (harness / "bin/squid/pd-hook-stop").exists()
    assert (harness / "bin/pd-hook-close").is_file()
    ledger = json.loads((harness / "hookshape-ledger.json").read_text())
    assert "bin/pd-hook-stop" not in ledger["files"]
    assert all("pd-hook-stop" not in c for _, rel in SEEDS.items() for c in ours(home / rel[1]))
    assert with_spec(renamed, "uninstall", home).code == 0
    assert snapshot(home) == before


def test_a_renamed_tentacle_dir_goes_with_its_scripts(home: Path, tmp_path: Path) -> None:
    before = snapshot(home)
    assert install(home).code == 0
    moved = spec_variant(tmp_path / "moved", {'tentacle_dir = "squid"': 'tentacle_dir = "ink"'})
    result = with_spec(moved, "install", home)
    assert result.code == 0, result.err
    # the four tentacles, their awk programs and the awk library
    assert "9 no longer in the spec removed" in result.out
    harness = home / HARNESS
    assert not (harness / "bin/squid").exists()
    assert (harness / "bin/ink/pd-hook-stop").is_file()
    assert with_spec(moved, "uninstall", home).code == 0
    assert snapshot(home) == before


def test_an_edited_stale_script_is_kept_unless_forced(home: Path, tmp_path: Path) -> None:
    assert install(home).code == 0
    stale = home / HARNESS / "bin/pd-hook-stop"
    stale.write_text(stale.read_text() + "# mine\n")
    renamed = spec_variant(tmp_path / "renamed", {'"pd-hook-stop"': '"pd-hook-close"'})
    before = snapshot(home)
    result = with_spec(renamed, "install", home)
    assert result.code == 1 and f"{stale}: a staged script was edited" in result.out
    assert snapshot(home) == before
    assert with_spec(renamed, "install", home, "--force").code == 0
    assert not stale.exists()


# --- JSON with comments (Gemini CLI reads settings.json through strip-json-comments) ------


def commented_gemini() -> str:
    """The Gemini fixture with comments where people put them, one inside a string too."""
    text = "// Gemini settings, kept by hand\n" + fixture_text("gemini")
    for old, new in (
            ('"vimMode": true,', '"vimMode": true, // I like vim'),
            ('"preferredEditor": "nvim"', '"preferredEditor": "nvim // not a comment"'),
            ('        "enabled": true,', '        /* on again */ "enabled": true,'),
            ('    "hooks": {\n', '    "hooks": {\n        // formatters first\n'),
            ('        ]\n    },\n    "mcpServers"', '        ] /* prettier only */\n    },\n'
             '    "mcpServers"')):
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_gemini_comments_survive_install_and_uninstall(home: Path) -> None:
    gemini = home / ".gemini/settings.json"
    text = commented_gemini()
    gemini.write_text(text)
    before = snapshot(home)
    result = install(home, "--vendor", "gemini")
    assert result.code == 0, result.err
    installed = gemini.read_text()
    # the comma our first appended event needs goes between the value and its comment
    kept = text.replace("] /* prettier only */", "], /* prettier only */")
    assert lines_kept(kept, installed)
    for comment in ("// Gemini settings, kept by hand\n", "// I like vim\n",
                    "/* on again */", "// formatters first\n",
                    "/* prettier only */\n", '"nvim // not a comment"'):
        assert installed.count(comment) == 1, comment
    assert len([c for c in commands(je.loads(installed, gemini, True))
                if c.startswith(PROVIDER)]) == 3
    assert install(home, "--vendor", "gemini").code == 0
    assert gemini.read_text() == installed  # idempotent
    edited = installed.replace('"vimMode": true', '"vimMode": false')
    gemini.write_text(edited)  # a user edit: uninstall goes surgical
    assert uninstall(home).code == 0
    assert gemini.read_text() == text.replace('"vimMode": true', '"vimMode": false')
    gemini.write_text(text)
    assert snapshot(home) == before


def test_a_settings_file_of_comments_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    gemini = home / ".gemini/settings.json"
    gemini.parent.mkdir(parents=True)
    gemini.write_text("{\n  // nothing yet\n}\n")
    assert install(home, "--vendor", "gemini").code == 0
    assert gemini.read_text().startswith("{\n  // nothing yet\n  \"hooks\": {\n")
    gemini.write_text(gemini.read_text() + "\n")
    assert uninstall(home).code == 0
    assert gemini.read_text() == "{\n  // nothing yet\n}\n\n"


def test_comments_stay_refused_where_the_vendor_forbids_them(home: Path) -> None:
    claude = home / ".claude/settings.json"
    claude.write_text("// mine\n" + fixture_text("claude"))
    before = snapshot(home)
    result = install(home)
    assert result.code == 1 and f"{claude}:1:1: invalid JSON" in result.err
    assert snapshot(home) == before


COMMENTED_STYLES = {
    "line-after-last": '{\n  "list": [\n    1 // one\n  ],\n  "a": 1\n}\n',
    "block-after-last": '{\n  "list": [\n    1 /* one */\n  ]\n}\n',
    "before-first": '{\n  "list": [\n    // numbers\n    1,\n    2\n  ]\n}\n',
    "in-empty": '{\n  "list": [ // none yet\n  ]\n}\n',
    "between": '{\n  "list": [\n    1, // one\n    2\n  ]\n}\n',
    "crlf": '{\r\n  "list": [\r\n    1 // one\r\n  ]\r\n}\r\n',
}


@pytest.mark.parametrize("name", sorted(COMMENTED_STYLES))
def test_jsonedit_with_comments_append_then_remove_is_exact(name: str) -> None:
    text = COMMENTED_STYLES[name]
    style = je.detect_style(text)
    root = je.parse(text, Path("x.json"), comments=True)
    value = {"hooks": [{"command": "x // y"}]}
    grown = je.append_item(text, root.get("list"), value, style)  # type: ignore[arg-type]
    assert je.loads(grown, Path("x.json"), True)["list"][-1] == value
    assert je.strip_comments(grown).count("/") == 0 or "x // y" in grown
    items = je.scan(grown).get("list")
    assert items is not None
    assert je.remove_item(grown, items, len(items.items) - 1) == text
    added = je.append_member(text, je.scan(text), "new", [1], style)
    assert je.loads(added, Path("x.json"), True)["new"] == [1]
    assert je.remove_member(added, je.scan(added), "new") == text


def test_jsonedit_removing_a_first_item_keeps_the_comment_of_the_next() -> None:
    text = '{\n  "list": [\n    {"ours": 1},\n    // the user\'s\n    {"theirs": 2}\n  ]\n}\n'
    items = je.scan(text).get("list")
    assert items is not None
    assert je.remove_item(text, items, 0) == \
        '{\n  "list": [\n    // the user\'s\n    {"theirs": 2}\n  ]\n}\n'
