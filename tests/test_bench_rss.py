"""`tcplab bench` reports each scenario's own peak memory, whatever its parent held."""

from __future__ import annotations

from tcplab.experiment.bench import run_child, scenario_text


def test_a_child_s_peak_is_its_own_not_its_parent_s() -> None:
    # The parent holds 300 MB when it starts the child (as after building scale_100k's
    # scenario); Linux carries ru_maxrss across exec, so a child reading it reported 300 MB.
    ballast = bytearray(300 << 20)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: resident, not just reserved
    result = run_child(scenario_text("dumbbell_10", quick=True))
    assert result["peak_rss_mb"] < 150, result["peak_rss_mb"]
    assert len(ballast) == 300 << 20
