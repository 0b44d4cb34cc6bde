"""The terminal table of a run with many flows: a few flows in full, then every flow summarised.

Drawing one row per flow costs far more than simulating them past a few thousand flows (rich
lays out every cell), and nobody reads 10^5 rows; beyond ``MAX_FLOW_ROWS`` flows the table shows
the first ``HEAD_ROWS`` and then the distribution of each column over all flows. Every number
is still in ``--json`` and ``summary.json``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["HEAD_ROWS", "MAX_FLOW_ROWS", "summary_rows"]

MAX_FLOW_ROWS = 40
HEAD_ROWS = 10

Row = list[str]


def _stat_rows(flows: Sequence[Mapping[str, Any]], fmt: Mapping[str, Callable[[float], str]]) -> list[Row]:
    """min / median / mean / max / total rows of the numeric columns over all flows."""
    columns = {
        "goodput": [f["goodput_bps"] for f in flows],
        "bytes": [f["bytes_delivered"] for f in flows],
        "retx": [f["retransmits"] for f in flows],
        "fast": [f["fast_retransmits"] for f in flows],
        "rto": [f["timeouts"] for f in flows],
    }
    done = [f["completion_time_s"] for f in flows if f["completion_time_s"] is not None]
    stats: dict[str, Callable[[Sequence[float]], float]] = {
        "min": min,
        "median": statistics.median,
        "mean": statistics.fmean,
        "max": max,
    }
    rows = []
    for label, fn in stats.items():
        cells = [fmt[c](fn(v)) for c, v in columns.items()]
        rows.append([f"{label} of {len(flows)}", "", *cells, fmt["done"](fn(done)) if done else "-"])
    totals = [fmt[c](sum(v)) for c, v in columns.items()]
    rows.append(["total", f"{len(done)} of {len(flows)} done", *totals, ""])
    return rows


def summary_rows(
    flows: Sequence[Mapping[str, Any]],
    flow_row: Callable[[Mapping[str, Any]], Row],
    fmt: Mapping[str, Callable[[float], str]],
) -> list[Row]:
    """The rows to draw: every flow when there are few, else the head, a gap row and the stats."""
    if len(flows) <= MAX_FLOW_ROWS:
        return [flow_row(f) for f in flows]
    head = [flow_row(f) for f in flows[:HEAD_ROWS]]
    gap = [f"... {len(flows) - HEAD_ROWS} more flows", "", "", "", "", "", "", ""]
    return [*head, gap, *_stat_rows(flows, fmt)]
