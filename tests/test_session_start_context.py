"""A user hook on session_start: its stdout reaches the model through the vendor's context answer
on the vendors whose profile lists session_start in [output] context_roles, and prints nothing on
the others. Rendered from the current templates, run through the gate under dash with each
vendor's session start payload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.shells import FIXTURES, ROOT, run, shell

from hookshape.plan import outputs
from hookshape.plan.artifacts import script_artifacts
from hookshape.spec.load import load
from hookshape.spec.profiles import load_profiles

TEXT = "The branch is main; run make test before a commit."
HOOK = f"""
[[hooks]]
name = "greet"
event = "session_start"
run = ["printf", "%s\\\\n", {json.dumps(TEXT)}]
"""
DASH = shell("dash")
# each vendor's session start event as it arrives (agy: none stored, a minimal one of its shape)
PAYLOADS = {
    "claude": "claude/live-SessionStart.json", "codex": "codex/live-SessionStart.json",
    "copilot": "copilot/session-start.json", "cursor": "cursor/session-start.json",
    "factory": "factory/session-start.json", "gemini": "gemini/live-SessionStart.json",
    "kimi": "kimi/live-SessionStart.json", "qwen": "qwen/live-SessionStart.json",
}
AGY = {"conversationId": "c1", "workspacePaths": ["/tmp"], "modelName": "m"}
# the facts of the profiles, pinned: session start context reaches the model on these
PROFILES = load_profiles()
WITH_CONTEXT = {"claude", "codex", "copilot", "cursor", "factory", "gemini", "qwen"}


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], str]:
    root = tmp_path_factory.mktemp("ssctx")
    spec = root / "hookshape.toml"
    spec.write_text((ROOT / "hookshape.toml").read_text() + HOOK)
    loaded = load(spec)
    for art in script_artifacts(loaded):
        dest = root / "dist" / art.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(art.data)
        dest.chmod(0o755)
    gate_spec, harness = loaded.spec.gate, loaded.spec.harness
    home, proj = root / "home", root / "proj"
    proj.mkdir()
    for rel, text in ((gate_spec.ready_file, "4242\n"), (gate_spec.pid_file, "4242\n"),
                      (gate_spec.heartbeat_file, ""), (gate_spec.armed_roots_file, f"{proj}\n")):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    env = {harness.home_env: str(home), "HOME": str(root)}
    return root / "dist" / "bin" / loaded.spec.group_name("session_start"), proj, env, harness.provider_env


def payload(vendor: str) -> str:
    if vendor == "agy":
        return json.dumps(AGY)
    return (FIXTURES / PAYLOADS[vendor]).read_text()


@pytest.mark.parametrize("vendor", sorted([*PAYLOADS, "agy"]))
def test_session_start_hook_output_is_the_vendors_context(
        rig: tuple[Path, Path, dict[str, str], str], vendor: str) -> None:
    gate, proj, env, provider_env = rig
    r = run(gate, payload(vendor), sh=DASH, env={**env, provider_env: vendor}, cwd=proj)
    assert r.code == 0, r.err
    profile = PROFILES[vendor]
    want = outputs.stdout_object(profile, "context", TEXT, "session_start")
    assert (want is not None) == (vendor in WITH_CONTEXT)
    if want is None:
        assert r.out == ""
    else:
        assert json.loads(r.out) == want
        assert r.out.count("\n") == 1
