"""Plan -> dist/: the Jinja environment, the writer and MANIFEST."""
