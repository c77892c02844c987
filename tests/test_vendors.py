"""`hookshape vendors`: every shipped vendor with its confidence, config files and what each role
can enforce, as a table and as JSON that agrees with `hookshape capabilities --json`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests import clikit

from hookshape.spec.profiles import builtin_dir, load_profiles
from hookshape.spec.types import ROLES

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "hookshape.toml"
LEVELS = {"enforced", "best-effort", "observe-only", "unsupported"}


def hs(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return clikit.hookshape(*args, cwd=cwd, env={"HOOKSHAPE_HOME": None, "HOOKSHAPE_SPEC": None})


def vendors_json(*args: str, cwd: Path) -> dict[str, Any]:
    proc = hs("vendors", "--json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_table_lists_every_shipped_vendor_with_confidence(tmp_path: Path) -> None:
    proc = hs("vendors", cwd=tmp_path)  # no spec here: the built-in default harness
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:4] == ["vendor", "name", "confidence", "in"]
    for role in ROLES:
        assert role in lines[0]
    shipped = load_profiles()
    assert shipped and {p.stem for p in builtin_dir().glob("*.toml")} == set(shipped)
    for vid, profile in shipped.items():
        row = next(line for line in lines if line.startswith(f"{vid} "))
        assert profile.vendor.display in row and f" {profile.vendor.confidence} " in row, row
        assert profile.config.user_path in row and profile.config.project_path in row, row
        assert sum(row.count(f" {level}") for level in LEVELS) >= len(ROLES), row
    assert "the built-in default harness" in lines[-1]


def test_json_agrees_with_capabilities(tmp_path: Path) -> None:
    data = vendors_json(cwd=tmp_path)
    assert data["spec"] is None
    shipped = load_profiles()
    assert [v["id"] for v in data["vendors"]] == sorted(shipped)
    proc = hs("capabilities", "--json", "--default", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    caps = {(c["vendor"], c["role"]): c for c in json.loads(proc.stdout)["capabilities"]}
    seen = set()
    for vendor in data["vendors"]:
        profile = shipped[vendor["id"]]
        assert vendor["display"] == profile.vendor.display
        assert vendor["confidence"] == profile.vendor.confidence
        assert vendor["user_config"] == profile.config.user_path
        assert vendor["project_config"] == profile.config.project_path
        assert [r["role"] for r in vendor["roles"]] == list(ROLES)
        for cell in vendor["roles"]:
            assert cell["level"] in LEVELS and cell["reason"]
            key = (vendor["id"], cell["role"])
            if key in caps:
                assert cell == caps[key]
                seen.add(key)
    assert seen == set(caps)  # every capability cell is in the vendor list


def test_the_local_spec_is_used_and_disabled_vendors_still_listed(tmp_path: Path) -> None:
    text = SPEC.read_text(encoding="utf-8")
    head, sep, tail = text.partition("[vendors.codex]\nenabled = true")
    assert sep, "the default spec enables codex in a [vendors.codex] table"
    (tmp_path / "hookshape.toml").write_text(head + "[vendors.codex]\nenabled = false" + tail,
                                             encoding="utf-8")
    data = vendors_json(cwd=tmp_path)
    assert data["spec"] == "hookshape.toml"
    enabled = {v["id"]: v["enabled"] for v in data["vendors"]}
    assert enabled["codex"] is False and enabled["claude"] is True
    row = next(line for line in hs("vendors", cwd=tmp_path).stdout.splitlines()
               if line.startswith("codex "))
    assert " no " in row, row


def test_profiles_are_honoured(tmp_path: Path) -> None:
    extra = tmp_path / "profiles"
    extra.mkdir()
    text = (builtin_dir() / "claude.toml").read_text(encoding="utf-8")
    text = text.replace('id = "claude"', 'id = "acme"').replace('display = "Claude Code"',
                                                                 'display = "Acme Agent"')
    (extra / "acme.toml").write_text(text.replace('confidence = "high"', 'confidence = "medium"'),
                                     encoding="utf-8")
    data = vendors_json("--profiles", str(extra), cwd=tmp_path)
    acme = next(v for v in data["vendors"] if v["id"] == "acme")
    assert acme["display"] == "Acme Agent" and acme["confidence"] == "medium"
    assert acme["enabled"] is False  # the default spec does not name it


def test_a_bad_spec_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "hookshape.toml").write_text("[harness\n", encoding="utf-8")
    proc = hs("vendors", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("hookshape: error: "), proc.stderr


def test_help_lists_init_and_vendors(tmp_path: Path) -> None:
    proc = hs("--help", cwd=tmp_path)
    assert proc.returncode == 0
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert "init" in names and "vendors" in names


def test_docs_vendors_page_is_the_profiles() -> None:
    """docs/vendors.md is `hookshape vendors --doc`, word for word (`make docs` writes it), and
    `--contract` is its first table."""
    from hookshape.plan.contract import to_contract, to_doc

    page = (Path(__file__).resolve().parents[1] / "docs" / "vendors.md").read_text(encoding="utf-8")
    profiles = load_profiles()
    shipped = [profiles[v] for v in sorted(profiles)]
    assert page == to_doc(shipped), "docs/vendors.md is stale: run make docs"
    assert to_contract(shipped) in page


MINIMAL = ROOT / "examples" / "minimal.toml"


def test_a_hooks_only_spec_shows_its_own_events(tmp_path: Path) -> None:
    """examples/minimal.toml has hooks on prompt and pre_tool and no tentacle: those two columns,
    each cell what CAPABILITIES says of that gate (never `unsupported` for want of a tentacle)."""
    proc = hs("vendors", "--spec", str(MINIMAL), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.splitlines()[0].split()
    assert head[5:7] == ["prompt", "pre_tool"] and "stop" not in head, head
    data = vendors_json("--spec", str(MINIMAL), cwd=tmp_path)
    caps = json.loads(hs("capabilities", "--json", "--spec", str(MINIMAL), cwd=tmp_path).stdout)
    by_key = {(c["vendor"], c["tentacle"]): c for c in caps["capabilities"] if "answer" not in c}
    for vendor in data["vendors"]:
        cells = vendor["roles"]
        assert [(c["role"], c["tentacle"]) for c in cells] == [
            ("prompt", "acme-guard-prompt"), ("pre_tool", "acme-guard-pre-tool")]
        for cell in cells:
            assert cell == by_key[(vendor["id"], cell["tentacle"])]
    claude = next(v for v in data["vendors"] if v["id"] == "claude")
    assert [c["level"] for c in claude["roles"]] == ["enforced", "enforced"]


def test_two_gates_on_one_event_are_named(tmp_path: Path) -> None:
    spec = tmp_path / "hookshape.toml"
    spec.write_text(SPEC.read_text(encoding="utf-8")
                    + '\n[[hooks]]\nname = "mine"\nevent = "stop"\nrun = ["true"]\n', encoding="utf-8")
    proc = hs("vendors", "--spec", str(spec), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.splitlines()[0].split()
    assert head[5:10] == ["prompt", "pre_tool", "post_tool", "pd-hook-stop", "giant-squid-stop"], head
