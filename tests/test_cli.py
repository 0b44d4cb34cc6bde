"""The `tcplab` command line: output contracts, determinism, plots, and errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab as tl
from conftest import REPO, SCENARIOS, cli, tcplab
from tcplab.cli import app
from typer.testing import CliRunner

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_json(*args: str) -> dict:
    proc = cli("run", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # exactly one JSON object, nothing else on stdout


def test_run_json_reports_every_required_field(dumbbell: Path) -> None:
    proc = tcplab("run", dumbbell, "--json")  # the contract, as a shell sees it
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["sim_time_s"] == pytest.approx(30.0)
    assert report["events"] > 100_000
    assert report["wall_s"] > 0
    assert len(report["flows"]) == 4
    for flow in report["flows"]:
        for key in (
            "id",
            "bytes_delivered",
            "goodput_bps",
            "retransmits",
            "timeouts",
            "fast_retransmits",
            "completion_time_s",
        ):
            assert key in flow
        assert flow["completion_time_s"] is None  # bulk sources never finish
        assert 1e6 < flow["goodput_bps"] < 10e6
    # Four flows share a 10 Mb/s bottleneck: together they fill most of it and never exceed it.
    total = sum(f["goodput_bps"] for f in report["flows"])
    assert 8e6 < total <= 10e6
    c = report["conservation"]
    assert c["injected"] == c["delivered"] + c["dropped"] + c["in_flight"]


def test_run_lossy_transfer_completes_with_losses(lossy: Path) -> None:
    (flow,) = run_json(str(lossy))["flows"]
    assert flow["bytes_delivered"] == 3_000_000
    assert flow["completion_time_s"] is not None
    assert flow["retransmits"] > 0
    assert 0.3e6 < flow["goodput_bps"] < 3.2e6  # below the 8 KiB window's lossless ceiling


def test_run_prints_a_table_without_json(lossy: Path) -> None:
    proc = cli("run", lossy)
    assert proc.returncode == 0, proc.stderr
    assert "goodput" in proc.stdout and "server -> client" in proc.stdout


@pytest.mark.parametrize("columns", ["40", "200"])
def test_a_piped_run_table_shows_every_number_whole(tmp_path: Path, columns: str) -> None:
    """Fitted to 80 columns (a pipe's width) or fewer, rich cut goodputs to "0.…"."""
    scenario = tmp_path / "wide.toml"
    scenario.write_text(
        (SCENARIOS / "lossy_link.toml").read_text().replace('name = "ftp"', 'name = "bulk_transfer_main"')
    )
    report = json.loads(cli("run", scenario, "--json").stdout)
    proc = subprocess.run(
        [sys.executable, "-m", "tcplab", "run", str(scenario)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": columns},
    )
    assert proc.returncode == 0, proc.stderr
    assert "…" not in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if "bulk_transfer_main" in line)
    assert row.split()[5] == f"{report['flows'][0]['goodput_bps'] / 1e6:.3f}"
    assert all(line == line.rstrip() for line in proc.stdout.splitlines())


def test_same_seed_gives_byte_identical_summary(lossy: Path, tmp_path: Path) -> None:
    for name in ("a", "b"):  # two processes: nothing may depend on one (hash seeds, say)
        proc = tcplab("run", lossy, "--out", tmp_path / name, "--json")
        assert proc.returncode == 0, proc.stderr
    a = (tmp_path / "a" / "summary.json").read_bytes()
    assert a == (tmp_path / "b" / "summary.json").read_bytes()
    assert (tmp_path / "a" / "trace-flow0.csv").read_bytes() == (
        tmp_path / "b" / "trace-flow0.csv"
    ).read_bytes()


def test_json_output_differs_only_in_wall_time(lossy: Path) -> None:
    first, second = run_json(str(lossy)), run_json(str(lossy))
    first.pop("wall_s"), second.pop("wall_s")
    assert first == second


def test_different_seed_gives_different_results(lossy: Path, tmp_path: Path) -> None:
    for seed in ("1", "2"):
        proc = cli("run", lossy, "--seed", seed, "--out", tmp_path / seed)
        assert proc.returncode == 0, proc.stderr
    one = json.loads((tmp_path / "1" / "summary.json").read_text())
    two = json.loads((tmp_path / "2" / "summary.json").read_text())
    assert (one["seed"], two["seed"]) == (1, 2)
    assert one["flows"] != two["flows"]


def test_out_writes_plots_traces_and_pcap(dumbbell: Path, tmp_path: Path) -> None:
    proc = cli("run", dumbbell, "--out", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # file notes go to stderr, stdout stays one JSON object
    for flow in (0, 1):  # the traced flows
        assert (tmp_path / f"trace-flow{flow}.csv").exists()
        assert (tmp_path / f"flow{flow}.png").read_bytes()[:8] == PNG_MAGIC
    assert not (tmp_path / "flow2.png").exists()
    assert (tmp_path / "link-r1-r2.pcap").stat().st_size > 0


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


LINK = '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\n'
FLOW = '[[flow]]\nsrc = "a"\ndst = "b"\n'
BAD_SCENARIOS = {
    "not_toml": ("this is [not toml\n", "not valid TOML"),
    "unknown_field": ('duration = 1\nnodes = ["a", "b"]\ncolour = "red"\n', "colour: unknown field"),
    "negative_rate": (
        'duration = 1\nnodes = ["a", "b"]\n' + LINK.replace("10Mbps", "-10Mbps"),
        "link[0].rate: rate must not be negative",
    ),
    "missing_node": (
        'duration = 1\nnodes = ["a", "c"]\n' + LINK.replace('"b"\nrate', '"c"\nrate') + FLOW,
        "flow[0].dst: no node named 'b'",
    ),
    "no_route": (
        'duration = 1\nnodes = ["a", "b", "c"]\n' + LINK.replace('"b"\nrate', '"c"\nrate') + FLOW,
        "flow[0].dst: no route from 'a' to 'b'",
    ),
    "bad_unit": ('duration = "3 fortnights"\nnodes = ["a"]\n', "duration: unknown duration unit"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_bad_scenario_exits_2_naming_the_field(case: str, tmp_path: Path) -> None:
    text, expected = BAD_SCENARIOS[case]
    path = _write(tmp_path, f"{case}.toml", text)
    proc = cli("run", path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {path}: ")
    assert expected in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "no/such/file.toml"], "no/such/file.toml: no such file or directory"),
        (["run", "scenarios"], "scenarios: is a directory"),
        (["run", "scenarios/lossy_link.toml", "--seed", "abc"], "--seed"),
        (["run", "scenarios/lossy_link.toml", "--seed", "-1"], "--seed"),
        (["validate", "no/such/file.toml"], "no such file"),
        (["reproduce", "nonsense"], "unknown study 'nonsense'"),
        (["bench", "--only", "nonsense"], "--only: unknown scenario 'nonsense'"),
    ],
)
def test_bad_arguments_exit_2_without_traceback(args: list[str], expected: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2
    assert expected in proc.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # typer's own checks, one line as ours (click printed a four-line usage block: stop 53)
        (["run", "scenarios/lossy_link.toml", "--seed", "abc"], "error: Invalid value for '--seed'"),
        (["run", "scenarios/lossy_link.toml", "--bogus"], "error: No such option: --bogus"),
        (
            ["sweep", "scenarios/sweeps/loss_variants.toml", "--workers", "0"],
            "error: Invalid value for '--workers'",
        ),
        (["run", "no/such/file.toml"], "error: no/such/file.toml: no such file or directory"),  # ours
    ],
)
def test_a_shell_sees_bad_arguments_as_status_2_and_no_traceback(args: list[str], expected: str) -> None:
    proc = tcplab(*args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(expected) and proc.stderr.count("\n") == 1, proc.stderr


def test_a_command_without_arguments_still_prints_its_help() -> None:
    proc = tcplab()
    assert "Commands:" in proc.stdout + proc.stderr and "error:" not in proc.stderr


def test_validate_accepts_examples_and_names_bad_fields(tmp_path: Path) -> None:
    for path in sorted(SCENARIOS.glob("*.toml")):
        proc = cli("validate", path.relative_to(REPO))
        assert proc.returncode == 0, proc.stderr
    bad = _write(
        tmp_path, "bad.toml", 'duration = 1\nnodes = ["a", "b"]\n' + LINK + FLOW + "[flow.tcp]\nmss = 0\n"
    )
    proc = cli("validate", bad)
    assert proc.returncode == 2
    assert "flow[0].tcp.mss: must be a positive integer" in proc.stderr


def test_invariant_error_exits_1_and_says_it_is_a_bug(lossy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> str:
        raise tl.InvariantError("packet conservation: injected 3 != delivered 2 + dropped 0 + in flight 0")

    monkeypatch.setattr(tl._core, "run_scenario", broken)
    result = CliRunner().invoke(app, ["run", str(lossy)])
    assert result.exit_code == 1
    assert "packet conservation" in result.output and "bug" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_bench_quick_json_reports_rates_per_scenario() -> None:
    proc = cli("bench", "--quick", "--json", "--only", "dumbbell_10", "--report-only")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out["scenarios"]) == {"dumbbell_10"}
    assert out["events_per_sec"]["dumbbell_10"] > 0
    assert out["packets_per_sec"]["dumbbell_10"] > 0
    r = out["scenarios"]["dumbbell_10"]
    assert r["events_per_sec"] == pytest.approx(r["events"] / r["wall_s"])
    assert r["sim_time_s"] == pytest.approx(5.0)
    assert 0 < r["peak_rss_mb"] < 1024
    assert [t["scenario"] for t in out["targets"]] == ["dumbbell_10"]


def test_python_m_tcplab_shows_help() -> None:
    proc = tcplab("--help")
    assert proc.returncode == 0
    for command in ("run", "validate", "bench", "sweep", "anova", "reproduce"):
        assert command in proc.stdout
