"""The scripted model server the vendor CLIs run against offline (`hookshape verify`, the live
tier): see server.py."""

from .conversation import Item, Script, ToolCall
from .server import MockServer

__all__ = ["Item", "MockServer", "Script", "ToolCall"]
