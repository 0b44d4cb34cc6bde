"""Plots for a notebook or a script: a sweep's response against a factor with confidence
intervals, a run's per-flow time series, congestion windows, queue traces.

Every function draws into ``ax`` when given (a matplotlib Axes), else into a new figure, and
returns the Axes, so plots combine and restyle as matplotlib's do::

    ax = tcplab.plot.response(df, "queue", "total_goodput_bps", by="variant")
    ax.figure.savefig("goodput.png")

Rates (``*_bps``) are drawn in Mb/s, byte counts in KB; every axis says its unit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from tcplab.experiment.api import RunResult

__all__ = ["cwnd", "flow_series", "queue", "read_queue_trace", "response"]


def _axes(ax: Axes | None, size: tuple[float, float] = (6.4, 4.0)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=size, layout="constrained")
    return new


def _frame(df: object, name: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name}: expected a pandas DataFrame, got {type(df).__name__}")
    return df


def _need_column(df: pd.DataFrame, column: object, name: str, frame: str = "df") -> None:
    """ValueError naming the argument (``name``) whose column ``frame`` lacks: a bare KeyError
    from deep in pandas says neither which argument nor which columns there are."""
    if column not in df.columns:
        columns = ", ".join(map(str, df.columns)) or "none"
        raise ValueError(f"{name}: no column {column!r} in {frame} (columns: {columns})")


def _check_response_frame(df: object, factor: str, value: str, by: str | None) -> pd.DataFrame:
    frame = _frame(df, "df")
    if frame.empty:
        raise ValueError(
            "df: no rows to plot (the DataFrame is empty; a sweep's result.df has one row per run)"
        )
    for name, column in (("factor", factor), ("value", value), ("by", by)):
        if column is not None:
            _need_column(frame, column, name)
    return frame


def _scale(column: str) -> tuple[float, str]:
    """Divisor and unit label for a column, from its name."""
    if column.endswith("_bps"):
        return 1e6, f"{column.removesuffix('_bps').replace('_', ' ')} (Mb/s)"
    if column.endswith("_s"):
        return 1.0, f"{column.removesuffix('_s').replace('_', ' ')} (s)"
    if column.startswith("bytes") or column.endswith("bytes"):
        return 1e3, f"{column.replace('_', ' ')} (KB)"
    return 1.0, column.replace("_", " ")


def response(
    df: pd.DataFrame,
    factor: str,
    value: str,
    by: str | None = None,
    confidence: float = 0.90,
    ax: Axes | None = None,
    dodge: float = 0.01,
) -> Axes:
    """Mean of ``value`` against the levels of ``factor`` with its ``confidence`` interval over
    replications (``tcplab.summarize``: t intervals, clipped to the quantity's bounds), one line
    per level of ``by``, each shifted sideways by ``dodge`` (a fraction of the x range) so their
    intervals do not hide each other. Numeric levels are placed on a numeric axis, others evenly
    in level order. Failed runs (missing values) are left out."""
    from tcplab.analysis.stats import summarize

    df = _check_response_frame(df, factor, value, by)
    ax = _axes(ax)
    groups = [by] if by else []
    table = summarize(df, [*groups, factor], value, confidence=confidence)
    div, label = _scale(value)
    levels = list(summarize(df, [factor], value)[factor])
    numeric = pd.api.types.is_numeric_dtype(pd.Series(levels)) and not pd.api.types.is_bool_dtype(
        pd.Series(levels)
    )
    where = {lvl: (float(lvl) if numeric else float(i)) for i, lvl in enumerate(levels)}
    lines = _lines(table, by)
    span = (max(where.values()) - min(where.values())) or 1.0
    for i, (key, rows) in enumerate(lines):
        shift = (i - (len(lines) - 1) / 2) * dodge * span
        x = np.array([where[v] for v in rows[factor]]) + shift
        mean = rows["mean"].to_numpy(float) / div
        low = rows["ci_low"].to_numpy(float) / div
        high = rows["ci_high"].to_numpy(float) / div
        yerr = np.vstack([mean - low, high - mean])
        ax.errorbar(x, mean, yerr=np.nan_to_num(yerr), marker="o", capsize=3, label=key)
    if not numeric:
        ax.set_xticks([where[lvl] for lvl in levels], [str(lvl) for lvl in levels])
    ax.set_xlabel(factor)
    ax.set_ylabel(f"{label}, mean and {confidence:.0%} interval")
    if by:
        ax.legend(title=by, fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def _lines(table: pd.DataFrame, by: str | None) -> list[tuple[str | None, pd.DataFrame]]:
    if by is None:
        return [(None, table)]
    order = list(dict.fromkeys(table[by]))
    return [(str(level), table[table[by] == level]) for level in order]


def flow_series(
    result: RunResult,
    series: str = "delivered_series",
    flows: list[int] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """A run's per-flow time series (a scenario with ``series_bin``), one line per flow, each bin
    drawn over its width: ``delivered_series`` (bytes delivered per bin) as goodput in Mb/s,
    ``written_series`` as Mb/s written, any other series as its value per bin."""
    if not hasattr(result, "series_df"):
        raise TypeError(f"result: expected a RunResult (from tcplab.run), got {type(result).__name__}")
    ax = _axes(ax)
    df = result.series_df()
    df = df[(df["source"] == "flow") & (df["series"] == series)]
    if df.empty:
        raise ValueError(f"the run has no flow series {series!r}: set series_bin in the scenario")
    bin_s = result.series_bin_s
    rate = bin_s is not None and series in ("delivered_series", "written_series")
    names = {f["id"]: f.get("name") for f in result.flows}
    for flow_id, rows in df.groupby("id", sort=True):
        if flows is not None and flow_id not in flows:
            continue
        values = rows["value"].to_numpy(float)
        y = values * 8 / bin_s / 1e6 if rate and bin_s else values
        edges = np.arange(len(values) + 1) * (bin_s or 1.0)
        name = names.get(flow_id)
        ax.stairs(y, edges, label=f"flow {flow_id}" + (f" ({name})" if name else ""))
    ax.set_xlabel("time (s)" if bin_s else "bin")
    what = {"delivered_series": "goodput", "written_series": "written"}.get(series, series)
    ax.set_ylabel(f"{what} (Mb/s)" if rate else f"{what} per bin")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def cwnd(
    traces: pd.DataFrame | Mapping[Any, pd.DataFrame], ssthresh: bool = True, ax: Axes | None = None
) -> Axes:
    """Congestion window against time in KB, with ssthresh dashed in the same colour, from a flow
    trace (``RunResult.trace(i)``, ``Store.trace(key, flow_id)``) or a mapping of label -> trace
    (one colour each)."""
    named = _named_traces(traces)
    ax = _axes(ax)
    for label, trace in named.items():
        (line,) = ax.step(trace["time_s"], trace["cwnd"] / 1e3, where="post", lw=1, label=str(label))
        if ssthresh and "ssthresh" in trace:
            ax.step(
                trace["time_s"],
                trace["ssthresh"] / 1e3,
                where="post",
                lw=1,
                ls="--",
                color=line.get_color(),
                label="ssthresh" if len(named) == 1 else "_nolegend_",
            )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("window (KB)" + ("; dashed: ssthresh" if ssthresh and len(named) > 1 else ""))
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def _named_traces(traces: object) -> dict[Any, pd.DataFrame]:
    """label -> flow trace, each checked: a DataFrame with time_s and cwnd columns."""
    what = "a flow trace (a DataFrame from RunResult.trace(i)) or a dict of label -> trace"
    if isinstance(traces, pd.DataFrame):
        named: dict[Any, Any] = {"cwnd": traces}
    elif isinstance(traces, Mapping):
        named = dict(traces)
    else:
        raise TypeError(f"traces: expected {what}, got {type(traces).__name__}")
    if not named:
        raise ValueError("traces: no trace to draw (an empty dict)")
    for label, trace in named.items():
        name = "traces" if isinstance(traces, pd.DataFrame) else f"traces[{label!r}]"
        if not isinstance(trace, pd.DataFrame):
            raise TypeError(f"{name}: expected a flow trace (a DataFrame), got {type(trace).__name__}")
        for column in ("time_s", "cwnd"):
            _need_column(trace, column, name, frame="the trace")
    return named


def read_queue_trace(source: RunResult | str | os.PathLike[str], channel: int = 0) -> pd.DataFrame:
    """A queue trace (``trace_queue = true`` on the link): time_s, packets, bytes, avg (RED's
    average, 0 for drop-tail), one row per arrival. ``source`` is a run with ``out_dir`` or
    its output folder."""
    folder = getattr(source, "out_dir", source)
    if folder is None:
        raise FileNotFoundError("the run wrote no files: run it with out_dir to get its queue traces")
    path = Path(folder) / f"queue-{channel}.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no queue trace; set trace_queue = true on the link")
    return pd.read_csv(path)


def queue(
    source: RunResult | pd.DataFrame | str | os.PathLike[str], channel: int = 0, ax: Axes | None = None
) -> Axes:
    """The queue of one link direction (channel) against time: the packets each arrival finds
    waiting, and RED's average queue when the link has one."""
    if source is None:
        raise TypeError("source: expected a RunResult, its output folder or a queue trace, got None")
    trace = source if isinstance(source, pd.DataFrame) else read_queue_trace(source, channel)
    for column in ("time_s", "packets"):
        _need_column(trace, column, "source", frame="the queue trace")
    ax = _axes(ax)
    ax.step(trace["time_s"], trace["packets"], where="post", lw=0.8, label="queue (packets)")
    if "avg" in trace and trace["avg"].any():
        ax.plot(trace["time_s"], trace["avg"], lw=1.5, label="RED average")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(f"channel {channel}")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax
