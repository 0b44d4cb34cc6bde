"""What a notebook or script user gets: example names in the API, tables in level order with
bounded intervals, flat frames, rich display, plots, the progress bar's switch."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tcplab
from conftest import SCENARIOS
from tcplab.analysis.stats import bounds_of, mean_ci, summarize
from tcplab.experiment.scenario import dumbbell


def test_the_api_takes_example_names_as_the_cli_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # outside the checkout: no scenarios/ folder here
    result = tcplab.run("lossy_link", seed=3)
    assert result.flows[0]["bytes_delivered"] == 3_000_000
    from_file = tcplab.run(SCENARIOS / "lossy_link.toml", seed=3).report
    assert result.report == from_file | {"wall_s": result.wall_s}
    tcplab.validate("lossy_link.toml")
    assert tcplab.load_spec("sweeps/loss_variants").name == "loss_variants"
    with pytest.raises(FileNotFoundError):
        tcplab.run("no_such_example")


def test_run_with_out_dir_draws_the_traced_flows(tmp_path: Path) -> None:
    tcplab.run("lossy_link", out_dir=tmp_path / "with")
    assert (tmp_path / "with" / "flow0.png").stat().st_size > 10_000
    tcplab.run("lossy_link", out_dir=tmp_path / "without", plots=False)
    assert not (tmp_path / "without" / "flow0.png").exists()


def test_summarize_lists_groups_in_level_order() -> None:
    queues = [200, 20, 50, 100]  # the order a store may give them back in
    rows = [(v, q, float(r)) for r in range(2) for v in ("sack", "reno") for q in queues]
    df = pd.DataFrame(rows, columns=["variant", "queue", "y"])
    table = summarize(df, ["variant", "queue"], "y")
    assert list(table["queue"]) == [20, 50, 100, 200] * 2  # numbers numerically
    assert list(table["variant"]) == ["sack"] * 4 + ["reno"] * 4  # names as first seen
    df["variant"] = pd.Categorical(df["variant"], categories=["reno", "sack"])
    assert list(summarize(df, ["variant"], "y")["variant"]) == ["reno", "sack"]
    assert list(summarize(df.assign(queue=df["queue"].astype(str)), ["queue"], "y")["queue"]) == [
        "20",
        "50",
        "100",
        "200",  # numbers written as text are numbers too
    ]
    rates = df.assign(queue=df["queue"].astype(str) + "Mbps")  # other levels keep their order
    assert list(summarize(rates, ["queue"], "y")["queue"]) == ["200Mbps", "20Mbps", "50Mbps", "100Mbps"]


def test_intervals_of_bounded_quantities_stay_within_bounds() -> None:
    jain = [1.0, 1.0, 0.991, 1.0]  # the t interval reaches about 1.0035
    assert mean_ci(jain).high > 1.003
    df = pd.DataFrame({"g": [1] * 4, "jain_fairness": jain, "timeouts": [0, 0, 0, 3]})
    assert summarize(df, ["g"], "jain_fairness")["ci_high"].iloc[0] == 1.0
    assert summarize(df, ["g"], "timeouts")["ci_low"].iloc[0] == 0.0
    assert summarize(df, ["g"], "jain_fairness", bounds=None)["ci_high"].iloc[0] > 1.003
    assert (bounds_of("total_goodput_bps"), bounds_of("jain_fairness"), bounds_of("variant")) == (
        (0.0, math.inf),
        (0.0, 1.0),
        None,
    )


def test_links_df_is_flat(tmp_path: Path) -> None:
    doc = dumbbell(2, duration="2s")
    doc["link"][0]["qdisc"] = {"kind": "red", "min_th": 5, "max_th": 15}
    links = tcplab.run(doc).links_df()
    assert not links.map(lambda v: isinstance(v, dict | list)).any().any()
    assert links.loc[0, "queue_drops_early"] >= 0 and math.isnan(links.loc[2, "queue_drops_early"])
    assert (
        links.loc[0, "queue_drops_early"]
        + links.loc[0, "queue_drops_forced"]
        + links.loc[0, "queue_drops_overflow"]
        == links.loc[0, "drops_queue"]
    )


def test_results_show_as_html(tmp_path: Path) -> None:
    result = tcplab.run("lossy_link", seed=3)
    html = result._repr_html_()
    assert "<table>" in html and "server -&gt; client" in html and "<b>lossy-link</b>: seed 3" in html
    spec = tcplab.SweepSpec(base=dumbbell(2, duration="1s"), factors={"tcp.variant": ["reno", "sack"]})
    sweep = tcplab.sweep(spec, store=tmp_path / "s.sqlite", workers=1)
    html = sweep._repr_html_()
    assert "2 runs (2 points x 1 replication): 2 ran" in html and html.count("<tr") == 3  # head + 2 runs


def test_progress_draws_only_where_it_can_be_seen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tcplab.experiment import progress

    class FakeConsole:
        def __init__(self, terminal: bool, jupyter: bool) -> None:
            self.is_terminal, self.is_jupyter = terminal, jupyter

    assert progress.can_draw(FakeConsole(terminal=True, jupyter=False))  # type: ignore[arg-type]
    assert not progress.can_draw(FakeConsole(terminal=False, jupyter=False))  # type: ignore[arg-type]
    monkeypatch.setattr(progress.importlib.util, "find_spec", lambda name: None)  # no ipywidgets
    assert not progress.can_draw(FakeConsole(terminal=False, jupyter=True))  # type: ignore[arg-type]
    monkeypatch.setattr(progress.importlib.util, "find_spec", lambda name: object())
    assert progress.can_draw(FakeConsole(terminal=False, jupyter=True))  # type: ignore[arg-type]

    seen: list[bool] = []
    real = progress.SweepProgress.__init__

    def spy(self, total: int, description: str, quiet: bool = False) -> None:  # type: ignore[no-untyped-def]
        seen.append(quiet)
        real(self, total, description, quiet)

    from tcplab.experiment import runner

    monkeypatch.setattr(runner.SweepProgress, "__init__", spy)
    spec = tcplab.SweepSpec(base=dumbbell(1, duration="1s"), factors={"tcp.variant": ["reno"]})
    store = tmp_path / "s.sqlite"
    tcplab.sweep(spec, store=store, workers=1)
    tcplab.sweep(spec, store=store, workers=1, progress=False)
    assert seen == [False, True]  # on by default (drawn where it can be seen), off on request


def test_plot_response_draws_means_and_clipped_intervals() -> None:
    rows = [
        {"variant": v, "queue": q, "jain_fairness": j}
        for v, js in (("reno", [1.0, 1.0, 0.991, 1.0]), ("sack", [0.9, 0.8, 0.85, 0.95]))
        for q in (50, 10)
        for j in js
    ]
    ax = tcplab.plot.response(pd.DataFrame(rows), "queue", "jain_fairness", by="variant")
    bars = ax.containers  # one errorbar per variant: (data line, cap lines, bar lines)
    assert [b.get_label() for b in bars] == ["reno", "sack"]
    x, y = bars[0].lines[0].get_data()
    assert list(np.round(x)) == [10, 50] and np.allclose(y, np.mean([1.0, 1.0, 0.991, 1.0]))
    caps = [cap for b in bars for cap in b.lines[1]]  # the intervals' ends
    assert max(max(c.get_ydata()) for c in caps) == 1.0  # clipped: the t interval reaches 1.0035
    assert "90% interval" in ax.get_ylabel()


def test_plot_run_series_windows_and_queue(tmp_path: Path) -> None:
    doc = dumbbell(2, duration="3s")
    doc["series_bin"] = "0.5s"
    doc["link"][0]["trace_queue"] = True
    doc["flow"][0]["trace"] = True
    result = tcplab.run(doc, out_dir=tmp_path / "run", plots=False)
    ax = tcplab.plot.flow_series(result)
    assert ax.get_ylabel() == "goodput (Mb/s)" and len(ax.patches) == 2  # one stairs per flow
    heights = ax.patches[0].get_data().values
    assert 0 < max(heights) <= 10.0  # Mb/s through a 10 Mb/s bottleneck
    assert len(tcplab.plot.cwnd(result.trace(0)).get_lines()) == 2  # cwnd and ssthresh
    queue = tcplab.plot.queue(result, channel=0)
    found = max(queue.get_lines()[0].get_ydata())  # the queue each arrival finds, before it joins
    assert found in (
        result.links_df().loc[0, "peak_queue_packets"] - 1,
        result.links_df().loc[0, "peak_queue_packets"],
    )
    with pytest.raises(FileNotFoundError, match="trace_queue"):
        tcplab.plot.read_queue_trace(result, channel=4)


def test_bounds_are_known_by_exact_name_not_guessed_from_parts() -> None:
    from tcplab.experiment.metrics import FLOW_FIELDS, METRICS, UDP_FIELDS

    numeric_flow_fields = [f for f in (*FLOW_FIELDS, *UDP_FIELDS) if f not in ("id", "name", "source")]
    assert all(bounds_of(c) is not None for c in [*METRICS, *numeric_flow_fields])
    assert bounds_of("utilization") == (0.0, 1.0)
    # columns a user derives: a difference of rates or times can be negative, a word inside a
    # name says nothing about its range
    for derived in ("gain_bps", "delta_s", "goodput_change_bps", "unfairness_index", "fraction_gain"):
        assert bounds_of(derived) is None


def test_a_bound_the_values_pass_well_beyond_is_not_applied() -> None:
    diffs = [-3.0, -2.0, -2.5, 0.5]  # a derived difference, wrongly given bounds (0, inf)
    ci = mean_ci(diffs, bounds=(0.0, math.inf))
    free = mean_ci(diffs)
    assert (ci.low, ci.high) == (free.low, free.high)
