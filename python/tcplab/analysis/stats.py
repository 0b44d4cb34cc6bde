"""Statistics over replications: means with t confidence intervals, and percentiles.

Replications of a point are independent runs (different seeds), so the confidence interval of
the mean is the Student t interval: mean +- t[(1 + c) / 2, n - 1] * s / sqrt(n). A quantity with
bounds (Jain's index in [0, 1], a rate or a count at least 0) has its interval clipped to them:
the t interval is symmetric, and with few replications near a bound it would reach past it
(a Jain index of 1.0035), which no run can produce.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["Bounds", "MeanCI", "bounds_of", "mean_ci", "ok_runs", "summarize"]

Bounds = tuple[float, float]

# Bounds of the run metrics and per-flow fields, by column name (tcplab.experiment.metrics).
_UNIT_INTERVAL = re.compile(r"(jain|fairness|fraction|utili[sz]ation)")
_NON_NEGATIVE = re.compile(
    r"(_bps|_s|_bytes|^bytes_delivered|^retransmits|^timeouts|^fast_retransmits|^flows|^completed"
    r"|^events|^packets_forwarded|^drops_.*|^arrivals|^delivered)$"
)


def bounds_of(column: str) -> Bounds | None:
    """The bounds of a metric known by its column name: [0, 1] for Jain's index, fairness,
    fractions and utilisation; [0, inf) for rates (``*_bps``), times (``*_s``), byte and event
    counts; None for anything else."""
    if _UNIT_INTERVAL.search(column):
        return (0.0, 1.0)
    if _NON_NEGATIVE.search(column):
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

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
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
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return MeanCI(n, mean, std, low, high, confidence)


def summarize(
    df: pd.DataFrame,
    by: Sequence[str],
    value: str,
    confidence: float = 0.90,
    percentiles: Sequence[float] = (5, 50, 95),
    bounds: Bounds | None | Literal["auto"] = "auto",
) -> pd.DataFrame:
    """One row per group of ``by``: n, mean, std, ci_low, ci_high and the percentiles of ``value``.

    Rows where ``value`` is missing (failed runs) are left out. Groups come in level order: a
    column of numbers sorted numerically, any other in the order its values first appear (a
    sweep's table lists levels in the spec's order), a categorical in its categories' order.
    Intervals are clipped to ``bounds`` (low, high); ``"auto"`` takes them from the column's
    name (``bounds_of``: Jain's index in [0, 1], rates and counts at least 0), None clips
    nothing. Percentile columns are named ``p5``, ``p50``, ...
    """
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} (columns: {', '.join(map(str, df.columns))})")
    limits = bounds_of(value) if bounds == "auto" else bounds
    rows = []
    for keys, group in _groups_in_level_order(df, list(by)):
        x = group[value].to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        ci = mean_ci(x, confidence, limits)
        row = dict(zip(by, keys, strict=True))
        row.update(n=ci.n, mean=ci.mean, std=ci.std, ci_low=ci.low, ci_high=ci.high)
        for p in percentiles:
            row[f"p{p:g}"] = float(np.percentile(x, p)) if x.size else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


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
