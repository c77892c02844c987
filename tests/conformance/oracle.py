"""The oracle: what each tentacle must answer, computed in Python from the payload (json module)
and the contracts (CONTRACTS.md parts 1 and 2), never by running a script.

Payload semantics per vendor (field paths, edit tools, patch bodies), the harness rules (lock
suffixes, targets, dials, SITREP compliance) and the vendor answer for each verdict are stated
here once, independently of the generator's profiles and templates.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.conformance.kit import CONTRACT, EVENTS, MSG, PROFILES, SPEC
from tests.jsonref import ABSENT, lookup, py_cap
from tests.tentaclekit import CODEX_BLANKS, lock_keys, seed_suffix, suffix

from hookshape.plan import outputs

CAPS = SPEC["matrix"]
PROTECT = SPEC["protect"]

ACTOR = "alice"
OTHER = "bob"
HEADER = MSG["sitrep_header"]
SITREP_CONTRACT = MSG["sitrep_contract"] + "\n" + HEADER
STOP_DIRECTIVE = MSG["stop_directive"] + "\n" + HEADER
STOP_SUGGEST = MSG["stop_suggest"] + "\n" + HEADER
LOCK = SPEC["matrix"]["lock_prefix"]
ALERT = SPEC["matrix"]["alert_prefix"]
PHEROMONE = SPEC["matrix"]["pheromone_prefix"]
KEY_MAX = SPEC["harness"]["session_key_max"]
MARKERS = f"{SPEC['harness']['state_dir']}/{SPEC['stop']['marker_dir']}"


@dataclass(frozen=True)
class Shape:
    """Where a vendor's payload keeps things, and how it answers."""

    tool: tuple[str, ...]
    tool_input: tuple[str, ...]
    edit: frozenset[str]
    path_fields: tuple[str, ...]
    cwd: tuple[tuple[str, ...], ...]
    session: tuple[tuple[str, ...], ...]
    patch: str | None = None           # field of tool_input holding a patch body (any tool)
    stop_text: tuple[tuple[str, ...], ...] = ()
    stop_active: tuple[str, ...] | None = None
    turn: tuple[str, ...] | None = None  # once-per-turn marker of the prompt event
    shell: frozenset[str] = frozenset()  # shell tools, their command in tool_input.<command>
    command: str = ""
    read: frozenset[str] = frozenset()   # tools that only read files
    mcp_format: str = ""                 # an MCP tool's name: {server} and {tool} in a format


def _dotted(path: str) -> tuple[str, ...]:
    return tuple(path.split(".")) if path else ()


def shape(vendor: str) -> Shape:
    """The payload fields a vendor's profile names, read here by Python on its own."""
    p, tools = PROFILES[vendor].payload, PROFILES[vendor].tools
    return Shape(tool=_dotted(p.tool_name), tool_input=_dotted(p.tool_input),
                 edit=frozenset(tools.edit), path_fields=tuple(p.path_fields),
                 shell=frozenset(tools.shell), command=p.command_field, read=frozenset(tools.read),
                 mcp_format=tools.mcp_format,
                 cwd=tuple(_dotted(c) for c in p.cwd), session=tuple(_dotted(c) for c in p.session),
                 patch=p.patch_field or None, stop_text=tuple(_dotted(t) for t in p.stop_text),
                 stop_active=_dotted(p.stop_active) or None, turn=_dotted(p.turn_marker) or None)


VENDOR: dict[str, Shape] = {v: shape(v) for v in PROFILES}


# ------------------------------------------------------------------------ payload reading --

def string(doc: Any, path: tuple[str, ...]) -> str:
    v = lookup(doc, path)
    return v if isinstance(v, str) else ""


def first_string(doc: Any, paths: tuple[tuple[str, ...], ...]) -> str:
    for p in paths:
        s = string(doc, p)
        if s:
            return s
    return ""


def norm(path: str) -> str:
    """Lexical normalisation: //, /./ and /../ collapse (the file may not exist)."""
    stack: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack:
                stack.pop()
            continue
        stack.append(part)
    return "/" + "/".join(stack)


def absolute(path: str, cwd: str) -> str:
    if path == "":
        return ""
    if not path.startswith("/"):
        if not cwd.startswith("/"):
            return ""
        path = cwd + "/" + path
    return norm(path)


def session_key(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._:-]", "_", s)[:KEY_MAX]


def cwd_of(vendor: str, doc: Any) -> str:
    cwd = first_string(doc, VENDOR[vendor].cwd)
    return cwd if cwd.startswith("/") else ""


