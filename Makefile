# Two entry points for a fresh machine (Python 3.11 + pip):
#   make league  -- create .venv, install the project, run the default league
#   make test    -- create .venv with the test extras, run the test suite
#   make native  -- rebuild the compiled hot path after its sources changed (make test/league do it too)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# A plain path entry for the editable install: setuptools' default import hook costs every
# Python process (each bot of each match) about 20 ms at start-up.
EDITABLE := --config-settings editable_mode=compat

.PHONY: league test install install-test native clean

# The modules setup.py compiles with Cython (harness/_native.py COMPILED): an install builds
# them where a C compiler is at hand; after their source changes they run from source until rebuilt.
NATIVE_SRC := $(shell $(PYTHON) harness/_native.py)

$(VENV)/.base: pyproject.toml setup.py harness/_native.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q $(EDITABLE) -e .
	touch $@ $(VENV)/.native

# Rebuilds only the modules whose source changed since their build (setup.py).
$(VENV)/.native: $(VENV)/.base $(NATIVE_SRC)
	$(PY) -m pip install -q --no-deps $(EDITABLE) -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install -q $(EDITABLE) -e '.[test]'
	touch $@

install: $(VENV)/.base
install-test: $(VENV)/.test $(VENV)/.native
native: $(VENV)/.native

league: $(VENV)/.base $(VENV)/.native
	$(VENV)/bin/harness run tournaments/league.toml

test: $(VENV)/.test $(VENV)/.native
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) results .pytest_cache .hypothesis harness/_native.sha256 harness/*/*.c harness/*/*.so
