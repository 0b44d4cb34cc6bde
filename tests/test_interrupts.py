"""Interrupts that did not end as a Ctrl-C does: one while a study's commands are imported
(seconds) ended with status 130 and no word; SIGTERM and SIGHUP left an --out run's files."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SCENARIOS, cli


def test_a_ctrl_c_while_a_study_loads_says_interrupted(monkeypatch: pytest.MonkeyPatch) -> None:
    import tcplab.cli_studies as cli_studies

    def interrupted(entry: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_studies, "_load", interrupted)
    proc = cli("hfc", "buffer", "--cm-buffer", "10KiB")
    assert proc.returncode == 130 and proc.stderr == "error: interrupted\n", proc


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_terminated_out_run_leaves_nothing_as_a_ctrl_c_does(tmp_path: Path, signame: str) -> None:
    """SIGTERM (timeout, kill, a batch limit) and SIGHUP (a closed terminal) ended the process on
    the spot: the --out folder stayed, holding a hidden stage folder of the run's files."""
    text = (SCENARIOS / "dumbbell.toml").read_text()
    text = text.replace('rate = "10Mbps"', 'rate = "1Gbps"', 1)
    text = text.replace('duration = "30s"', 'duration = "3000s"')
    assert 'duration = "3000s"' in text
    scenario = tmp_path / "long.toml"
    scenario.write_text(text)
    child = subprocess.Popen(
        [sys.executable, "-m", "tcplab", "run", scenario, "--out", tmp_path / "out"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "out").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # the folder is made after the imports, as the run begins
    time.sleep(0.5)
    child.send_signal(getattr(signal, signame))
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 130 and stderr == "error: interrupted\n", (child.returncode, stderr)
    assert not (tmp_path / "out").exists()
