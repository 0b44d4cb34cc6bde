"""Statistics over replications: means with t confidence intervals, and percentiles.

Replications of a point are independent runs (different seeds), so the confidence interval of
the mean is the Student t interval: mean +- t[(1 + c) / 2, n - 1] * s / sqrt(n).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["MeanCI", "mean_ci", "ok_runs", "summarize"]


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


def mean_ci(values: Sequence[float] | np.ndarray | pd.Series, confidence: float = 0.90) -> MeanCI:
    """Mean of ``values`` (NaNs left out) with its two-sided t confidence interval.

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
    return MeanCI(n, mean, std, mean - half, mean + half, confidence)


def summarize(
    df: pd.DataFrame,
    by: Sequence[str],
    value: str,
    confidence: float = 0.90,
    percentiles: Sequence[float] = (5, 50, 95),
) -> pd.DataFrame:
    """One row per group of ``by``: n, mean, std, ci_low, ci_high and the percentiles of ``value``.

    Rows where ``value`` is missing (failed runs) are left out. Groups keep their first-seen
    order. Percentile columns are named ``p5``, ``p50``, ...
    """
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} (columns: {', '.join(map(str, df.columns))})")
    rows = []
    for keys, group in df.groupby(list(by), sort=False, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        x = group[value].to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        ci = mean_ci(x, confidence)
        row = dict(zip(by, keys, strict=True))
        row.update(n=ci.n, mean=ci.mean, std=ci.std, ci_low=ci.low, ci_high=ci.high)
        for p in percentiles:
            row[f"p{p:g}"] = float(np.percentile(x, p)) if x.size else math.nan
        rows.append(row)
    return pd.DataFrame(rows)
