"""The spec's [package] as the {placeholders} of a profile's plugin files (manifest, marketplace,
install lines, notes), and the JSON documents filled from them."""

from __future__ import annotations

import re
from typing import Any

from hookshape.spec.load import Loaded
from hookshape.spec.profiles import Plugin

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def values(loaded: Loaded, plugin: Plugin) -> dict[str, str]:
    """Every placeholder's value (profiles.PLUGIN_FIELDS): the [package] keys, the marketplace's
    owner (the author, else the plugin's name) and the plugin's path inside a marketplace."""
    pkg = loaded.spec.package
    inside = f"{plugin.marketplace.plugins_dir}/{pkg.name}" if plugin.marketplace else pkg.name
    return {"name": pkg.name, "version": pkg.version, "description": pkg.description,
            "author": pkg.author, "author_email": pkg.author_email, "homepage": pkg.homepage,
            "license": pkg.license, "marketplace": pkg.marketplace,
            "owner": pkg.author or pkg.name, "path": inside}


def text(template: str, fields: dict[str, str]) -> str:
    """Each {placeholder} replaced by its value, in one pass (a value is never read again)."""
    return _PLACEHOLDER.sub(lambda m: fields[m.group(1)], template)


def fill(value: Any, fields: dict[str, str]) -> Any:
    """A profile's JSON document with its placeholders filled. A string left empty (an unset
    author, license, homepage) is left out with its key, and so is an object or a list left
    empty; None marks what is left out."""
    if isinstance(value, str):
        return text(value, fields) or None
    if isinstance(value, dict):
        pairs = ((k, fill(v, fields)) for k, v in value.items())
        return {k: v for k, v in pairs if v is not None} or None
    if isinstance(value, list):
        return [v for v in (fill(item, fields) for item in value) if v is not None] or None
    return value


def document(keys: dict[str, Any], fields: dict[str, str]) -> dict[str, Any]:
    filled = fill(keys, fields)
    return filled if isinstance(filled, dict) else {}
