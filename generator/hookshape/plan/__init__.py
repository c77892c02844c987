"""Spec + profiles -> the plan: vendor entries, matchers, config blocks, answers, capabilities."""
