"""CLI exit codes and output channels: 0 on success, 1 on a user error (one line on stderr, no
traceback), a unified diff on stdout for `render --check` drift, valid JSON from --json."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
LEVELS = {"enforced", "best-effort", "observe-only", "unsupported"}


def hookshape(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("HOOKSHAPE_HOME", None)
    return subprocess.run([sys.executable, "-m", "hookshape", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def console_script() -> Path:
    return Path(sys.executable).parent / "hookshape"


def test_help_exits_0() -> None:
    for flag in ("--help", "-h"):
        proc = hookshape(flag)
        assert proc.returncode == 0, proc.stderr
        assert "Usage:" in proc.stdout
        for name in ("render", "validate", "capabilities"):
            assert re.search(rf"^\s+{name}\b", proc.stdout, re.M), \
                f"{name} not listed:\n{proc.stdout}"


@pytest.mark.parametrize("command", ["render", "validate", "capabilities"])
def test_command_help_exits_0(command: str) -> None:
    proc = hookshape(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--spec" in proc.stdout


def test_console_script_is_installed() -> None:
    script = console_script()
    assert script.is_file(), f"{script}: console script missing (pip install -e .)"
    proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr


def test_version() -> None:
    from hookshape import __version__

    proc = hookshape("--version")
    assert proc.returncode == 0
    assert __version__ in proc.stdout


def test_unknown_command_is_non_zero() -> None:
    proc = hookshape("frobnicate")
    assert proc.returncode != 0
    assert proc.returncode == 1  # user errors exit 1 (click's usage error 2 is mapped)
    assert "frobnicate" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_option_is_non_zero() -> None:
    proc = hookshape("validate", "--no-such-option")
    assert proc.returncode != 0
    assert "no-such-option" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate_default_spec_exits_0() -> None:
    proc = hookshape("validate")  # cwd is the project root: ./hookshape.toml
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.startswith("hookshape.toml: valid")


def test_validate_default_spec_from_elsewhere_exits_0(tmp_path: Path) -> None:
    proc = hookshape("validate", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_validate_bad_spec_exits_1(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(SPEC.read_text().replace("slow_ms = ", "slow_msec = ", 1))
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"hookshape: error: {spec}: gate.")
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_validate_writes_nothing(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    shutil.copy(SPEC, spec)
    proc = hookshape("validate", "--spec", spec, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.toml"]


def test_capabilities_table() -> None:
    proc = hookshape("capabilities")
    assert proc.returncode == 0, proc.stderr
    table = [line for line in proc.stdout.splitlines() if line.startswith("| `")]
    assert len(table) == 4  # one row per tentacle
    for row in table:
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert len(cells) == 4 and set(cells) <= LEVELS, row
    assert not proc.stdout.startswith("\n")


def test_capabilities_json() -> None:
    proc = hookshape("capabilities", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    cells = data["capabilities"]
    assert len(cells) == 16  # 4 tentacles x 4 vendors
    assert {(c["role"], c["vendor"]) for c in cells} == {
        (r, v) for r in ("prompt", "pre_tool", "post_tool", "stop")
        for v in ("agy", "claude", "codex", "gemini")}
    for c in cells:
        assert set(c) == {"tentacle", "role", "vendor", "level", "reason"}
        assert c["level"] in LEVELS and c["reason"]


def test_capabilities_on_bad_spec_exits_1(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(SPEC.read_text().replace('prefix = "pd"', 'prefix = "PD"', 1))
    proc = hookshape("capabilities", "--json", "--spec", spec)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"hookshape: error: {spec}: harness.prefix: ")


# --- render and render --check (need the full template set) ----------------------------------


def test_render_check_on_the_committed_dist_exits_0() -> None:
    proc = hookshape("render", "--check")
    assert proc.returncode == 0, (f"dist/ is stale: run `make render`\n{proc.stdout[-4000:]}"
                                  f"\n{proc.stderr}")
    assert "up to date" in proc.stdout


def test_render_check_reports_drift_as_a_unified_diff(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    proc = hookshape("render", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert hookshape("render", "--check", "--out", out).returncode == 0

    # 1. a changed line in a config block
    settings = out / "config" / "claude" / "settings.json"
    text = settings.read_text()
    settings.write_text(text.replace('"timeout": 5', '"timeout": 7', 1))
    proc = hookshape("render", "--check", "--out", out)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "--- a/config/claude/settings.json" in proc.stdout
    assert "+++ b/config/claude/settings.json" in proc.stdout
    assert re.search(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", proc.stdout, re.M)
    assert re.search(r'^-\s+"timeout": 7,?$', proc.stdout, re.M), proc.stdout
    assert re.search(r'^\+\s+"timeout": 5,?$', proc.stdout, re.M), proc.stdout
    assert "differs" in proc.stderr
    settings.write_text(text)
    assert hookshape("render", "--check", "--out", out).returncode == 0

    # 2. a lost executable bit
    gate = next(p for p in (out / "bin").iterdir() if p.is_file())
    gate.chmod(0o644)
    proc = hookshape("render", "--check", "--out", out)
    assert proc.returncode == 1
    assert gate.relative_to(out).as_posix() in proc.stdout
    gate.chmod(0o755)

    # 3. a stray file and a missing file
    (out / "bin" / "stray").write_text("x\n")
    (out / "CAPABILITIES.md").unlink()
    proc = hookshape("render", "--check", "--out", out)
    assert proc.returncode == 1
    assert "bin/stray" in proc.stdout
    assert "+++ b/CAPABILITIES.md" in proc.stdout

    # --check never writes
    assert not (out / "CAPABILITIES.md").exists()
    assert (out / "bin" / "stray").exists()

    # a plain render repairs what it owns (whether it prunes a stray file it never wrote is
    # test_render.py's business)
    (out / "bin" / "stray").unlink()
    proc = hookshape("render", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "CAPABILITIES.md").is_file()
    assert hookshape("render", "--check", "--out", out).returncode == 0


def test_render_check_on_a_copied_dist(tmp_path: Path) -> None:
    """The brief's form: copy the committed dist/, modify the copy, check it with --out."""
    dist = ROOT / "dist"
    assert (dist / "MANIFEST").is_file(), "dist/ is not rendered: run `make render`"
    copy = tmp_path / "dist"
    shutil.copytree(dist, copy)
    assert hookshape("render", "--check", "--out", copy).returncode == 0
    target = next(p for p in sorted((copy / "bin").rglob("*")) if p.is_file())
    lines = target.read_text().splitlines(keepends=True)
    lines.insert(3, "echo tampered\n")
    target.write_text("".join(lines))
    proc = hookshape("render", "--check", "--out", copy)
    assert proc.returncode == 1
    rel = target.relative_to(copy).as_posix()
    assert f"--- a/{rel}" in proc.stdout and f"+++ b/{rel}" in proc.stdout
    assert re.search(r"^-echo tampered$", proc.stdout, re.M), proc.stdout
    # the committed dist/ is untouched
    assert hookshape("render", "--check").returncode == 0


def test_render_check_into_a_missing_dir_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "never"
    proc = hookshape("render", "--check", "--out", out)
    assert proc.returncode == 1
    assert "+++ b/MANIFEST" in proc.stdout
    assert not out.exists()


def test_render_reports_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = hookshape("render", "--out", out)
    assert first.returncode == 0, first.stderr
    n = sum(1 for p in out.rglob("*") if p.is_file())
    assert f"{n} of {n} files written" in first.stdout
    again = hookshape("render", "--out", out)
    assert again.returncode == 0
    assert f"0 of {n} files written" in again.stdout


def test_render_into_an_impossible_out_is_a_user_error(tmp_path: Path) -> None:
    """An --out that cannot be created (under a regular file): one line, exit 1, no traceback."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x\n")
    for out in (blocker, blocker / "sub"):
        proc = hookshape("render", "--out", out)
        assert proc.returncode == 1, proc
        assert "Traceback" not in proc.stderr, proc.stderr
        assert str(blocker.name) in proc.stderr
    assert blocker.read_text() == "x\n"
