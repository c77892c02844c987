"""Editing vendor config files in place: JSON and TOML, our entries only."""