def command_text(value: Any) -> str:
    """A shell command as one string: an argv array is joined by spaces (non-strings as "")."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(v if isinstance(v, str) else "" for v in value)
    return ""


_PATCH_HEADS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_paths(body: str) -> list[str]:
    out = []
    for line in body.split("\n"):
        line = line.strip(CODEX_BLANKS)
        for head in _PATCH_HEADS:
            if line.startswith(head):
                hit = line[len(head):]
                if hit:
                    out.append(hit)
                break
    return out


def targets(vendor: str, doc: Any) -> list[str]:
    """The absolute, normalised paths an edit touches (path fields of an edit tool, every path of
    a patch body), in order, without repeats."""
    if not isinstance(doc, dict):
        return []
    v = VENDOR[vendor]
    cwd = cwd_of(vendor, doc)
    base = lookup(doc, v.tool_input)
    raw: list[str] = []
    if string(doc, v.tool) in v.edit:
        raw += [absolute(string(base, (f,)), cwd) for f in v.path_fields]
    if v.patch is not None:
        body = command_text(lookup(base, (v.patch,)))
        if "*** Begin Patch" in body:
            raw += [absolute(p, cwd) for p in patch_paths(body)]
    out: list[str] = []
    for p in raw:
        if p and p not in out:
            out.append(p)
    return out


def lock_targets(vendor: str, doc: Any) -> list[str]:
    """What the lock gate and protect check before a call: the targets of an edit, then the path
    arguments of an MCP tool that may write (README, "Locks"): matrix.mcp_path_keys of its input,
    a string or the strings that open a list; none for a tool of the harness's own servers
    (halt.mcp_servers) or one whose name starts with a read verb (matrix.mcp_read_verbs)."""
    out = targets(vendor, doc)
    if not isinstance(doc, dict):
        return out
    server, name = mcp_parts(vendor, string(doc, VENDOR[vendor].tool))
    if not server or server in SPEC["halt"]["mcp_servers"]:
        return out
    if any(name.lower().startswith(verb.lower()) for verb in CAPS["mcp_read_verbs"]):
        return out
    base = lookup(doc, VENDOR[vendor].tool_input)
    cwd = cwd_of(vendor, doc)
    for key in CAPS["mcp_path_keys"]:
        value = base.get(key) if isinstance(base, dict) else None
        values = [value] if isinstance(value, str) else list(itertools.takewhile(
            lambda x: isinstance(x, str), value if isinstance(value, list) else []))
        for v in values:
            full = absolute(v, cwd)
            if full and full not in out:
                out.append(full)
    return out


def view_targets(vendor: str, doc: Any) -> list[str]:
    """The paths of a user hook's view: the targets of an edit, then the path fields of a read
    tool (a string, or a list of strings); reads are never targets of the lock gate or protect."""
    out = targets(vendor, doc)
    if not isinstance(doc, dict):
        return out
    v = VENDOR[vendor]
    if string(doc, v.tool) not in v.read:
        return out
    cwd = cwd_of(vendor, doc)
    base = lookup(doc, v.tool_input)
    for f in v.path_fields:
        value = lookup(base, (f,)) if isinstance(base, dict) else None
        for p in value if isinstance(value, list) else [value]:
            full = absolute(p, cwd) if isinstance(p, str) else ""
            if full and full not in out:
                out.append(full)
    return out


# -------------------------------------------------------------------------------- answers --


@dataclass
class Expect:
    """One run's expected answer: stdout object (None: empty), stderr text, and state effects."""

    out: dict[str, Any] | None = None
    err: str = ""
    code: int = 0                                   # exit code (user hooks: an answer on stderr blocks by exit 2)
    trail: list[str] = field(default_factory=list)  # post-tool: targets that get a trail line
    marker: str | None = None                       # stop: session key whose marker must exist
    verdict: str = "silent"                         # for reports: silent | block | warn | context


def context_answer(vendor: str, role: str, text: str) -> dict[str, Any] | None:
    return outputs.stdout_object(PROFILES[vendor], "context", text, role)


def block_answer(vendor: str, reason: str) -> dict[str, Any] | None:
    return outputs.stdout_object(PROFILES[vendor], "deny", reason, "pre_tool")


def one_line(text: str) -> str:
    return re.sub(r"[\r\n]+", " ", text)


def lock_matrix(paths: list[str], holder: str, extra: str = "") -> str:
    """Lock lines as the seed harness's writer puts them (its keys: seed_suffix)."""
    return extra + "".join(f'{LOCK}{seed_suffix(p)}="{holder}"\n' for p in paths)


