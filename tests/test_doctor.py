"""hookshape doctor: one test per finding, each in a scratch home, plus exit codes and --json."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from tests.installkit import HARNESS, doctor, install

from hookshape.spec.profiles import builtin_dir, load_profiles

pytest_plugins = ["tests.installkit"]  # fixtures: home


@pytest.fixture
def wired(home: Path, tmp_path: Path) -> Path:
    """Installed, with the daemon's lease held and the project armed (a healthy harness)."""
    assert install(home).code == 0
    harness = home / HARNESS
    (harness / "daemon.ready").write_text("4242\n")
    (harness / "daemon.pid").write_text("4242\n")
    (harness / "heartbeat").write_text("")
    (harness / "squid").mkdir(exist_ok=True)
    (harness / "squid/projects").write_text(f"{tmp_path}\n")
    return home


def report(home: Path, *more: str, env: dict[str, str | None] | None = None) -> dict[str, Any]:
    result = doctor(home, "--json", "--project", str(home.parent), *more, env=env)
    data: dict[str, Any] = json.loads(result.out)
    data["exit"] = result.code
    return data


def codes(data: dict[str, Any], vendor: str) -> dict[str, str]:
    """finding code -> severity, for one vendor (or "harness")."""
    found = next(r for r in data["reports"] if r["vendor"] == vendor)
    return {f["code"]: f["severity"] for f in found["findings"]}


def messages(data: dict[str, Any], vendor: str, code: str) -> list[str]:
    found = next(r for r in data["reports"] if r["vendor"] == vendor)
    return [f["message"] for f in found["findings"] if f["code"] == code]


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


def test_healthy_install_is_wired_and_exits_0(wired: Path) -> None:
    data = report(wired)
    assert data["exit"] == 0 and data["ok"]
    for vendor in ("claude", "gemini", "codex", "agy"):
        assert all(s != "error" for s in codes(data, vendor).values()), codes(data, vendor)
    assert "not-ready" not in codes(data, "harness")
    assert "unarmed" not in codes(data, "harness")


def test_text_output_names_each_vendor(wired: Path) -> None:
    result = doctor(wired, "--project", str(wired.parent))
    assert result.code == 0
    assert "claude (Claude Code): wired" in result.out
    assert "codex (Codex CLI): wired" in result.out
    assert "fix: " in result.out


def test_not_wired(home: Path) -> None:
    data = report(home)
    assert data["exit"] == 1
    assert codes(data, "claude")["not-wired"] == "error"


def test_missing_entry(wired: Path) -> None:
    settings = wired / ".claude/settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["Stop"]
    settings.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "claude")
    assert codes(found, "claude")["missing-entry"] == "error"
    assert found["exit"] == 1


def test_unparsable_config(wired: Path) -> None:
    (wired / ".gemini/settings.json").write_text('{\n  "ui": {\n}\n')
    data = report(wired, "--vendor", "gemini")
    assert codes(data, "gemini")["unparsable"] == "error"
    assert any(":4:1: invalid JSON" in m for m in messages(data, "gemini", "unparsable"))
    assert data["exit"] == 1


def test_bad_shape_in_someone_elses_entry(wired: Path) -> None:
    edit(wired / ".claude/settings.json", '"command": "/usr/local/bin/bash-guard --strict",', "")
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["bad-shape"] == "error"
    assert any("hooks.PreToolUse[0].hooks[0].command" in m
               for m in messages(data, "claude", "bad-shape"))


def test_unknown_key_in_a_strict_handler(wired: Path) -> None:
    edit(wired / ".codex/config.toml", "timeout = 10", 'timeout = 10\nname = "guard"')
    data = report(wired, "--vendor", "codex")
    assert any("unknown key 'name'" in m for m in messages(data, "codex", "bad-shape"))
    assert data["exit"] == 1


def test_relative_command_path(wired: Path) -> None:
    edit(wired / ".claude/settings.json", f'\\"{wired}/{HARNESS}/bin/pd-hook-stop\\"',
         f'\\"$HOME/{HARNESS}/bin/pd-hook-stop\\"')
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["relative-path"] == "error"


def test_relative_path_in_someone_elses_hook(wired: Path) -> None:
    edit(wired / ".claude/settings.json", "/usr/local/bin/bash-guard", "scripts/bash-guard")
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["relative-path"] == "warn"
    assert any("scripts/bash-guard" in m for m in messages(data, "claude", "relative-path"))


def test_missing_script(wired: Path) -> None:
    (wired / HARNESS / "bin/squid/pd-hook-prompt").unlink()
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["missing-script"] == "error"


