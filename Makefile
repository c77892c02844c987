# hookshape: `make render` and `make test` are the two commands; everything bootstraps itself.
SHELL := /bin/sh
VENV := .venv
PY := $(VENV)/bin/python
HS := $(VENV)/bin/hookshape
STAMP := $(VENV)/.installed
JOBS ?= auto
# Debian packages of the conformance shell matrix (plus tools the suite and bench use)
SHELL_PKGS := busybox posh yash mksh ksh93u+m zsh
TOOL_PKGS := hyperfine strace gawk original-awk
SHELL_BINS := busybox posh yash mksh ksh93 zsh
# pytest with bytecode caches even where the environment turns them off: each of its processes
# would otherwise compile and assert-rewrite every test module again (about 5 s of CPU each)
PYTEST := PYTHONDONTWRITEBYTECODE= $(PY) -m pytest

.PHONY: render check test test-fast conformance shells live live-clis bench package schema docs dists clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

render: $(STAMP)
	$(HS) render

check: $(STAMP)
	$(HS) render --check
	$(VENV)/bin/shellcheck -s sh $$(grep -rlI '^#!/bin/sh' dist)
	$(VENV)/bin/ruff check generator tests
	$(VENV)/bin/mypy

# install the shells of the conformance matrix when they are missing and apt can (root)
shells:
	@missing=; for b in $(SHELL_BINS); do command -v $$b >/dev/null 2>&1 || missing="$$missing $$b"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing shells:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SHELL_PKGS) $(TOOL_PKGS) >/dev/null; \
	    update-alternatives --set awk /usr/bin/mawk >/dev/null 2>&1 || :; \
	  else echo "WARNING: missing shells:$$missing (not root or no apt): their conformance cells are reported as missing"; fi; \
	fi

# the pinned vendor CLIs for the live tier (needs npm; cached in tools/live-clis)
live-clis:
	@if command -v npm >/dev/null 2>&1; then sh tools/install-live-clis.sh; \
	else echo "npm not found: the live tier will not run"; fi

test: $(STAMP) shells live-clis
	$(HS) render --check
	$(PYTEST) -n $(JOBS) -q

# the edit-run loop: every behaviour once, under dash and mawk, no live tier, no slow meta-tests
test-fast: $(STAMP)
	$(HS) render --check
	HOOKSHAPE_FAST=1 $(PYTEST) -n $(JOBS) -q -m "not live and not slow"

conformance: $(STAMP) shells
	$(PYTEST) -n $(JOBS) -q tests/conformance

live: $(STAMP) live-clis
	$(PYTEST) -q -m live tests/live

bench: $(STAMP) shells
	$(PY) tests/bench.py

package: $(STAMP)
	$(HS) package

schema: $(STAMP)
	$(HS) schema --out hookshape.schema.json

# docs/vendors.md, generated from the vendor profiles (the suite checks it is current)
docs: $(STAMP)
	$(HS) vendors --doc > docs/vendors.md

# the Python distributions (never into dist/, which is the rendered tree)
dists: $(STAMP)
	$(PY) -m build --sdist --wheel --outdir build/

clean:
	rm -rf build .pytest_cache .hypothesis .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
