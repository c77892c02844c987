"""`hookshape init`: a commented spec with its schema line and the schema beside it, valid and
rendering the same dist/ as the repository; refusals are one line, exit 1, nothing written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests import clikit

from hookshape.commands import init
from hookshape.commands.schema import schema_text
from installkit import unwritable

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
DIST = ROOT / "dist"
SCHEMA_LINE = "#:schema ./hookshape.schema.json"


def hs(*args: str, cwd: Path, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None, "HOOKSHAPE_SPEC": None, **(env or {})})


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("hookshape: error: "), proc.stderr
    return proc.stderr.rstrip("\n")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_writes_the_default_spec_with_its_schema(tmp_path: Path) -> None:
    proc = hs("init", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == (f"{tmp_path / 'hookshape.toml'}: written (example default)\n"
                           f"{tmp_path / 'hookshape.schema.json'}: written\n"
                           "next:\n  hookshape validate\n  hookshape render\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.schema.json", "hookshape.toml"]
    text = (tmp_path / "hookshape.toml").read_text(encoding="utf-8")
    assert text == f"{SCHEMA_LINE}\n" + SPEC.read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("# ")  # commented
    assert (tmp_path / "hookshape.schema.json").read_text(encoding="utf-8") == schema_text()
    json.loads((tmp_path / "hookshape.schema.json").read_text(encoding="utf-8"))


def test_example_default_is_the_same_as_no_example(tmp_path: Path) -> None:
    plain, named = tmp_path / "plain", tmp_path / "named"
    plain.mkdir()
    named.mkdir()
    assert hs("init", cwd=plain).returncode == 0
    assert hs("init", "--example", "default", cwd=named).returncode == 0
    assert tree(plain) == tree(named)


def test_the_written_spec_validates_and_renders_the_repository_dist(tmp_path: Path) -> None:
    assert hs("init", cwd=tmp_path).returncode == 0
    valid = hs("validate", cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr
    rendered = hs("render", cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout.startswith(f"{tmp_path / 'dist'}: "), rendered.stdout
    assert tree(tmp_path / "dist") == tree(DIST)
    check = hs("render", "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_an_existing_spec_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text("# mine\n", encoding="utf-8")
    line = one_error(hs("init", cwd=tmp_path))
    assert line == f"hookshape: error: {spec} exists: pass --force to overwrite it"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.toml"]
    assert spec.read_text(encoding="utf-8") == "# mine\n"


def test_force_overwrites(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text("# mine\n", encoding="utf-8")
    (tmp_path / "hookshape.schema.json").write_text("{}\n", encoding="utf-8")
    proc = hs("init", "--force", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert spec.read_text(encoding="utf-8") == f"{SCHEMA_LINE}\n" + SPEC.read_text(encoding="utf-8")
    assert (tmp_path / "hookshape.schema.json").read_text(encoding="utf-8") == schema_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.schema.json", "hookshape.toml"]


def test_unknown_example_lists_the_known_ones(tmp_path: Path) -> None:
    line = one_error(hs("init", "--example", "nope", cwd=tmp_path))
    known = ", ".join(init.examples())
    assert line == f"hookshape: error: no example named 'nope' (known: {known})"
    assert known.split(", ")[0] == "default"
    assert list(tmp_path.iterdir()) == []


def test_unwritable_directory_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with unwritable(work):
        line = one_error(hs("init", cwd=work))
    assert "cannot write" in line, line
    assert list(work.iterdir()) == []


def test_a_failed_second_file_takes_the_first_back(tmp_path: Path) -> None:
    """hookshape.toml is a directory: --force cannot replace it, and the schema written just
    before it is taken back (its earlier content restored)."""
    (tmp_path / "hookshape.toml").mkdir()
    (tmp_path / "hookshape.schema.json").write_text("{}\n", encoding="utf-8")
    line = one_error(hs("init", "--force", cwd=tmp_path))
    assert "cannot write" in line, line
    assert (tmp_path / "hookshape.schema.json").read_text(encoding="utf-8") == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.schema.json", "hookshape.toml"]
    assert list((tmp_path / "hookshape.toml").iterdir()) == []


def test_examples_are_the_files_of_the_example_folder(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding an example is one file: examples/NAME.toml is the example NAME."""
    (tmp_path / "minimal.toml").write_text("#:schema ./old.json\n# minimal\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("not a spec\n", encoding="utf-8")
    (tmp_path / "minimal.tests.toml").write_text("[[tests]]\n", encoding="utf-8")  # its cases
    monkeypatch.setattr(init, "examples_dir", lambda: tmp_path)
    found = init.examples()
    assert list(found) == ["default", "minimal"]
    assert found["minimal"] == tmp_path / "minimal.toml"
    assert init.spec_text(found["minimal"]) == f"{SCHEMA_LINE}\n# minimal\n"


def test_every_shipped_example_validates(tmp_path: Path) -> None:
    for name in init.examples():
        work = tmp_path / name
        work.mkdir()
        proc = hs("init", "--example", name, cwd=work)
        assert proc.returncode == 0, proc.stderr
        valid = hs("validate", cwd=work)
        assert valid.returncode == 0, f"{name}: {valid.stderr}"


def test_a_set_hookshape_spec_is_warned_about(tmp_path: Path) -> None:
    """The next commands would read $HOOKSHAPE_SPEC, not the spec just written: say so."""
    proc = hs("init", cwd=tmp_path, env={"HOOKSHAPE_SPEC": str(SPEC)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"hookshape: warning: HOOKSHAPE_SPEC is set: commands read that spec, "
                           f"not {tmp_path / 'hookshape.toml'}; unset it\n")


def test_an_example_with_hook_files_writes_them_beside_the_spec(tmp_path: Path) -> None:
    """goal-and-audit's hooks run scripts that live beside it: init writes them too, byte for
    byte, and the written spec renders with them installed into each hook's {dir}."""
    proc = hs("init", "--example", "goal-and-audit", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    source = init.examples()["goal-and-audit"].parent
    for name in ("goal-and-audit/goal.py", "goal-and-audit/logbook.sh", "goal-and-audit/audit.py"):
        assert (tmp_path / name).read_bytes() == (source / name).read_bytes()
    proc = hs("render", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out/bin/hooks/goal-gate.d/goal-and-audit/goal.py").is_file()


def test_the_divineos_example_starts_a_harness_whose_cases_pass(tmp_path: Path) -> None:
    """init --example divineos: the spec, its six files beside it (five scripts and the agents'
    registry), byte for byte, and its cases, which pass there (one vendor here; every vendor and
    shell in the suite's own run of the example)."""
    proc = hs("init", "--example", "divineos", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    source = init.examples()["divineos"].parent
    names = sorted(p.relative_to(source).as_posix() for p in (source / "divineos").iterdir())
    assert names == ["divineos/agents.txt", "divineos/briefing.py", "divineos/detect.py",
                     "divineos/divine.py", "divineos/logbook.py", "divineos/recall.py",
                     "divineos/subagents.py"]
    for name in names:
        assert (tmp_path / name).read_bytes() == (source / name).read_bytes(), name
    ran = hs("test", "--vendor", "claude", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert [line[:4] for line in ran.stdout.splitlines()[:-1]] == ["ok  "] * 9, ran.stdout


def test_every_example_ships_its_test_cases() -> None:
    for name, spec in init.examples().items():
        if name != "default":
            assert spec.with_name(f"{name}.tests.toml").is_file(), name


def test_an_example_with_test_cases_writes_them_and_they_pass(tmp_path: Path) -> None:
    """minimal's cases go beside the new spec as hookshape.tests.toml, where `hookshape test`
    finds them, and they pass (here on one vendor; the suite runs every vendor elsewhere)."""
    proc = hs("init", "--example", "minimal", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tests = tmp_path / "hookshape.tests.toml"
    assert f"{tests}: written (the example's test cases)\n" in proc.stdout
    assert proc.stdout.endswith("next:\n  hookshape validate\n  hookshape render\n  hookshape test\n")
    assert tests.read_bytes() == (ROOT / "examples" / "minimal.tests.toml").read_bytes()
    ran = hs("test", "--vendor", "claude", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert [line[:4] for line in ran.stdout.splitlines()[:-1]] == ["ok  "] * 5 + ["--  "], ran.stdout


def test_an_existing_tests_file_is_refused(tmp_path: Path) -> None:
    tests = tmp_path / "hookshape.tests.toml"
    tests.write_text("# mine\n", encoding="utf-8")
    line = one_error(hs("init", "--example", "minimal", cwd=tmp_path))
    assert line == f"hookshape: error: {tests} exists: pass --force to overwrite it"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hookshape.tests.toml"]
    assert hs("init", "--example", "minimal", "--force", cwd=tmp_path).returncode == 0
    assert tests.read_bytes() == (ROOT / "examples" / "minimal.tests.toml").read_bytes()
