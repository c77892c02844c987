"""Shell rendering: Jinja2 over templates/ (StrictUndefined; keep_trailing_newline so a
template's final newline survives), plus filters that make spec text safe as sh and awk data."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from hookshape.errors import HookshapeError
from hookshape.plan import outputs
from hookshape.plan.matchers import mcp_prefixes, path_res
from hookshape.spec.hooks import HOOK_DIR, Group, Hook
from hookshape.spec.model import Spec
from hookshape.spec.profiles import Profile
from hookshape.spec.tentacles import Tentacle
from hookshape.spec.types import EVENTS, ROLES, TOOL_EVENTS

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def templates_dir() -> Path:
    packaged = Path(str(resources.files("hookshape") / "templates"))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "templates"


# inside single quotes, each of these closes the quote, is escaped, and reopens it
_SH_ESCAPES = {"'": "'\\''", "$": "'\\$'", "`": "'\\`'", "\\": "'\\\\'"}
_SH_TABLE = str.maketrans(_SH_ESCAPES)


def sh_quote(value: object) -> str:
    """A single-quoted sh word: the value stays data whatever it holds. `$`, backquotes and
    backslashes are backslash-escaped outside the quotes, so no text that looks like an expansion
    sits inside single quotes (shellcheck's SC2016 on a message that mentions `$HOME`) and no
    backslash ends a quoted part (SC1003 on a command word holding `\\$HOME`)."""
    return "'" + str(value).translate(_SH_TABLE) + "'"


def awk_string(value: object) -> str:
    """An awk string literal that also survives inside a single-quoted sh string, in plain ASCII:
    `$` and backquotes as octal escapes (nothing in the quoted program looks like an expansion),
    other characters as octal escapes of their UTF-8 bytes (yash in the C locale cannot read a
    script holding other bytes)."""
    text = str(value)
    for old, new in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\t", "\\t"), ("'", "\\047"),
                     ("$", "\\044"), ("`", "\\140"), ("\x1c", "\\034")):
        text = text.replace(old, new)
    if not text.isascii():
        text = "".join(c if c.isascii() else "".join(f"\\{b:03o}" for b in c.encode("utf-8")) for c in text)
    return '"' + text + '"'


def _message(template: str, literal: Callable[[str], str], slot: Callable[[str], str | None]) -> list[str]:
    """A spec message cut at its {placeholders}: each literal run through `literal`, each
    placeholder through `slot` (None: the placeholder stays literal text)."""
    parts: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        expr = slot(m.group(1))
        if expr is None:
            continue
        if m.start() > pos:
            parts.append(literal(template[pos:m.start()]))
        parts.append(expr)
        pos = m.end()
    if pos < len(template) or not parts:
        parts.append(literal(template[pos:]))
    return parts


def awk_message(template: str, mapping: dict[str, str]) -> str:
    """A spec message with {placeholders} as an awk concatenation of literals and expressions."""
    return " ".join(_message(template, awk_string, lambda name: "(" + mapping[name] + ")"))


def awk_list(values: list[str]) -> str:
    """A list as one awk string joined by SUBSEP-free separator (\\034), split at run time."""
    return awk_string("\034".join(values))


@cache
def environment(root: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(sq=sh_quote, awks=awk_string, awkmsg=awk_message, awklist=awk_list,
                       shmsg=sh_message, oneline=one_line)
    env.globals.update(answer_json=outputs.stdout_text, answer_tpl=outputs.awk_template,
                       answer_err=outputs.on_stderr)
    return env


def one_line(text: object, limit: int = 80) -> str:
    """Text for a comment line of a script: control characters as spaces (a line break would end
    the comment and make the rest code), runs of blanks as one, at most `limit` characters."""
    flat = " ".join("".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in str(text)).split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


def sh_message(template: str, mapping: dict[str, str]) -> str:
    """A spec message with {placeholders} as one sh word: literal parts single-quoted, each
    placeholder the double-quoted expansion of its variable (`{"hook": "$1"}`)."""
    return "".join(_message(template, sh_quote,
                            lambda name: '"' + mapping[name] + '"' if name in mapping else None))


def _hook_word(prefix: str, hook: Hook, word: str) -> str:
    """One word of a hook's command as a sh word: single-quoted, {dir} the hook's install
    directory (the adapter's own directory, then <name>.d)."""
    here = f'"$_{prefix}_here/{hook.name}.d"'
    return here.join(sh_quote(piece) if piece else "" for piece in word.split(HOOK_DIR)) or "''"


def hook_argv(prefix: str, hook: Hook) -> str:
    return " ".join(_hook_word(prefix, hook, word) for word in hook.run)


def hook_needs(prefix: str, hook: Hook) -> list[str]:
    """The words of a hook's command that name one of its installed files ({dir}/<file>)."""
    return [_hook_word(prefix, hook, w) for w in hook.run
            if w.startswith(HOOK_DIR + "/") and w[len(HOOK_DIR) + 1:] in hook.files]


def codes(spec: Spec) -> dict[str, int]:
    """The private exit codes by which a job tells its gate what it did, all beside the spec's
    verdict code (a verdict on stderr): `fail`, a fail-open hook of an adapter failed; `said`,
    a verdict was written as JSON on stdout; `lost`, a verdict was decided but writing it
    failed (a full disk): the gate then says a block of its own."""
    code = spec.gate.verdict_code
    step = 1 if code <= 122 else -1
    return {"verdict": code, "fail": code + step, "said": code + 2 * step, "lost": code + 3 * step}


def fail_code(spec: Spec) -> int:
    """The exit code by which a hooks adapter tells its gate that a fail-open hook failed."""
    return codes(spec)["fail"]


def vendor_configs(spec: Spec, vendors: list[Profile]) -> tuple[list[str], list[str]]:
    """The hook configs of the enabled vendors that protect guards when the spec asks for it
    (Spec.protects_vendor_configs), with the settings file beside a hooks file: those in the
    user's home (relative to it) and those of any project (matched by their tail); each once, in
    profile order."""
    if not spec.protects_vendor_configs():
        return [], []
    user: list[str] = []
    project: list[str] = []
    for v in vendors:
        settings = v.config.settings  # its switches, trust records (and Codex: inline hooks)
        beside = (settings.user_path, settings.project_path) if settings else ()
        for path in (v.config.user_path, v.config.project_path, *v.config.also_read, *beside):
            path = path.replace("{name}", spec.harness.name)
            if not path:
                continue
            home = path.startswith("~/")
            dest = user if home else project
            entry = path[2:] if home else path
            if entry not in dest:
                dest.append(entry)
    return user, project


def spec_context(spec: Spec, vendors: list[Profile]) -> dict[str, Any]:
    """What a template that belongs to no one tentacle sees (the awk library of bin/<tentacle_dir>)."""
    prefix = spec.harness.prefix
    groups = spec.groups()
    return {
        "spec": spec,
        "h": spec.harness,
        "vendors": vendors,
        "p": prefix,
        "P": prefix.upper(),
        "mcp_prefixes": {v.id: mcp_prefixes(spec, v) for v in vendors},
        "roles": ROLES,
        # the vendor tables name the events of the four tentacles and of every hook group
        "events": [e for e in EVENTS if e in ROLES or any(g.role == e for g in groups)],
        # the vendors' own events of hook gates: (event, vendor, its name)
        "raw_events": list(dict.fromkeys((g.role, *g.raw) for g in groups if g.raw)),
        "tool_events": sorted(TOOL_EVENTS),
        "adapters": bool(groups),
        "vendor_configs": vendor_configs(spec, vendors),
    }


def context(spec: Spec, vendors: list[Profile], tentacle: Tentacle | Group) -> dict[str, Any]:
    prefix = spec.harness.prefix
    return {
        **spec_context(spec, vendors),
        "tentacle": tentacle,
        "role": tentacle.role,
        "tentacles": spec.jobs(),
        "deadline": spec.deadline(tentacle),
        # user hooks have their own deadlines: only a timeout counts against them, never slowness
        "slow": spec.gate.slow_ms if isinstance(tentacle, Tentacle) else spec.deadline(tentacle),
        "fail_code": fail_code(spec),
        "codes": codes(spec),
        "hook_argv": lambda hook: hook_argv(prefix, hook),
        "hook_needs": lambda hook: hook_needs(prefix, hook),
        "path_res": path_res,
    }


def render_template(name: str, ctx: dict[str, Any]) -> str:
    env = environment(str(templates_dir()))
    try:
        text = env.get_template(name).render(**ctx)
    except jinja2.TemplateNotFound as exc:
        raise HookshapeError(f"templates/{exc.name}: template not found") from None
    lean, bodies = _lean_awk(text)
    if "'" in bodies:
        raise HookshapeError(f"templates/{name}: an awk program holds a single quote")
    return lean


def _lean_awk(text: str) -> tuple[str, str]:
    """The script without the comment and blank lines of its awk programs (the shell reads an
    awk program in quotes byte by byte on every run; the templates keep them; the guard lines
    stay), and the text of those programs: what lies between `# awk-begin` and `# awk-end`
    guard lines (awk inside single quotes)."""
    if "# awk-begin" not in text:
        return text, ""
    keep: list[str] = []
    bodies: list[str] = []
    on = False
    for line in text.splitlines(keepends=True):
        bare = line.strip()
        if not on:
            keep.append(line)
            on = bare.startswith("# awk-begin")
        elif bare.startswith("# awk-end"):
            keep.append(line)
            on = False
        else:
            bodies.append(line)
            if bare and not bare.startswith("#"):
                keep.append(line)
    return "".join(keep), "".join(bodies)