@pytest.mark.parametrize("program", ["pd-hook-prompt.awk", "lib.awk"])
def test_missing_awk_program(wired: Path, program: str) -> None:
    """Without its awk programs a tentacle says nothing: doctor names the missing one."""
    (wired / HARNESS / "bin/squid" / program).unlink()
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["missing-script"] == "error"
    assert any(program in m and "allows every call" in m for m in messages(data, "claude", "missing-script"))


def test_script_not_executable(wired: Path) -> None:
    os.chmod(wired / HARNESS / "bin/pd-hook-pre-tool", 0o644)
    data = report(wired, "--vendor", "gemini")
    assert codes(data, "gemini")["not-executable"] == "error"


def test_stale_entry_of_an_old_harness_home(wired: Path, tmp_path: Path) -> None:
    data = report(wired, "--vendor", "claude", env={"PD_HOME": str(tmp_path / "moved")})
    assert codes(data, "claude")["stale-entry"] == "warn"
    assert any(str(tmp_path / "moved") in m for m in messages(data, "claude", "stale-entry"))


def test_duplicate_entries(wired: Path) -> None:
    settings = wired / ".claude/settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"].append(data["hooks"]["Stop"][0])
    settings.write_text(json.dumps(data, indent=2))
    assert codes(report(wired, "--vendor", "claude"), "claude")["duplicate"] == "warn"


def test_timeout_not_above_the_deadline(wired: Path) -> None:
    settings = wired / ".claude/settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 1
    settings.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "claude")
    assert codes(found, "claude")["timeout"] == "error"
    assert any("1 s" in m for m in messages(found, "claude", "timeout"))


def test_gemini_hooks_switched_off(wired: Path) -> None:
    edit(wired / ".gemini/settings.json", '"enabled": true', '"enabled": false')
    data = report(wired, "--vendor", "gemini")
    assert codes(data, "gemini")["switched-off"] == "error"
    assert data["exit"] == 1


def test_gemini_legacy_switch_off(wired: Path) -> None:
    settings = wired / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    data["tools"] = {"enableHooks": False}
    settings.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "gemini")
    assert any("tools.enableHooks" in m for m in messages(found, "gemini", "switched-off"))


def test_codex_feature_off(wired: Path) -> None:
    edit(wired / ".codex/config.toml", "hooks = true", "hooks = false")
    assert codes(report(wired, "--vendor", "codex"), "codex")["switched-off"] == "error"


def test_codex_old_feature_key(wired: Path) -> None:
    edit(wired / ".codex/config.toml", "hooks = true", "codex_hooks = true")
    data = report(wired, "--vendor", "codex")
    assert codes(data, "codex")["old-switch"] == "warn"
    assert any("features.codex_hooks" in m for m in messages(data, "codex", "old-switch"))


def codex_records(config: Path, disabled: str = "") -> str:
    """The [hooks.state] records Codex's /hooks review writes into config.toml for every hook of
    a file (hooks.json, or config.toml's own [hooks]): keyed `<file>:<event_snake>:<group>:
    <handler>`, hashed as sha256 of the compact key-sorted JSON of the definition (Codex
    0.171.0; the timeout as Codex bounds it: SessionEnd 1 s by default, at most 3); a hook whose
    command contains `disabled` gets `enabled = false` too."""
    text = config.read_text()
    data = json.loads(text) if config.suffix == ".json" else tomllib.loads(text)
    out = []
    for event, groups in data["hooks"].items():
        if event == "state":
            continue
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                timeout = handler.get("timeout", 1 if event == "SessionEnd" else 600)
                timeout = min(timeout, 3) if event == "SessionEnd" else timeout
                one = {"type": handler["type"], "command": handler["command"], "timeout": timeout,
                       "async": handler.get("async", False)}
                if "statusMessage" in handler:
                    one["statusMessage"] = handler["statusMessage"]
                definition = {"event_name": snake, "hooks": [one]}
                if "matcher" in group:
                    definition["matcher"] = group["matcher"]
                text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
                digest = hashlib.sha256(text.encode()).hexdigest()
                off = "enabled = false\n" if disabled and disabled in handler["command"] else ""
                out.append(f'[hooks.state."{config}:{snake}:{g}:{h}"]\n{off}trusted_hash = "sha256:{digest}"\n')
    return "\n" + "\n".join(out)


