"""Goyal et al. (1998): the satellite network builder and the metrics of Sec. 7."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import tcplab
from tcplab.studies.satellite.metrics import atm_bytes_per_segment, max_tcp_throughput, satellite_metrics
from tcplab.studies.satellite.network import (
    CASES,
    SatelliteConfig,
    factorial,
    initial_ssthresh,
    satellite_scenario,
)


def test_capacity_follows_from_the_encapsulation() -> None:
    # 1024 + 40 + 8 + 8 = 1080 bytes -> 23 cells -> 1219 bytes at the ATM layer.
    assert atm_bytes_per_segment(1024) == 1219
    assert round(max_tcp_throughput(45e6, 1024) / 1e6, 2) == 37.80
    assert round(max_tcp_throughput(45e6, 9180) / 1e6, 2) == 40.39
    # Without LLC/SNAP a 1024-byte segment still needs 23 cells; 1000 bytes then fits 22.
    assert atm_bytes_per_segment(1000, llc_snap=0) == 22 * 53
    with pytest.raises(ValueError):
        max_tcp_throughput(0, 1024)


def test_tcp_settings_of_sec_6_2_are_computed() -> None:
    assert [initial_ssthresh(CASES[c]) for c in ("wan", "meo", "geo")] == [56_250, 1_125_000, 3_093_750]
    assert CASES["meo"].rcv_buf == 2_097_120
    assert CASES["geo"].rcv_buf == 4_194_240
    text = satellite_scenario(SatelliteConfig(case="geo", flavour="newreno", drop="epd", buffer=0, pairs=2))
    assert "initial_ssthresh = 3093750" in text
    assert 'variant = "newreno_ns2"' in text
    assert "queue = 29190" in text
    assert text.count("[[www.pair]]") == 2


def test_metrics_on_a_hand_worked_report() -> None:
    # Three servers on a 45 Mb/s link with MSS 1024: C = 37.80 Mb/s, C/3 = 12.6 Mb/s.
    # Server 0 schedules 2 Mb/s (below C/3: its share is 2); the other two split the
    # remaining 35.80 Mb/s: 17.90 each (both schedule more).
    c = max_tcp_throughput(45e6, 1024)
    mbit = 1e6 / 8 * 10  # bytes delivered over 10 s at 1 Mb/s
    report = {
        "sim_time_s": 10.0,
        "flows": [{"bytes_delivered": 0}, {"bytes_delivered": 2 * mbit}] * 3,
        "www": [
            {"response_flow": 1, "scheduled_load_bps": 2e6},
            {"response_flow": 3, "scheduled_load_bps": 30e6},
            {"response_flow": 5, "scheduled_load_bps": 25e6},
        ],
    }
    m = satellite_metrics(report, 45e6, 1024)
    assert m.fair_shares_bps == pytest.approx([2e6, (c - 2e6) / 2, (c - 2e6) / 2])
    assert m.efficiency == pytest.approx(6e6 / c)
    ratios = [1.0, 2e6 / ((c - 2e6) / 2), 2e6 / ((c - 2e6) / 2)]
    expected = sum(ratios) ** 2 / (3 * sum(r * r for r in ratios))
    assert m.fairness == pytest.approx(expected)
    assert m.fairness < 0.8


def test_a_small_satellite_run_reports_scheduled_load_per_server() -> None:
    cfg = SatelliteConfig(case="wan", flavour="sack", drop="sd", buffer=0, pairs=3, duration_s=12.0)
    report = tcplab.run(satellite_scenario(cfg), seed=3).report
    assert len(report["www"]) == 3
    assert all(p["bytes_requested"] > 0 for p in report["www"])
    m = satellite_metrics(report, 45e6, 1024)
    assert 0 < m.efficiency < 1
    assert 0 < m.fairness <= 1 or math.isnan(m.fairness)


def test_bad_configs_name_the_field() -> None:
    for bad, field in [
        (SatelliteConfig(case="leo"), "case"),
        (SatelliteConfig(flavour="cubic"), "flavour"),
        (SatelliteConfig(drop="red"), "drop"),
        (SatelliteConfig(pairs=0), "pairs"),
    ]:
        with pytest.raises(ValueError, match=field):
            satellite_scenario(bad)


def test_the_factorial_has_24_distinct_runs_per_link_type() -> None:
    runs = factorial("meo", seed=7)
    assert len(runs) == 24
    assert all(r.seed == 7 for r in runs)
    names = {satellite_scenario(replace(r, pairs=1)).split("\n", 1)[0] for r in runs}
    assert len(names) == 24
    assert {r.buffer_cells() for r in runs} == {10615, 21230, 42460}


def test_the_shipped_scenarios_are_what_the_builder_writes(tmp_path) -> None:
    """The package's copies are the builder's output, and the builder writes only into the folder
    it is given: it wrote into the package's own scenarios on any call, `--help` included."""
    from tcplab.experiment.examples import scenario_dir
    from tcplab.studies.satellite.network import shipped_files
    from tcplab.studies.satellite.write_scenarios import main

    for name, text in shipped_files().items():
        assert (scenario_dir() / name).read_text() == text, f"{name}: rerun the builder into the package"
    with pytest.raises(SystemExit) as help_exit:
        main(["--help"])
    assert help_exit.value.code == 0 and list(tmp_path.iterdir()) == []
    assert main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(shipped_files())
