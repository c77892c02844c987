"""The user-hook contract per vendor, as markdown, from the profiles alone: the vendor's name of
each event, what each answer of a hook becomes in its dialect, which fields of the view it
fills, where its hooks live, and every fact with its source (docs/vendors.md is this page)."""

from __future__ import annotations

from hookshape.plan import outputs
from hookshape.spec.profiles import Profile
from hookshape.spec.types import EVENTS, Event

DOC_HEAD = """# Vendors

<!-- generated from the vendor profiles (generator/hookshape/vendors/*.toml) by `hookshape vendors
--doc`; `make docs` writes it, and the suite checks it: edit the profiles, not this page -->

What each agent CLI does with a hook, as hookshape knows it: every cell below comes from the
vendor's profile, and every fact in a profile carries its source and date (the last section).
"""

# the answers of a hook, each with the event it is said on
ANSWERS: tuple[tuple[str, outputs.Kind, Event], ...] = (
    ("deny a tool call", "deny", "pre_tool"), ("ask the user", "ask", "pre_tool"),
    ("rewrite the input", "rewrite", "pre_tool"), ("keep working at stop", "stop", "stop"),
    ("refuse a prompt", "block", "prompt"), ("grant a permission", "grant", "permission_request"),
    ("refuse a permission", "refuse", "permission_request"))
CONTEXT_ON: tuple[Event, ...] = ("session_start", "prompt", "pre_tool", "post_tool",
                                 "post_tool_failure", "notification", "subagent_start")
# (the view's variable, the payload field it is read from, the events it is filled on)
VIEW: tuple[tuple[str, str, str], ...] = (
    ("tool_input", "tool_input", ""), ("tool_response", "tool_response", "post_tool"),
    ("tool_response", "tool_error", "post_tool_failure"), ("transcript", "transcript", ""),
    ("prompt", "prompt", ""), ("source", "source", ""), ("notification", "notification", ""),
    ("subagent", "subagent", ""), ("message", "stop_text", ""), ("stop_active", "stop_active", ""))


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else "-"


def _code(said: str) -> str:
    return f"`{said.removesuffix(' on stdout')}`" if said.endswith(" on stdout") else said


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows])


def to_contract(profiles: list[Profile]) -> str:
    """The vendor's name of each event, and what a hook's exit 2 (pre_tool, stop) and exit 0
    with stdout (prompt) become in its dialect."""
    head = ["vendor", *EVENTS, "exit 2 on pre_tool", "exit 2 on stop", "stdout on prompt"]
    rows = []
    for p in profiles:
        said = [outputs.describe(p, "deny", "pre_tool"), outputs.describe(p, "stop", "stop"),
                outputs.describe(p, "context", "prompt")]
        rows.append([p.vendor.display, *(f"`{p.events.of(e)}`" if p.events.of(e) else "-" for e in EVENTS),
                     *(_code(s) for s in said)])
    return "\n".join(_table(head, rows)) + "\n"


def _answer(p: Profile, kind: outputs.Kind, event: Event) -> str:
    if not p.events.of(event):
        return "-"
    said = outputs.describe(p, kind, event)
    return "-" if said == "nothing" else _code(said)


def to_answers(profiles: list[Profile]) -> str:
    """What each answer of a hook becomes on each vendor ("-": it cannot be said there)."""
    head = ["vendor", *(name for name, _, _ in ANSWERS)]
    rows = [[p.vendor.display, *(_answer(p, kind, event) for _, kind, event in ANSWERS)] for p in profiles]
    return "\n".join(_table(head, rows)) + "\n"


def to_context(profiles: list[Profile]) -> str:
    """Where a hook's context reaches the model."""
    head = ["vendor", *(f"context on {e}" for e in CONTEXT_ON)]
    rows = [[p.vendor.display, *(_answer(p, "context", e) if e in p.output.context_roles else "-"
                                 for e in CONTEXT_ON)] for p in profiles]
    return "\n".join(_table(head, rows)) + "\n"


