"""audit: detectors over the last assistant message of a turn; findings appended to a JSON file.

Each detector is a function of the message text that returns a list of findings (a short code
and the words that triggered it). The file <home>/findings.json holds one JSON array; it is
rewritten whole through a temporary file, so a reader never sees half of it. Never blocks: the
audit reports, the operator decides.
"""

import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Finding = dict[str, str]


def _hits(code: str, pattern: str, text: str) -> list[Finding]:
    return [{"code": code, "match": m.group(0)[:120]} for m in re.finditer(pattern, text, re.I)][:5]


def unverified_claims(text: str) -> list[Finding]:
    return _hits("unverified-claim", r"\b(should (now )?work|probably (works|fixed)|i (think|believe) (it|this) (works|is fixed))\b", text)


def tests_claimed(text: str) -> list[Finding]:
    if re.search(r"\b(all )?tests (pass|passed|are passing)\b", text, re.I) and not re.search(r"```|\$ |\bran\b", text):
        return [{"code": "tests-claimed-not-shown", "match": "tests pass"}]
    return []


def leftovers(text: str) -> list[Finding]:
    return _hits("leftover-marker", r"\b(TODO|FIXME|XXX)\b", text)


def secrets(text: str) -> list[Finding]:
    return _hits("secret-like", r"\b(AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9]{20,}|ghp_[A-Za-z0-9]{30,})\b", text)


DETECTORS: list[Callable[[str], list[Finding]]] = [unverified_claims, tests_claimed, leftovers, secrets]


def append(path: Path, entries: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(old, list):
            old = []
    except (OSError, ValueError):
        old = []
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".findings.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(old + entries, out, indent=1)
    os.replace(tmp, path)


def main() -> int:
    text = os.environ.get("GA_MESSAGE", "")
    if not text:
        return 0
    found = [f for detect in DETECTORS for f in detect(text)]
    if not found:
        return 0
    home = Path(os.environ.get("GA_HOME") or Path.home() / ".goal-audit")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entry = {"time": stamp, "session": os.environ.get("GA_SESSION", ""),
             "vendor": os.environ.get("GA_VENDOR", ""), "findings": found}
    append(home / "findings.json", [entry])
    return 0


if __name__ == "__main__":
    sys.exit(main())
