# The two commands of the README: `make test` and `make reproduce`. Both set up everything
# first (a virtualenv in .venv, Python dependencies, the Rust extension built by maturin).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEPS := $(VENV)/.stamp-deps
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock

.PHONY: setup build test test-rust test-python test-wheel lint reproduce bench clean fuzz

setup: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Only the build tool here: the dependencies are pyproject.toml's, installed with the project.
$(STAMP_DEPS): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "maturin>=1.5,<2"
	touch $@

# maturin finds the virtualenv through VIRTUAL_ENV; -E installs the project's extras with it.
EXTRAS ?= dev,dask
$(VENV)/.stamp-build: $(STAMP_DEPS) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet -E $(EXTRAS)
	touch $@

build: $(VENV)/.stamp-build

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests bench

test-rust:
	cargo test --workspace --quiet

test-python: build
	$(BIN)/pytest -q

# The built wheel in a fresh virtualenv, run from outside the checkout (about a minute).
test-wheel: build
	$(BIN)/pytest -q -m wheel tests/test_wheel.py

test: lint test-rust test-python test-wheel

# Thousands of seeded mutations of the shipped scenarios and sweep specs (make test runs 300).
FUZZ_CASES ?= 5000
fuzz: build
	TCPLAB_FUZZ_CASES=$(FUZZ_CASES) $(BIN)/pytest -q tests/test_fuzz.py

reproduce: build
	$(BIN)/tcplab reproduce all --quick --out out

bench: build
	$(BIN)/tcplab bench

clean:
	rm -rf $(VENV) target out
