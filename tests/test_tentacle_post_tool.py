"""post-tool (the trace): one pheromone line per mutated target, appended under a lock; values
with no escape in them (a reader takes them as they stand), each bounded; concurrent writers
never tear, lose or duplicate lines; the trail keeps at most matrix.trail_max entries, the newest."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from tests.shells import InTurn
from tests.tentaclekit import (
    FIXTURES,
    ISO_RE,
    MSG,
    NAMES,
    SPEC,
    VENDORS,
    Pd,
    assert_silent,
    context,
    expected_targets,
    from_iso,
    iso,
    p_edit,
    p_prompt,
    p_shell,
    p_tool,
    patch_body,
    shell_path,
    suffix,
)

pytest_plugins = ["tests.tentaclekit"]  # fixtures: squid, sh, pd, farms

# the vendor only decides where its payload keeps a field and the shape of the answer: in fast
# mode each test takes one vendor, the vendors in turn over the file
VEND = InTurn("vendor", VENDORS)
TOOL = {"claude": "Write", "gemini": "write_file", "codex": "apply_patch", "agy": "write_to_file"}
# a value holds no escape: none of the four bytes a double-quoted shell word takes as syntax
LINE = re.compile(r'PD_PHEROMONE_([A-Z0-9_]+)_(\d+)_(\d+)_(\d+)="([^"\\$`]*)"')
TRAIL_MAX = SPEC["matrix"]["trail_max"]
HOLDER_MAX = SPEC["matrix"]["holder_max"]
PATH_MAX = SPEC["matrix"]["path_max"]


def trace(pd: Pd, vendor: str, payload: dict, **env: str | None):
    return pd.run("post_tool", payload, env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice", **env})


def parse(line: str) -> dict:
    m = LINE.fullmatch(line)
    assert m, f"malformed trail line: {line!r}"
    value = m.group(5)
    path, note, actor, ts = value.split(" | ")
    return {"suffix": m.group(1), "epoch": int(m.group(2)), "pid": int(m.group(3)), "i": int(m.group(4)),
            "path": path, "note": note, "actor": actor, "ts": ts, "value": value}


def lines(pd: Pd, matrix=None) -> list[str]:
    f = matrix or pd.matrix
    data = f.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the matrix must end with a newline"
    return data.decode().splitlines()


def check(line: str, path: str, tool: str, actor: str = "alice", i: int = 1, window=None) -> dict:
    t = parse(line)
    assert t["path"] == path
    assert t["note"] == MSG["post_note"].format(tool=tool)
    assert t["actor"] == f"actor:{actor}"
    assert re.fullmatch(rf"ts:{ISO_RE}", t["ts"])
    assert from_iso(t["ts"][3:]) == t["epoch"]
    assert t["i"] == i
    assert t["suffix"] == suffix(path)
    if window:
        assert window[0] <= t["epoch"] <= window[1]
    return t


@VEND
def test_one_trail_per_edit(pd: Pd, vendor: str) -> None:
    target = str(pd.proj / "src" / "a.ts")
    before = int(time.time())
    assert_silent(trace(pd, vendor, p_edit(vendor, target, pd.proj, post=True)))
    (line,) = lines(pd)
    check(line, target, TOOL[vendor], window=(before, int(time.time())))
    assert not (pd.state / "matrix.lock").exists()


@VEND
def test_appends_after_existing_lines(pd: Pd, vendor: str) -> None:
    pd.lock(pd.proj / "x", "bob")
    pd.alert("OPS", "keep me")
    old = pd.matrix.read_text()
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "b.ts"), pd.proj, post=True))
    text = pd.matrix.read_text()
    assert text.startswith(old)
    new = text[len(old):].splitlines()
    assert [parse(x)["path"] for x in new] == [str(pd.proj / "a.ts"), str(pd.proj / "b.ts")]


@VEND
def test_existing_matrix_without_final_newline(pd: Pd, vendor: str) -> None:
    pd.matrix.write_text('PD_LOCK_X="bob"')
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    got = lines(pd)
    assert got[0] == 'PD_LOCK_X="bob"'
    assert parse(got[1])["path"] == str(pd.proj / "a.ts")


@VEND
@pytest.mark.parametrize("last", ['PD_ALERT_X=""', 'PD_LOCK_Y="a\\"b"', "no quotes at all", '""', 'PD_LOCK_Z="bob"\n'])
def test_last_line_of_any_shape_keeps_its_own_line(pd: Pd, vendor: str, last: str) -> None:
    """Whatever the matrix ends with, with or without its newline, the trail starts a line of
    its own and the old last line stays as it was."""
    pd.matrix.write_text('PD_LOCK_X="bob"\n' + last)
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    got = lines(pd)
    assert got[:-1] == ['PD_LOCK_X="bob"', last.rstrip("\n")]
    assert parse(got[-1])["path"] == str(pd.proj / "a.ts")


@VEND
def test_home_and_matrix_created(pd: Pd, vendor: str) -> None:
    home = pd.root / "new-home"
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True), PD_HOME=str(home))
    (line,) = lines(pd, home / "matrix.env")
    check(line, str(pd.proj / "a.ts"), TOOL[vendor])


@VEND
def test_matrix_file_env(pd: Pd, vendor: str) -> None:
    other = pd.root / "shared.env"
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True), PD_MATRIX_FILE=str(other))
    assert not pd.matrix.exists()
    (line,) = lines(pd, other)
    check(line, str(pd.proj / "a.ts"), TOOL[vendor])


@VEND
def test_no_actor(pd: Pd, vendor: str) -> None:
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True), PD_ACTOR=None)
    (line,) = lines(pd)
    check(line, str(pd.proj / "a.ts"), TOOL[vendor], actor="")


@VEND
def test_relative_target(pd: Pd, vendor: str) -> None:
    trace(pd, vendor, p_edit(vendor, "src/../lib/./b.ts", pd.proj, post=True))
    (line,) = lines(pd)
    check(line, str(pd.proj / "lib" / "b.ts"), TOOL[vendor])


@VEND
def test_shell_tool_leaves_no_trail(pd: Pd, vendor: str) -> None:
    assert_silent(trace(pd, vendor, p_shell(vendor, "echo hi > a.ts", pd.proj)))
    assert not pd.matrix.exists()


@pytest.mark.parametrize("form", ["string", "argv"])
def test_codex_multi_file_patch(pd: Pd, form: str) -> None:
    body = patch_body(("Add", "new.ts"), ("Update", "src/up.ts"), ("Delete", "old.ts"), ("Update", "src/mv.ts"),
                      ("Move", "src/moved.ts"), ("Update", "new.ts"))
    command = body if form == "string" else ["apply_patch", body]
    trace(pd, "codex", p_tool("codex", "apply_patch", {"command": command}, pd.proj, post=True))
    got = [parse(x) for x in lines(pd)]
    want = [str(pd.proj / p) for p in ("new.ts", "src/up.ts", "old.ts", "src/mv.ts", "src/moved.ts")]
    assert [t["path"] for t in got] == want
    assert [t["i"] for t in got] == [1, 2, 3, 4, 5]
    assert len({(t["epoch"], t["pid"]) for t in got}) == 1
    assert len({t["suffix"] + str(t["i"]) for t in got}) == 5


POST_FIXTURES = sorted((v, p.stem) for v in VENDORS for p in (FIXTURES / v).glob("*.json")
                       if p.stem.startswith("post-tool") or p.stem in ("live-PostToolUse", "live-AfterTool"))


def test_post_fixture_corpus() -> None:
    assert {v for v, _ in POST_FIXTURES} == set(VENDORS)


@pytest.mark.parametrize(("vendor", "name"), POST_FIXTURES)
@pytest.mark.parametrize("provider", ["configured", "sniffed"])
def test_fixture_payloads(pd: Pd, vendor: str, name: str, provider: str) -> None:
    payload = json.loads((FIXTURES / vendor / f"{name}.json").read_text())
    targets = expected_targets(vendor, payload)
    env = {"PD_HOOK_PROVIDER": vendor if provider == "configured" else None}
    assert_silent(trace(pd, vendor, payload, **env))
    if not targets:
        assert not pd.matrix.exists()
        return
    tool = payload["toolCall"]["name"] if vendor == "agy" else payload["tool_name"]
    got = lines(pd)
    assert len(got) == len(targets)
    for i, (line, t) in enumerate(zip(got, targets, strict=True), 1):
        check(line, t, tool, i=i)


# -- values are data ------------------------------------------------------------------------------

HOSTILE = [
    'dq"uote',
    "sq'uote",
    "dollar $HOME and ${HOME}",
    "$(touch CANARY)",
    "`touch CANARY`",
    "back\\slash\\",
    "percent %s %n %%",
    "sp ace",
    "-leading",
    "ü multibyte €",
]
CONTROL = ["tab\tx", "new\nline", "cr\rx", "bell\x07x", "del\x7fx", "esc\x1b[31mx"]


def stored(text: str) -> str:
    """A value as the trail stores it: control bytes as spaces, the shell's four syntax bytes
    (" \\ $ `) as ?, nothing escaped."""
    return re.sub(r'["\\$`]', "?", re.sub(r"[\x00-\x1f\x7f]", " ", text))


@VEND
@pytest.mark.parametrize("name", HOSTILE + CONTROL)
def test_hostile_paths_are_stored_without_escapes(pd: Pd, vendor: str, name: str) -> None:
    if vendor == "codex" and "\n" in name:
        name = name.replace("\n", " ")  # a patch body is line-based: no newline in its paths
    target = f"{pd.proj}/{name}/f.ts"
    r = pd.run("post_tool", p_edit(vendor, target, pd.proj, post=True),
               env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "al$(touch CANARY)\"ice"}, cwd=pd.root)
    assert_silent(r)
    (line,) = lines(pd)
    assert "\\" not in line
    t = parse(line)
    assert t["path"] == stored(target)
    assert t["suffix"] == suffix(target)  # the key still names the path itself
    assert t["actor"] == "actor:al?(touch CANARY)?ice"
    # a shell sourcing the matrix gets the value as it stands and runs nothing
    key = line.split("=", 1)[0]
    out = subprocess.run(["sh", "-c", f'. "$1" && printf %s "${key}"', "sh", str(pd.matrix)],
                         capture_output=True, cwd=pd.root, check=True)
    assert out.stdout.decode() == t["value"]
    assert not list(pd.root.rglob("CANARY"))


