"""Tidy DataFrames from run reports and traces: what a researcher gets back.

Missing values are NaN with numeric dtypes (never None in an object column, never a sentinel):
the core writes ssthresh = u32::MAX (or more) for "not set yet", which becomes NaN. A segment
trace's ``retransmit`` is a bool. Time series (``series_bin``) come in long format, one row per
bin, instead of Python lists inside DataFrame cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "UNSET_SSTHRESH",
    "drops_frame",
    "flows_frame",
    "links_frame",
    "records_frame",
    "series_frame",
    "tidy_trace",
]

# ssthresh at or above this is the core's "not set yet" (it writes u32::MAX or more).
UNSET_SSTHRESH = 2**31
_SSTHRESH_COLUMNS = ("ssthresh", "final_ssthresh")


def _unset_to_nan(df: pd.DataFrame) -> pd.DataFrame:
    for col in _SSTHRESH_COLUMNS:
        if col in df.columns:
            values = pd.to_numeric(df[col], errors="coerce").astype(float)
            df[col] = values.where(values < UNSET_SSTHRESH)
    return df


DROP_COLUMNS = ("time_s", "flow", "kind", "seq", "ack", "len", "bytes", "cause", "marked")


def drops_frame(by_channel: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """The drop traces of a run's channels as one DataFrame, oldest drop first: the columns of
    ``drops-<channel>.csv`` (``seq``/``ack`` as nullable integers, empty for other kinds;
    ``marked`` a bool) after ``channel``, ``link`` and ``direction`` (channel 2i is link i's
    a->b direction "ab", 2i + 1 its "ba")."""
    parts = []
    for channel, df in sorted(by_channel.items()):
        df = df.copy()
        df.insert(0, "direction", "ab" if channel % 2 == 0 else "ba")
        df.insert(0, "link", channel // 2)
        df.insert(0, "channel", channel)
        parts.append(df)
    empty = pd.DataFrame({c: [] for c in ("channel", "link", "direction", *DROP_COLUMNS)})
    out = pd.concat(parts, ignore_index=True) if parts else empty
    for col in ("seq", "ack"):
        out[col] = pd.to_numeric(out[col]).astype("Int64")
    out["marked"] = out["marked"].astype(bool)
    for col in ("channel", "link", "flow", "len", "bytes"):
        out[col] = out[col].astype("int64")
    return out.sort_values(["time_s", "channel"], kind="stable", ignore_index=True)


def tidy_trace(df: pd.DataFrame) -> pd.DataFrame:
    """A trace as read from CSV or Parquet: unset ssthresh as NaN, ``retransmit`` as bool."""
    df = _unset_to_nan(df)
    if "retransmit" in df.columns:
        df["retransmit"] = df["retransmit"].astype(bool)
    return df


def _flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A row's nested tables as columns of their own (``queue: {drops_early: 4}`` ->
    ``queue_drops_early``), without its list-valued fields (series, see ``series_frame``)."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{prefix}{key}_"))
        elif not isinstance(value, list | tuple):
            flat[f"{prefix}{key}"] = value
    return flat


def records_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows as flat columns: nested tables spread into ``table_field`` columns (NaN where a row
    has no such table), list-valued fields left out (those are series, see ``series_frame``)."""
    df = pd.DataFrame([_flatten(r) for r in rows])
    for col in df.columns:
        if df[col].dtype == object and df[col].map(lambda v: v is None or isinstance(v, int | float)).all():
            df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return _unset_to_nan(df)


def flows_frame(flows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per flow, indexed by flow id; series left out (``series_frame`` has them)."""
    return records_frame(flows).set_index("id")


def links_frame(links: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per link direction (channel), indexed by channel id; a queue discipline's counters
    as ``queue_*`` columns (``queue_drops_early``, ...), NaN on links without one; series left
    out."""
    return records_frame(links).set_index("id")


SERIES_COLUMNS = ["bin", "time_s", "source", "id", "flow", "series", "value"]


def series_frame(report: Mapping[str, Any], bin_s: float | None) -> pd.DataFrame:
    """Every time series of a report in long format: one row per bin of each series.

    Columns: bin (index from 0), time_s (the bin's start; NaN when the bin width is unknown),
    source ('flow' or 'link'), id (the flow's or the channel's id), flow (for a link's per-flow
    series, the flow it counts; else <NA>), series (the report's field name, e.g.
    'delivered_series', 'tx_bytes_series'), value.
    """
    parts: list[pd.DataFrame] = []

    def add(values: Sequence[Any], source: str, ident: int, flow: int | None, name: str) -> None:
        n = len(values)
        bins = np.arange(n)
        parts.append(
            pd.DataFrame(
                {
                    "bin": bins,
                    "time_s": bins * bin_s if bin_s is not None else np.full(n, np.nan),
                    "source": source,
                    "id": ident,
                    "flow": pd.array([flow] * n, dtype="Int64"),
                    "series": name,
                    "value": np.asarray(values, dtype=float),
                }
            )
        )

    for source, rows in (("flow", report.get("flows", [])), ("link", report.get("links", []))):
        for row in rows:
            for name, values in row.items():
                if not isinstance(values, list) or not values:
                    continue
                if isinstance(values[0], list):  # per-flow series of a link: index = flow id
                    for flow, per in enumerate(values):
                        add(per, source, row["id"], flow, name)
                else:
                    add(values, source, row["id"], None, name)
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in SERIES_COLUMNS})
    return pd.concat(parts, ignore_index=True)
