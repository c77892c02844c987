"""Plan -> dist/: the files written atomically (and render --check), MANIFEST read back."""
