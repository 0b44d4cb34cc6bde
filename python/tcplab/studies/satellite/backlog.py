"""A diagnostic of the satellite study, not a result of the paper: how many servers are backlogged
over time in each configuration.

A server is backlogged at a time t when it has response bytes its client has not yet received in
order: bytes the server's application had written by t (the core's ``written_series``) minus
bytes delivered by t (``delivered_series``) is positive. That is data queued at the server or in
flight (a window's worth at most), so it counts every server with work left. The count is read
at the end of every ``BIN_S`` bin of the run.

Why: our WAN efficiency at small buffers (0.84 for Vanilla with EPD at 0.5 RTT) is twice the
paper's (0.42) and our WAN fairness is about 0.96 everywhere. Both depend on how many servers
compete for the trunk at once: few backlogged servers share a small buffer more easily, and a
server that is rarely backlogged cannot be starved for long.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.figures import new_figure, save
from tcplab.report.study import Figure, Table

__all__ = ["BIN_S", "backlog_figure", "backlog_table", "backlogged_servers", "findings", "summary"]

# Bin of the series the count is read from: fine enough to see a batch's responses drain on WAN
# (tens of RTTs), coarse enough that the series stay small (100 s runs: 200 bins).
BIN_S = 0.5


def _cumulative(values: Sequence[int] | None, n: int) -> np.ndarray:
    a = np.zeros(n, dtype=np.int64)
    if values:
        a[: len(values)] = values[:n]
    return np.cumsum(a)


def backlogged_servers(report: Mapping[str, Any], bins: int) -> np.ndarray:
    """The number of servers with undelivered response bytes at the end of each of ``bins`` bins."""
    flows = report["flows"]
    count = np.zeros(bins, dtype=np.int64)
    for pair in report["www"]:
        f = flows[pair["response_flow"]]
        if "written_series" not in f:
            raise ValueError("the report has no written_series: run with series_bin set")
        written = _cumulative(f["written_series"], bins)
        delivered = _cumulative(f.get("delivered_series"), bins)
        count += written > delivered
    return count


def summary(counts: np.ndarray, skip_bins: int) -> dict[str, float]:
    """Mean and share-of-time statistics of one run's counts, after the first ``skip_bins``
    (the first batch period, while the run's first batches fill the network)."""
    c = counts[skip_bins:] if len(counts) > skip_bins else counts
    return {
        "backlogged_mean": float(c.mean()),
        "backlogged_p90": float(np.percentile(c, 90)),
        "backlogged_max": float(c.max()),
        "none_backlogged_share": float((c == 0).mean()),
    }


def backlog_table(runs: dict[str, pd.DataFrame], case_names: Mapping[str, str]) -> Table:
    """Per link type, buffer and drop policy: the mean number of backlogged servers and the
    efficiency per flavour (means over replications)."""
    rows = []
    for case, df in runs.items():
        g = df.groupby(["buffer", "drop_policy", "tcp"], sort=False)[["backlogged_mean", "efficiency"]].mean()
        for (buffer, drop), sub in g.groupby(level=[0, 1], sort=False):
            row: dict[str, Any] = {"link": case_names[case], "buffer": buffer, "drop_policy": drop}
            for (_, _, tcp), v in sub.iterrows():
                row[tcp] = f"{v['backlogged_mean']:.1f} ({v['efficiency']:.2f})"
            rows.append(row)
    return Table(
        "Diagnostic (not in the paper): mean number of backlogged servers (efficiency)",
        pd.DataFrame(rows),
        f"A server is backlogged when its client has not yet received all the response bytes it has "
        f"written (queued at the server or in flight); counted every {BIN_S:g} s after the first 10 s "
        "batch period, averaged over time and replications. Of 100 servers.",
    )


def findings(runs: dict[str, pd.DataFrame], case_names: Mapping[str, str]) -> str:
    """Per link type: the range of the configurations' mean backlogged counts, the share of time
    with none backlogged, and how the count goes with efficiency across configurations."""
    parts = []
    for case, df in runs.items():
        g = df.groupby(["tcp", "buffer", "drop_policy"])[
            ["backlogged_mean", "none_backlogged_share", "efficiency"]
        ].mean()
        r = g["backlogged_mean"].corr(g["efficiency"]) if len(g) > 2 else float("nan")
        parts.append(
            f"{case_names[case]} {g['backlogged_mean'].min():.1f}-{g['backlogged_mean'].max():.1f} "
            f"servers (none backlogged in at most {g['none_backlogged_share'].max():.0%} of the readings), "
            f"correlation with efficiency across configurations {r:+.2f}"
        )
    return "; ".join(parts)


def backlog_figure(
    series: pd.DataFrame,
    lines: Sequence[tuple[str, str, str]],
    case_names: Mapping[str, str],
    outdir: Path,
    measured: str = "",
) -> Figure:
    """The count over time in replication 0 of a few configurations per link type."""
    cases = list(dict.fromkeys(series["case"]))
    fig, axes = new_figure(7.0, 2.8 * len(cases), rows=len(cases))
    axes = np.atleast_1d(axes)
    for ax, case in zip(axes, cases, strict=True):
        for tcp, drop, buffer in lines:
            s = series[
                (series["case"] == case)
                & (series["tcp"] == tcp)
                & (series["drop_policy"] == drop)
                & (series["buffer"] == buffer)
            ]
            ax.plot(
                s["time_s"], s["backlogged"], lw=1, drawstyle="steps-post", label=f"{tcp}, {drop}, {buffer}"
            )
        ax.set_title(case_names[case], fontsize="small", loc="left")
        ax.set_ylabel("backlogged servers")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="x-small")
    axes[-1].set_xlabel("time (s)")
    name = "backlogged_servers.png"
    save(fig, outdir / name)
    return Figure(
        name,
        "Diagnostic (not in the paper): backlogged servers over time",
        f"Servers whose client has not yet received every response byte written, every {BIN_S:g} s, "
        "in the first replication of a few configurations. Not in the paper: a check of why our "
        f"efficiency and fairness differ from its. Measured mean number backlogged (of 100): {measured}. "
        "While many servers hold data, one server's timeout leaves the trunk to the others, so a low "
        "efficiency needs most backlogged servers stalled at once (docs/satellite.md discusses it).",
    )