def to_view(profiles: list[Profile]) -> str:
    """The payload fields each view variable is read from ("-": the vendor does not give it)."""
    head = ["vendor", *(f"`_{name.upper()}`" + (f" ({on})" if on else "") for name, _, on in VIEW),
            "subagent tools", "tool input elsewhere"]
    rows = []
    for p in profiles:
        fields = [getattr(p.payload, attr) for _, attr, _ in VIEW]
        cells = [", ".join(f) if isinstance(f, list) else f for f in fields]
        elsewhere = ", ".join(f"{e}: `{path}`" for e, path in p.payload.tool_input_on.items())
        rows.append([p.vendor.display, *(f"`{c}`" if c else "-" for c in cells),
                     ", ".join(p.tools.subagent) or "-", elsewhere or "-"])
    return "\n".join(_table(head, rows)) + "\n"


def to_more(profiles: list[Profile]) -> str:
    """What else a hook may name on each vendor: its other events (for `event =
    "<vendor>:<Event>"`) and the handler key that lets it run a gate in the background."""
    head = ["vendor", "async handler key", "its other events (`<vendor>:<Event>`)"]
    rows = [[p.vendor.display, f"`{p.config.handler.async_key}`" if p.config.handler.async_key else "-",
             ", ".join(f"`{e}`" for e in p.events.other)] for p in profiles]
    return "\n".join(_table(head, rows)) + "\n"


def _path(text: str) -> str:
    return f"`{text}`" if text else ""


def to_places(profiles: list[Profile]) -> str:
    head = ["vendor", "confidence", "user config", "project config", "settings beside it",
            "timeout unit", "matcher"]
    rows = [[p.vendor.display, p.vendor.confidence, _path(p.config.user_path),
             _path(p.config.project_path),
             ", ".join(_path(x) for x in (p.config.settings.user_path, p.config.settings.project_path) if x)
             if p.config.settings else "", p.config.timeout_unit, p.matcher.syntax] for p in profiles]
    return "\n".join(_table(head, rows)) + "\n"


def to_project(profiles: list[Profile]) -> str:
    """Whether each vendor runs a setup committed with a project, how its commands name the
    project, and what each user does first."""
    head = ["vendor", "runs a committed setup", "command", "runs it with", "each user first",
            "source"]
    rows = []
    for p in profiles:
        setup = p.project
        if setup.cannot:
            rows.append([p.vendor.display, f"no: {setup.cannot}", "", "", "", ""])
            continue
        command = f'`"{setup.root}/<project_dir>/bin/<gate>"`'
        rows.append([p.vendor.display, "yes", command, f"`{' '.join(setup.shell)}`",
                     setup.needs or "nothing", f"{setup.source}; {setup.date}"])
    intro = ("`hookshape install --scope project` puts the scripts in the project "
             "(`harness.project_dir`) and writes each command through the vendor's own way of "
             "naming the project, so a clone elsewhere runs them with nothing to install.\n\n")
    return intro + "\n".join(_table(head, rows)) + "\n"


def to_facts(profiles: list[Profile]) -> str:
    out: list[str] = []
    for p in profiles:
        out += [f"### {p.vendor.display} (`{p.id}`)", ""]
        out += [f"- **{f.topic}**: {f.fact} ({f.source}; {f.date})" for f in p.facts]
        out.append("")
    return "\n".join(out)


def to_doc(profiles: list[Profile]) -> str:
    """docs/vendors.md."""
    sections = [("Events and the short answers", to_contract(profiles)),
                ("What a hook's answers become", to_answers(profiles)),
                ("Where context reaches the model", to_context(profiles)),
                ("The view each vendor fills",
                 "The payload fields each variable of the view is read from.\n\n" + to_view(profiles)),
                ("Async and the vendors' own events",
                 "Where a vendor runs the gate of async hooks in the background itself (elsewhere "
                 "the gate detaches them), and the events a hook may name as `<vendor>:<Event>`.\n\n"
                 + to_more(profiles)),
                ("Where hooks live", to_places(profiles)),
                ("A setup committed with a project", to_project(profiles)),
                ("Facts and their sources", to_facts(profiles))]
    body = "".join(f"\n## {title}\n\n{text}" for title, text in sections)
    return (DOC_HEAD + body).rstrip("\n") + "\n"