def test_codex_untrusted_then_trusted_then_changed(wired: Path) -> None:
    """The trust records live in config.toml; their keys name the hooks.json the entries are in."""
    config, hooks = wired / ".codex/config.toml", wired / ".codex/hooks.json"
    data = report(wired, "--vendor", "codex")
    assert codes(data, "codex")["untrusted"] == "warn"
    [said] = messages(data, "codex", "untrusted")
    assert said.startswith(f"{config}: no trust record for ")
    for gate, event in (("prompt", "UserPromptSubmit"), ("pre-tool", "PreToolUse"), ("stop", "Stop")):
        assert f"pd-hook-{gate} on {event}" in said
    assert "bash-guard" not in said  # someone else's hook: not the harness's business
    config.write_text(config.read_text() + codex_records(hooks))
    found = codes(report(wired, "--vendor", "codex"), "codex")
    assert not {"untrusted", "trust-changed", "trust-disabled"} & set(found), found
    edit(hooks, '"timeout": 5', '"timeout": 6')  # our first entry (after the user's own on
    # PreToolUse) changed since it was reviewed
    data = report(wired, "--vendor", "codex")
    assert codes(data, "codex")["trust-changed"] == "warn" and "untrusted" not in codes(data, "codex")
    assert "pd-hook-pre-tool on PreToolUse hold another hash" in messages(data, "codex", "trust-changed")[0]


def test_codex_hook_disabled_in_its_trust_record(wired: Path) -> None:
    config = wired / ".codex/config.toml"
    config.write_text(config.read_text() + codex_records(wired / ".codex/hooks.json",
                                                         disabled="pd-hook-stop"))
    data = report(wired, "--vendor", "codex")
    assert codes(data, "codex")["trust-disabled"] == "error" and data["exit"] == 1
    assert "disables pd-hook-stop on Stop (enabled = false)" in messages(data, "codex", "trust-disabled")[0]


def test_codex_project_hooks_need_the_project_trusted(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()  # the project's root is the repository's
    assert install(home, "--vendor", "codex", "--scope", "project", "--project", str(project)).code == 0
    data = report(home, "--vendor", "codex", "--project", str(project))
    assert codes(data, "codex")["project-untrusted"] == "error"
    assert f'projects."{tmp_path / "repo"}".trust_level = "trusted"' in messages(data, "codex", "project-untrusted")[0]
    user = home / ".codex/config.toml"
    user.write_text(user.read_text() + f'\n[projects."{tmp_path / "repo"}"]\ntrust_level = "trusted"\n')
    assert "project-untrusted" not in codes(report(home, "--vendor", "codex", "--project", str(project)), "codex")


def test_codex_hooks_json_with_a_schema_key_loses_its_hooks(wired: Path) -> None:
    hooks = wired / ".codex/hooks.json"
    data = json.loads(hooks.read_text())
    hooks.write_text(json.dumps({"$schema": "https://example.com/hooks.schema.json", **data}))
    found = report(wired, "--vendor", "codex")
    assert codes(found, "codex")["bad-shape"] == "error"
    [said] = messages(found, "codex", "bad-shape")
    assert "top level: '$schema': not a key this file may hold (description, hooks)" in said


def test_codex_entries_an_older_install_left_in_config_toml(wired: Path) -> None:
    """Codex runs the hooks of both files: entries of ours still in config.toml run twice, and a
    shape error there stops Codex altogether."""
    config = wired / ".codex/config.toml"
    ours_stop = json.loads((wired / ".codex/hooks.json").read_text())["hooks"]["Stop"][-1]
    command = ours_stop["hooks"][0]["command"]
    config.write_text(config.read_text() + "\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\n"
                      f'type = "command"\ncommand = {json.dumps(command)}\ntimeout = 5\n')
    data = report(wired, "--vendor", "codex")
    assert codes(data, "codex")["inline-entries"] == "warn"
    [said] = messages(data, "codex", "inline-entries")
    assert said.startswith(f"{config} holds giant-squid hook entries: Codex CLI reads them beside "
                           f"{wired / '.codex/hooks.json'}")
    assert codes(data, "codex")["duplicate"] == "warn"


def test_a_committed_project_setup(home: Path, tmp_path: Path) -> None:
    """doctor checks a project's committed setup where the project is (its commands name the
    project through the vendor), and says which vendors cannot run it, and why."""
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    assert install(home, "--scope", "project", "--project", str(project)).code == 0
    data = report(home, "--project", str(project))
    for vendor in ("claude", "gemini", "copilot", "qwen", "cursor", "factory", "codex"):
        found = codes(data, vendor)
        assert not {"relative-path", "missing-script", "stale-entry", "not-wired"} & set(found), \
            (vendor, found)
    for vendor, why in (("kimi", "Kimi Code reads hooks from no project file"),
                        ("agy", "unreliable: ")):
        assert codes(data, vendor)["no-project-setup"] == "warn"
        [said] = messages(data, vendor, "no-project-setup")
        assert said.startswith(f"{project / '.hookshape/giant-squid'}: ") and why in said
    assert codes(data, "codex")["project-setup"] == "info"
    assert "review its hooks in /hooks" in messages(data, "codex", "project-setup")[0]
    assert "trust the folder" in messages(data, "gemini", "project-setup")[0]
    assert "project-setup" not in codes(data, "claude")
    (project / ".hookshape/giant-squid/bin/pd-hook-stop").unlink()
    [said] = messages(report(home, "--vendor", "claude", "--project", str(project)), "claude",
                      "missing-script")
    assert f"{project}/.hookshape/giant-squid/bin/pd-hook-stop does not exist" in said


def test_gemini_auth_not_selected(wired: Path) -> None:
    settings = wired / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    del data["security"]
    settings.write_text(json.dumps(data, indent=4))
    assert "auth-not-selected" not in codes(report(wired, "--vendor", "gemini"), "gemini")
    found = report(wired, "--vendor", "gemini", env={"GEMINI_API_KEY": "k"})
    assert codes(found, "gemini")["auth-not-selected"] == "warn"
    assert found["exit"] == 0


def test_agy_file_only_where_this_version_does_not_read(wired: Path) -> None:
    current = wired / ".gemini/config/hooks.json"
    old = wired / ".gemini/antigravity-cli/hooks.json"
    old.parent.mkdir(parents=True)
    current.rename(old)
    data = report(wired, "--vendor", "agy")
    assert codes(data, "agy")["unread-location"] == "error"
    assert codes(data, "agy")["not-wired"] == "error"


def test_agy_group_on_a_lifecycle_event(wired: Path) -> None:
    path = wired / ".gemini/config/hooks.json"
    data = json.loads(path.read_text())
    data["lint-guard"]["Stop"] = [{"hooks": data["lint-guard"]["Stop"]}]
    path.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "agy")
    assert any("never fires" in m for m in messages(found, "agy", "bad-shape"))


