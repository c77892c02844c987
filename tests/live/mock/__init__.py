"""Scripted model server for the live test tier: see server.py."""

from .conversation import Item, Script, ToolCall
from .server import MockServer

__all__ = ["Item", "MockServer", "Script", "ToolCall"]
