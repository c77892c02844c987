"""The example specs with user hooks (examples/minimal.toml, examples/goal-and-audit.toml): both
validate and render, and on every vendor, through `hookshape simulate --gate` and through their
rendered gates, they do what their comments say. The block and allow cells run under every
installed shell (HOOKSHAPE_FAST=1: dash only). Neither example has a daemon: the homes here are
empty, with no readiness lease and no armed roots.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.farms import farm
from tests.hookkit import (
    PROFILES,
    SHELLS,
    VENDORS,
    Box,
    Run,
    Tree,
    allow_line,
    answer,
    assert_allowed,
    edit_doc,
    event_doc,
    raw,
    render,
    says,
    shell_doc,
    shells_by_dialect,
    stop_doc,
    tool_doc,
)
from tests.installkit import hs
from tests.shells import FAST, ROOT, InTurn, Shell, crossed, wait_until
from tests.tentaclekit import patch_body
from tests.test_spec import hookshape

from hookshape.plan import outputs
from hookshape.spec.load import load
from hookshape.spec.types import Event

pytest_plugins = ["tests.hookkit"]  # fixtures: interps

EXAMPLES = ROOT / "examples"
NAMES = ("minimal", "goal-and-audit")
# the system's python3 first: a version manager's shim can take longer than a hook's deadline
SYSTEM_PATH = "/usr/bin:/bin"
SHELL_IDS = [s.name for s in SHELLS]
# where the vendor only changes the dialect the answer is said in (the expected answer is computed
# from its profile either way): in fast mode each test takes one vendor, the vendors in turn
VENDOR_IN_TURN = InTurn("vendor", VENDORS)


def by_dialect() -> list[tuple[Shell, str]]:
    """Every vendor under dash, every deny and allow dialect under every other shell."""
    return shells_by_dialect(VENDOR_IN_TURN, ("deny", "pre_tool"), ("allow", "pre_tool"))
PROJ = "/proj"

ENV_BLOCK = "BLOCKED: /proj/.env is a secrets file; edit .env.example instead."
RM_BLOCK = "BLOCKED: that command would remove the whole filesystem or home directory."
NO_GOAL = "BLOCKED: this session has no goal yet."


@pytest.fixture(scope="session")
def example(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Tree]:
    cache: dict[str, Tree] = {}

    def get(name: str) -> Tree:
        if name not in cache:
            cache[name] = render(EXAMPLES / f"{name}.toml", tmp_path_factory.mktemp(name) / "dist")
        return cache[name]

    return get


@pytest.fixture
def bare(tmp_path: Path, interps: dict[str, str]) -> Box:
    return Box(tmp_path, interps, bare=True)


@pytest.fixture(scope="session")
def no_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH of the system's tools without any python."""
    path = farm(tmp_path_factory.mktemp("nopy"), drop=("python*", "pydoc*"))
    assert shutil.which("python3", path=path) is None
    return path


def simulated(spec: Path, vendor: str, event: str, payload: bytes, tmp: Path,
              *more: str, env: dict[str, str | None] | None = None) -> Run:
    """`hookshape simulate --gate` in process on this payload, as a Run of the gate it reports."""
    file = tmp / "event.json"
    file.write_bytes(payload)
    result = hs("simulate", "--spec", str(spec), "--vendor", vendor, "--tentacle", event, "--gate",
                "--payload", str(file), *more, env={"PATH": SYSTEM_PATH, **(env or {})})
    assert result.code == 0, result.out + result.err
    fields = {}
    for line in result.out.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key in ("exit code", "stdout", "stderr", "verdict"):
            fields[key] = value
    out, err = fields["stdout"], fields["stderr"]
    run = Run(int(fields["exit code"]), b"" if out == "(empty)" else (out + "\n").encode(),
              b"" if err == "(empty)" else (err + "\n").encode(), 0.0)
    blocked = fields["verdict"].startswith(f"{PROFILES[vendor].vendor.display} blocks")
    assert blocked == (answer_or_none(run, vendor, "deny", event) is not None), fields
    return run


def answer_or_none(r: Run, vendor: str, kind: outputs.Kind, event: str) -> str | None:
    if event != "pre_tool" or r.out == allow_line(vendor, event):
        return None
    return answer(r, vendor, kind, event)  # type: ignore[arg-type]


