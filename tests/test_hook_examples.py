"""The example specs with user hooks (examples/minimal.toml, examples/goal-and-audit.toml,
examples/divineos.toml): each validates and renders, and on every vendor, through `hookshape
simulate --gate` and through their rendered gates, they do what their comments say. The block
and allow cells run under every installed shell (HOOKSHAPE_FAST=1: dash only). No example has a
daemon: the homes here are empty, with no readiness lease and no armed roots.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conformance.kit import by_dialect as kit_by_dialect
from tests.conformance.oracle import put
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
    tool_input_of,
)
from tests.installkit import hs
from tests.shells import CORE, FAST, ROOT, InTurn, Shell, crossed, wait_until
from tests.tentaclekit import patch_body
from tests.test_spec import hookshape

from hookshape.plan import outputs
from hookshape.spec.load import load
from hookshape.spec.types import Event

pytest_plugins = ["tests.hookkit"]  # fixtures: interps

EXAMPLES = ROOT / "examples"
NAMES = ("minimal", "goal-and-audit", "divineos")
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


# (fast mode: every other vendor; test_simulate reads every vendor's answers)
@pytest.mark.parametrize("vendor", VENDORS[::2] if FAST else VENDORS)
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


# --------------------------------------------------------------------------- divineos --

UNREGISTERED = "DivineOS: no subagent type '{kind}' is registered"
CLAIM = "Fixed the tokenizer; this should work now."
SUBAGENT_VENDORS = [v for v in VENDORS if PROFILES[v].tools.subagent]
# where a vendor's subagent tool takes the prompt (Codex's spawn_agent: message)
PROMPT_KEY = {"codex": "message"}


def core_cells(*cells: tuple[outputs.Kind, Event]) -> list[tuple[Shell, str]]:
    """(shell, vendor) pairs of the fail-closed guard's test: every vendor under dash, one vendor of
    each dialect of these answers under busybox sh and bash, the shells that read the event and
    print the answer (its hooks are Python: no other shell runs them; the other DivineOS tests
    run under dash, the answers' dialects being crossed with every shell in test_hook_answers.py).
    Fast mode: dash, one vendor in turn."""
    if FAST:
        return [(SHELLS[0], v) for v in VENDOR_IN_TURN.take()]
    return [(sh, v) for sh in CORE if sh.available for v in kit_by_dialect(sh, *cells)]


def subagent_doc(vendor: str, kind: str, prompt: str, cwd: Path | str) -> dict[str, Any]:
    """A call of the vendor's subagent tool that starts `kind` with `prompt`."""
    prof = PROFILES[vendor]
    args: dict[str, Any] = {PROMPT_KEY.get(vendor, "prompt"): prompt, "description": "a subagent"}
    put(args, tuple(prof.payload.subagent_arg[0].split(".")), kind)
    return tool_doc(vendor, "pre_tool", prof.tools.subagent[0], args, cwd)


def transcript(vendor: str, said: str, user: str = "does it work now?") -> str:
    """A transcript in the vendor's own shape (as its CLI writes it, seen in live runs; the shape
    of Claude Code's where none was seen): the user's words, then the assistant's."""
    if vendor == "codex":
        def line(role: str, text: str) -> Any:
            part = "output_text" if role == "assistant" else "input_text"
            return {"type": "response_item", "payload": {"type": "message", "role": role,
                                                         "content": [{"type": part, "text": text}]}}
    elif vendor == "gemini":
        def line(role: str, text: str) -> Any:
            return {"type": "gemini" if role == "assistant" else "user", "content": text}
    elif vendor == "qwen":
        def line(role: str, text: str) -> Any:
            return {"type": role, "message": {"role": "model" if role == "assistant" else role,
                                              "parts": [{"text": text}]}}
    elif vendor == "copilot":
        def line(role: str, text: str) -> Any:
            return {"type": f"{role}.message", "data": {"content": text}}
    else:
        def line(role: str, text: str) -> Any:
            return {"type": role, "message": {"role": role, "content": [{"type": "text", "text": text}]}}
    return "".join(json.dumps(line(r, t)) + "\n" for r, t in (("user", user), ("assistant", said)))


def claims_doc(vendor: str, project: Path, said: str, active: bool = False, message: str = "Done.",
               user: str = "does it work now?") -> dict[str, Any]:
    """A stop whose transcript (where the vendor sends its path) ends with `said`; the message
    field, where the vendor has one, says something else."""
    doc = stop_doc(vendor, message, project, active=active)
    p = PROFILES[vendor].payload
    if p.transcript:
        path = project / "transcript.jsonl"
        path.write_text(transcript(vendor, said, user))
        put(doc, tuple(p.transcript[0].split(".")), str(path))
    return doc


def lessons(home: Path) -> list[dict[str, Any]]:
    path = home / "lessons.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def logbook(home: Path) -> list[dict[str, Any]]:
    path = home / "logbook.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def post_doc(vendor: str, project: Path, response: str) -> dict[str, Any]:
    doc = edit_doc(vendor, "app.py", project, "post_tool")
    fields = PROFILES[vendor].payload.tool_response
    if fields:
        put(doc, tuple(fields[0].split(".")), response)
    return doc


@VENDOR_IN_TURN
def test_divineos_recall_brings_back_the_logbooks_earlier_work(vendor: str, bare: Box,
                                                               example: Callable[[str], Tree]) -> None:
    """An edit of a file with nothing on file: nothing said. The logbook (post_tool) keeps the
    call; the next edit of that file gets the earlier work back as pre_tool context, through the
    vendor's channel (dropped where it has none on pre_tool)."""
    tree = example("divineos")
    edit = raw(edit_doc(vendor, "app.py", bare.project))
    assert_allowed(bare.run(tree, "pre_tool", edit, vendor, path=SYSTEM_PATH), vendor, "pre_tool")
    r = bare.run(tree, "post_tool", raw(post_doc(vendor, bare.project, "wrote app.py: 1 line")), vendor,
                 path=SYSTEM_PATH)
    assert_allowed(r, vendor, "post_tool")
    r = bare.run(tree, "pre_tool", edit, vendor, path=SYSTEM_PATH)
    if not says(vendor, "context", "pre_tool"):
        assert_allowed(r, vendor, "pre_tool")
        assert tree.cell("pre_tool", vendor, "context")["level"] == "unsupported"
        return
    said = answer(r, vendor, "context", "pre_tool")
    tool = PROFILES[vendor].tools.edit[0]
    assert said is not None and said.startswith("DivineOS recall, earlier work on the file(s) of this call:\n"
                                                "- app.py: "), r.brief()
    assert f" {tool} ({vendor})" in said, said
    assert (": wrote app.py: 1 line" in said) == bool(PROFILES[vendor].payload.tool_response), said


@VENDOR_IN_TURN
def test_divineos_logbook_keeps_the_input_and_the_response(vendor: str, bare: Box,
                                                           example: Callable[[str], Tree]) -> None:
    tree = example("divineos")
    doc = post_doc(vendor, bare.project, "wrote app.py: 1 line")
    assert_allowed(bare.run(tree, "post_tool", raw(doc), vendor, path=SYSTEM_PATH), vendor, "post_tool")
    [entry] = logbook(bare.home.path)
    prof = PROFILES[vendor]
    assert (entry["session"], entry["vendor"], entry["tool"], entry["class"]) == \
        ("sess-1", vendor, prof.tools.edit[0], "edit"), entry
    assert entry["paths"] == [f"{bare.project}/app.py"], entry
    assert entry["input"] == json.loads(tool_input_of(vendor, doc)), entry
    assert entry["response"] == ("wrote app.py: 1 line" if prof.payload.tool_response else ""), entry
    assert entry["cut"] == [], entry


@pytest.mark.parametrize(("sh", "vendor"), [c for c in core_cells(("deny", "pre_tool"), ("allow", "pre_tool"))
                                            if c[1] in SUBAGENT_VENDORS] or [(SHELLS[0], SUBAGENT_VENDORS[0])],
                         ids=lambda v: v.name if isinstance(v, Shell) else str(v))
def test_divineos_subagent_guard(sh: Shell, vendor: str, bare: Box, example: Callable[[str], Tree]) -> None:
    """A subagent starts only as a registered type, with a prompt; a sealed type only with the
    exact text of its sealed prompt. The guard reads the type from the view ($DOS_SUBAGENT, where
    the vendor's profile says the call names it) and the prompt from $DOS_TOOL_INPUT."""
    tree = example("divineos")

    def run(kind: str, prompt: str) -> Run:
        return bare.run(tree, "pre_tool", raw(subagent_doc(vendor, kind, prompt, bare.project)), vendor, sh,
                        path=SYSTEM_PATH)

    reason = answer(run("intruder", "map the parser"), vendor, "deny", "pre_tool")
    assert reason is not None and reason.startswith(UNREGISTERED.format(kind="intruder")), reason
    assert "(registered: Explore, Plan, codebase_investigator, default, " in reason, reason
    assert_allowed(run("explorer", "map the parser and say where tokens are made"), vendor, "pre_tool")
    reason = answer(run("explorer", "  "), vendor, "deny", "pre_tool")
    assert reason is not None and reason.startswith("DivineOS: a subagent starts with no memory"), reason
    sealed = bare.home.path / "sealed" / "keeper.txt"
    reason = answer(run("keeper", "hello"), vendor, "deny", "pre_tool")
    assert reason == ("DivineOS: keeper is reached only through its sealed prompt, and there is none "
                      f"({sealed})."), reason
    sealed.parent.mkdir()
    sealed.write_text("Keeper, here is what the session learned: ...")
    reason = answer(run("keeper", "hello"), vendor, "deny", "pre_tool")
    assert reason is not None and reason.startswith("DivineOS: keeper is reached only through its sealed prompt: "
                                                    f"send the exact text of {sealed}"), reason
    assert_allowed(run("keeper", sealed.read_text()), vendor, "pre_tool")


@pytest.mark.parametrize("vendor", SUBAGENT_VENDORS if not FAST else [SUBAGENT_VENDORS[0]])
def test_divineos_subagent_guard_fails_closed(vendor: str, bare: Box, no_python: str,
                                             example: Callable[[str], Tree]) -> None:
    """No Python: the guard cannot judge, and the call is refused, saying why; an edit (which the
    guard does not take) goes through, its fail-open recall failing open."""
    tree = example("divineos")
    r = bare.run(tree, "pre_tool", raw(subagent_doc(vendor, "explorer", "go", bare.project)), vendor,
                 path=no_python)
    why = "its command was not found or cannot run"
    assert answer(r, vendor, "deny", "pre_tool") == \
        tree.loaded.spec.contract.closed_message.format(hook="subagent-guard", why=why), r.brief()
    r = bare.run(tree, "pre_tool", raw(edit_doc(vendor, "app.py", bare.project)), vendor, path=no_python)
    assert_allowed(r, vendor, "pre_tool")


@VENDOR_IN_TURN
def test_divineos_claims_keep_the_agent_working_once(vendor: str, bare: Box,
                                                     example: Callable[[str], Tree]) -> None:
    """A claim the agent did not back, read from the transcript in the vendor's own shape (not
    from the message field, which says something else): the stop is refused with the reason and
    a lesson kept. The next stop, the continuation the block caused (stop_hook_active; on a
    vendor without the flag, the session's block counter), ends: the gate's loop guard, while the
    hook still says block. A vendor that sends neither a transcript nor the message: nothing to
    read, the agent stops."""
    tree = example("divineos")
    prof = PROFILES[vendor]
    r = bare.run(tree, "stop", raw(claims_doc(vendor, bare.project, CLAIM)), vendor, path=SYSTEM_PATH)
    if not prof.payload.transcript and not prof.payload.stop_text:
        assert_allowed(r, vendor, "stop")
        assert lessons(bare.home.path) == []
        return
    assert answer(r, vendor, "stop", "stop") == (
        'DivineOS: your last answer says "should work" without showing it. Check it (run it, read '
        'the result) and say what you saw, or say plainly that it is unverified.'), r.brief()
    [lesson] = lessons(bare.home.path)
    assert (lesson["session"], lesson["vendor"], lesson["from"]) == ("sess-1", vendor, "transcript"), lesson
    assert lesson["findings"] == [{"code": "unverified-claim", "match": "should work"}], lesson
    flag = prof.output.stop_guard == "stop_hook_active"
    r = bare.run(tree, "stop", raw(claims_doc(vendor, bare.project, CLAIM, active=flag)), vendor,
                 path=SYSTEM_PATH)
    assert_allowed(r, vendor, "stop")
    assert len(lessons(bare.home.path)) == 1  # the same answer is one lesson


@VENDOR_IN_TURN
def test_divineos_claims_read_the_assistant_only(vendor: str, bare: Box, example: Callable[[str], Tree]) -> None:
    """The user's words in the transcript are not the agent's claims; and where the vendor sends
    no transcript path, the message field is read (Claude Code's here, with a claim in it)."""
    tree = example("divineos")
    doc = claims_doc(vendor, bare.project, "Ran the parser on the sample: 3 tokens, as expected.",
                     user="it should work now, right?")
    assert_allowed(bare.run(tree, "stop", raw(doc), vendor, path=SYSTEM_PATH), vendor, "stop")
    doc = claims_doc("claude", bare.project, "", message=CLAIM)
    del doc["transcript_path"]
    r = bare.run(tree, "stop", raw(doc), "claude", path=SYSTEM_PATH)
    assert answer(r, "claude", "stop", "stop"), r.brief()
    assert [entry["from"] for entry in lessons(bare.home.path)] == ["message"]


@VENDOR_IN_TURN
def test_divineos_briefing_recalls_the_lessons(vendor: str, bare: Box, example: Callable[[str], Tree]) -> None:
    tree = example("divineos")
    doc = event_doc(vendor, "session_start", bare.project)
    if PROFILES[vendor].payload.source:
        put(doc, tuple(PROFILES[vendor].payload.source[0].split(".")), "startup")
    home = bare.home.path
    if not PROFILES[vendor].events.session_start:
        pytest.skip(f"{vendor} has no session_start event")
    r = bare.run(tree, "session_start", raw(doc), vendor, path=SYSTEM_PATH)
    if not says(vendor, "context", "session_start"):
        assert_allowed(r, vendor, "session_start")
        return
    source = "startup" if PROFILES[vendor].payload.source else "start"
    assert answer(r, vendor, "context", "session_start") == \
        f"DivineOS briefing ({source}):\nno lessons on file yet.", r.brief()
    (home / "lessons.jsonl").write_text(json.dumps({"time": "2026-12-04T10:00:00Z", "findings": [
        {"code": "unverified-claim", "match": "should work"}]}) + "\n")
    (home / "logbook.jsonl").write_text(json.dumps({"tool": "Write", "paths": ["/p/app.py"]}) + "\n")
    r = bare.run(tree, "session_start", raw(doc), vendor, path=SYSTEM_PATH)
    assert answer(r, vendor, "context", "session_start") == (
        f"DivineOS briefing ({source}):\n1 lesson(s) on file; the latest:\n"
        '- 2026-12-04T10:00:00Z: unverified-claim "should work"\n'
        "Back every claim of success with what you ran and what it showed.\n"
        "The logbook holds 1 recent tool call(s); the last: Write on /p/app.py."), r.brief()


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
    if name == "minimal":
        doc, want = edit_doc(vendor, str(proj / ".env"), str(proj)), ENV_BLOCK.replace("/proj", str(proj))
    elif name == "goal-and-audit":
        doc, want = edit_doc(vendor, str(proj / "app.py"), str(proj)), NO_GOAL
    elif profile.tools.subagent:
        doc, want = subagent_doc(vendor, "intruder", "go", proj), UNREGISTERED.format(kind="intruder")
    else:  # no subagent tool (agy): an edit goes through, with nothing on file to recall
        doc, want = edit_doc(vendor, str(proj / "app.py"), str(proj)), ""
    run = subprocess.run(["sh", "-c", commands[0]], input=json.dumps(doc).encode(), cwd=proj,
                         env={"HOME": str(home), "PATH": SYSTEM_PATH}, capture_output=True,
                         timeout=60, check=False)
    said = run.stdout.decode() + run.stderr.decode()
    assert want in said and (want or run.stdout == allow_line(vendor, "pre_tool")), (run.returncode, said)
    # the gate's watchdog removes its capture files (health/io.*) just after the gate returns
    assert wait_until(lambda: not any(home.rglob("io.*")), 10), sorted(_tree(home))
    done = hs("uninstall", "--spec", str(spec), "--vendor", vendor, "--home", str(home), env=env)
    assert done.code == 0, done.err
    assert _tree(home) == {}, sorted(_tree(home))
