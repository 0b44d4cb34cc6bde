"""A long run's progress: the core reports the simulated time every 50 ms, and `tcplab run` (and
`boston waste --simulate`) draw it as a bar with the time left on a terminal. A run of 10^9
simulated seconds used to print nothing for months."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import SCENARIOS
from rich.console import Console
from tcplab import _core
from tcplab.experiment import run_progress
from tcplab.experiment.run_progress import RunProgress, clock


def _endless() -> str:
    """The dumbbell at 1 Gb/s for 3000 simulated seconds: minutes of work, stopped by the test."""
    text = (SCENARIOS / "dumbbell.toml").read_text()
    text = text.replace('rate = "10Mbps"', 'rate = "1Gbps"', 1)
    text = text.replace('duration = "30s"', 'duration = "3000s"')
    assert 'duration = "3000s"' in text
    return text


class Enough(Exception):
    pass


def test_the_core_reports_progress_and_an_exception_in_it_stops_the_run() -> None:
    seen: list[tuple[float, float]] = []

    def progress(simulated_s: float, end_s: float) -> None:
        seen.append((simulated_s, end_s))
        if sum(1 for _, end in seen if end > 0) == 5:
            raise Enough

    with pytest.raises(Enough):
        _core.run_scenario(_endless(), None, None, None, progress)
    looping = [s for s, end in seen if end > 0]
    assert all(end in (0.0, 3000.0) for _, end in seen), seen
    assert looping == sorted(looping) and looping[-1] > looping[0] and looping[-1] < 3000.0, seen


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def test_a_bar_with_the_time_left_is_drawn_on_a_terminal_after_two_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wall = [100.0]
    monkeypatch.setattr(run_progress.time, "monotonic", lambda: wall[0])
    console, out = _terminal()
    with RunProgress(label="reno", console=console) as progress:
        progress(0.0, 0.0)  # set-up: nothing
        wall[0] += 1.0
        progress(10.0, 1000.0)  # the loop's first report, within the first two seconds
        assert out.getvalue() == ""
        wall[0] += 1.5
        progress(25.0, 1000.0)  # 15 simulated seconds in 1.5 s: 975 more take 97.5 s
        progress._bar.refresh()
        text = out.getvalue()
    assert "reno: simulated 25 of 1000 s, 0:00:02 elapsed, about 0:01:37 left" in text, text


def test_nothing_is_drawn_into_a_pipe_or_when_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "SHOW_AFTER_S", 0.0)
    piped = io.StringIO()
    with RunProgress(console=Console(file=piped, force_terminal=False)) as progress:
        progress(1.0, 10.0)
        progress(2.0, 10.0)
    console, out = _terminal()
    with RunProgress(quiet=True, console=console) as progress:
        progress(1.0, 10.0)
    assert piped.getvalue() == "" and out.getvalue() == ""


def test_clock_reads_hours_then_days() -> None:
    assert clock(0) == "0:00:00"
    assert clock(3725.9) == "1:02:05"
    assert clock(47 * 3600) == "47:00:00"
    assert clock(90 * 86400) == "90 days"


def test_a_run_into_a_pipe_prints_what_it_did(tmp_path: Path) -> None:
    """The CLI's output into a pipe has no bar in it, however long the run."""
    from conftest import cli

    text = _endless().replace('duration = "3000s"', 'duration = "300s"')
    scenario = tmp_path / "long.toml"
    scenario.write_text(text)
    proc = cli("run", scenario, "--json")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith("{")
