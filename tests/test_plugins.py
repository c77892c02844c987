"""`hookshape package --as <format>`: the harness as a vendor's plugin or extension, built from the
vendor profile's [plugin] section and the spec's [package].

Each format's files (manifest, hooks file, scripts, README, LICENSE), every hook command through
the vendor's plugin root variable, the plugin's gate answering exactly as the installed gate does
while its own directory stays untouched, reproducible bytes, a marketplace around the plugin,
the refusals (a directory in the way, a name the format refuses, a vendor the spec does not
enable), and a made-up vendor whose plugin format is data only. The vendors' own validators run
in tests/test_plugin_validators.py, the vendors' CLIs in tests/live/test_live_plugins.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from tests import clikit
from tests.test_render import zeta_profile, zeta_spec

from hookshape.package.common import DEFAULT_EPOCH
from hookshape.spec.load import Loaded, load
from hookshape.spec.profiles import load_profiles

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minimal.toml"
FIXTURES = ROOT / "tests" / "fixtures" / "payloads"
PROFILES = load_profiles()
FORMATS = {p.plugin.format: vid for vid, p in PROFILES.items() if p.plugin is not None}
WITH_MARKETPLACE = sorted(f for f, vid in FORMATS.items() if PROFILES[vid].plugin.marketplace)  # type: ignore[union-attr]
# the pre-tool write fixture of each vendor (its target is made `.env`, which the example's guard blocks)
WRITES = {"claude": "pre-tool-Write", "codex": "pre-tool-apply_patch", "gemini": "pre-tool-write_file",
          "copilot": "pre-tool-create", "cursor": "pre-tool-Write"}
PACKAGE = {"name": "acme-guard", "version": "1.2.3", "description": "Keeps agents out of secrets.",
           "author": "Acme Tools", "author_email": "tools@acme.example", "license": "MIT",
           "homepage": "https://acme.example/guard"}


def hookshape(*args: str | Path, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    return clikit.hookshape(*args, env={"SOURCE_DATE_EPOCH": None, **(env or {})})


def spec_with(folder: Path, package: dict[str, Any] | None = None, drop: tuple[str, ...] = ()) -> Path:
    """The example spec with a [package] section, and without the vendors named in drop."""
    doc = tomlkit.parse(EXAMPLE.read_text(encoding="utf-8"))
    if package is not None:
        doc["package"] = package
    for vid in drop:
        del doc["vendors"][vid]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "acme.toml"
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return path


def build(out: Path, fmt: str, spec: Path = EXAMPLE, *extra: str) -> dict[str, tuple[bytes, int]]:
    proc = hookshape("package", "--as", fmt, "--out", out, "--spec", spec, *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tree(out)


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root: its bytes and mode."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o777)
            for p in sorted(root.rglob("*")) if p.is_file()}


def rendered(spec: Path, out: Path) -> dict[str, tuple[bytes, int]]:
    proc = hookshape("render", "--spec", spec, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return tree(out)


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith("hookshape: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def example() -> Loaded:
    return load(EXAMPLE)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rendered, once for the module (read only)."""
    out = tmp_path_factory.mktemp("dist") / "dist"
    rendered(EXAMPLE, out)
    return out


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each format of the example built once for the module, in a directory whose path has a
    space (read only: the tests that run its gates check it is left as it was)."""
    base = tmp_path_factory.mktemp("plain") / "my plugins"
    made: dict[str, tuple[Path, dict[str, tuple[bytes, int]]]] = {}

    def get(fmt: str) -> tuple[Path, dict[str, tuple[bytes, int]]]:
        if fmt not in made:
            root = base / fmt / "acme-guard"
            made[fmt] = (root, build(root, fmt))
        return made[fmt]
    return get


# -- the spec's [package] --------------------------------------------------------------------

def test_package_section_defaults_from_the_harness(example: Loaded) -> None:
    pkg = example.spec.package
    assert (pkg.name, pkg.marketplace, pkg.version) == ("acme-guard", "acme-guard", "0.1.0")
    assert pkg.description == "The acme-guard hooks for agent CLIs"
    assert (pkg.author, pkg.author_email, pkg.license, pkg.license_file, pkg.homepage) == ("",) * 5


@pytest.mark.parametrize(("key", "value", "words"), [
    ("version", "1.0", "semantic version"),
    ("homepage", "acme.example", "http:// or https:// URL"),
    ("author_email", "tools at acme", "email address"),
    ("license", "MIT license", "SPDX license expression"),
    ("name", "acme guard", "command or file name"),
])
def test_package_section_bad_value_is_one_line_at_its_key(tmp_path: Path, key: str, value: str,
                                                          words: str) -> None:
    spec = spec_with(tmp_path, {key: value})
    proc = hookshape("validate", "--spec", spec)
    assert proc.returncode == 1
    assert f"package.{key}" in proc.stderr and words in proc.stderr, proc.stderr


# -- the files of each format ----------------------------------------------------------------

@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_format_holds_manifest_hooks_scripts_readme_and_license(plain: Any, dist: Path, fmt: str) -> None:
    plugin = PROFILES[FORMATS[fmt]].plugin
    assert plugin is not None
    _root, files = plain(fmt)
    scripts = {f"{plugin.scripts}/{p.removeprefix('bin/')}": v for p, v in tree(dist).items() if p.startswith("bin/")}
    assert scripts, dist
    assert {p: v for p, v in files.items() if p.startswith(plugin.scripts + "/")} == scripts
    assert set(files) == {plugin.manifest.path, plugin.hooks.path, "README.md", "LICENSE", *scripts}
    for path in (plugin.manifest.path, plugin.hooks.path, "README.md", "LICENSE"):
        assert files[path][1] == 0o644, path
    readme = files["README.md"][0].decode()
    for line in plugin.install:
        assert line.replace("{name}", "acme-guard").replace("{marketplace}", "acme-guard") in readme
    assert "`~/.acme-guard` (or `$ACME_HOME` when it is set)" in readme
    assert "never write into it" in readme
    assert files["LICENSE"][0].decode().endswith("No license is granted: all rights reserved.\n")


# the manifest each format writes from a full [package] (a vendor's own keys: Gemini has no
# author or license key, Codex puts the author and home page in its `interface`)
MANIFESTS: dict[str, dict[str, Any]] = {
    "claude-plugin": {"name": "acme-guard", "version": "1.2.3", "description": "Keeps agents out of secrets.",
                      "author": {"name": "Acme Tools", "email": "tools@acme.example"},
                      "homepage": "https://acme.example/guard", "license": "MIT"},
    "codex-plugin": {"name": "acme-guard", "version": "1.2.3", "description": "Keeps agents out of secrets.",
                     "interface": {"displayName": "acme-guard", "shortDescription": "Keeps agents out of secrets.",
                                   "developerName": "Acme Tools", "websiteURL": "https://acme.example/guard"}},
    "gemini-extension": {"name": "acme-guard", "version": "1.2.3", "description": "Keeps agents out of secrets."},
}
MANIFESTS["copilot-plugin"] = MANIFESTS["cursor-plugin"] = MANIFESTS["claude-plugin"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_manifest_carries_the_package_keys(tmp_path: Path, fmt: str) -> None:
    plugin = PROFILES[FORMATS[fmt]].plugin
    assert plugin is not None
    files = build(tmp_path / "out", fmt, spec_with(tmp_path / "spec", PACKAGE))
    raw = files[plugin.manifest.path][0]
    assert json.loads(raw) == MANIFESTS[fmt]
    assert list(json.loads(raw)) == list(MANIFESTS[fmt])  # the profile's key order
    assert raw.endswith(b"}\n") and b"\n  " in raw
    license_text = files["LICENSE"][0].decode()
    assert "Copyright (c) Acme Tools" in license_text
    assert "SPDX-License-Identifier: MIT" in license_text
    readme = files["README.md"][0].decode()
    assert "By Acme Tools." in readme and "https://acme.example/guard" in readme and "MIT: see `LICENSE`" in readme


def test_cursor_manifest_keeps_to_the_cursor_schema(tmp_path: Path) -> None:
    """Cursor's plugin schema refuses any key it does not list (additionalProperties false, in
    the manifest and in its author): the manifest holds only keys it lists (cursor/plugins
    schemas/plugin.schema.json @100d651c)."""
    allowed = {"name", "displayName", "description", "version", "author", "publisher", "homepage",
               "repository", "license", "logo", "keywords", "category", "tags", "commands", "agents",
               "skills", "rules", "hooks", "variables", "mcpServers"}
    files = build(tmp_path / "out", "cursor-plugin", spec_with(tmp_path / "spec", PACKAGE))
    manifest = json.loads(files[".cursor-plugin/plugin.json"][0])
    assert set(manifest) <= allowed
    assert set(manifest["author"]) <= {"name", "email"}
    assert re.fullmatch(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$", manifest["name"])


def commands(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k in ("command", "bash") and isinstance(v, str)]
        return found + [c for v in node.values() for c in commands(v)]
    if isinstance(node, list):
        return [c for v in node for c in commands(v)]
    return []


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_hooks_file_runs_every_gate_through_the_root_variable(plain: Any, fmt: str, example: Loaded) -> None:
    profile = PROFILES[FORMATS[fmt]]
    plugin = profile.plugin
    assert plugin is not None
    _root, files = plain(fmt)
    hooks = json.loads(files[plugin.hooks.path][0])
    assert "hooks" in hooks  # wrapped: an unwrapped file loses every hook (Claude, Gemini)
    assert {k: v for k, v in hooks.items() if k != "hooks"} == profile.config.extras
    events = hooks["hooks"]
    want = {profile.events.of(g.role): g.name for g in example.spec.gates() if g.registered}
    assert set(events) == set(want)
    for event, gate in want.items():
        line = f'ACME_HOOK_PROVIDER={profile.id} "${{{plugin.root_var}}}/{plugin.scripts}/{gate}"'
        assert commands(events[event]) == [line]
    # Claude's, Codex's and Gemini's plugins nest handlers in matcher groups; Copilot's and
    # Cursor's list them flat
    first = events[profile.events.pre_tool][0]
    assert ("hooks" in first) == (profile.config.layout == "groups")


# -- the plugin's gate, run as the vendor runs it --------------------------------------------

def digest(root: Path) -> dict[str, str]:
    return {p: hashlib.sha256(data).hexdigest() + oct(mode) for p, (data, mode) in tree(root).items()}


def run_line(line: str, payload: bytes, home: Path, var: str, root: Path) -> subprocess.CompletedProcess[bytes]:
    """A hook command as a vendor runs it: `sh -c <command>`, the event on stdin, the plugin's
    directory in the root variable (Gemini replaces ${extensionPath} as text before its shell
    sees the line: the shell's own expansion of the same name gives the same words)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C", var: str(root)}
    return subprocess.run(["sh", "-c", line], input=payload, capture_output=True, env=env,
                          timeout=60, check=False, cwd=home)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_plugin_gate_answers_as_the_installed_gate_and_leaves_its_directory_alone(
        tmp_path: Path, plain: Any, dist: Path, fmt: str) -> None:
    """The example's guard blocks a write of `.env` through the plugin's pre-tool command with
    the same exit code, stdout and stderr as the rendered gate run by its installed command; the
    plugin (in a directory whose path has a space) is not changed by the run, and the gate's
    state is under the harness home."""
    profile = PROFILES[FORMATS[fmt]]
    plugin = profile.plugin
    assert plugin is not None
    root, files = plain(fmt)
    raw = (FIXTURES / profile.id / f"{WRITES[profile.id]}.json").read_text()
    payload = raw.replace("src/retry.ts", ".env").replace("src/fetch.ts", ".env").encode()
    assert b".env" in payload
    hooks = json.loads(files[plugin.hooks.path][0])
    line = commands(hooks["hooks"][profile.events.pre_tool])[0]
    before = digest(root)
    homes = (tmp_path / "h-plugin", tmp_path / "h-dist")
    for home in homes:
        (home / ".acme-guard" / "state").mkdir(parents=True)
        (home / ".acme-guard" / "state" / "debug").write_text("")
    got = run_line(line, payload, homes[0], plugin.root_var, root)
    want = run_line(f'ACME_HOOK_PROVIDER={profile.id} "{dist}/bin/acme-guard-pre-tool"', payload,
                    homes[1], plugin.root_var, root)
    assert b"is a secrets file" in got.stdout + got.stderr, got
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert digest(root) == before
    log = (homes[0] / ".acme-guard" / "state" / "debug.log").read_text()
    assert "tentacle=acme-guard-pre-tool" in log and "outcome=verdict" in log


def test_a_hook_s_own_files_run_from_the_plugin(tmp_path: Path) -> None:
    """A user hook whose command names its files ({dir}/...) finds them in the plugin: the
    goal-and-audit example's goal gate (a Python file beside its spec) blocks a write in a
    session without a goal, through the Claude plugin's pre-tool command."""
    spec = ROOT / "examples" / "goal-and-audit.toml"
    root = tmp_path / "plugin"
    files = build(root, "claude-plugin", spec)
    assert "scripts/hooks/goal-gate.d/goal-and-audit/goal.py" in files, sorted(files)
    line = commands(json.loads(files["hooks/hooks.json"][0])["hooks"]["PreToolUse"])[0]
    payload = (FIXTURES / "claude" / "pre-tool-Write.json").read_bytes()
    home = tmp_path / "home"
    home.mkdir()
    got = run_line(line, payload, home, "CLAUDE_PLUGIN_ROOT", root)
    assert b"BLOCKED: this session has no goal yet." in got.stdout + got.stderr, got


# -- reproducible, and written whole or not at all -------------------------------------------

def test_two_builds_are_byte_identical_with_the_epoch_as_every_mtime(tmp_path: Path) -> None:
    one = build(tmp_path / "one", "claude-plugin", EXAMPLE, "--marketplace")
    two = build(tmp_path / "two", "claude-plugin", EXAMPLE, "--marketplace")
    assert one == two
    stamps = {p.stat().st_mtime for p in (tmp_path / "one").rglob("*")}
    assert stamps == {DEFAULT_EPOCH}
    modes = {p.stat().st_mode & 0o777 for p in (tmp_path / "one").rglob("*") if p.is_dir()}
    assert modes == {0o755}
    proc = hookshape("package", "--as", "claude-plugin", "--out", tmp_path / "three", "--spec", EXAMPLE,
                     env={"SOURCE_DATE_EPOCH": "1700000000"})
    assert proc.returncode == 0, proc.stderr
    assert tree(tmp_path / "three") == build(tmp_path / "four", "claude-plugin")
    assert {p.stat().st_mtime for p in (tmp_path / "three").rglob("*")} == {1700000000}


def test_an_empty_directory_becomes_the_plugin(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert ".claude-plugin/plugin.json" in build(out, "claude-plugin")
    assert not [p for p in tmp_path.iterdir() if p.name != "out"]  # no temporary directory left


@pytest.mark.parametrize("what", ["a file in it", "a file", "a symlink"])
def test_a_directory_in_the_way_is_refused_and_nothing_is_written(tmp_path: Path, what: str) -> None:
    out = tmp_path / "out"
    if what == "a file in it":
        out.mkdir()
        (out / "mine.txt").write_text("keep\n")
    elif what == "a file":
        out.write_text("keep\n")
    else:
        (tmp_path / "elsewhere").mkdir()
        out.symlink_to(tmp_path / "elsewhere")
    before = sorted(p.as_posix() for p in tmp_path.rglob("*"))
    refused(hookshape("package", "--as", "claude-plugin", "--out", out, "--spec", EXAMPLE), str(out))
    assert sorted(p.as_posix() for p in tmp_path.rglob("*")) == before


def test_an_unwritable_place_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("keep\n")
    refused(hookshape("package", "--as", "codex-plugin", "--out", tmp_path / "file" / "out", "--spec", EXAMPLE),
            "cannot write")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_refused_name_writes_nothing_not_even_the_parents(tmp_path: Path) -> None:
    spec = spec_with(tmp_path / "spec", {"name": "Acme_Guard"})
    out = tmp_path / "new" / "deeper" / "out"
    refused(hookshape("package", "--as", "claude-plugin", "--out", out, "--spec", spec),
            "package.name", "'Acme_Guard'", "kebab-case")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(("fmt", "name", "ok"), [
    ("claude-plugin", "acme-guard2", True), ("claude-plugin", "Acme-Guard", False),
    ("gemini-extension", "Acme-Guard", True), ("gemini-extension", "acme.guard", False),
    ("codex-plugin", "acme_guard", True), ("codex-plugin", "acme.guard", False),
    ("cursor-plugin", "acme.guard", True), ("cursor-plugin", "acme-", False),
    ("copilot-plugin", "acme--guard", False), ("copilot-plugin", "a" * 64, True), ("copilot-plugin", "a" * 65, False),
])
def test_each_format_has_its_own_name_rule(tmp_path: Path, fmt: str, name: str, ok: bool) -> None:
    spec = spec_with(tmp_path / "spec", {"name": name})
    proc = hookshape("package", "--as", fmt, "--out", tmp_path / "out", "--spec", spec)
    if ok:
        assert proc.returncode == 0, proc.stderr
    else:
        refused(proc, "package.name", repr(name), PROFILES[FORMATS[fmt]].plugin.name_rule)  # type: ignore[union-attr]


def test_a_vendor_the_spec_does_not_enable_is_refused(tmp_path: Path) -> None:
    spec = spec_with(tmp_path / "spec", drop=("gemini",))
    refused(hookshape("package", "--as", "gemini-extension", "--out", tmp_path / "out", "--spec", spec),
            "Gemini CLI", "[vendors.gemini]")
    assert not (tmp_path / "out").exists()


def test_an_unknown_format_names_every_format(tmp_path: Path) -> None:
    refused(hookshape("package", "--as", "vsix", "--out", tmp_path / "out"),
            "--as vsix", "tarball", *FORMATS)


def test_marketplace_is_for_plugin_formats_with_one(tmp_path: Path) -> None:
    refused(hookshape("package", "--marketplace", "--out", tmp_path / "t"), "--marketplace")
    refused(hookshape("package", "--as", "gemini-extension", "--marketplace", "--out", tmp_path / "g",
                      "--spec", EXAMPLE), "--marketplace", "Gemini CLI extension")
    assert not list(tmp_path.iterdir())


# -- a marketplace around the plugin ---------------------------------------------------------

def source_of(entry: dict[str, Any]) -> str:
    source = entry["source"]
    return str(source["path"] if isinstance(source, dict) else source)


@pytest.mark.parametrize("fmt", WITH_MARKETPLACE)
def test_marketplace_lists_the_plugin_in_its_folder(tmp_path: Path, fmt: str) -> None:
    plugin = PROFILES[FORMATS[fmt]].plugin
    assert plugin is not None and plugin.marketplace is not None
    spec = spec_with(tmp_path / "spec", {**PACKAGE, "marketplace": "acme-tools"})
    files = build(tmp_path / "out", fmt, spec, "--marketplace")
    alone = build(tmp_path / "alone", fmt, spec)
    inside = f"{plugin.marketplace.plugins_dir}/acme-guard"
    assert {p.removeprefix(inside + "/"): v for p, v in files.items() if p.startswith(inside + "/")} == alone
    assert set(files) == {plugin.marketplace.path, *(f"{inside}/{p}" for p in alone)}
    listing = json.loads(files[plugin.marketplace.path][0])
    assert listing["name"] == "acme-tools"
    [entry] = listing["plugins"]
    assert entry["name"] == "acme-guard"
    assert os.path.normpath(source_of(entry)) == inside


def test_marketplace_owner_falls_back_to_the_name(tmp_path: Path) -> None:
    files = build(tmp_path / "out", "claude-plugin", EXAMPLE, "--marketplace")
    listing = json.loads(files[".claude-plugin/marketplace.json"][0])
    assert listing["owner"] == {"name": "acme-guard"}  # no author: no email either
    assert listing["plugins"][0]["source"] == "./plugins/acme-guard"


# -- LICENSE, --from, the tarball ------------------------------------------------------------

def test_license_file_is_shipped_as_it_is(tmp_path: Path) -> None:
    spec = spec_with(tmp_path / "spec", {"license": "Apache-2.0", "license_file": "COPYING"})
    (tmp_path / "spec" / "COPYING").write_bytes(b"The full text\n\tas written.\n")
    files = build(tmp_path / "out", "gemini-extension", spec)
    assert files["LICENSE"][0] == b"The full text\n\tas written.\n"
    missing = spec_with(tmp_path / "other", {"license_file": "NOPE"})
    refused(hookshape("package", "--as", "gemini-extension", "--out", tmp_path / "o2", "--spec", missing),
            "package.license_file", "NOPE")
    assert not (tmp_path / "o2").exists()


def test_a_license_expression_names_each_license_text(tmp_path: Path) -> None:
    spec = spec_with(tmp_path / "spec", {"license": "MIT OR Apache-2.0"})
    text = build(tmp_path / "out", "claude-plugin", spec)["LICENSE"][0].decode()
    assert "SPDX-License-Identifier: MIT OR Apache-2.0" in text
    assert "https://spdx.org/licenses/MIT.html" in text and "https://spdx.org/licenses/Apache-2.0.html" in text
    assert "Copyright (c) the authors of acme-guard" in text


def test_no_license_is_said_on_the_command_line(tmp_path: Path) -> None:
    proc = hookshape("package", "--as", "claude-plugin", "--out", tmp_path / "out", "--spec", EXAMPLE)
    assert proc.returncode == 0
    files = sum(1 for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert proc.stdout.splitlines() == [
        f"{tmp_path / 'out'}: claude-plugin acme-guard 0.1.0, {files} files",
        "note: [package] names no license: its LICENSE grants none"]


def test_from_a_rendered_tree_gives_the_same_plugin(tmp_path: Path, plain: Any) -> None:
    dist = tmp_path / "dist"
    rendered(EXAMPLE, dist)
    assert build(tmp_path / "from", "codex-plugin", EXAMPLE, "--from", str(dist)) == plain("codex-plugin")[1]
    (dist / "bin" / "acme-guard-prompt").write_text("#!/bin/sh\nexit 0\n")
    refused(hookshape("package", "--as", "codex-plugin", "--out", tmp_path / "bad", "--spec", EXAMPLE,
                      "--from", dist), "MANIFEST")
    assert not (tmp_path / "bad").exists()


# -- a new plugin format is data ---------------------------------------------------------------

def zeta_plugin(path: Path) -> None:
    """The made-up vendor's plugin format: a manifest at the top with nested keys, the hooks in
    a list under a key of their own (a shape no real plugin has), its own root variable and
    scripts folder, a marketplace with the plugins in `bundles/`."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    plugin = tomlkit.table()
    plugin.update({
        "format": "zeta-bundle", "display": "Zeta bundle", "root_var": "ZETA_BUNDLE_DIR",
        "scripts": "libexec", "name_pattern": "^[a-z-]+$", "name_rule": "lowercase letters and '-'",
        "install": ["zeta bundle add {marketplace}/{name}"],
        "notes": ["Zeta asks before it runs {name} the first time."],
        "source": "tests/test_plugins.py", "date": "2026-12-04",
        "manifest": {"path": "bundle.json", "keys": {"id": "{name}", "meta": {"v": "{version}", "by": "{author}"},
                                                     "schema": 3}},
        "hooks": {"path": "zeta/hooks.json", "root": "handlers", "layout": "list", "extras": {"kind": "hooks"},
                  "handler": {"command": "run", "timeout": "limitMs", "event": "on"}},
        "marketplace": {"path": "index.json", "plugins_dir": "bundles",
                        "keys": {"index": "{marketplace}", "bundles": [{"id": "{name}", "at": "{path}"}]}},
    })
    doc["plugin"] = plugin
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")


def test_a_made_up_vendor_s_plugin_format_needs_only_its_profile(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    zeta_plugin(zeta_profile(profiles, "decision-deny"))
    spec = zeta_spec(tmp_path / "spec")
    out = tmp_path / "out"
    proc = hookshape("package", "--as", "zeta-bundle", "--marketplace", "--out", out, "--spec", spec,
                     "--profiles", profiles)
    assert proc.returncode == 0, proc.stderr
    files = tree(out)
    assert json.loads(files["index.json"][0]) == {"index": "giant-squid",
                                                  "bundles": [{"id": "giant-squid", "at": "bundles/giant-squid"}]}
    inside = "bundles/giant-squid/"
    assert json.loads(files[inside + "bundle.json"][0]) == {"id": "giant-squid", "meta": {"v": "0.1.0"}, "schema": 3}
    hooks = json.loads(files[inside + "zeta/hooks.json"][0])
    assert list(hooks) == ["kind", "handlers"] and hooks["kind"] == "hooks"
    names = {h["on"] for h in hooks["handlers"]}
    assert names <= {"TurnOpen", "ToolGate", "ToolDone", "TurnClose"} and "ToolGate" in names
    for handler in hooks["handlers"]:
        assert re.fullmatch(r'PD_HOOK_PROVIDER=zeta "\$\{ZETA_BUNDLE_DIR\}/libexec/pd-hook-[a-z-]+"', handler["run"])
        assert handler["limitMs"] == 5000
    assert any(p.startswith(inside + "libexec/") for p in files)
    readme = files[inside + "README.md"][0].decode()
    assert "zeta bundle add giant-squid/giant-squid" in readme and "Zeta bundle" in readme
    assert "Zeta asks before it runs giant-squid the first time." in readme


def test_a_plugin_format_with_an_unknown_placeholder_is_refused(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    path = zeta_profile(profiles, "decision-deny")
    zeta_plugin(path)
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    doc["plugin"]["manifest"]["keys"]["id"] = "{nmae}"
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    proc = hookshape("validate", "--spec", zeta_spec(tmp_path / "spec"), "--profiles", profiles)
    assert proc.returncode == 1
    assert "{nmae} is not one of" in proc.stderr and "{name}" in proc.stderr, proc.stderr


def test_the_tarball_stays_the_default(tmp_path: Path) -> None:
    proc = hookshape("package", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["SHA256SUMS", "giant-squid-hooks-0.1.0.tar.gz"]
