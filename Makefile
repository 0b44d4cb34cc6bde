# The two commands of the README: `make test` and `make reproduce`. Both set up everything
# first (a virtualenv in .venv, Python dependencies, the Rust extension built by maturin).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEPS := $(VENV)/.stamp-deps
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock

.PHONY: setup build test test-rust test-python test-wheel lint lint-rust rust-lane python-lane reproduce bench \
	clean fuzz check-identical

setup: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Only the build tool here: the dependencies are pyproject.toml's, installed with the project.
$(STAMP_DEPS): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "maturin>=1.5,<2"
	touch $@

# maturin finds the virtualenv through VIRTUAL_ENV; -E installs the project's extras with it.
# maturin's --quiet quiets cargo, not the pip it runs: PIP_QUIET does (errors still print).
# Profile-guided (issue 26): tools/pgo_profile.sh trains the core on the shipped scenarios and the
# extension is built with that profile in its own target folder (target/pgo), so that an
# ordinary `cargo build --release` neither undoes nor reuses it. Same outputs, less time (the
# figures are in docs/performance.md). PGO=0 builds without; so does a rustc without llvm-tools
# (the script's status 3); any other failure of the training fails the build.
EXTRAS ?= dev,dask
PGO ?= 1
$(VENV)/.stamp-build: $(STAMP_DEPS) $(RUST_SRC) pyproject.toml tools/pgo_profile.sh tools/pgo_train.py
	profile=; if [ "$(PGO)" = 1 ]; then profile=$$(PYTHON=$(BIN)/python tools/pgo_profile.sh) || [ $$? = 3 ] || exit 1; fi; \
	env VIRTUAL_ENV=$(abspath $(VENV)) PIP_QUIET=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
		$${profile:+RUSTFLAGS=-Cprofile-use=$$profile CARGO_TARGET_DIR=target/pgo TCPLAB_BUILD=profile-guided} \
		$(BIN)/maturin develop --release --quiet -E $(EXTRAS)
	touch $@

build: $(VENV)/.stamp-build

lint: lint-rust build
	$(BIN)/ruff check python tests bench tools

# Cargo schedules its own jobs: under `make -j2` it would otherwise find make's jobserver in
# MAKEFLAGS without the descriptors (only recursive make gets them) and warn.
CARGO := MAKEFLAGS= cargo

lint-rust:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings

# A build from scratch (CI's fresh clone) gains nothing from incremental compilation's caches.
# The core only: the bindings (tcplab-py) have no Rust tests, and building them for tests would
# compile PyO3 a third time (clippy checks them, maturin builds them).
CARGO_TEST := CARGO_INCREMENTAL=0 $(CARGO) test -p tcplab-core --quiet

test-rust:
	$(CARGO_TEST)

# On every core (pytest-xdist), a test file at a time per worker, so a file's module-scoped
# fixtures are made once; the workers share each study's tiny reproduction (tests/conftest.py).
PYTEST := $(BIN)/pytest -q -n auto --dist loadfile

test-python: build
	$(PYTEST)

# The built wheel in a fresh virtualenv, run from outside the checkout (about a minute).
test-wheel: build
	$(BIN)/pytest -q -m wheel tests/test_wheel.py

# Everything CI runs, in two lanes at once so that both cores stay busy: the Rust lane (format,
# clippy, the core's tests: target/debug) and the Python lane (setup and the release build:
# target/release, then ruff and every Python test with the wheel's). Cargo locks each profile's
# folder on its own, so neither lane waits for the other's builds.
test:
	$(MAKE) -j2 --output-sync=target rust-lane python-lane

rust-lane: lint-rust
	$(CARGO_TEST)

python-lane: build
	$(BIN)/ruff check python tests bench tools
	$(PYTEST) -m "wheel or not wheel"

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

# A refactor changes no output: build BASE (default main) in a temporary worktree, snapshot both
# (every shipped scenario's report and files, the example sweep, bench event counts, every study's
# quick claims.json) and compare them byte for byte (tools/identity.py).
BASE ?= main
check-identical: build
	rm -rf /tmp/tcplab-identity-base && git worktree add --detach /tmp/tcplab-identity-base $(BASE)
	$(MAKE) -C /tmp/tcplab-identity-base build
	$(PYTHON) tools/identity.py snapshot /tmp/tcplab-identity/base --checkout /tmp/tcplab-identity-base
	$(PYTHON) tools/identity.py snapshot /tmp/tcplab-identity/head --checkout .
	git worktree remove --force /tmp/tcplab-identity-base
	$(PYTHON) tools/identity.py compare /tmp/tcplab-identity/base /tmp/tcplab-identity/head