def test_kill_switch_file(wired: Path) -> None:
    (wired / HARNESS / "hooks.disabled").write_text("")
    data = report(wired)
    assert codes(data, "harness")["kill-switch"] == "error"
    assert data["exit"] == 1


def test_kill_switch_env(wired: Path) -> None:
    data = report(wired, env={"PD_HOOKS": "0"})
    assert codes(data, "harness")["kill-switch"] == "error"


def test_halt_sentinel(wired: Path) -> None:
    (wired / HARNESS / "HALT").write_text("maintenance window\n")
    data = report(wired)
    assert codes(data, "harness")["halted"] == "warn"
    assert data["exit"] == 0


def test_readiness_lease_and_armed_roots(home: Path) -> None:
    assert install(home).code == 0
    data = report(home)
    assert codes(data, "harness")["not-ready"] == "warn"
    assert codes(data, "harness")["unarmed"] == "warn"


def test_breaker_open(wired: Path) -> None:
    assert "breaker-open" not in codes(report(wired), "harness")
    health = wired / HARNESS / "squid/health"
    health.mkdir(parents=True, exist_ok=True)
    retry = int(time.time()) + 300
    (health / "pd-hook-pre-tool.state").write_text(
        f"breaker/1 open 3 timeout {retry - 300} {retry} 0 1\n")
    data = report(wired)
    assert codes(data, "harness")["breaker-open"] == "error"
    assert any("pd-hook-pre-tool" in m for m in messages(data, "harness", "breaker-open"))
    assert data["exit"] == 1


def test_claude_write_before_read_note(wired: Path) -> None:
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["write-before-read"] == "info"
    assert "write-before-read" not in codes(report(wired, "--vendor", "gemini"), "gemini")


def test_vendor_caveat_note(wired: Path) -> None:
    assert codes(report(wired, "--vendor", "agy"), "agy")["caveat"] == "info"


# --- profile-driven contracts (auth, trust, also-read and legacy paths) ----------------------


