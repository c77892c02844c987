"""A project setup a team commits: `install --scope project` puts the scripts in the project
(harness.project_dir) and writes each command through the vendor's own way of naming the project
(its profile's [project] root: a project-dir variable, or Codex's git lookup), so a clone at
another path, by another user with another home, runs the same hooks with nothing to install;
the harness home (state, ledger, journal) stays per user, and uninstall gives every byte back."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.hookkit import Run, answer, edit_doc, raw
from tests.installkit import (
    FIXTURES,
    HARNESS,
    SPEC,
    hs,
    install,
    ours,
    snapshot,
    uninstall,
    with_spec,
)

from hookshape.spec.load import load
from hookshape.spec.profiles import Profile, load_profiles

pytest_plugins = ["tests.installkit"]  # fixtures: home

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "examples" / "minimal.toml"
PROFILES = load_profiles()
RUNS = sorted(v for v, p in PROFILES.items() if p.project.root)
CANNOT = sorted(v for v, p in PROFILES.items() if p.project.cannot)
FOLDER = ".hookshape/giant-squid"
GATES = ("pd-hook-prompt", "pd-hook-pre-tool", "pd-hook-stop")
# realistic project configs a team already has (the user fixtures, as the project's own files)
PROJECT_SEEDS = {".claude/settings.json": "claude-settings.json",
                 ".gemini/settings.json": "gemini-settings.json",
                 ".codex/hooks.json": "codex-hooks.json",
                 ".codex/config.toml": "codex-config.toml"}


def project_file(profile: Profile, name: str = "giant-squid") -> str:
    return profile.config.project_path.replace("{name}", name)


def seeded_project(folder: Path) -> Path:
    for rel, fixture in PROJECT_SEEDS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURES / fixture, folder / rel)
    return folder


def test_vendors_either_run_a_project_setup_or_say_why_not() -> None:
    assert RUNS == ["claude", "codex", "copilot", "cursor", "factory", "gemini", "qwen"]
    assert CANNOT == ["agy", "kimi"]
    # Gemini CLI 0.61.0 text-replaces an unbraced $GEMINI_PROJECT_DIR with a shell-quoted path
    assert all(re.fullmatch(r"\$\{[A-Z_]+\}", PROFILES[v].project.root) for v in RUNS if v != "codex")
    assert PROFILES["codex"].project.root == "$(git rev-parse --show-toplevel)"


def test_a_project_setup_lives_in_the_project(home: Path, tmp_path: Path) -> None:
    project = seeded_project(tmp_path / "proj")
    user_before, project_before = snapshot(home), snapshot(project)
    result = install(home, "--scope", "project", "--project", str(project))
    assert result.code == 0, result.err
    assert "note: agy: Antigravity cannot run a project's setup: unreliable: " in result.out
    assert "note: kimi: Kimi Code CLI cannot run a project's setup: Kimi Code reads hooks from no " \
        "project file" in result.out
    assert f"staged 13 scripts under {project / FOLDER}/bin (13 written)" in result.out
    for gate in GATES:
        assert os.access(project / FOLDER / "bin" / gate, os.X_OK)
    assert sorted(p.name for p in (home / HARNESS).iterdir()) == ["backups", "hookshape-ledger.json"]
    for vendor in RUNS:
        profile = PROFILES[vendor]
        found = ours_in(json.loads((project / project_file(profile)).read_text()), profile, "PD")
        root = profile.project.root
        assert sorted(found) == sorted(f'PD_HOOK_PROVIDER={vendor} "{root}/{FOLDER}/bin/{gate}"'
                                       for gate in GATES), vendor
    for path in project.rglob("*"):
        if path.is_file() and FOLDER not in str(path):
            text = path.read_text()
            assert str(home) not in text and str(project) not in text, path
    assert (project / ".codex/config.toml").read_bytes() == (FIXTURES / "codex-config.toml").read_bytes()
    installed = snapshot(project)
    assert install(home, "--scope", "project", "--project", str(project)).code == 0
    assert snapshot(project) == installed
    assert uninstall(home, "--scope", "project", "--project", str(project)).code == 0
    assert snapshot(project) == project_before
    assert snapshot(home) == user_before


def test_user_and_project_setups_side_by_side(home: Path, tmp_path: Path) -> None:
    """One ledger keeps both: taking the project's away leaves the user's scripts and entries,
    and the user's uninstall leaves the project's."""
    project = seeded_project(tmp_path / "proj")
    user_before, project_before = snapshot(home), snapshot(project)
    assert install(home).code == 0
    user_installed = snapshot(home)
    assert install(home, "--scope", "project", "--project", str(project)).code == 0
    project_installed = snapshot(project)
    assert uninstall(home, "--scope", "project", "--project", str(project)).code == 0
    assert snapshot(project) == project_before
    assert {k: v for k, v in snapshot(home).items() if "/backups" not in k and "ledger" not in k} == \
        {k: v for k, v in user_installed.items() if "/backups" not in k and "ledger" not in k}
    assert install(home, "--scope", "project", "--project", str(project)).code == 0
    assert uninstall(home).code == 0
    assert snapshot(project) == project_installed
    assert not (home / HARNESS / "bin").exists()
    assert uninstall(home, "--scope", "project", "--project", str(project)).code == 0
    assert snapshot(project) == project_before
    assert snapshot(home) == user_before


def test_a_teammate_reinstalls_in_a_clone_and_gives_the_committed_setup_back(
        home: Path, tmp_path: Path) -> None:
    """Another user installs a newer spec into their clone (nothing of it in their ledger): what
    was committed is backed up, and their uninstall puts every byte of it back."""
    project = seeded_project(tmp_path / "proj")
    assert install(home, "--scope", "project", "--project", str(project)).code == 0
    clone = tmp_path / "clone"
    shutil.copytree(project, clone, symlinks=True)
    committed = snapshot(clone)
    other = tmp_path / "other-home"
    other.mkdir()
    newer = tmp_path / "newer.toml"
    newer.write_text(SPEC.read_text().replace("timeout_ms = 5000", "timeout_ms = 6000"))
    assert with_spec(newer, "install", other, "--scope", "project", "--project", str(clone)).code == 0
    assert snapshot(clone) != committed
    assert '"timeout": 6' in (clone / ".claude/settings.json").read_text()
    assert with_spec(newer, "uninstall", other, "--scope", "project", "--project", str(clone)).code == 0
    assert snapshot(clone) == committed
    assert not (other / HARNESS).exists()


def test_a_project_setup_refuses_a_vendor_that_cannot_run_one(home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = install(home, "--scope", "project", "--project", str(tmp_path / "p"), "--vendor", "kimi")
    assert result.code == 1
    assert result.err == ("hookshape: error: kimi: Kimi Code CLI cannot run a project's setup: "
                          f"{PROFILES['kimi'].project.cannot}")
    assert snapshot(tmp_path) == before


def test_project_dir_is_the_specs(home: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.read_text().replace('project_dir = ".hookshape/giant-squid"',
                                             'project_dir = "tools/agent-hooks"'))
    project = tmp_path / "proj"
    assert with_spec(spec, "install", home, "--scope", "project", "--project", str(project),
                     "--vendor", "claude").code == 0
    assert (project / "tools/agent-hooks/bin/pd-hook-stop").is_file()
    assert all('"${CLAUDE_PROJECT_DIR}/tools/agent-hooks/bin/' in c
               for c in ours(project / ".claude/settings.json"))
    bad = hs("validate", "--spec", str(spec.with_name("bad.toml")))
    assert bad.code == 1
    spec.with_name("bad.toml").write_text(SPEC.read_text().replace(
        'project_dir = ".hookshape/giant-squid"', 'project_dir = "../elsewhere"'))
    bad = hs("validate", "--spec", str(spec.with_name("bad.toml")))
    assert bad.code == 1 and "harness.project_dir" in bad.err and "'..'" in bad.err


# --- a clone elsewhere, by someone else --------------------------------------------------------


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The minimal example installed at project scope by one user in one place, the project
    then moved (a path with a space and a quote, which the vendors' own substitutions have
    broken) and the first user's home gone, with another user's home beside it, empty but for
    the gates' debug switch: (project, home)."""
    base = tmp_path_factory.mktemp("clone")
    first_home, first = base / "alice", base / "alice-work" / "proj"
    first_home.mkdir()
    first.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(first)], check=True)
    (first / "src").mkdir()
    result = with_spec(MINIMAL, "install", first_home, "--scope", "project", "--project", str(first))
    assert result.code == 0, result.err
    there = base / "bob's work" / "proj copy"
    there.parent.mkdir()
    shutil.move(first, there)
    shutil.rmtree(first_home)  # elsewhere: nothing of the first user's home is there
    second_home = base / "bob"
    spec = load(MINIMAL).spec
    debug = second_home / spec.harness.home_default.removeprefix("~/") / spec.gate.debug_switch_file
    debug.parent.mkdir(parents=True)
    debug.write_text("")
    return there, second_home