def holder_of(t: str, locks: dict[str, str]) -> str:
    """The holder of another actor's lock on target t, else "": a lock under either key of the
    path blocks (the seed writer's key first, then the hashed one; README, "Lock keys")."""
    for key in lock_keys(t):
        holder = locks.get(key, "")
        if holder and holder != ACTOR:
            return holder
    return ""


def _bytes(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogatepass")


def checked(ts: list[str]) -> tuple[list[str], bool]:
    """The targets the gate checks (at most matrix.targets_max, each at most matrix.path_max
    bytes) and whether one was left unchecked (the oversize rule)."""
    out: list[str] = []
    over = False
    for t in ts:
        if len(out) >= CAPS["targets_max"] or len(_bytes(t)) > CAPS["path_max"]:
            over = True
            continue
        out.append(t)
    return out, over


def _capped(template: str, hits: list[tuple[str, str]]) -> str:
    """One message line per hit while the text is under reason_max, holders capped at
    holder_max, the whole cut to reason_max (all in bytes, never inside a UTF-8 character)."""
    text = b""
    for t, h in hits:
        if len(text) >= CAPS["reason_max"]:
            break
        holder = _text(py_cap(_bytes(h), CAPS["holder_max"]))
        text += (b"\n" if text else b"") + _bytes(template.format(path=t, holder=holder))
    return _text(py_cap(text, CAPS["reason_max"]))


def _vendor_configs() -> tuple[list[str], list[str]]:
    """The hook configs of the enabled vendors that protect guards (protect.vendor_configs, on
    by default when halt is enabled or a hook fails closed): under the user's home, and tails."""
    on = PROTECT.get("vendor_configs")
    if on is None:
        on = SPEC["halt"].get("enabled", True) or any(h.get("failure") == "closed" for h in SPEC.get("hooks", []))
    user: list[str] = []
    tails: list[str] = []
    for vid, cfg in SPEC["vendors"].items() if on else []:
        if not cfg.get("enabled", True):
            continue
        c = PROFILES[vid].config
        beside = (c.settings.user_path, c.settings.project_path) if c.settings else ()
        for f in (c.user_path, c.project_path, *c.also_read, *beside):
            f = f.replace("{name}", SPEC["harness"]["name"])
            (user if f.startswith("~/") else tails).append(f.removeprefix("~/"))
    return user, [f for f in tails if f]


USER_CONFIGS, PROJECT_CONFIGS = _vendor_configs()


def protected(t: str, home: str | None, user_home: str | None = None) -> bool:
    """A control file of the harness ([protect]), compared case-folded: a home entry (or a
    user-home vendor config), anything in it, any directory above it (/ is above every home);
    or, in any directory, a dial file or a project vendor config, or a directory of one."""
    up = t.upper()
    if t == "/":
        return True
    for entry in [*PROTECT["anywhere"], *PROJECT_CONFIGS]:
        parts = entry.upper().split("/")
        if any(up.endswith("/" + "/".join(parts[:i])) for i in range(1, len(parts) + 1)):
            return True
    fulls = [f"{home}/{e}" for e in PROTECT["home"]] if home else []
    fulls += [f"{user_home}/{e}" for e in USER_CONFIGS] if user_home else []
    for full in (f.upper() for f in fulls):
        if up == full or up.startswith(full + "/") or full.startswith(up.rstrip("/") + "/"):
            return True
    return False


def echo(t: str) -> str:
    """pr_echo: a protected path in a message, at most echo_max_bytes (then cut before its last
    character and marked with ...)."""
    b = _bytes(t)
    if len(b) <= PROTECT["echo_max_bytes"]:
        return t
    return _text(re.sub(rb"[\xc0-\xff][\x80-\xbf]*$", b"", b[: PROTECT["echo_max_bytes"]])) + "..."


def pre_tool(vendor: str, doc: Any, locks: dict[str, str], dial: str = "enforce",
             home: str | None = None) -> Expect:
    """locks: lock suffix -> holder, as the matrix file states them; home: the harness home
    (its control files are protected whatever the dial)."""
    ts, over = checked(lock_targets(vendor, doc))
    hit = next((t for t in ts if protected(t, home)), None)
    if hit is not None:
        return Expect(out=block_answer(vendor, MSG["protect_block"].format(path=echo(hit))), verdict="block")
    hits = []
    for t in ts:
        holder = holder_of(t, locks)
        if holder:
            hits.append((t, holder))
    if hits:
        reason, warn = _capped(MSG["block"], hits), _capped(MSG["warn"], hits)
    elif over and any(h != ACTOR for h in locks.values()):
        reason = warn = MSG["unchecked"]
    else:
        return Expect()
    if dial == "advisory":
        return Expect()
    if dial == "warn":
        p = PROFILES[vendor]
        if outputs.on_stderr(p, "warn", "pre_tool"):
            return Expect(err=one_line(warn) + "\n", verdict="warn")
        out = outputs.stdout_object(p, "warn", warn, "pre_tool")
        return Expect(out=out, verdict="warn") if out is not None else Expect()
    return Expect(out=block_answer(vendor, reason), verdict="block")


def prompt(vendor: str, doc: Any, alerts: list[tuple[str, str]], dial: str = "enforce") -> Expect:
    v = VENDOR[vendor]
    if v.turn is not None:
        n = lookup(doc, v.turn)
        if n is not ABSENT and not (n == 0 and type(n) is int):
            return Expect()
    parts = []
    if alerts:
        lines = [MSG["alert_line"].format(id=i, text=t) for i, t in alerts[: SPEC["prompt"]["max_entries"]]]
        parts.append(MSG["coordination_header"] + "\n" + "\n".join(lines))
    if dial != "off":
        parts.append(SITREP_CONTRACT)
    text = "\n\n".join(parts)
    out = context_answer(vendor, "prompt", text)
    return Expect(out=out, verdict="context" if out else "silent")


def stop_text(vendor: str, doc: Any) -> str:
    return first_string(doc, VENDOR[vendor].stop_text)


def compliant(text: str) -> bool:
    kw = SPEC["stop"]["compliance_keyword"].lower()
    return kw in text.lower() and any(line.count("|") >= 2 for line in text.split("\n"))


def stop_would_block(vendor: str, doc: Any) -> bool:
    v = VENDOR[vendor]
    observe = PROFILES[vendor].output.stop_guard == "counter" and SPEC["stop"]["counter_mode"] == "observe"
    if observe or not isinstance(doc, dict):
        return False
    if v.stop_active is not None and lookup(doc, v.stop_active) is True:
        return False
    text = stop_text(vendor, doc)
    return text != "" and not compliant(text)


def stop(vendor: str, doc: Any, dial: str = "enforce", marked: bool = False) -> Expect:
    """marked: this session was already kept working once within the TTL."""
    if not stop_would_block(vendor, doc) or dial == "off":
        return Expect()
    v = VENDOR[vendor]
    if dial == "suggest":
        out = outputs.stdout_object(PROFILES[vendor], "suggest", STOP_SUGGEST, "stop")
        return Expect(out=out, verdict="context") if out is not None else Expect()
    session = session_key(first_string(doc, v.session))
    if marked and session:
        return Expect()
    out = outputs.stdout_object(PROFILES[vendor], "stop", STOP_DIRECTIVE, "stop")
    return Expect(out=out, marker=session or None, verdict="block")


def post_tool(vendor: str, doc: Any) -> Expect:
    return Expect(trail=targets(vendor, doc))


def trail_line(path: str, tool: str, index: int) -> re.Pattern[str]:
    """The matrix line post-tool appends for one target (a value with no escape: control bytes as
    spaces, the four bytes a double-quoted shell word takes as syntax as ?)."""
    def q(s: str) -> str:
        s = re.sub(r"[\x01-\x1f\x7f]", " ", s)
        return re.sub(r'[\\"$`]', "?", s)

    note = MSG["post_note"].format(tool=tool)
    head = re.escape(f"{PHEROMONE}{suffix(path)}_") + r"\d+_\d+_" + str(index) + '="'
    body = re.escape(q(f"{path} | {note} | actor:{ACTOR} | ts:")) + r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    return re.compile(head + body + '"')


# ------------------------------------------------------------------------------ user hooks --

HOOK_VALUE_MAX = CONTRACT.value_max_bytes


def mcp_parts(vendor: str, tool: str) -> tuple[str, str]:
    """The server and the tool of an MCP tool's name by the vendor's name format
    (`mcp__{server}__{tool}`): the server is the text between the part before {server} and the
    first occurrence of the part between {server} and {tool}, the tool what follows; ("", "")
    when the name is not of that format (or the format starts with {server})."""
    fmt = VENDOR[vendor].mcp_format
    pre, _, after = fmt.partition("{server}")
    mid = after.partition("{tool}")[0]
    if not pre or not mid or not tool.startswith(pre):
        return "", ""
    rest = tool[len(pre):]
    k = rest.find(mid)
    return (rest[:k], rest[k + len(mid):]) if k > 0 else ("", "")


def mcp_server(vendor: str, tool: str) -> str:
    """The server of an MCP tool (mcp_parts); "" when the name is not an MCP tool's."""
    return mcp_parts(vendor, tool)[0]


def tool_class(vendor: str, tool: str) -> str:
    """edit, shell, read, mcp:<server>, other ("" without a tool)."""
    v = VENDOR[vendor]
    if tool == "":
        return ""
    for cls, tools in (("edit", v.edit), ("shell", v.shell), ("read", v.read)):
        if tool in tools:
            return cls
    server = mcp_server(vendor, tool)
    return f"mcp:{server}" if server else "other"


def hook_value(s: str, ascii_only: bool = False) -> bytes:
    """A value of the view as a hook sees it: no \034 (a space instead), at most
    contract.value_max_bytes (never inside a UTF-8 character); under yash (which cuts a capture
    at the first byte outside ASCII in the C locale) each byte outside ASCII is a `?`."""
    b = py_cap(_bytes(s.replace("\x1c", " ")), HOOK_VALUE_MAX)
    return re.sub(rb"[^\x01-\x7f]", b"?", b) if ascii_only else b


def hook_view(vendor: str, role: str, doc: Any, hook: str, ascii_only: bool = False) -> dict[str, bytes]:
    """The normalized view (contract key -> value) a user hook on `role` is given for this event,
    read from the vendor's payload paths; `dir` is left to the caller (it is where the tree is)."""
    v = VENDOR[vendor]
    tool = string(doc, v.tool)
    cls = tool_class(vendor, tool)
    base = lookup(doc, v.tool_input)
    command = command_text(lookup(base, (v.command,))) if cls == "shell" else ""
    active = v.stop_active is not None and lookup(doc, v.stop_active) is True
    view = {
        "event": role, "vendor": vendor, "tool": tool, "tool_class": cls,
        "paths": "\n".join(view_targets(vendor, doc)) if tool else "",
        "command": command, "cwd": cwd_of(vendor, doc), "session": first_string(doc, v.session),
        "message": stop_text(vendor, doc) if role == "stop" else "",
        "stop_active": "1" if active else "", "cut": "", "hook": hook,
    }
    return {k: hook_value(s, ascii_only) for k, s in view.items()}


def hook_answer(vendor: str, role: str, kind: outputs.Kind, text: str) -> Expect:
    """A user hook's answer said in the vendor's dialect: the JSON object on stdout, or the text
    as one line on stderr (with exit 2 when the answer blocks), or nothing."""
    p = PROFILES[vendor]
    if outputs.on_stderr(p, kind, role):  # type: ignore[arg-type]
        return Expect(err=one_line(text) + "\n", code=2 if kind in outputs.BLOCKING else 0,
                      verdict="block" if kind in outputs.BLOCKING else "context")
    out = outputs.stdout_object(p, kind, text, role)  # type: ignore[arg-type]
    if out is None:
        return Expect()
    return Expect(out=out, verdict="block" if kind in outputs.BLOCKING else "context")


# ----------------------------------------------------------------------- event builders --


def put(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set a value at a payload path; a "0" step is the first element of a list."""
    cur: Any = doc
    for k, nxt in itertools.pairwise(path):
        if isinstance(cur, list):
            cur = cur[0]
            continue
        cur = cur.setdefault(k, [{}] if nxt == "0" else {})
    if isinstance(cur, list):
        cur[:] = [value]
    else:
        cur[path[-1]] = value


def place(doc: dict[str, Any], vendor: str, role: str, cwd: Any) -> dict[str, Any]:
    """The vendor's own cwd field and event name of a role (where its payload has one)."""
    v, p = VENDOR[vendor], PROFILES[vendor].payload
    if len(v.cwd[0]) == 2 and v.cwd[0][1] == "0":
        doc[v.cwd[0][0]] = [cwd]
    else:
        put(doc, v.cwd[0], cwd)
    if p.event:
        put(doc, _dotted(p.event), EVENTS[vendor][role])
    if role == "prompt" and v.turn:
        put(doc, v.turn, 0)
    return doc


def raw_event(vendor: str, role: str, fields: dict[tuple[str, ...], bytes], cwd: bytes) -> bytes:
    """An event of the vendor's shape whose string values are raw JSON string bodies (escapes
    stay escapes): the field paths given, the vendor's cwd and event name."""
    doc: dict[str, Any] = {}
    marks: dict[str, bytes] = {}
    for i, (path, raw) in enumerate([*fields.items(), (("@cwd",), cwd)]):
        mark = f"@@raw{i}@@"
        marks[mark] = raw
        if path == ("@cwd",):
            place(doc, vendor, role, mark)
        else:
            put(doc, path, mark)
    text = json.dumps(doc).encode()
    for mark, raw in marks.items():
        text = text.replace(b'"' + mark.encode() + b'"', b'"' + raw + b'"')
    return text
