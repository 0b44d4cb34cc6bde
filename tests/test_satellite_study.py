"""The satellite study (Goyal et al., 1998): its reference data, its sweeps, and a tiny run,
locally and on a Dask LocalCluster. The interface and a tiny reproduce are also run for every
study by tests/test_studies.py."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats
from tcplab.analysis.anova import factorial_anova
from tcplab.experiment.expand import expand
from tcplab.report.reproduce import reproduce_study
from tcplab.report.study import discover
from tcplab.studies.satellite import paper
from tcplab.studies.satellite.backlog import backlogged_servers, summary
from tcplab.studies.satellite.network import CASES
from tcplab.studies.satellite.sweeps import FULL, QUICK, Grid, spec, sweeps

DATA = Path(__file__).parent / "data"
FILES = {"wan": "goyal98_table4_wan.csv", "meo": "goyal98_table7_meo.csv"}
STUDY = discover()["satellite"]


@pytest.mark.parametrize("case", ["wan", "meo"])
def test_the_papers_tables_4_and_7_are_the_anova_tests_transcription(case: str) -> None:
    ours = paper.results_table(case)
    assert ours is not None
    pd.testing.assert_frame_equal(ours, pd.read_csv(DATA / FILES[case]))
    # and the ANOVA of the paper's own results gives the paper's Table 5 / 8 (within a digit)
    a = factorial_anova(ours, "efficiency", ["tcp", "buffer", "drop_policy"])
    assert a.component("tcp").percent == pytest.approx(paper.ALLOCATION[case]["tcp"][2], abs=0.011)
    assert paper.results_table("geo") is None  # Table 10's body is not in the available text


@pytest.mark.parametrize("case", ["wan", "meo", "geo"])
def test_the_typed_in_tables_are_self_consistent(case: str) -> None:
    # Each table's parts must agree with each other to the printed digits: a typing error shows.
    alloc, effects = paper.ALLOCATION[case], paper.EFFECTS[case]
    t = stats.t.ppf(0.95, 6)
    for i in (0, 1):
        assert alloc["ssy"][i] - alloc["ss0"][i] == pytest.approx(alloc["sst"][i], abs=2e-4)
        percents = [alloc[c][2 + i] for c in alloc if c not in ("ssy", "ss0", "sst", "se")]
        assert sum(percents) < 100.01
        for (factor, _), values in effects.items():
            effect, low, high = values[i]
            levels = {"tcp": 4, "buffer": 3, "drop_policy": 2}[factor]
            half = t * alloc["se"][i] * math.sqrt((levels - 1) / 24)
            assert high - effect == pytest.approx(half, abs=2e-4), (case, factor, i)
            assert effect - low == pytest.approx(half, abs=2e-4), (case, factor, i)
        # main effects of a factor sum to zero
        for factor in ("tcp", "buffer", "drop_policy"):
            assert sum(v[i][0] for (f, _), v in effects.items() if f == factor) == pytest.approx(0, abs=3e-4)


def test_full_and_quick_grids() -> None:
    full, quick = sweeps(False), sweeps(True)
    assert [s.name for s in full] == ["wan", "meo", "geo"] == [s.name for s in quick]
    assert all(s.replications == FULL.replications == 3 for s in full)
    assert all(s.base["duration"] == 100.0 and len(s.base["www"]["pair"]) == 100 for s in full)
    assert all(s.replications == 1 and s.base["duration"] == QUICK.duration_s for s in quick)
    assert all(len(expand(s)) == 24 * s.replications for s in quick)


def test_each_run_sets_policy_and_buffer_on_every_switch_port() -> None:
    runs = expand(spec("geo", Grid(("geo",), 1.0, 1, pairs=3)))
    seen = set()
    for run in runs:
        links = run.scenario["link"]
        trunk = links[0]
        policy, queue = trunk["ab"]["drop"]["policy"], trunk["ab"]["queue"]
        assert queue in CASES["geo"].buffers
        for link in links:
            assert link["ba"]["drop"]["policy"] == policy and link["ba"]["queue"] == queue
        for host_side in links[1:]:
            assert "drop" not in host_side["ab"] and host_side["ab"]["queue"] == 1_000_000
        assert run.scenario["tcp"]["stack"] == "ns2"
        seen.add((run.scenario["tcp"]["variant"], policy, queue))
    assert len(seen) == 24


def test_a_tiny_reproduce_writes_the_three_kinds_of_tables(tiny_reproduction) -> None:
    out = tiny_reproduction("satellite")  # 10 pairs for 4 s: every fairness is defined
    report = out.report.read_text()
    for n in (4, 5, 6):
        assert f"the paper's Table {n}" in report
    assert out.runs == 3 * 24
    names = [f"{case}_efficiency_fairness.png" for case in ("wan", "meo", "geo")]
    assert [f.name for f in out.figures] == [*names, "backlogged_servers.png"]
    assert "backlogged servers" in report
    claims = {c["id"]: c for c in json.loads(out.claims.read_text())["claims"]}
    assert claims["efficiency_within_capacity"]["holds"]
    assert claims["wan_efficiency_largest_factor"]["subkind"] == "ordering"


def test_the_study_runs_unchanged_on_a_dask_cluster(tmp_path: Path, tiny_reproduction) -> None:
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        remote = reproduce_study(STUDY, tmp_path, quick=True, dask=address, specs=STUDY.tiny())
    local = tiny_reproduction("satellite")  # the same grid on local worker processes
    assert remote.runs == local.runs == 3 * 24
    assert remote.claims.read_text() == local.claims.read_text()


def test_backlogged_servers_hand_worked() -> None:
    # Two pairs; a server is backlogged at a bin's end while written > delivered (cumulative).
    flows: list[dict] = [{}, {}, {}, {}]
    flows[1] = {"written_series": [100, 0, 50], "delivered_series": [40, 60, 0]}
    flows[3] = {"written_series": [0, 10, 0, 5], "delivered_series": [0, 0, 10]}
    report = {"www": [{"response_flow": 1}, {"response_flow": 3}], "flows": flows}
    # flow 1: 100/40, 100/100, 150/100, 150/100; flow 3: 0/0, 10/0, 10/10, 15/10
    assert backlogged_servers(report, 4).tolist() == [1, 1, 1, 2]
    s = summary(backlogged_servers(report, 4), skip_bins=1)
    assert s["backlogged_mean"] == pytest.approx(4 / 3) and s["none_backlogged_share"] == 0.0
    del flows[1]["written_series"]
    with pytest.raises(ValueError, match="written_series"):
        backlogged_servers(report, 4)


def test_the_papers_own_effect_intervals_come_back_from_the_claims_estimates() -> None:
    # The claims judge orderings on Jain's analysis of the runs (estimates.py); on the paper's
    # own Table 4 a difference of two flavours' means must carry the paper's Table 6 interval.
    from tcplab.studies.satellite.can_fail import paper_tables
    from tcplab.studies.satellite.estimates import level_mean
    from tcplab.studies.satellite.results import from_tables

    r = from_tables(paper_tables())
    newreno = level_mean(r, "wan", "fairness", tcp="NewReno")
    mean = level_mean(r, "wan", "fairness")
    # a main effect's interval is +- t se sqrt(3/24); the estimate of a level mean, +- t se / sqrt(6)
    effect, low, high = paper.EFFECTS["wan"][("tcp", "NewReno")][1]
    assert newreno.value - mean.value == pytest.approx(effect, abs=1e-4)
    assert newreno.half_width * math.sqrt(6) * math.sqrt(3 / 24) == pytest.approx(high - effect, abs=2e-4)


def test_the_sensitivity_table_counts_cells_within_their_bands() -> None:
    from tcplab.studies.satellite.sensitivity import cells_within, table

    wan = paper.results_table("wan")
    assert wan is not None
    runs = pd.concat([wan.assign(replication=i) for i in range(2)], ignore_index=True)
    assert cells_within(runs) == {"cells in band, efficiency": "24/24", "cells in band, fairness": "24/24"}
    moved = runs.assign(efficiency=runs["efficiency"] + (runs["buffer"] == "0.5 RTT") * 0.3)
    assert cells_within(moved)["cells in band, efficiency"] == "16/24"
    rows = moved.assign(reading="moved", load_c=1.1, servers_silent=0)
    t = table(rows)
    assert list(t["reading"]) == ["paper (Table 4)", "moved"]
    assert t.loc[1, "E 0.5 RTT"] == pytest.approx(t.loc[0, "E 0.5 RTT"] + 0.3, abs=1e-3)


def test_the_recorded_sensitivity_runs_cover_every_configuration_of_each_reading() -> None:
    from tcplab.studies.satellite.sensitivity import RECORDED, recorded, recorded_tables

    for path in sorted(RECORDED.glob("*.csv")):
        runs = pd.read_csv(path)
        per = runs.groupby(["reading", "replication"]).size()
        assert (per == 24).all(), (path.name, per)
    tables = recorded_tables()
    assert all(" nan s " not in t.title for t in tables)  # every file's run time is known
    per_file = [t for t in tables if "the results under each reading" in t.title]
    assert [t.title.split(",")[0] for t in per_file] == [case.upper() for case, _, _ in recorded()]
    wan = next(t for t in per_file if t.title.startswith("WAN")).frame
    assert wan.loc[0, "reading"] == "paper (Table 4)" and wan.loc[1, "reading"].startswith("primary")
    together = [t for t in tables if t.title.startswith("Tables 4 and 7")]
    assert len(together) == 1 and set(together[0].frame.columns) >= {"reading", "both tables (of 96)"}
    budgets = [t for t in tables if "where the efficiency goes" in t.title]
    assert budgets and all(len(t.frame) for t in budgets)


def test_both_tables_counts_the_cells_of_tables_4_and_7_together() -> None:
    from tcplab.studies.satellite.sensitivity import both_tables

    def runs(case: str, shift: float) -> pd.DataFrame:
        t = paper.results_table(case)
        assert t is not None
        both = pd.concat([t.assign(replication=i) for i in range(2)], ignore_index=True)
        return both.assign(reading="r", efficiency=both["efficiency"] + shift)

    exact = both_tables(runs("wan", 0.0), runs("meo", 0.0))
    assert exact.loc[0, "both tables (of 96)"] == 96 and exact.loc[0, "both, paper's se alone (of 96)"] == 96
    # every MEO efficiency 0.05 off: 1.645 x 0.0036 is far narrower, so all 24 leave their band
    off = both_tables(runs("wan", 0.0), runs("meo", 0.05))
    assert off.loc[0, "MEO E"] == 0 and off.loc[0, "both tables (of 96)"] == 72


def test_the_geo_sensitivity_row_is_the_papers_additive_model() -> None:
    from tcplab.studies.satellite.can_fail import paper_tables
    from tcplab.studies.satellite.sensitivity import table

    geo = paper_tables()["geo"]
    runs = pd.concat([geo.assign(replication=i) for i in range(2)], ignore_index=True)
    t = table(runs.assign(reading="as the paper", load_c=1.05, servers_silent=0), "geo")
    assert t.loc[0, "reading"] == "paper (Tables 11-12)"
    # the mean at 2 RTT is the overall mean plus Table 12's effect of 2 RTT
    assert t.loc[0, "E 2 RTT"] == pytest.approx(math.sqrt(17.3451 / 24) + 0.0237, abs=1e-3)
    assert t.loc[1, "mean in band, efficiency"] == "yes"
    low = runs.assign(reading="low", efficiency=runs["efficiency"] - 0.1, load_c=1.0, servers_silent=0)
    low = table(low, "geo")
    assert low.loc[1, "mean in band, efficiency"] == "no"


def test_the_fluid_bound_is_what_a_busy_link_would_deliver() -> None:
    from tcplab.studies.satellite.sensitivity import _fluid_bound

    # 8 Mb/s link, 1 s bins: 1 MB per bin at most; writes of 3 MB then nothing
    assert _fluid_bound([3_000_000, 0, 0, 0], 8e6, 1.0) == 3_000_000
    assert _fluid_bound([3_000_000, 0], 8e6, 1.0) == 2_000_000
    assert _fluid_bound([500_000, 500_000], 8e6, 1.0) == 1_000_000


def test_a_sensitivity_run_reports_where_its_efficiency_goes() -> None:
    from tcplab.studies.satellite.network import SatelliteConfig
    from tcplab.studies.satellite.sensitivity import _one

    row = _one((0, SatelliteConfig(case="wan", flavour="reno", buffer=0, pairs=10, duration_s=12.0, seed=3)))
    assert row["duration_s"] == 12.0 and 0 < row["efficiency"] <= row["trunk_utilization"] + 1e-9
    # no TCP delivers more than a work-conserving link fed with the same writes
    assert row["efficiency"] <= row["e_bound"] + 1e-9
    assert row["retransmits"] >= row["fast_retransmits"]
    assert 0 <= row["servers_timed_out"] <= 10


def test_the_restart_diagnostic_shows_sd_losing_whole_retransmissions_at_the_client() -> None:
    # docs/satellite.md's explanation of SD starving more servers than EPD on WAN at 0.5 RTT
    from tcplab.studies.satellite.restart import restart

    epd, sd = restart("newreno", buffer=0, replication=0, duration_s=7.0)
    assert (epd.drop, sd.drop) == ("epd", "sd")
    assert epd.stalled[6.5] < epd.stalled[5.5] and epd.whole_merged == 0 and epd.partial_frames == 0
    assert sd.whole_merged > 0 and sd.whole_delivered < sd.whole
    assert sd.stalled[6.5] > epd.stalled[6.5]


def test_the_efficiency_budget_splits_the_gap_to_the_bound() -> None:
    from tcplab.studies.satellite.budget import budget, budget_summary

    meo = paper.results_table("meo")
    assert meo is not None
    runs = meo.assign(
        reading="r", replication=0, e_bound=1.0, trunk_utilization=meo["efficiency"] + 0.02, timeouts=250,
        e_10s=0.8, e_after_10s=0.9, backlogged_mean=40.0,
    )  # fmt: skip
    b = budget(runs, "meo")
    assert len(b) == 24 and (b["diff"] == 0).all() and (b["timeouts / server"] == 2.5).all()
    assert (b["cells not goodput"] == 0.02).all()
    assert (b["idle, work waiting"] + b["cells not goodput"] + b["E ours"] - b["bound"]).abs().max() < 2e-3
    s = budget_summary(runs, "meo")
    assert list(s["flavour"]) == ["all", "Vanilla", "Reno", "NewReno", "SACK"]
