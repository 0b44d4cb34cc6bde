"""What the CLI prints around its work: closed pipes, example titles, missed benchmark targets,
captures without a handshake."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, tcplab
from tcplab.experiment.examples import list_examples, title


# A command exits 141 (128 + SIGPIPE); help text is printed by click, which exits 1 for it.
# `run` prints its table through rich, whose own handler exited 1 (kept for broken invariants).
@pytest.mark.parametrize(
    ("args", "status"), [(["examples"], 141), (["run", "lossy_link"], 141), (["--help"], 1)]
)
def test_a_closed_pipe_is_quiet(args: list[str], status: int) -> None:
    # The reader is gone before tcplab writes its first line (Python takes far longer to start).
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcplab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == status
    assert err == b""


def test_titles_are_whole_sentences_and_tell_examples_apart() -> None:
    titles = {e.name: e.summary for e in list_examples()}
    assert all(t.endswith(".") for t in titles.values()), titles
    assert len(set(titles.values())) == len(titles), "two examples share a title"
    assert "MEO, sack, SD, 21230-cell buffers." in titles["satellite_meo"]


def test_title_is_the_first_sentence_of_the_opening_comment() -> None:
    text = "# Goyal et al. (1998), Sec. 6: many pairs over\n# a T3; MEO. Written by hand.\n#\n# More.\nx = 1"
    assert title(text) == "Goyal et al. (1998), Sec. 6: many pairs over a T3; MEO."
    assert title("# A title without a stop\nname = 'x'\n") == "A title without a stop"
    assert title("name = 'x'\n") == ""


def test_examples_prints_one_line_per_example_into_a_pipe() -> None:
    proc = tcplab("examples")
    lines = proc.stdout.splitlines()
    assert len(lines) == len(list_examples())
    assert all(line.rstrip().endswith(".") for line in lines)


def _bench_result(met: bool) -> dict[str, Any]:
    r = {
        "flows": 10,
        "sim_time_s": 5.0,
        "events": 1e6,
        "wall_s": 0.2,
        "events_per_sec": 5e6,
        "packets_per_sec": 2e6,
        "peak_rss_mb": 30.0,
    }
    target = {
        "scenario": "dumbbell_10",
        "metric": "events_per_sec",
        "target": ">= 1e+07",
        "measured": 5e6,
        "met": met,
    }
    return {
        "build": "ordinary",
        "quick": True,
        "scenarios": {"dumbbell_10": r},
        "events_per_sec": {},
        "packets_per_sec": {},
        "targets": [target],
        "targets_met": met,
    }


@pytest.mark.parametrize("met", [True, False])
def test_bench_fails_on_a_missed_target_unless_report_only(
    monkeypatch: pytest.MonkeyPatch, met: bool
) -> None:
    from tcplab.cli import app
    from tcplab.experiment import bench
    from typer.testing import CliRunner

    monkeypatch.setattr(bench, "run_bench", lambda *a, **k: _bench_result(met))
    runner = CliRunner()
    proc = runner.invoke(app, ["bench", "--quick", "--json"])
    assert proc.exit_code == (0 if met else 3), proc.output
    if not met:
        first = "error: 1 of 1 performance targets missed (first: dumbbell_10 events_per_sec 5e+06"
        assert first in proc.output
    proc = runner.invoke(app, ["bench", "--quick", "--json", "--report-only"])
    assert proc.exit_code == 0 and "error" not in proc.output


def test_bench_runs_a_scenario_named_twice_once_and_says_when_no_target_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--only X --only X` ran X twice (one row shown); a scenario without a performance target
    (satellite_meo) ended the table with a bare `targets:` heading."""
    from tcplab.cli import app
    from tcplab.experiment import bench
    from typer.testing import CliRunner

    asked: list[object] = []

    def run_bench(only: object, *a: object, **k: object) -> dict[str, Any]:
        asked.append(only)
        return {**_bench_result(True), "targets": []}

    monkeypatch.setattr(bench, "run_bench", run_bench)
    proc = CliRunner().invoke(app, ["bench", "--quick", "--only", "dumbbell_10", "--only", "dumbbell_10"])
    assert proc.exit_code == 0, proc.output
    assert asked == [["dumbbell_10"]]
    assert proc.output.rstrip().endswith("targets: none for the scenarios run"), proc.output


def test_a_capture_without_handshake_is_flagged(tmp_path: Path) -> None:
    from tcplab.analysis.pcap import read_pcap

    proc = tcplab("run", "dumbbell", "--out", tmp_path / "none")
    assert proc.returncode == 0, proc.stderr
    assert "warning: link-r1-r2.pcap: the connection 10.0.0.1:10000 <-> 10.0.0.7:5001 starts without" in (
        proc.stderr
    )
    assert "Win=32768 for a 256 KiB window" in proc.stderr
    none = read_pcap(tmp_path / "none" / "link-r1-r2.pcap")
    assert not none.tcp_flags.str.contains("S").any() and (none.win == 32768).all()

    scenario = tmp_path / "dumbbell.toml"
    text = (REPO / "scenarios" / "dumbbell.toml").read_text()
    scenario.write_text(text.replace("[tcp]\n", '[tcp]\nhandshake = "sender"\n'))
    proc = tcplab("run", scenario, "--out", tmp_path / "sender")
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    sender = read_pcap(tmp_path / "sender" / "link-r1-r2.pcap")
    syns = sender[sender.tcp_flags == "S"]
    assert len(syns) == 4 and (sender.length[sender.tcp_flags.str.contains("S")] == 0).all()


def test_the_api_warns_about_a_capture_without_handshake(tmp_path: Path) -> None:
    import tcplab
    from tcplab.errors import CaptureWithoutHandshake

    with pytest.warns(CaptureWithoutHandshake, match=r"^link-r1-r2\.pcap: the connection .* starts without"):
        tcplab.run("dumbbell", out_dir=tmp_path / "api", plots=False)
    scenario = tmp_path / "dumbbell.toml"
    text = (REPO / "scenarios" / "dumbbell.toml").read_text()
    scenario.write_text(text.replace("[tcp]\n", '[tcp]\nhandshake = "sender"\n'))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CaptureWithoutHandshake)
        tcplab.run(scenario, out_dir=tmp_path / "sender", plots=False)