def profile_copy(tmp_path: Path, vendor: str, old: str, new: str) -> Path:
    """A --profiles dir whose copy of a shipped profile has one text replaced."""
    folder = tmp_path / "profiles"
    folder.mkdir(exist_ok=True)
    text = (builtin_dir() / f"{vendor}.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (folder / f"{vendor}.toml").write_text(text.replace(old, new), encoding="utf-8")
    return folder


def test_auth_check_comes_from_the_profile_fields(wired: Path, tmp_path: Path) -> None:
    settings = wired / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    del data["security"]
    settings.write_text(json.dumps(data, indent=4))
    found = report(wired, "--vendor", "gemini", env={"GEMINI_API_KEY": "k"})
    fix = next(f["fix"] for r in found["reports"] if r["vendor"] == "gemini"
               for f in r["findings"] if f["code"] == "auth-not-selected")
    assert "security.auth.selectedType = 'gemini-api-key'" in fix
    folder = profile_copy(tmp_path, "gemini", 'auth_env = ["GEMINI_API_KEY"]',
                          'auth_env = ["ZETA_KEY"]')
    assert "auth-not-selected" not in codes(
        report(wired, "--vendor", "gemini", "--profiles", str(folder),
               env={"GEMINI_API_KEY": "k"}), "gemini")
    assert codes(report(wired, "--vendor", "gemini", "--profiles", str(folder),
                        env={"ZETA_KEY": "k"}), "gemini")["auth-not-selected"] == "warn"


def test_trust_check_comes_from_the_profile_fields(wired: Path, tmp_path: Path) -> None:
    trust_keys = ('trust_hash = "definition-sha256"', 'trust_entry = "{file}:{event_snake}:{group}:{handler}"')
    folder = profile_copy(tmp_path, "codex", 'trust_table = "hooks.state"', 'trust_table = ""')
    edit(folder / "codex.toml", 'trust_key = "trusted_hash"', 'trust_key = ""')
    for line in trust_keys:
        edit(folder / "codex.toml", line, "")
    assert "untrusted" not in codes(
        report(wired, "--vendor", "codex", "--profiles", str(folder)), "codex")
    # a table and a key but no hash rule: any record with the key counts
    config = wired / ".codex/config.toml"
    config.write_text(config.read_text() + '\n[hooks.state."pd-hook-stop:Stop"]\nreviewed = "yes"\n')
    folder = profile_copy(tmp_path, "codex", 'trust_key = "trusted_hash"', 'trust_key = "reviewed"')
    for line in trust_keys:
        edit(folder / "codex.toml", line, "")
    assert "untrusted" not in codes(
        report(wired, "--vendor", "codex", "--profiles", str(folder)), "codex")
    data = report(wired, "--vendor", "codex")  # the shipped rule: no record matches an entry
    assert codes(data, "codex")["untrusted"] == "warn"
    assert any(str(config) in m for m in messages(data, "codex", "untrusted"))


def test_also_read_file_is_checked(wired: Path) -> None:
    local = wired.parent / ".claude/settings.local.json"
    local.parent.mkdir(parents=True)
    local.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}))
    data = report(wired, "--vendor", "claude")
    assert any(str(local) in m for m in messages(data, "claude", "bad-shape"))
    assert str(local) in next(r for r in data["reports"] if r["vendor"] == "claude")["files"]


def test_legacy_path_says_only_older_versions_read_it(wired: Path) -> None:
    old = wired / ".gemini/hooks.json"
    old.write_text((wired / ".gemini/config/hooks.json").read_text())
    data = report(wired, "--vendor", "agy")
    assert codes(data, "agy")["unread-location"] == "warn"  # the current file is wired too
    assert any(str(old) in m and "older versions" in m
               for m in messages(data, "agy", "unread-location"))


# --- readiness seen live: heartbeat, the gates' own log, the harness home ------------------


def test_stale_heartbeat(wired: Path) -> None:
    beat = wired / HARNESS / "heartbeat"
    assert "stale-heartbeat" not in codes(report(wired), "harness")
    old = time.time() - 600
    os.utime(beat, (old, old))
    data = report(wired)
    assert codes(data, "harness")["stale-heartbeat"] == "warn"
    assert any(re.search(r"heartbeat is 60\d s old \(the gates accept 30 s\)", m)
               for m in messages(data, "harness", "stale-heartbeat")), data
    assert "not-ready" not in codes(data, "harness")
    beat.unlink()
    assert codes(report(wired), "harness")["stale-heartbeat"] == "warn"


def log_calls(home: Path, *outcomes: str) -> None:
    log = home / HARNESS / "squid/debug.log"
    now = time.time()
    lines = []
    for i, outcome in enumerate(outcomes):
        run = f"{100 + i}-{int(now)}"
        head = f"t={now - 60 + i:.3f}\trun={run}"
        tail = "\ttentacle=pd-hook-pre-tool\tvendor=codex\tphase=PD EDIT"
        lines.append(f"{head}\tev=start{tail}")
        lines.append(f"{head}\tev=end{tail}\toutcome={outcome}\texit=0\tms=3")
    log.write_text("\n".join(lines) + "\n")


def test_gate_log_shows_every_recent_call_skipped(wired: Path) -> None:
    log_calls(wired, "healthy", "not-ready", "not-ready", "unarmed", "not-ready", "not-ready")
    data = report(wired)
    assert codes(data, "harness")["gates-skipping"] == "warn"
    [message] = messages(data, "harness", "gates-skipping")
    assert "4 x not-ready (skipped: daemon not ready)" in message
    assert "1 x unarmed (skipped: project not armed)" in message
    log_calls(wired, "not-ready", "skipped-open", "healthy")
    assert "gates-skipping" not in codes(report(wired), "harness")
    log_calls(wired, "skipped-open")
    assert any("circuit open" in m for m in messages(report(wired), "harness", "gates-skipping"))


