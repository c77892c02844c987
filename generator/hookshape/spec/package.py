"""[package]: what a vendor plugin or extension says about itself (its manifest, README and
LICENSE). Every key defaults: the name from harness.name, the rest empty or generic."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from hookshape.spec.defaults import symbolic
from hookshape.spec.types import FileName, ScriptName, Strict

Version = Annotated[str, Field(
    pattern=r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$",
    description="a semantic version: MAJOR.MINOR.PATCH, with an optional -prerelease and +build")]
Line = Annotated[str, Field(
    pattern=r"^[^\x00-\x1f\x7f]{0,1024}$",
    description="one line of text, at most 1024 characters")]
Email = Annotated[str, Field(
    pattern=r"^([^@\s\x00-\x1f]+@[^@\s\x00-\x1f]+\.[^@\s\x00-\x1f]+)?$",
    description="an email address (name@host.domain), or empty")]
Spdx = Annotated[str, Field(
    pattern=r"^([A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*)?$",
    description="an SPDX license expression (MIT, Apache-2.0, MIT OR Apache-2.0), or empty")]
Url = Annotated[str, Field(
    pattern=r"^(https?://[^\s\x00-\x1f\"<>\\^`{|}]+)?$",
    description="an http:// or https:// URL, or empty")]


class Package(Strict):
    name: ScriptName = Field(symbolic("package", "name"), description=(
        "the plugin's or extension's name, as users install it (each plugin format narrows what "
        "it may be: `hookshape package --as` says how)"))
    version: Version = Field("0.1.0", description=(
        "the plugin's version: raise it for every release (vendors cache a plugin by version)"))
    description: Line = Field(symbolic("package", "description"), description=(
        "one line saying what the harness does"))
    author: Line = Field("", description="who publishes it (a person or an organisation)")
    author_email: Email = Field("", description="the author's email address")
    homepage: Url = Field("", description="where users read more about it")
    license: Spdx = Field("", description=(
        "the license of the harness, as an SPDX expression (empty: none is granted)"))
    license_file: FileName = Field("", description=(
        "a file beside the spec with the full license text, shipped as LICENSE (empty: a LICENSE "
        "naming `license` and the author)"))
    marketplace: ScriptName = Field(symbolic("package", "marketplace"), description=(
        "the name of the marketplace `package --marketplace` writes around the plugin"))
