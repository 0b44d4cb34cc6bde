"""Shared helpers: run the CLI in a subprocess, find the repository's scenarios."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"


def tcplab(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m tcplab ARGS...` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "tcplab", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def lossy() -> Path:
    return SCENARIOS / "lossy_link.toml"


@pytest.fixture
def dumbbell() -> Path:
    return SCENARIOS / "dumbbell.toml"


@pytest.fixture(scope="session")
def tiny_reproduction(tmp_path_factory: pytest.TempPathFactory):
    """A study reproduced once per test session on its tiny grid, shared by the generic study
    tests and the study's own (each tiny run costs tens of seconds)."""
    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    done: dict[str, object] = {}

    def get(name: str):
        if name not in done:
            study = discover()[name]
            out_dir = tmp_path_factory.mktemp(f"tiny-{name}")
            done[name] = reproduce_study(study, out_dir, quick=True, workers=1, specs=study.tiny())
        return done[name]

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