def test_harness_home_from_pd_home_but_not_set_for_doctor(home: Path, tmp_path: Path) -> None:
    custom = tmp_path / "pd-custom"
    assert install(home, env={"PD_HOME": str(custom)}).code == 0
    data = report(home, "--vendor", "claude")
    assert codes(data, "claude")["home-mismatch"] == "warn"
    assert "stale-entry" not in codes(data, "claude")
    fix = next(f["fix"] for r in data["reports"] if r["vendor"] == "claude"
               for f in r["findings"] if f["code"] == "home-mismatch")
    assert f"PD_HOME={custom}" in fix
    with_env = report(home, "--vendor", "claude", env={"PD_HOME": str(custom)})
    assert "home-mismatch" not in codes(with_env, "claude")
    assert codes(with_env, "harness")["home-env"] == "info"


def test_stale_entry_is_not_a_home_mismatch_without_a_ledger(home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "pd-gone"
    assert install(home, env={"PD_HOME": str(gone)}).code == 0
    (gone / "hookshape-ledger.json").unlink()
    data = report(home, "--vendor", "claude")
    assert "home-mismatch" not in codes(data, "claude")
    assert codes(data, "claude")["stale-entry"] == "warn"


# --- vendor notes come from the profiles' facts ------------------------------------------------


@pytest.mark.parametrize(("vendor", "code"), [("claude", "write-before-read"),
                                              ("gemini", "context-escaping"),
                                              ("gemini", "prompt-refire"),
                                              ("codex", "block-reason-suffix")])
def test_vendor_note_is_the_profile_fact(wired: Path, vendor: str, code: str) -> None:
    data = report(wired, "--vendor", vendor)
    assert codes(data, vendor)[code] == "info"
    fact = next(f.fact for f in load_profiles()[vendor].facts if f.doctor == code)
    assert messages(data, vendor, code) == [fact]


def test_claude_note_covers_edit_and_write(wired: Path) -> None:
    [message] = messages(report(wired, "--vendor", "claude"), "claude", "write-before-read")
    assert "Edit" in message and "Write" in message


def test_gemini_notes_name_the_escaping_and_the_refire(wired: Path) -> None:
    data = report(wired, "--vendor", "gemini")
    assert "&lt;" in messages(data, "gemini", "context-escaping")[0]
    assert "BeforeAgent fires again" in messages(data, "gemini", "prompt-refire")[0]
    assert ". Command: " in messages(report(wired, "--vendor", "codex"), "codex",
                                      "block-reason-suffix")[0]


def test_a_note_marked_in_a_profile_shows_and_unmarked_does_not(wired: Path,
                                                               tmp_path: Path) -> None:
    folder = profile_copy(tmp_path, "codex", 'topic = "matcher"\n',
                          'topic = "matcher"\ndoctor = "patch-matcher"\n')
    edit(folder / "codex.toml", 'doctor = "block-reason-suffix"\n', "")
    found = codes(report(wired, "--vendor", "codex", "--profiles", str(folder)), "codex")
    assert found["patch-matcher"] == "info"
    assert "block-reason-suffix" not in found


# --- JSON with comments (Gemini reads settings.json with comments) -------------------------


COMMENTED = '{\n  // theme picked by hand, see "ui" docs\n  "ui": {"theme": "GitHub"}, /* a // b */\n'


def test_gemini_settings_with_comments_are_not_unparsable(wired: Path) -> None:
    settings = wired / ".gemini/settings.json"
    text = settings.read_text()
    settings.write_text(COMMENTED + text.split("{", 1)[1])
    data = report(wired, "--vendor", "gemini")
    found = codes(data, "gemini")
    assert "unparsable" not in found and "not-wired" not in found, found
    assert found["comments"] == "info"
    assert any("keep them byte for byte" in m for m in messages(data, "gemini", "comments"))
    assert data["exit"] == 0


def test_gemini_comments_do_not_stop_install_and_doctor_agrees(home: Path) -> None:
    settings = home / ".gemini/settings.json"
    settings.write_text(COMMENTED + settings.read_text().split("{", 1)[1])
    assert install(home, "--vendor", "gemini").code == 0
    assert settings.read_text().startswith(COMMENTED)
    data = report(home, "--vendor", "gemini")
    assert codes(data, "gemini")["comments"] == "info"
    assert "not-wired" not in codes(data, "gemini")
    assert "unparsable" not in codes(data, "gemini")


def test_comments_still_unparsable_where_the_vendor_forbids_them(wired: Path) -> None:
    settings = wired / ".claude/settings.json"
    settings.write_text(COMMENTED + settings.read_text().split("{", 1)[1])
    assert codes(report(wired, "--vendor", "claude"), "claude")["unparsable"] == "error"


def test_a_comment_marker_inside_a_string_is_kept(wired: Path) -> None:
    settings = wired / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    data["general"]["preferredEditor"] = "vim // not a comment /* nor this */"
    settings.write_text("// lead\n" + json.dumps(data, indent=2))
    found = codes(report(wired, "--vendor", "gemini"), "gemini")
    assert found["comments"] == "info" and "unparsable" not in found


def test_a_fail_closed_switch_on_our_entry_is_an_error(wired: Path) -> None:
    """Claude's onFailure: "block" (profile config.fail_closed) would make a crashed or timed-out
    gate block: doctor says so; without it nothing is said."""
    assert "fail-closed" not in codes(report(wired, "--vendor", "claude"), "claude")
    settings = wired / ".claude/settings.json"
    data = json.loads(settings.read_text())
    ours = next(h for g in data["hooks"]["PreToolUse"] for h in g["hooks"] if "pd-hook-pre-tool" in h["command"])
    ours["onFailure"] = "block"
    settings.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "claude")
    assert codes(found, "claude")["fail-closed"] == "error"


