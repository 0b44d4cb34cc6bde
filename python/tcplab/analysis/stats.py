"""Statistics over replications: means with t confidence intervals, and percentiles.

Replications of a point are independent runs (different seeds), so the confidence interval of
the mean is the Student t interval: mean +- t[(1 + c) / 2, n - 1] * s / sqrt(n). A quantity with
bounds (Jain's index in [0, 1], a rate or a count at least 0) has its interval clipped to them:
the t interval is symmetric, and with few replications near a bound it would reach past it
(a Jain index of 1.0035), which no run can produce.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from tcplab.errors import UserError
from tcplab.experiment.metrics import FLOW_FIELDS, METRICS, UDP_FIELDS

__all__ = ["Bounds", "MeanCI", "bounds_of", "column_names", "mean_ci", "ok_runs", "summarize"]

Bounds = tuple[float, float]

# Bounds of tcplab's own columns, by exact name: the run metrics and the per-flow and UDP
# fields of the result store (tcplab.experiment.metrics), and the rest of a report's flow and link
# fields. A name is not guessed from its parts: a column a user derives (``gain_bps = a_bps -
# b_bps``, ``delta_s``) can be negative.
_UNIT_INTERVAL = frozenset({"jain_fairness", "utilization"})
_NOT_QUANTITIES = frozenset({"id", "name", "source"})
_NON_NEGATIVE = (
    frozenset(METRICS) | frozenset(FLOW_FIELDS) | frozenset(UDP_FIELDS) | frozenset({
        "wall_s",
        # a flow's other report fields
        "start_s", "data_segments", "acks_sent", "syn_retransmits", "out_of_order_segments",
        "duplicate_segments", "final_cwnd", "final_ssthresh", "final_rto_s", "partial_segments",
        "frames_lost_reassembly",
        # a link direction's fields
        "rate_bps", "delay_s", "arrivals", "tx_packets", "tx_bytes", "delivered", "drops_queue",
        "drops_loss", "peak_queue_packets",
    })
) - _UNIT_INTERVAL - _NOT_QUANTITIES  # fmt: skip


def bounds_of(column: str) -> Bounds | None:
    """The bounds of one of tcplab's own columns, by its exact name: [0, 1] for Jain's index
    and a link's utilization; [0, inf) for its rates, times and counts; None for any other
    name (nothing is clipped)."""
    if column in _UNIT_INTERVAL:
        return (0.0, 1.0)
    if column in _NON_NEGATIVE:
        return (0.0, math.inf)
    return None


def ok_runs(df: pd.DataFrame) -> pd.DataFrame:
    """The runs of a sweep that finished (status "ok"); failed runs carry their error instead."""
    return df[df["status"] == "ok"].copy()


@dataclass(frozen=True)
class MeanCI:
    n: int
    mean: float
    std: float
    low: float
    high: float
    confidence: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def mean_ci(
    values: Sequence[float] | np.ndarray | pd.Series, confidence: float = 0.90, bounds: Bounds | None = None
) -> MeanCI:
    """Mean of ``values`` (NaNs left out) with its two-sided t confidence interval, clipped to
    ``bounds`` (low, high) when given.

    With fewer than two values the interval is NaN (no spread can be estimated).
    """
    from scipy import stats

    _check_confidence(confidence)
    bounds = _checked_bounds(bounds)
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(0, math.nan, math.nan, math.nan, math.nan, confidence)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(n, mean, math.nan, math.nan, math.nan, confidence)
    std = float(x.std(ddof=1))
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * std / math.sqrt(n)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = _clipped(low, high, mean, x, bounds)
    return MeanCI(n, mean, std, low, high, confidence)


def _clipped(low: float, high: float, mean: float, x: np.ndarray, bounds: Bounds) -> tuple[float, float]:
    """The interval clipped to ``bounds``, on each side only if the values respect it: values
    well past a bound show it is not this quantity's, and clipping there would cut the interval
    off at a number that means nothing. Never past the mean: values a hair outside the bounds
    (a Jain index rounded to 1.0000000000000002) must not leave the mean outside its own
    interval."""
    rounding = 1e-9 * max(1.0, float(np.abs(x).max()))
    if x.min() >= bounds[0] - rounding:
        low = min(max(low, bounds[0]), mean)
    if x.max() <= bounds[1] + rounding:
        high = max(min(high, bounds[1]), mean)
    return low, high


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: must lie in (0, 1), got {confidence!r} (0.90 for 90%)")


def _checked_bounds(bounds: object) -> Bounds | None:
    """``bounds`` as (low, high), or None; ValueError naming the argument unless it is two
    numbers, neither NaN, in order (low <= high; -inf and inf leave a side open)."""
    if bounds is None:
        return None
    try:
        low, high = (float(b) for b in bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise ValueError(f"bounds: expected (low, high), None or 'auto', got {bounds!r}") from None
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"bounds: NaN is not a bound, got {bounds!r} (use -inf or inf for no bound)")
    if low > high:
        raise ValueError(
            f"bounds: low must not exceed high, got ({low:g}, {high:g}); did you mean ({high:g}, {low:g})?"
        )
    return (low, high)


def column_names(names: str | Sequence[str], argument: str) -> list[str]:
    """Column names as a list: one name given as a string is that one column (a string is a
    sequence of its characters, which would otherwise read as one column per letter)."""
    if isinstance(names, str):
        return [names]
    try:
        return list(names)  # any iterable: a list, a tuple, a pandas Index
    except TypeError:
        raise TypeError(f"{argument}: expected a list of column names, got {type(names).__name__}") from None


def _checked_percentiles(percentiles: float | Sequence[float]) -> list[float]:
    """``percentiles`` as a list (one number is one percentile); each must lie in [0, 100]."""
    ps = [percentiles] if isinstance(percentiles, int | float) else list(percentiles)
    for p in ps:
        if not (isinstance(p, int | float | np.number) and 0 <= p <= 100):
            raise ValueError(f"percentiles: each must lie in [0, 100], got {p!r} (50 for the median)")
    return ps


def summarize(
    df: pd.DataFrame,
    by: str | Sequence[str],
    value: str,
    confidence: float = 0.90,
    percentiles: float | Sequence[float] = (5, 50, 95),
    bounds: Bounds | None | Literal["auto"] = "auto",
) -> pd.DataFrame:
    """One row per group of ``by``: n, mean, std, ci_low, ci_high and the percentiles of ``value``.

    Rows where ``value`` is missing (failed runs) are left out. Groups come in level order: a
    column of numbers sorted numerically, any other in the order its values first appear (a
    sweep's table lists levels in the spec's order), a categorical in its categories' order.
    Intervals are clipped to ``bounds`` (low, high); ``"auto"`` takes them from the column's
    name (``bounds_of``: Jain's index in [0, 1], rates and counts at least 0), None clips
    nothing. Percentile columns are named ``p5``, ``p50``, ... ``by`` may name a single column
    as a string. ValueError for a ``confidence`` outside (0, 1), ``bounds`` out of order or NaN,
    ``percentiles`` outside [0, 100]; KeyError for a missing column.
    """
    by = column_names(by, "by")
    _check_confidence(confidence)
    percentiles = _checked_percentiles(percentiles)
    limits = bounds_of(value) if isinstance(bounds, str) and bounds == "auto" else _checked_bounds(bounds)
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} (columns: {', '.join(map(str, df.columns))})")
    _check_numeric(df[value], value)
    rows = []
    for keys, group in _groups_in_level_order(df, by):
        x = group[value].to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        ci = mean_ci(x, confidence, limits)
        row = dict(zip(by, keys, strict=True))
        row.update(n=ci.n, mean=ci.mean, std=ci.std, ci_low=ci.low, ci_high=ci.high)
        for p in percentiles:
            row[f"p{p:g}"] = float(np.percentile(x, p)) if x.size else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _check_numeric(column: pd.Series, name: str) -> None:
    """Refuse a ``value`` column that holds text (``'status'``): numpy said only "could not
    convert string to float: 'ok'", naming neither the column nor the row."""
    try:
        column.to_numpy(dtype=float)
        return
    except (TypeError, ValueError):
        pass
    numbers = pd.to_numeric(column, errors="coerce")
    bad = numbers.isna() & column.notna()
    first = column[bad].iloc[0] if bad.any() else column.iloc[0]
    where = f"row {column.index[bad.to_numpy()][0]!r}" if bad.any() else "its cells"
    raise UserError(
        f"value: column {name!r} is not numeric ({where} holds {str(first)[:60]!r}); summarize a "
        "column of numbers, such as a metric"
    )


def _level_rank(column: pd.Series) -> dict[object, float]:
    """Each value's place in level order (NaN and None last)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return {v: float(i) for i, v in enumerate(column.cat.categories)}
    values = column.dropna().unique()
    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    if len(values) and not numbers.isna().any() and not any(isinstance(v, bool | np.bool_) for v in values):
        order = np.argsort(numbers.to_numpy(dtype=float), kind="stable")
    else:
        order = np.arange(len(values))
    return {values[i]: float(rank) for rank, i in enumerate(order)}


def _groups_in_level_order(df: pd.DataFrame, by: list[str]) -> list[tuple[tuple[object, ...], pd.DataFrame]]:
    ranks = [_level_rank(df[c]) for c in by]

    def place(keys: tuple[object, ...]) -> tuple[float, ...]:
        pairs = zip(ranks, keys, strict=True)
        return tuple(math.inf if _missing(k) else rank.get(k, math.inf) for rank, k in pairs)

    groups = [
        (keys if isinstance(keys, tuple) else (keys,), group)
        for keys, group in df.groupby(by, sort=False, dropna=False, observed=True)
    ]
    return sorted(groups, key=lambda g: place(g[0]))


def _missing(value: object) -> bool:
    return bool(pd.api.types.is_scalar(value) and pd.isna(value))
