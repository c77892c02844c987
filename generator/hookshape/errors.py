"""One exception hierarchy: every user error prints one line and exits 1, never a traceback."""

from __future__ import annotations


class HookshapeError(Exception):
    """A problem the user can fix (bad spec, bad config, missing file). Exit code 1."""

    exit_code = 1


class SpecError(HookshapeError):
    """The spec file is unreadable, is not TOML, or fails validation."""


class ProfileError(HookshapeError):
    """A vendor profile is malformed."""


class ConfigError(HookshapeError):
    """A user's vendor config file cannot be parsed or merged."""


class OutputError(HookshapeError):
    """The command's report cannot be written (a full disk, a closed pipe)."""