def assert_cell(r: Run, vendor: str, event: Event, want: str | None) -> None:
    """want: the deny reason, or None for an allow."""
    if want is None:
        assert_allowed(r, vendor, event)
    else:
        assert answer(r, vendor, "deny", event) == want, r.brief()


# ------------------------------------------------------------------------------- both --


@pytest.mark.parametrize("name", NAMES)
def test_the_example_validates_and_renders(name: str, tmp_path: Path) -> None:
    spec = EXAMPLES / f"{name}.toml"
    done = hookshape("validate", "--spec", spec)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "dist"
    done = hookshape("render", "--spec", spec, "--out", out)
    assert done.returncode == 0, done.stderr
    loaded = load(spec)
    sub = out / "bin" / loaded.spec.harness.tentacle_dir
    scripts = [out / "bin" / g.name for g in loaded.spec.groups()]
    assert all((sub / f"{g.name}.awk").is_file() for g in loaded.spec.groups())
    assert loaded.spec.groups() and all(p.is_file() and p.stat().st_mode & 0o111 for p in scripts)
    for hook in loaded.spec.hooks:
        for file in hook.files:
            assert (sub / f"{hook.name}.d" / file).read_bytes() == (spec.parent / file).read_bytes()
    shellcheck = ROOT / ".venv" / "bin" / "shellcheck"
    if shellcheck.exists() and not FAST:  # the lint: make test (test-fast lints the default render)
        found = subprocess.run([str(shellcheck), "-s", "sh", *map(str, scripts)], capture_output=True,
                               text=True, check=False)
        assert found.returncode == 0, found.stdout[:2000]


# ---------------------------------------------------------------------------- minimal --


def cut_block(cut: str) -> str:
    return f"BLOCKED: this call is too large to check whole (cut: {cut}); split it into smaller ones."


def minimal_calls(vendor: str) -> list[tuple[str, dict[str, Any], str | None]]:
    calls = [("edit /proj/.env", edit_doc(vendor, "/proj/.env", PROJ), ENV_BLOCK),
             ("rm -rf /", shell_doc(vendor, "rm -rf /", PROJ), RM_BLOCK),
             ("edit /proj/app.py", edit_doc(vendor, "/proj/app.py", PROJ), None),
             ("ls", shell_doc(vendor, "ls", PROJ), None),
             # the dangerous part past the bound of a view value: the guard sees the cut
             ("echo 200 KB; rm -rf /", shell_doc(vendor, "echo " + "x" * 200_000 + "; rm -rf /", PROJ),
              cut_block("command tool_input"))]
    if PROFILES[vendor].payload.patch_field:
        # 64 harmless files, then .env: one past matrix.targets_max
        tool = next(t for t in PROFILES[vendor].tools.edit if "atch" in t)
        many = tool_doc(vendor, "pre_tool", tool, {PROFILES[vendor].payload.patch_field: patch_body(
            *[("Update", f"f{i}.py") for i in range(64)], ("Update", ".env"))}, PROJ)
        calls.append(("a patch of 65 files", many, cut_block("paths")))
    return calls


def reminder(tree: Tree) -> str:
    hook = next(h for h in tree.loaded.spec.hooks if h.event == "prompt")
    return hook.run[-1]


@pytest.mark.parametrize(("sh", "vendor"), by_dialect(), ids=lambda v: v.name if isinstance(v, Shell) else str(v))
def test_minimal_blocks_and_allows_through_its_gate(sh: Shell, vendor: str, bare: Box,
                                                    example: Callable[[str], Tree]) -> None:
    tree = example("minimal")
    for label, doc, want in minimal_calls(vendor):
        r = bare.run(tree, "pre_tool", raw(doc), vendor, sh, path=SYSTEM_PATH)
        assert_cell(r, vendor, "pre_tool", want)
        assert r.code in (0, 2), label


@pytest.mark.parametrize("vendor", VENDORS)
def test_minimal_reminds_at_the_prompt_through_its_gate(vendor: str, bare: Box,
                                                        example: Callable[[str], Tree]) -> None:
    tree = example("minimal")
    r = bare.run(tree, "prompt", raw(event_doc(vendor, "prompt", PROJ)), vendor, path=SYSTEM_PATH)
    if says(vendor, "context", "prompt"):
        assert answer(r, vendor, "context", "prompt") == reminder(tree), r.brief()
    else:
        assert_allowed(r, vendor, "prompt")
        assert tree.cell("prompt", vendor, "context")["level"] == "unsupported"


