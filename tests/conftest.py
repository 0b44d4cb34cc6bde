"""Shared helpers: run the CLI in a subprocess, find the repository's scenarios."""

from __future__ import annotations

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