def test_codex_explains_the_retrust_a_change_causes(wired: Path) -> None:
    assert codes(report(wired, "--vendor", "codex"), "codex")["retrust-after-change"] == "info"


# -- the field's silent failures ---------------------------------------------------------------


def add_claude_hook(home: Path, event: str, matcher: str | None, command: str) -> None:
    settings = home / ".claude/settings.json"
    data = json.loads(settings.read_text())
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher is not None:
        group["matcher"] = matcher
    data["hooks"].setdefault(event, []).append(group)
    settings.write_text(json.dumps(data, indent=2))


def test_claude_says_where_its_settings_hooks_run(wired: Path) -> None:
    data = report(wired, "--vendor", "claude")
    assert codes(data, "claude")["where-hooks-run"] == "info"
    assert "setting sources" in messages(data, "claude", "where-hooks-run")[0]
    assert "sdk-host" not in codes(data, "claude")


@pytest.mark.parametrize(("entrypoint", "warned"), [("sdk-ts", True), ("sdk-py", True),
                                                    ("claude-vscode", True), ("cli", False)])
def test_claude_inside_an_agent_sdk_host(wired: Path, entrypoint: str, warned: bool) -> None:
    data = report(wired, "--vendor", "claude", env={"CLAUDE_CODE_ENTRYPOINT": entrypoint})
    assert ("sdk-host" in codes(data, "claude")) is warned
    if warned:
        assert f"CLAUDE_CODE_ENTRYPOINT={entrypoint}" in messages(data, "claude", "sdk-host")[0]


@pytest.mark.parametrize(("matcher", "bare"), [("mcp__github", ["mcp__github"]),
                                               ("Bash|mcp__github|mcp__linear", ["mcp__github", "mcp__linear"]),
                                               ("mcp__github__.*", []), ("mcp__github__create_issue", []),
                                               ("^mcp__github", [])])
def test_claude_mcp_server_matcher_without_a_tool_part(wired: Path, matcher: str, bare: list[str]) -> None:
    add_claude_hook(wired, "PreToolUse", matcher, "/opt/mcp-audit/audit.sh")
    found = messages(report(wired, "--vendor", "claude"), "claude", "mcp-matcher")
    assert [m.split("the matcher names ", 1)[1].split(",", 1)[0] for m in found] == bare
    assert all("match mcp__" not in m for m in found)  # the fix is its own line


def plugin(home: Path, key: str, servers: dict[str, Any], where: str = ".mcp.json") -> Path:
    """A Claude Code plugin installed as `claude plugin install` leaves it (2.1.332)."""
    name, market = key.split("@")
    root = home / ".claude/plugins/cache" / market / name / "0.1.0"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name, "version": "0.1.0"}))
    if where == ".mcp.json":
        (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    else:
        (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name, "mcpServers": servers}))
    index = home / ".claude/plugins/installed_plugins.json"
    data = json.loads(index.read_text()) if index.exists() else {"version": 2, "plugins": {}}
    data["plugins"][key] = [{"scope": "user", "installPath": str(root), "version": "0.1.0",
                             "installedAt": "2026-12-04T16:39:57.329Z"}]
    index.write_text(json.dumps(data, indent=2))
    return root


