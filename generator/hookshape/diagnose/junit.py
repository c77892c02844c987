"""`hookshape test --junit FILE`: the outcomes as JUnit XML for CI, one testcase per case x
vendor x shell (a skip says why, a failure carries the vendor's raw answer)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from hookshape.diagnose.testrun import Outcome
from hookshape.errors import HookshapeError

# XML 1.0 has no place for most control characters: a hook's output may hold any
_UNSAID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text: str) -> str:
    return _UNSAID.sub("\ufffd", text)


def raw_answer(outcome: Outcome) -> str:
    """The vendor's raw answer of each gate run: exit code, stdout, stderr."""
    parts = []
    for gate in outcome.runs:
        parts.append(f"gate {gate.gate}: exit code {gate.run.code}\nstdout:\n{gate.run.stdout}"
                     f"\nstderr:\n{gate.run.stderr}")
    return "\n".join(parts)


def document(name: str, outcomes: list[Outcome], seconds: float) -> bytes:
    failed = sum(1 for o in outcomes if o.failure)
    skipped = sum(1 for o in outcomes if o.skipped)
    counts = {"tests": str(len(outcomes)), "failures": str(failed), "errors": "0",
              "skipped": str(skipped), "time": f"{seconds:.3f}"}
    top = ET.Element("testsuites", {"name": "hookshape test", **counts})
    suite = ET.SubElement(top, "testsuite", {"name": clean(name), **counts})
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", {"classname": clean(o.case.name),
                                                  "name": f"{o.vendor} x {o.shell}",
                                                  "time": f"{o.seconds:.3f}"})
        if o.skipped:
            ET.SubElement(case, "skipped", {"message": clean(o.skipped)})
        elif o.failure:
            failure = ET.SubElement(case, "failure", {"message": clean(o.failure)})
            failure.text = clean(raw_answer(o))
    ET.indent(top)
    data: bytes = ET.tostring(top, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write(path: Path, data: bytes) -> None:
    """Written whole through a temporary file beside it, so a reader never sees half of it."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise HookshapeError(f"{path}: cannot write: {exc.strerror or exc}") from None
