# Two entry points for a fresh machine (Python 3.11 + pip):
#   make league  -- create .venv, install the project and its native core (cargo), run the default league
#   make test    -- install the system packages the tests need where it can (root, apt-get:
#                   tools/install-system-deps.sh), create .venv with the test extras, run the test suite
#   make test-busy -- the same suite beside 2 CPU burners per core (tools/busy.py), as on a busy machine
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# A plain path entry for the editable install: setuptools' default import hook costs every
# Python process (each bot of each match) about 20 ms at start-up.
EDITABLE := --config-settings editable_mode=compat
# The native core (native/, the rules in Rust bound with PyO3): pip builds it with maturin (from PyPI,
# the build backend) and cargo, a release build, into .venv. cargo is looked up on PATH, then in ~/.cargo/bin.
NATIVE_SRC := native/pyproject.toml native/Cargo.toml native/Cargo.lock native/harness_core.pyi $(wildcard native/src/*.rs)
CARGO_PATH := $(PATH):$(HOME)/.cargo/bin

.PHONY: league test test-busy install install-test rl server system-deps clean bots

$(VENV)/.base: pyproject.toml $(NATIVE_SRC)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q $(EDITABLE) -e .
	@PATH="$(CARGO_PATH)" command -v cargo >/dev/null || { echo "make: the native core (native/) needs cargo (Rust 1.85+, rustup): not on PATH nor in ~/.cargo/bin" >&2; exit 1; }
	PATH="$(CARGO_PATH)" $(PY) -m pip install -q ./native
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install -q $(EDITABLE) -e '.[test]'
	touch $@

$(VENV)/.rl: $(VENV)/.base
	$(PY) -m pip install -q $(EDITABLE) -e '.[rl]'
	touch $@

$(VENV)/.server: $(VENV)/.base
	$(PY) -m pip install -q $(EDITABLE) -e '.[server]'
	touch $@

install: $(VENV)/.base
install-test: $(VENV)/.test
# The RL extra (PettingZoo, Gymnasium), keeping the compat editable install: a plain
# `pip install -e '.[rl]'` would replace it with setuptools' import hook (about 18 ms per bot start).
rl: $(VENV)/.rl
# The contest server's extra (Starlette, SQLAlchemy, Alembic...): `harness serve`, `harness submit`.
server: $(VENV)/.server

league: $(VENV)/.base
	$(VENV)/bin/harness run tournaments/league.toml

# Silent when everything is there; one WARNING line per package it cannot install (SKIP_SYSTEM_DEPS=1: none).
system-deps:
	@tools/install-system-deps.sh

test: system-deps $(VENV)/.test
	$(PY) -m pytest -q

# No test may rely on something happening within a wall-clock time: this proves it. The burners are
# killed when the suite ends, whatever its outcome. PYTEST_ARGS: e.g. PYTEST_ARGS=tests/test_sprt.py
test-busy: system-deps $(VENV)/.test
	$(PY) tools/busy.py -- $(PY) -m pytest -q $(PYTEST_ARGS)

# The example bots in C, Java, Rust and Go (Debian: libzmq3-dev libmsgpack-dev, libzmq-java libmsgpack-java;
# cargo 1.85+ and go 1.22+, which fetch the crates and modules pinned by Cargo.lock and go.sum).
bots:
	$(MAKE) -C bots/c
	$(MAKE) -C bots/java
	$(MAKE) -C bots/rust
	$(MAKE) -C bots/go

clean:
	rm -rf $(VENV) results .pytest_cache .hypothesis native/target
