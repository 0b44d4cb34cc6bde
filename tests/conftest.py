"""Shared helpers: run the CLI in this process or in a child, find the repository's scenarios, and
reproduce each study's tiny grid once per test session."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"


def tcplab(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m tcplab ARGS...` in a child process and capture its output: for what only a
    process shows (the entry point, exit status and stderr as a shell sees them, determinism
    across processes, signals, memory peaks). Everything else uses ``cli``."""
    return subprocess.run(
        [sys.executable, "-m", "tcplab", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True)
class CliResult:
    """What ``cli`` returns: the fields of ``tcplab``'s CompletedProcess that tests read."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args: object, cwd: Path = REPO) -> CliResult:
    """Run the `tcplab` command in this process (typer's CliRunner), from ``cwd``: the same
    exit status, stdout and stderr as ``tcplab`` without a second of interpreter start and
    imports per call. An exception the command did not turn into an exit status is raised here,
    where a child process would print a traceback."""
    from tcplab.cli import app
    from typer.testing import CliRunner

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def lossy() -> Path:
    return SCENARIOS / "lossy_link.toml"


@pytest.fixture
def dumbbell() -> Path:
    return SCENARIOS / "dumbbell.toml"


def _tiny_sensitivity(study: str) -> dict[str, list[Any]] | None:
    """The sensitivity stacks' tiny grids of the studies whose tests read them (HFC's bsd44)."""
    if study == "hfc":
        from tcplab.studies.hfc.sweeps import tiny

        return {"bsd44": tiny("bsd44")}
    return None


@pytest.fixture(scope="session")
def tiny_reproduction(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Any]:
    """A study reproduced once per test session on its tiny grid (with its sensitivity stacks'
    where a test reads them), shared by the generic study tests and the study's own: each costs
    tens of seconds. Under pytest-xdist the workers share one folder: the first to need a study
    reproduces it (on two processes, the other worker's core being idle while it waits) under a
    lock, the others read what it wrote."""
    import fcntl
    import os
    import pickle

    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / "tiny"
    shared.mkdir(exist_ok=True)

    def get(name: str) -> Any:
        done = shared / f"{name}.pickle"
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                study = discover()[name]
                out = reproduce_study(
                    study,
                    shared / name,
                    quick=True,
                    workers=2,
                    specs=study.tiny(),
                    sensitivity_specs=_tiny_sensitivity(name),
                )
                done.write_bytes(pickle.dumps(out))
            return pickle.loads(done.read_bytes())

    return get


def interruptible(*cmd: str | Path, **kwargs) -> subprocess.Popen[str]:
    """Start ``cmd`` so that SIGINT reaches it as Ctrl-C would.

    A job a non-interactive shell starts in the background (``make test &``, some CI runners)
    inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler: the child
    would ignore the test's SIGINT, as it should ignore a signal its parent ignores.
    """

    def default_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return subprocess.Popen(
        [str(c) for c in cmd],
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )
