"""Hook matchers per vendor, derived from the profile's tool names unless the spec overrides them."""

from __future__ import annotations

import difflib
import re

from hookshape.spec.hooks import Group
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile
from hookshape.spec.types import TOOL_CLASSES, Role

_META = re.compile(r"([.^$*+?()\[\]{}|\\])")


def _escape(name: str) -> str:
    return _META.sub(r"\\\1", name)


def tool_names(profile: Profile, role: Role) -> list[str]:
    """Tools a role watches: edits always; the shell tool only before a call (halt reaches it)."""
    names = list(profile.tools.edit)
    if role == "pre_tool":
        names += profile.tools.shell
    return names


def mcp_prefixes(spec: Spec, profile: Profile) -> list[str]:
    """The name prefixes of the harness's MCP tools on this vendor (e.g. `mcp__port-daddy__`),
    one per halt.mcp_servers entry; none when the halt model is off (only a halt blocks them)."""
    if not spec.halt.enabled:
        return []
    head = profile.tools.mcp_format.split("{tool}")[0]
    return list(dict.fromkeys(head.replace("{server}", s) for s in spec.halt.mcp_servers))


def matcher(spec: Spec, profile: Profile, role: Role) -> str | None:
    """The matcher string for a role, or None for lifecycle events that take none."""
    if role not in profile.matcher.roles:
        return None
    tentacle = spec.tentacle(role)
    if tentacle is not None and profile.id in tentacle.matcher:
        return tentacle.matcher[profile.id]
    names = tool_names(profile, role)
    if profile.matcher.syntax == "exact":
        return "|".join(names)
    alternatives = [_escape(n) for n in names]
    if role == "pre_tool":
        alternatives += [_escape(prefix) + ".*" for prefix in mcp_prefixes(spec, profile)]
    return "^(" + "|".join(alternatives) + ")$"


GLOB = "*"


def _item_names(spec: Spec, profile: Profile, item: str) -> list[str] | None:
    """The vendor's tool-name alternatives (regex) of one matcher item; None: it cannot be said.
    A `*` in a raw tool name stands for any run of characters (`mcp__github__*`); a vendor whose
    matchers are exact names only cannot say that, so its entry takes every tool and the
    adapter's own matcher picks the calls."""
    if item in TOOL_CLASSES:
        return [_escape(n) for n in getattr(profile.tools, item)]
    if item.startswith("mcp:"):
        fmt = profile.tools.mcp_format
        if fmt.index("{server}") == 0 or profile.matcher.syntax == "exact":
            return None
        prefix = fmt.replace("{server}", item[4:]).split("{tool}")[0]
        return [_escape(prefix) + ".*"]
    if GLOB in item:
        return None if profile.matcher.syntax == "exact" else [
            ".*".join(_escape(piece) for piece in item.split(GLOB))]
    return [_escape(item)]


def group_matcher(spec: Spec, profile: Profile, group: Group) -> str | None:
    """The matcher of a group's entry: every tool any of its hooks takes (the adapter then asks
    each hook's own matcher), or None for no matcher at all (every tool; lifecycle events)."""
    if group.role not in profile.matcher.roles:
        return None
    items = [i for h in group.hooks if h.runs_on(profile.id) for i in h.match]
    if "any" in items:
        return None
    names: list[str] = []
    for item in items:
        found = _item_names(spec, profile, item)
        if found is None:
            return None
        names += [n for n in found if n not in names]
    if not names:
        return None
    if profile.matcher.syntax == "exact":
        return "|".join(n.replace("\\", "") for n in names)
    return "^(" + "|".join(names) + ")$"


def known_tools(profile: Profile) -> list[str]:
    """Every tool name the profile knows: edit, shell, read and the others."""
    t = profile.tools
    return [*t.edit, *t.shell, *t.read, *t.other]


def _mcp_name(profile: Profile, name: str) -> bool:
    """Whether a name has the shape of an MCP tool's name on this vendor."""
    parts = re.split(r"(\{server\}|\{tool\})", profile.tools.mcp_format)
    rx = "".join(".+" if p in ("{server}", "{tool}") else re.escape(p) for p in parts)
    return re.fullmatch(rx, name) is not None


def raw_name_warnings(spec: Spec, profiles: list[Profile]) -> list[str]:
    """A raw tool name in a hook's match that an enabled vendor is not known to have: its matcher
    takes the name as written, so there the hook likely never runs (a vendor's other name of
    the tool in another case is suggested). Globs, classes and mcp:<server> are not raw names."""
    out = []
    for index, hook in enumerate(spec.hooks):
        for item in dict.fromkeys(hook.match):
            if item in TOOL_CLASSES or item.startswith("mcp:") or GLOB in item:
                continue
            lacking = [p for p in profiles if item not in known_tools(p) and not _mcp_name(p, item)]
            if lacking:
                out.append(f"hooks[{index}].match: {_raw_name_problem(item, profiles, lacking)}")
    return out


def _raw_name_problem(item: str, profiles: list[Profile], lacking: list[Profile]) -> str:
    others = [f"{p.id} has {n!r}" for p in lacking for n in known_tools(p)
              if n.lower() == item.lower()]
    hint = f" ({', '.join(others)})" if others else ""
    if len(lacking) == len(profiles):
        names = sorted({n for p in profiles for n in known_tools(p)})
        near = difflib.get_close_matches(item, names, n=1)
        if near and not others:
            hint = f" (did you mean {near[0]!r}?)"
        return (f"{item!r}: no enabled vendor is known to have a tool of that name{hint}; it is "
                "matched as written, so the hook may never run")
    ids = ", ".join(p.id for p in lacking)
    theirs = "its matcher takes" if len(lacking) == 1 else "their matchers take"
    return (f"{item!r}: no tool of that name is known on {ids}{hint}; {theirs} it as written, so "
            "there the hook may never run")


# the characters of a path glob that are literal in an ERE only inside a bracket expression
_BRACKETED = frozenset(".+")


def path_re(glob: str) -> str:
    """A path glob (a hook's `paths`) as the awk ERE its gate matches a target with, behind a
    letter saying against what: "a" the whole absolute path, "r" the path relative to the
    event's cwd. A glob without `/` takes a name at any depth (`*.py`: /x/y.py), `**/` a name or
    path at any depth, a leading `/` the whole path; any other glob with a `/` is relative to the
    cwd (`src/*.ts`). `*` is any run within a name, `?` one character of it, `**` any run of
    names. Every other character is itself (`.` and `+` in a bracket: no backslash in awk)."""
    if glob.startswith("/"):
        return "a^" + _glob_body(glob) + "$"
    if glob.startswith("**/"):
        return "a/" + _glob_body(glob[3:]) + "$"
    if "/" not in glob:
        return "a/" + _glob_body(glob) + "$"
    return "r^" + _glob_body(glob) + "$"


def _glob_body(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        c = glob[i]
        out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else f"[{c}]" if c in _BRACKETED else c)
        i += 1
    return "".join(out)


def path_res(globs: list[str]) -> list[str]:
    return [path_re(g) for g in globs]
