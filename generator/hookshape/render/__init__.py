"""Plan -> dist/: the Jinja environment, the writer, MANIFEST and the release package."""