@pytest.mark.parametrize("vendor", VENDORS)
def test_minimal_through_simulate(vendor: str, tmp_path: Path, example: Callable[[str], Tree]) -> None:
    spec = EXAMPLES / "minimal.toml"
    for label, doc, want in minimal_calls(vendor):
        r = simulated(spec, vendor, "pre_tool", raw(doc), tmp_path)
        assert answer_or_none(r, vendor, "deny", "pre_tool") == want, label
    r = simulated(spec, vendor, "prompt", raw(event_doc(vendor, "prompt", PROJ)), tmp_path)
    if says(vendor, "context", "prompt"):
        assert answer(r, vendor, "context", "prompt") == reminder(example("minimal"))
    else:
        assert_allowed(r, vendor, "prompt")


# --------------------------------------------------------------------- goal-and-audit --


def goal(project: Path | str) -> Path:
    return Path(project) / ".goals" / "sess-1"


def write_goal(project: Path | str) -> None:
    goal(project).parent.mkdir(parents=True, exist_ok=True)
    goal(project).write_text("ship the parser\n")


@pytest.mark.parametrize(("sh", "vendor"), by_dialect(), ids=lambda v: v.name if isinstance(v, Shell) else str(v))
def test_goal_gate_blocks_until_the_goal_is_written(sh: Shell, vendor: str, bare: Box,
                                                    example: Callable[[str], Tree]) -> None:
    tree = example("goal-and-audit")
    data = raw(edit_doc(vendor, "app.py", bare.project))
    r = bare.run(tree, "pre_tool", data, vendor, sh, path=SYSTEM_PATH)
    reason = answer(r, vendor, "deny", "pre_tool")
    assert reason is not None and reason.startswith(NO_GOAL) and str(goal(bare.project)) in reason, r.brief()
    write_goal(bare.project)
    assert_allowed(bare.run(tree, "pre_tool", data, vendor, sh, path=SYSTEM_PATH), vendor, "pre_tool")


@VENDOR_IN_TURN
def test_goal_gate_lets_the_goal_be_written(vendor: str, bare: Box,
                                            example: Callable[[str], Tree]) -> None:
    tree = example("goal-and-audit")
    r = bare.run(tree, "pre_tool", raw(edit_doc(vendor, str(goal(bare.project)), bare.project)),
                 vendor, path=SYSTEM_PATH)
    assert_allowed(r, vendor, "pre_tool")


@VENDOR_IN_TURN
def test_goal_gate_fails_closed_without_python(vendor: str, bare: Box, no_python: str,
                                               example: Callable[[str], Tree]) -> None:
    tree = example("goal-and-audit")
    write_goal(bare.project)
    r = bare.run(tree, "pre_tool", raw(edit_doc(vendor, "app.py", bare.project)), vendor, path=no_python)
    why = "its command was not found or cannot run"
    assert answer(r, vendor, "deny", "pre_tool") == \
        tree.loaded.spec.contract.closed_message.format(hook="goal-gate", why=why), r.brief()


def logbook_line(home: Path, vendor: str, project: Path | str) -> None:
    lines = (home / "logbook.tsv").read_text().splitlines()
    assert len(lines) == 1, lines
    fields = lines[0].split("\t")
    prof = PROFILES[vendor]
    assert fields[1:] == ["sess-1", vendor, prof.tools.edit[0], "edit", f"{project}/app.py"], fields


@VENDOR_IN_TURN
def test_logbook_gets_a_line_after_a_tool_call(vendor: str, bare: Box,
                                               example: Callable[[str], Tree]) -> None:
    tree = example("goal-and-audit")
    r = bare.run(tree, "post_tool", raw(edit_doc(vendor, "app.py", bare.project, "post_tool")),
                 vendor, path=SYSTEM_PATH)
    assert_allowed(r, vendor, "post_tool")
    logbook_line(bare.home.path, vendor, bare.project)


SAID = "Fixed the tokenizer; this should work now."


def assert_finding(home: Path, vendor: str) -> None:
    """One finding for SAID where the vendor's stop event carries the message; else none (the
    audit never sees the text)."""
    findings = home / "findings.json"
    if not PROFILES[vendor].payload.stop_text:
        assert not findings.exists()
        return
    entries = json.loads(findings.read_text())
    assert [(e["session"], e["vendor"]) for e in entries] == [("sess-1", vendor)], entries
    assert {"code": "unverified-claim", "match": "should work"} in entries[0]["findings"], entries


