"""Spec + profiles -> the plan, computed once: the Jinja environment and its quoting filters, every
artifact's bytes, the vendor entries and the units each config must carry, matchers, answers,
capabilities."""