@pytest.mark.parametrize("where", [".mcp.json", "plugin.json"])
def test_claude_matcher_misses_a_plugin_bundled_mcp_server(wired: Path, where: str) -> None:
    plugin(wired, "gh-tools@acme", {"github": {"command": "npx", "args": ["github-mcp"]}}, where)
    add_claude_hook(wired, "PreToolUse", "mcp__github__.*", "/opt/mcp-audit/audit.sh")
    data = report(wired, "--vendor", "claude")
    [said] = messages(data, "claude", "plugin-mcp-names")
    assert "the MCP server github comes from the plugin gh-tools" in said
    assert "mcp__plugin_gh-tools_github__<tool>" in said


def test_a_matcher_that_names_the_plugin_tools_or_a_disabled_plugin_is_fine(wired: Path) -> None:
    plugin(wired, "gh-tools@acme", {"github": {"command": "npx"}})
    add_claude_hook(wired, "PreToolUse", "mcp__github__.*|mcp__plugin_gh-tools_github__.*", "/opt/a.sh")
    assert "plugin-mcp-names" not in codes(report(wired, "--vendor", "claude"), "claude")
    add_claude_hook(wired, "PreToolUse", "mcp__github__.*", "/opt/b.sh")
    assert "plugin-mcp-names" in codes(report(wired, "--vendor", "claude"), "claude")
    settings = wired / ".claude/settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"gh-tools@acme": False}
    settings.write_text(json.dumps(data, indent=2))
    assert "plugin-mcp-names" not in codes(report(wired, "--vendor", "claude"), "claude")


def test_gemini_skips_an_event_name_of_another_vendor(wired: Path) -> None:
    settings = wired / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    guard = {"matcher": "write_file", "hooks": [{"type": "command", "command": "/opt/guard.sh"}]}
    data["hooks"]["PreToolUse"] = [guard]  # Claude Code's name: Gemini CLI skips it
    data["hooks"]["OnSave"] = [guard]  # nobody's
    data["hooks"]["BeforeModel"] = [guard]  # Gemini's own, beside the four roles
    data["hooks"]["disabled"] = ["old-hook"]  # a setting, not an event
    settings.write_text(json.dumps(data, indent=2))
    found = report(wired, "--vendor", "gemini")
    said = messages(found, "gemini", "unknown-event")
    assert len(said) == 2, said
    assert said[0].endswith("hooks.PreToolUse is no Gemini CLI event (PreToolUse is the pre_tool event of "
                            "Antigravity, Claude Code, Codex CLI, Factory Droid, Kimi Code CLI and "
                            "Qwen Code; here it is BeforeTool): it skips these hooks, so they never run"), said[0]
    assert "hooks.OnSave is no Gemini CLI event: it skips" in said[1]
    assert "bad-shape" not in codes(found, "gemini")


def test_copilot_runs_the_projects_claude_settings_too(wired: Path, tmp_path: Path) -> None:
    claude = tmp_path / ".claude/settings.json"
    claude.parent.mkdir()
    claude.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/n.sh"}]}]}}))
    data = report(wired, "--vendor", "copilot")
    assert codes(data, "copilot")["also-runs"] == "info" and "double-run" not in codes(data, "copilot")
    assert install(wired, "--vendor", "claude", "--scope", "project", "--project", str(tmp_path)).code == 0
    data = report(wired, "--vendor", "copilot")
    assert codes(data, "copilot")["double-run"] == "warn"
    [said] = messages(data, "copilot", "double-run")
    assert said.startswith(f"{claude} (Claude Code's) holds 3 giant-squid entries (pd-hook-pre-tool, "
                           "pd-hook-prompt, pd-hook-stop), and Copilot CLI also runs that file's hooks")
    assert "each of those gates runs twice" in said


def test_another_installers_command_registered_twice(wired: Path) -> None:
    add_claude_hook(wired, "Stop", None, "/opt/notify/done.sh --quiet")
    add_claude_hook(wired, "Stop", None, "/opt/notify/done.sh --quiet")  # identical: Claude runs it once
    assert "duplicate-command" not in codes(report(wired, "--vendor", "claude"), "claude")
    add_claude_hook(wired, "Stop", None, "sh /opt/notify/../notify/done.sh --quiet")  # the same, spelled otherwise
    [said] = messages(report(wired, "--vendor", "claude"), "claude", "duplicate-command")
    assert "registered 3 times on Stop" in said and "runs it 2 times per event" in said


def test_codex_runs_a_duplicate_as_often_as_it_is_registered(wired: Path) -> None:
    config = wired / ".codex/config.toml"
    config.write_text(config.read_text() + '\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n'
                      '[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
                      'command = "/usr/local/bin/bash-guard --strict"\ntimeout = 10\n')
    [said] = messages(report(wired, "--vendor", "codex"), "codex", "duplicate-command")
    assert "registered 2 times on PreToolUse" in said and "runs it 2 times per event" in said
