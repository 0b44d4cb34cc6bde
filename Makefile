# The two commands of the README: `make test` and `make reproduce`. Both set up everything
# first (a virtualenv in .venv, Python dependencies, the Rust extension built by maturin).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEPS := $(VENV)/.stamp-deps
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock

.PHONY: setup build test test-rust test-python lint reproduce bench clean

setup: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP_DEPS): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "maturin>=1.5,<2" numpy pandas matplotlib typer rich \
		scipy pyarrow "dask[distributed]" statsmodels pytest hypothesis ruff
	touch $@

# maturin finds the virtualenv through VIRTUAL_ENV.
$(VENV)/.stamp-build: $(STAMP_DEPS) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet
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

test: lint test-rust test-python

reproduce: build
	$(BIN)/tcplab reproduce all --quick --out out

bench: build
	$(BIN)/tcplab bench

clean:
	rm -rf $(VENV) target out
