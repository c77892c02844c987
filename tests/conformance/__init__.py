"""Conformance suite: every rendered script x vendor fixture x shell x parser environment."""
