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
from tests import clikit

from hookshape.spec.load import load

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
LEVELS = {"enforced", "best-effort", "observe-only", "unsupported"}


def hookshape(*args: str | Path, cwd: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in this process (tests.clikit), never reading the caller's HOOKSHAPE_* variables."""
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None, "HOOKSHAPE_SPEC": None, **(env or {})})


def hookshape_process(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m hookshape` in a fresh interpreter, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if k not in ("HOOKSHAPE_HOME", "HOOKSHAPE_SPEC")}
    return subprocess.run([sys.executable, "-m", "hookshape", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def console_script() -> Path:
    return Path(sys.executable).parent / "hookshape"


def test_help_exits_0() -> None:
    for flag in ("--help", "-h"):
        proc = hookshape_process(flag)
        assert proc.returncode == 0, proc.stderr
        assert "Usage:" in proc.stdout
        for name in ("render", "validate", "capabilities"):
            assert re.search(rf"^\s+{name}\b", proc.stdout, re.M), \
                f"{name} not listed:\n{proc.stdout}"


@pytest.mark.parametrize("width", [40, 80, 200])
def test_help_lists_each_command_as_its_own_help_says_it(width: int) -> None:
    """`--help` takes the summaries from the table in hookshape.cli (no command imported): each
    is, at every width, the short help its command gives, and every command module is listed."""
    import click

    from hookshape.cli import COMMANDS, cli

    modules = sorted(p.stem for p in (ROOT / "generator/hookshape/commands").glob("*.py")
                     if p.stem not in ("__init__", "options"))
    assert sorted(COMMANDS) == modules
    ctx = click.Context(cli, terminal_width=width, max_content_width=width)
    formatter = ctx.make_formatter()
    cli.format_commands(ctx, formatter)
    limit = formatter.width - 6 - max(map(len, COMMANDS))
    rows = [(n, cmd.get_short_help_str(limit)) for n in COMMANDS
            if (cmd := cli.get_command(ctx, n)) is not None]
    expected = ctx.make_formatter()
    with expected.section("Commands"):
        expected.write_dl(rows)
    assert formatter.getvalue() == expected.getvalue()


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
    proc = hookshape_process("frobnicate")
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


def test_validate_default_spec_from_elsewhere_needs_default(tmp_path: Path) -> None:
    proc = hookshape("validate", "--default", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_validate_bad_spec_exits_1(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(SPEC.read_text().replace("slow_ms = ", "slow_msec = ", 1))
    proc = hookshape_process("validate", "--spec", spec)
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
    vendors = load(SPEC).vendors
    assert len(table) == 4  # one row per tentacle
    for row in table:
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert len(cells) == len(vendors) and set(cells) <= LEVELS, row
    assert not proc.stdout.startswith("\n")


def test_capabilities_json() -> None:
    proc = hookshape("capabilities", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    cells = data["capabilities"]
    vendors = [p.id for p in load(SPEC).vendors]
    assert len(cells) == 4 * len(vendors)  # 4 tentacles x the vendors the spec enables
    assert {"copilot", "qwen", "kimi", "cursor", "factory"} <= set(vendors)
    assert {(c["role"], c["vendor"]) for c in cells} == {
        (r, v) for r in ("prompt", "pre_tool", "post_tool", "stop") for v in vendors}
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
    assert proc.stderr.rstrip().endswith(f"run `hookshape render --out {out}`")  # same target
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


# --- which spec: ./hookshape.toml, --spec / $HOOKSHAPE_SPEC, or --default; never a guess ----------

NO_SPEC_COMMANDS = [
    ("render",), ("render", "--check"), ("validate",), ("capabilities",), ("install",),
    ("uninstall",), ("doctor",), ("status",), ("package",),
    ("simulate", "--vendor", "claude", "--tentacle", "stop"),
]


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("args", NO_SPEC_COMMANDS, ids=[" ".join(a) for a in NO_SPEC_COMMANDS])
def test_no_spec_here_is_refused_and_nothing_is_written(args: tuple[str, ...],
                                                       tmp_path: Path) -> None:
    """From a directory without hookshape.toml no command falls back to the built-in default
    harness: install would wire it into the real home, render would write into the package."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    dist = ROOT / "dist"
    before = sorted((p.relative_to(dist).as_posix(), p.stat().st_mtime_ns)
                    for p in dist.rglob("*"))
    proc = hookshape(*args, cwd=work, env={"HOME": str(home)})
    line = one_error_line(proc)
    assert line == (f"hookshape: error: no hookshape.toml in {work}: create hookshape.toml, or "
                    "pass --spec FILE, or --default to use the built-in default harness"), line
    assert list(work.iterdir()) == [] and list(home.iterdir()) == []
    assert sorted((p.relative_to(dist).as_posix(), p.stat().st_mtime_ns)
                  for p in dist.rglob("*")) == before


def test_spec_from_the_environment(tmp_path: Path) -> None:
    spec = tmp_path / "mine.toml"
    shutil.copy(SPEC, spec)
    proc = hookshape("validate", cwd=tmp_path, env={"HOOKSHAPE_SPEC": str(spec)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{spec}: valid")
    # --default wins over the variable; on the command line --spec and --default conflict
    proc = hookshape("validate", "--default", cwd=tmp_path, env={"HOOKSHAPE_SPEC": str(spec)})
    assert proc.returncode == 0 and not proc.stdout.startswith(str(spec)), proc.stdout
    line = one_error_line(hookshape("validate", "--spec", spec, "--default", cwd=tmp_path))
    assert "--spec and --default" in line


def test_render_default_writes_dist_in_the_cwd_never_in_the_package(tmp_path: Path) -> None:
    """With the built-in spec and no --out, dist/ lands in the working directory; the spec's
    own folder (the installed package, or this checkout) is left alone."""
    dist = ROOT / "dist"
    (dist / "MANIFEST").touch()  # an mtime change would show a rewrite
    before = sorted((p.relative_to(dist).as_posix(), p.stat().st_mtime_ns)
                    for p in dist.rglob("*"))
    proc = hookshape("render", "--default", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{tmp_path / 'dist'}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]
    assert sorted((p.relative_to(dist).as_posix(), p.stat().st_mtime_ns)
                  for p in dist.rglob("*")) == before
    fresh = {p.relative_to(tmp_path / "dist").as_posix(): p.read_bytes()
             for p in (tmp_path / "dist").rglob("*") if p.is_file()}
    assert fresh == {p.relative_to(dist).as_posix(): p.read_bytes()
                     for p in dist.rglob("*") if p.is_file()}
    proc = hookshape("render", "--default", "--check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_render_from_the_repository_root_still_targets_dist() -> None:
    proc = hookshape("render", "--check")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert proc.stdout.startswith(f"{ROOT / 'dist'}: up to date")


def test_render_into_a_used_dir_counts_only_its_own_files(tmp_path: Path) -> None:
    """A dir rendered from a spec with more vendors: the stale files removed are not counted
    as written, and the count never exceeds the files this render manages."""
    out = tmp_path / "out"
    assert hookshape("render", "--out", out).returncode == 0
    total = sum(1 for p in out.rglob("*") if p.is_file())
    fewer = tmp_path / "fewer.toml"
    text = SPEC.read_text()
    for vendor in ("gemini", "agy"):
        text = text.replace(f"[vendors.{vendor}]\nenabled = true", f"[vendors.{vendor}]\nenabled = false")
    fewer.write_text(text)
    proc = hookshape("render", "--spec", fewer, "--out", out)
    assert proc.returncode == 0, proc.stderr
    now = sum(1 for p in out.rglob("*") if p.is_file())
    assert now == total - 2
    m = re.fullmatch(rf"{re.escape(str(out))}: (\d+) of (\d+) files written, 2 stale removed\n",
                     proc.stdout)
    assert m, proc.stdout
    assert int(m.group(2)) == now and int(m.group(1)) <= now


# --- unwritable --out: one line, exit 1, nothing written -------------------------------------

def unwritable(tmp_path: Path) -> Path:
    """A path under a regular file: no user (root included) can create it."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x\n")
    return blocker / "sub"


def test_schema_out_unwritable_is_one_line(tmp_path: Path) -> None:
    target = unwritable(tmp_path) / "schema.json"
    line = one_error_line(hookshape("schema", "--out", target))
    assert line.startswith("hookshape: error: ") and "cannot write" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_package_out_unwritable_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(hookshape("package", "--out", unwritable(tmp_path)))
    assert line.startswith("hookshape: error: ") and "cannot write" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


# --- validation output: every error at its key, in words --------------------------------------

def test_every_validation_error_on_its_own_line(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(SPEC.read_text().replace('prefix = "pd"', 'prefix = "PD"', 1)
                    .replace('home_env = "PD_HOME"', 'home_env = "pd-home"', 1)
                    .replace("slow_ms = ", "slow_msec = ", 1))
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert lines == [
        f"hookshape: error: {spec}: gate.slow_msec: unknown key; did you mean 'slow_ms'?",
        f'hookshape: error: {spec}: harness.prefix: "PD" must be a shell variable prefix: 1 to 12 '
        "lowercase letters and digits, starting with a letter",
        f'hookshape: error: {spec}: harness.home_env: "pd-home" must be an environment variable '
        "name: A-Z, 0-9 and _, not starting with a digit",
    ], proc.stderr
    assert "more)" not in proc.stderr


def test_pattern_errors_never_quote_a_regex() -> None:
    """Every pattern in the spec model has words: the JSON schema carries them as the
    description, and a mismatch says them instead of the regex."""
    from hookshape.commands.schema import schema
    from hookshape.spec.model import Spec
    from hookshape.spec.validation import pattern_words

    def patterns(node: object) -> list[dict[str, object]]:
        if isinstance(node, dict):
            own = [node] if isinstance(node.get("pattern"), str) else []
            return own + [n for v in node.values() for n in patterns(v)]
        if isinstance(node, list):
            return [n for v in node for n in patterns(v)]
        return []

    found = patterns(schema())
    assert found
    for node in found:
        assert isinstance(node.get("description"), str) and node["description"], node
    assert set(pattern_words(Spec)) == {n["pattern"] for n in found}


def test_a_utf8_bom_is_accepted(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + SPEC.read_bytes())
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{spec}: valid")


# --- doctor's suggestions carry the user's --spec and --home ---------------------------------

def test_doctor_fixes_repeat_spec_and_home(tmp_path: Path) -> None:
    """Every `hookshape ...` command doctor suggests carries the --spec and --home given to
    doctor (shell-quoted): without them the fix would act on another spec or the real home."""
    import time

    from tests.installkit import hs, seed

    work, home = tmp_path / "my work", tmp_path / "scratch home"
    work.mkdir()
    home.mkdir()
    seed(home)
    spec = work / "my spec.toml"
    shutil.copy(SPEC, spec)
    health = home / ".port-daddy" / "squid" / "health"  # an open breaker: status suggestions
    health.mkdir(parents=True)
    retry = int(time.time()) + 300
    (health / "pd-hook-pre-tool.state").write_text(
        f"breaker/1 open 3 timeout {retry - 300} {retry} 0 1\n")
    result = hs("doctor", "--spec", str(spec), "--home", str(home), "--project", str(work))
    assert result.code == 1, result
    suggested = re.findall(r"`(hookshape [^`]*)`", "\n".join(
        line for line in result.out.splitlines() if line.lstrip().startswith("fix:")))
    assert {c.split()[1] for c in suggested} >= {"install", "status"}, result.out
    tail = f" --spec '{spec}' --home '{home}'"
    for command in suggested:
        assert command.endswith(tail), command


def test_uninstall_help_speaks_of_uninstall() -> None:
    """uninstall's own words for its options, not install's."""
    install = hookshape("install", "--help").stdout
    proc = hookshape("uninstall", "--help")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "files to stage" not in text and "Replace hookshape entries" not in text
    assert "every vendor the spec enables" not in text
    assert "files to remove; write nothing" in text
    assert "every vendor the install ledger records" in text
    assert "Also remove hookshape entries and staged scripts someone edited" in text
    install_text = " ".join(install.split())
    assert "files to stage" in install_text and "every vendor the spec enables" in install_text