@VENDOR_IN_TURN
def test_audit_appends_a_finding_at_stop(vendor: str, bare: Box,
                                         example: Callable[[str], Tree]) -> None:
    tree = example("goal-and-audit")
    r = bare.run(tree, "stop", raw(stop_doc(vendor, SAID, bare.project)), vendor, path=SYSTEM_PATH)
    assert_allowed(r, vendor, "stop")
    assert_finding(bare.home.path, vendor)


@VENDOR_IN_TURN
def test_goal_and_audit_through_simulate(vendor: str, tmp_path: Path, no_python: str) -> None:
    spec = EXAMPLES / "goal-and-audit.toml"
    project, user = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    home = ["--home", str(user)]
    data = raw(edit_doc(vendor, "app.py", project))
    reason = answer_or_none(simulated(spec, vendor, "pre_tool", data, tmp_path, *home), vendor,
                            "deny", "pre_tool")
    assert reason is not None and reason.startswith(NO_GOAL)
    write_goal(project)
    assert answer_or_none(simulated(spec, vendor, "pre_tool", data, tmp_path, *home), vendor,
                          "deny", "pre_tool") is None
    closed = answer_or_none(simulated(spec, vendor, "pre_tool", data, tmp_path, *home,
                                      env={"PATH": no_python}), vendor, "deny", "pre_tool")
    assert closed is not None and "goal-gate" in closed
    harness = user / load(spec).spec.harness.home_default.removeprefix("~/")
    simulated(spec, vendor, "post_tool", raw(edit_doc(vendor, "app.py", project, "post_tool")),
              tmp_path, *home)
    logbook_line(harness, vendor, project)
    simulated(spec, vendor, "stop", raw(stop_doc(vendor, SAID, project)), tmp_path, *home)
    assert_finding(harness, vendor)


# ----------------------------------------------------------------- install, every vendor --


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# every vendor's config is written its own way; the two examples install alike (fast mode: in turn)
@pytest.mark.parametrize(("vendor", "name"), crossed(VENDORS, NAMES))
def test_the_example_installs_for_every_vendor(name: str, vendor: str, tmp_path: Path) -> None:
    """Installed into a scratch home for one vendor: doctor says wired; the pre_tool command the
    vendor's config now holds, run as the vendor runs it (sh -c, in the project), blocks as the
    example says; uninstall leaves the home as it was (empty)."""
    from hookshape.diagnose import survey
    from hookshape.install.paths import config_path

    spec = EXAMPLES / f"{name}.toml"
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    env: dict[str, str | None] = {"HOME": str(home)}
    done = hs("install", "--spec", str(spec), "--vendor", vendor, "--home", str(home), env=env)
    assert done.code == 0, done.err
    done = hs("doctor", "--spec", str(spec), "--vendor", vendor, "--home", str(home), env=env)
    assert f"({PROFILES[vendor].vendor.display}): wired" in done.out, done.out
    loaded = load(spec)
    profile = PROFILES[vendor]
    path = config_path(profile, "user", home, proj, loaded.spec.harness.name)
    found = survey.load(profile, path)
    event = profile.events.of("pre_tool")
    commands = [h.command for h in found.handlers if h.event == event]
    assert len(commands) == 1, found.handlers
    doc = edit_doc(vendor, str(proj / ".env"), str(proj)) if name == "minimal" else \
        edit_doc(vendor, str(proj / "app.py"), str(proj))
    run = subprocess.run(["sh", "-c", commands[0]], input=json.dumps(doc).encode(), cwd=proj,
                         env={"HOME": str(home), "PATH": SYSTEM_PATH}, capture_output=True,
                         timeout=60, check=False)
    want = ENV_BLOCK.replace("/proj", str(proj)) if name == "minimal" else NO_GOAL
    said = run.stdout.decode() + run.stderr.decode()
    assert want in said, (run.returncode, said)
    # the gate's watchdog removes its capture files (health/io.*) just after the gate returns
    assert wait_until(lambda: not any(home.rglob("io.*")), 10), sorted(_tree(home))
    done = hs("uninstall", "--spec", str(spec), "--vendor", vendor, "--home", str(home), env=env)
    assert done.code == 0, done.err
    assert _tree(home) == {}, sorted(_tree(home))