@VEND
def test_trail_round_trip_to_prompt(pd: Pd, vendor: str) -> None:
    target = f"{pd.proj}/we\"ird $(x) `y` \\ dir/f.ts"
    pd.run("post_tool", p_edit(vendor, target, pd.proj, post=True),
           env={"PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "bob"})
    t = parse(lines(pd)[0])
    r = pd.run("prompt", p_prompt(vendor, pd.proj), env={"PD_HOOK_PROVIDER": vendor, "PD_SITREP": "off"})
    want = MSG["coordination_header"] + "\n" + MSG["pheromone_line"].format(
        path=stored(target), note=MSG["post_note"].format(tool=TOOL[vendor]), actor="bob", ts=t["ts"][3:])
    assert r.json == context(vendor, want)


@VEND
def test_entries_are_bounded(pd: Pd, vendor: str) -> None:
    """Agent-chosen text of any length and any bytes: a path of escapes up to path_max stays one
    entry with no backslash in it; the actor is cut to holder_max bytes (never inside a UTF-8
    character)."""
    target = f"{pd.proj}/" + '"\\' * ((PATH_MAX - len(str(pd.proj)) - 8) // 2) + "/f.ts"
    assert len(target.encode()) <= PATH_MAX
    actor = "\u20ac" * HOLDER_MAX  # 3 bytes each
    assert_silent(trace(pd, vendor, p_edit(vendor, target, pd.proj, post=True), PD_ACTOR=actor))
    (line,) = lines(pd)
    assert "\\" not in line
    t = parse(line)
    assert t["path"] == stored(target)
    assert t["actor"] == "actor:" + "\u20ac" * (HOLDER_MAX // 3)
    assert len(line.encode()) <= PATH_MAX + 3 * HOLDER_MAX + 200


# -- the lock -------------------------------------------------------------------------------------


@VEND
def test_stale_lock_of_a_dead_writer_is_broken(pd: Pd, vendor: str) -> None:
    lock = pd.state / "matrix.lock"
    lock.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (lock / "pid").write_text(f"{dead.pid}\n")
    t0 = time.time()
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    assert time.time() - t0 < 5
    assert len(lines(pd)) == 1
    assert not lock.exists()


@pytest.mark.parametrize("vendor", ["claude"])
@pytest.mark.parametrize("pid", ["live", "garbage"])
def test_lock_never_won_still_appends(pd: Pd, vendor: str, pid: str) -> None:
    lock = pd.state / "matrix.lock"
    lock.mkdir(parents=True)
    (lock / "pid").write_text(f"{os.getpid()}\n" if pid == "live" else "not-a-pid\n")
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    assert len(lines(pd)) == 1
    assert lock.is_dir()  # another writer's lock is left alone


def race(pd: Pd, rounds: int, writers: int) -> list[str]:
    """Rounds of concurrent writers (one edit each, the vendors in turn), each reaped the moment
    it ends (a writer left a zombie would still answer `kill -0`, hiding a lock broken under its
    successor); the paths they edited."""
    env = {**pd.env, "PD_ACTOR": "alice"}
    script = pd.squid / NAMES["post_tool"]
    vendors = ["claude", "gemini", "codex", "agy"]
    for rnd in range(rounds):
        procs = []
        for w in range(writers):
            vendor = vendors[w % 4]
            payload = json.dumps(p_edit(vendor, f"{pd.proj}/w{w}/r{rnd}.ts", pd.proj, post=True)).encode()
            p = subprocess.Popen([*shell_path(pd.sh), str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env={**env, "PD_HOOK_PROVIDER": vendor}, cwd=pd.root)
            procs.append((p, payload))
        with ThreadPoolExecutor(max_workers=writers) as pool:  # each writer reaped as it ends
            done = list(pool.map(lambda job: (job[0], *job[0].communicate(job[1], timeout=60)), procs))
        for p, out, err in done:
            assert p.returncode == 0 and out == b"" and err == b""
    return sorted(f"{pd.proj}/w{w}/r{r}.ts" for w in range(writers) for r in range(rounds))


def test_eight_concurrent_writers(pd: Pd) -> None:
    edited = race(pd, 6, 8)
    got = [parse(x) for x in lines(pd)]
    assert sorted(t["path"] for t in got) == edited
    keys = [f'{t["suffix"]}_{t["epoch"]}_{t["pid"]}_{t["i"]}' for t in got]
    assert len(set(keys)) == len(keys)
    assert not (pd.state / "matrix.lock").exists()


def test_concurrent_multi_file_writers_keep_batches_whole(pd: Pd) -> None:
    """Each writer appends its whole batch in one write: its lines stay together."""
    env = {**pd.env, "PD_ACTOR": "alice", "PD_HOOK_PROVIDER": "codex"}
    script = pd.squid / NAMES["post_tool"]
    procs = []
    for w in range(8):
        body = patch_body(*[("Update", f"w{w}/f{k}.ts") for k in range(20)])
        payload = json.dumps(p_tool("codex", "apply_patch", {"command": body}, pd.proj, post=True)).encode()
        p = subprocess.Popen([*shell_path(pd.sh), str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, cwd=pd.root)
        procs.append((p, payload))
    for p, payload in procs:
        p.communicate(payload, timeout=60)
        assert p.returncode == 0
    got = [parse(x) for x in lines(pd)]
    assert len(got) == 160
    for start in range(0, 160, 20):
        batch = got[start:start + 20]
        assert len({t["pid"] for t in batch}) == 1
        assert [t["i"] for t in batch] == list(range(1, 21))


def test_iso_helper() -> None:
    assert iso(0) == "1970-01-01T00:00:00Z"
    assert from_iso("2000-02-29T12:00:00Z") == 951825600


@VEND
@pytest.mark.parametrize("target", ["/repo/src/auth.ts", "/repo/src/Button.tsx", "/repo/a-b.py", "/repo/a_b.py"])
def test_trail_key_is_the_lock_key(pd: Pd, vendor: str, target: str) -> None:
    """The trail names a path by the same suffix as its lock (docs/default-harness.md, "Lock keys")."""
    assert_silent(trace(pd, vendor, p_edit(vendor, target, pd.proj, post=True)))
    (line,) = lines(pd)
    check(line, target, TOOL[vendor])


# -- the bound of the trail -----------------------------------------------------------------------

FOREIGN = ['PD_LOCK_REPO_A_TS="bob"', 'PD_ALERT_OPS="keep me"', "# a note of the operator", 'PD_LOCK_X="carol"', ""]


def old_trail(n: int) -> list[str]:
    """n trail lines of an earlier writer (oldest first) with the foreign lines between them."""
    out = []
    for i in range(n):
        if i % 97 == 0:
            out.append(FOREIGN[(i // 97) % len(FOREIGN)])
        out.append(f'PD_PHEROMONE_OLD_{i}="/x/old{i}.ts | edited | actor:bob | ts:2020-01-01T00:00:00Z"')
    return out


def split_trail(got: list[str]) -> tuple[list[str], list[str]]:
    return [x for x in got if x.startswith("PD_PHEROMONE_")], [x for x in got if not x.startswith("PD_PHEROMONE_")]


def leftovers(pd: Pd) -> list[str]:
    return sorted(p.name for p in pd.matrix.parent.iterdir() if p.name.startswith(pd.matrix.name + "."))


@VEND
@pytest.mark.parametrize("final_newline", [True, False])
def test_trail_past_its_bound_keeps_the_newest_half(pd: Pd, vendor: str, final_newline: bool) -> None:
    old = old_trail(TRAIL_MAX)
    pd.matrix.write_text("\n".join(old) + ("\n" if final_newline else ""))
    target = str(pd.proj / "a.ts")
    assert_silent(trace(pd, vendor, p_edit(vendor, target, pd.proj, post=True)))
    trail, rest = split_trail(lines(pd))
    assert len(trail) == TRAIL_MAX // 2
    assert trail[:-1] == [x for x in old if x.startswith("PD_PHEROMONE_")][-(TRAIL_MAX // 2 - 1):]
    check(trail[-1], target, TOOL[vendor])
    assert rest == [x for x in old if not x.startswith("PD_PHEROMONE_")]  # every other line, in order
    assert leftovers(pd) == []
    assert not (pd.state / "matrix.lock").exists()


@VEND
def test_trail_at_its_bound_stays_whole(pd: Pd, vendor: str) -> None:
    old = old_trail(TRAIL_MAX - 1)
    pd.matrix.write_text("\n".join(old) + "\n")
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    got = lines(pd)
    assert got[:-1] == old
    assert len(split_trail(got)[0]) == TRAIL_MAX


@pytest.mark.parametrize("vendor", ["claude"])
def test_symlinked_matrix_is_appended_never_replaced(pd: Pd, vendor: str) -> None:
    real = pd.root / "real-matrix.env"
    real.write_text("\n".join(old_trail(TRAIL_MAX)) + "\n")
    pd.matrix.parent.mkdir(parents=True, exist_ok=True)
    pd.matrix.symlink_to(real)
    trace(pd, vendor, p_edit(vendor, str(pd.proj / "a.ts"), pd.proj, post=True))
    assert pd.matrix.is_symlink()
    assert len(split_trail(lines(pd, real))[0]) == TRAIL_MAX + 1


def test_concurrent_writers_across_the_trim(pd: Pd) -> None:
    """Writers racing while the trail passes its bound: the trim holds the lock, and a writer of
    one line that appended beside it sees the trim generation move and looks for its line, so no
    new line is lost, no foreign line is touched, and the bound holds."""
    old = old_trail(TRAIL_MAX - 20)
    pd.matrix.write_text("\n".join(old) + "\n")
    edited = race(pd, 5, 8)
    trail, rest = split_trail(lines(pd))
    assert rest == [x for x in old if not x.startswith("PD_PHEROMONE_")]
    assert len(trail) <= TRAIL_MAX
    new = [parse(x) for x in trail if not x.startswith("PD_PHEROMONE_OLD_")]
    assert sorted(t["path"] for t in new) == edited
    assert leftovers(pd) == []
    assert not (pd.state / "matrix.lock").exists()


@pytest.mark.parametrize("vendor", ["claude"])
@pytest.mark.parametrize("kept", [False, True])
def test_one_line_lost_to_a_trim_is_appended_again(pd: Pd, vendor: str, kept: bool) -> None:
    """A single short line is appended without the lock; a trim that ran meanwhile (the lock was
    there) is seen, and once the lock is gone the line is looked for: appended again when the
    trim lost it, never twice when it kept it."""
    old = old_trail(10)
    pd.matrix.write_text("\n".join(old) + "\n")
    lock = pd.state / "matrix.lock"
    pd.state.mkdir(parents=True, exist_ok=True)
    lock.write_text(f"{os.getpid()}\n")  # a trim in progress, held by a live process
    target = f"{pd.proj}/a.ts"
    payload = json.dumps(p_edit(vendor, target, pd.proj, post=True)).encode()
    p = subprocess.Popen([*shell_path(pd.sh), str(pd.squid / NAMES["post_tool"])], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**pd.env, "PD_HOOK_PROVIDER": vendor, "PD_ACTOR": "alice"}, cwd=pd.root)
    assert p.stdin is not None
    p.stdin.write(payload)
    p.stdin.close()
    deadline = time.time() + 20
    while "a.ts" not in pd.matrix.read_text():
        assert time.time() < deadline and p.poll() is None, "the line was not appended while the lock was held"
        time.sleep(0.002)
    # the trim renames its copy over the matrix (with or without the line), moves the
    # generation and gives the lock back
    copy = pd.matrix.with_name("copy")
    copy.write_text(pd.matrix.read_text() if kept else "\n".join(old[5:]) + "\n")
    os.replace(copy, pd.matrix)
    (pd.state / "matrix.gen").write_text("1\n")
    lock.unlink()
    assert p.wait(timeout=30) == 0
    got = lines(pd)
    (mine,) = [x for x in got if "a.ts" in x]
    check(mine, target, TOOL[vendor])
    assert [x for x in got if x != mine] == (old if kept else old[5:])
