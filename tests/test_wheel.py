"""The built distributions: the wheel carries templates, vendor profiles and the default spec,
and a fresh install outside the repository renders the same dist/ as the repository."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from hookshape import __version__

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"

pytestmark = pytest.mark.slow


def files(root: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under root: its bytes and whether its owner may execute it."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), bool(p.stat().st_mode & 0o100))
            for p in sorted(root.rglob("*")) if p.is_file()}


def head_diff(path: str, old: bytes, new: bytes, lines: int = 12) -> str:
    diff = difflib.unified_diff(old.decode(errors="replace").splitlines(keepends=True),
                                new.decode(errors="replace").splitlines(keepends=True),
                                f"dist/{path}", f"wheel/{path}", n=0)
    return f"{path}: differs from the repository's dist/:\n" + "".join(list(diff)[:lines])


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this venv or the repository on any search path."""
    drop = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dists")
    argv = [sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", str(out)]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def wheel(dists: Path) -> Path:
    wheels = sorted(dists.glob("hookshape-*.whl"))
    assert len(wheels) == 1, wheels
    assert wheels[0].name.startswith(f"hookshape-{__version__}-")
    return wheels[0]


def test_wheel_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        spec = zf.read("hookshape/default-spec.toml")
    templates = {n for n in names if n.startswith("hookshape/templates/") and n.endswith(".jinja")}
    top_templates = {n.removeprefix("hookshape/templates/") for n in templates if n.count("/") == 2}
    repo_templates = {p.name for p in (ROOT / "templates").glob("*.jinja")}
    assert repo_templates and top_templates == repo_templates
    fragments = {n for n in names if n.startswith("hookshape/templates/fragments/")}
    assert {f"hookshape/templates/fragments/{p.name}"
            for p in (ROOT / "templates" / "fragments").iterdir() if p.is_file()} <= fragments
    vendors = {n for n in names if n.startswith("hookshape/vendors/") and n.endswith(".toml")}
    assert vendors == {f"hookshape/vendors/{p.name}"
                       for p in (ROOT / "generator" / "hookshape" / "vendors").glob("*.toml")}
    assert spec == (ROOT / "hookshape.toml").read_bytes()
    assert "hookshape/py.typed" in names
    assert "hookshape/cli.py" in names
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(wheel) as zf:
        assert "hookshape = hookshape.cli:main" in zf.read(entry).decode()


def test_sdist_contents(dists: Path) -> None:
    sdists = sorted(dists.glob("hookshape-*.tar.gz"))
    assert len(sdists) == 1, sdists
    with tarfile.open(sdists[0]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ("hookshape.toml", "pyproject.toml", "README.md", "Makefile",
                 "generator/hookshape/cli.py", "templates/gate.sh.jinja", "dist/MANIFEST",
                 ".pre-commit-hooks.yaml"):
        assert need in names, need


def test_installed_wheel_renders_the_repository_dist(wheel: Path, tmp_path: Path) -> None:
    """A venv outside the repository, the wheel installed in it, an empty working directory:
    `hookshape render` refuses to guess a spec; `hookshape render --default` uses the packaged
    default spec and templates, writes ./dist and must reproduce the repository's dist/."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                          "--disable-pip-version-check", str(wheel)],
                         capture_output=True, text=True, env=clean_env(), cwd=tmp_path,
                         timeout=600, check=False)
    assert pip.returncode == 0, pip.stdout[-4000:] + pip.stderr[-4000:]

    where = subprocess.run([str(python), "-c", "import hookshape; print(hookshape.__file__)"],
                           capture_output=True, text=True, env=clean_env(), cwd=tmp_path,
                           check=False)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout  # not the repo

    work = tmp_path / "empty"
    work.mkdir()
    hookshape = str(env_dir / "bin" / "hookshape")
    # no ./hookshape.toml: the built-in default harness is used only when asked for
    refused = subprocess.run([hookshape, "render"], capture_output=True, text=True,
                             env=clean_env(), cwd=work, timeout=300, check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert refused.stderr.startswith("hookshape: error: no hookshape.toml in "), refused.stderr
    assert "--default" in refused.stderr and refused.stderr.count("\n") == 1
    assert list(work.iterdir()) == []
    package_dir = Path(where.stdout.strip()).parent
    before = sorted(p.name for p in package_dir.iterdir())

    # no --out: ./dist in the working directory, never the installed package's folder
    proc = subprocess.run([hookshape, "render", "--default"], capture_output=True, text=True,
                          env=clean_env(), cwd=work, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in work.iterdir()) == ["dist"]  # no spec was created or needed
    assert sorted(p.name for p in package_dir.iterdir()) == before

    assert DIST.is_dir(), "the repository has no dist/: run `make render`"
    got, want = files(work / "dist"), files(DIST)
    assert sorted(got) == sorted(want)
    for path, (data, executable) in want.items():
        assert got[path][0] == data, head_diff(path, data, got[path][0])
        assert got[path][1] == executable, f"{path}: executable bit differs"
