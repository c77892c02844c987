"""The spec side: the spec model and its defaults, loading and validation, the vendor profiles."""
