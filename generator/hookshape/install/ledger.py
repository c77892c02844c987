"""The install ledger (JSON under the harness home): what every install wrote, so uninstall can
be an exact reversal and a reinstall can tell its own entries from a user's edit.

Per staged script (keyed by its path under the harness home, or by its absolute path when a
project holds it): its sha256 and, when it replaced a file, where that file's backup is.
Per config file: the sha256 of its bytes before the first install (and the backup holding
them, while the file has changed only through hookshape), the sha256 after the last install,
the hash of each managed unit written, the switches the install turned on, the JSON members
and directories it created."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hookshape import __version__
from hookshape.edit.units import JsonPath, Known
from hookshape.errors import ConfigError

LEDGER_NAME = "hookshape-ledger.json"
LEDGER_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StagedFile(_Model):
    sha256: str
    replaced: str | None = None  # backup (relative to the harness home) of the file it replaced


class UnitRecord(_Model):
    key: str
    sha256: str


class ConfigRecord(_Model):
    vendor: str
    scope: str
    format: str
    scripts: str = ""  # where the entries' scripts are staged ("": the harness home)
    created_file: bool
    pre_sha256: str | None  # None: the file did not exist
    original: str | None  # backup of the pre-install bytes; None once the user edited the file
    post_sha256: str
    units: list[UnitRecord] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    switches: list[str] = Field(default_factory=list)
    created: list[list[str]] = Field(default_factory=list)
    created_dirs: list[str] = Field(default_factory=list)

    def known(self) -> Known:
        return Known(hashes=frozenset(u.sha256 for u in self.units),
                     created=tuple(tuple(p) for p in self.created),
                     switches=tuple(self.switches))


class Ledger(_Model):
    version: int = LEDGER_VERSION
    tool: str = f"hookshape {__version__}"
    harness: str
    harness_home: str
    created_dirs: list[str] = Field(default_factory=list)
    files: dict[str, StagedFile] = Field(default_factory=dict)
    configs: dict[str, ConfigRecord] = Field(default_factory=dict)

    def known(self, path: Path) -> Known:
        record = self.configs.get(str(path))
        return record.known() if record else Known()

    def commands(self) -> list[str]:
        return sorted({c for r in self.configs.values() for c in r.commands})

    def empty(self) -> bool:
        return not self.files and not self.configs


def staged_at(harness_home: Path, key: str) -> Path:
    """Where a staged script of the ledger is (its key: relative to the harness home, or absolute)."""
    return harness_home / key


def scripts_of(harness_home: Path, record: ConfigRecord) -> Path:
    """Where the scripts a config's entries run are staged."""
    return Path(record.scripts) if record.scripts else harness_home


def ledger_path(harness_home: Path) -> Path:
    return harness_home / LEDGER_NAME


def load(harness_home: Path) -> Ledger | None:
    path = ledger_path(harness_home)
    if not path.is_file():
        return None
    try:
        return Ledger.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{path}: unreadable hookshape ledger ({first}); "
                          "move it aside to start over") from None


def fresh(harness: str, harness_home: Path) -> Ledger:
    return Ledger(harness=harness, harness_home=str(harness_home))


def dump(ledger: Ledger) -> bytes:
    return (json.dumps(ledger.model_dump(), indent=2, sort_keys=True) + "\n").encode()


def as_paths(created: list[JsonPath]) -> list[list[str]]:
    return [list(p) for p in created]