@pytest.mark.parametrize("vendor", RUNS)
def test_a_committed_setup_runs_after_a_move_by_another_user(moved: tuple[Path, Path],
                                                            vendor: str) -> None:
    """Each vendor's configured pre_tool command, run as the vendor runs it (its shell, its
    project variable, the session's cwd in a subdirectory), from the moved project and another
    home: the example's guard blocks an edit of .env, the project is left as it was, and the
    gate's log lands in the other user's harness home."""
    project, home = moved
    profile = PROFILES[vendor]
    config = json.loads((project / project_file(profile, "acme-guard")).read_text())
    [command] = [c for c in ours_in(config, profile, "ACME") if "pre-tool" in c]
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    env.update({name: str(project) for name in re.findall(r"\$\{([A-Z_]+)\}", profile.project.root)})
    cwd = project / "src"
    before = snapshot(project)
    proc = subprocess.run([*profile.project.shell, command], cwd=cwd, env=env, capture_output=True,
                          input=raw(edit_doc(vendor, ".env", cwd)), timeout=60)
    run = Run(proc.returncode, proc.stdout, proc.stderr, 0.0)
    said = answer(run, vendor, "deny", "pre_tool")
    assert said is not None and "is a secrets file" in said, run.brief()
    assert snapshot(project) == before
    spec = load(MINIMAL).spec
    log = home / spec.harness.home_default.removeprefix("~/") / spec.gate.debug_log
    assert f"vendor={vendor}" in log.read_text()


def ours_in(config: object, profile: Profile, prefix: str) -> list[str]:
    """The commands of the harness (its provider variable's prefix) in a vendor config."""
    key = profile.config.handler.command
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k == key and isinstance(v, str) and v.startswith(f"{prefix}_HOOK_PROVIDER="):
                    found.append(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(config)
    return found
