"""The numbers a claim is judged on: a statistic of the replications, with its 90% interval.

A statistic is a function of one or more arrays of per-replication values (one value per run,
in replication order) that works along the last axis, so it is evaluated once on the data and
once on all the resamples together:

    measure(lambda lossy, lossless: 1 - lossy.mean(-1) / lossless.mean(-1), lossy, lossless)

The studies' points share seeds (common random numbers: replication i of every point sees the
same random streams), so arrays of equal length are resampled together, replication by
replication, and a difference or a ratio of two points keeps their pairing; arrays of unequal
length are resampled each on its own.

**The interval** is the union of two 90% intervals (the second only below 10 runs), each
computed from the same runs every time (fixed seed); it always contains the value itself:

- Hesterberg's *expanded percentile* bootstrap ("What teachers should know about the bootstrap",
  The American Statistician, 2015): ``RESAMPLES`` resamples, cut at the tail probability
  Phi(-sqrt(n/(n-1)) t[0.95, n-1]) instead of 5%, which corrects the plain percentile
  interval's narrowness with few runs;
- below ``JACKKNIFE_BELOW`` (10) runs, a *jackknife t* interval, value +- t[0.95, n-1] times
  the delete-one jackknife standard error, which the bootstrap's discreteness needs with few
  runs: two runs can be resampled only four ways, so no percentile of them reaches past the two
  values. From 10 runs the expanded percentile alone keeps its level, and the jackknife is left
  out: on a median or a percentile it is erratic (leaving one run out moves them by whole order
  statistics; between the two modes of a bimodal sample, by a mode).

``n`` is the number of replications. For unpaired arrays, n - 1 is Welch and Satterthwaite's
degrees of freedom from each array's part of the jackknife variance (between the smallest
array's n - 1 and the sum of all), so that a ratio of 40 noisy runs to 3 near-identical ones
counts as 40 runs, not 3; from 10 runs in every array, the smallest array's. Measured on
two samples of one distribution (normal and lognormal, paired and unpaired), the plain
percentile interval put a ratio of means wholly above 1 in 16-26% of cases at 2 runs, 13-21% at
3 and 9-10% at 5, against the 5% a 90% interval allows; the union does so in 2-5.5% at 2 to 9
runs, and the expanded percentile alone in 4-7% at 10 to 40 (two sets of 1,000 trials per count
of runs, sd 0.7%; tests/test_small_n_intervals.py measures it again). With one replication nothing measures
the spread: the interval is *unbounded*.

A statistic that is undefined on the runs (0/0: every run delivered nothing, no run timed out)
gives a *degenerate* measure: it carries the reason and no value, and a claim judged on it is
reported as degenerate, neither holding nor missing.

Where it is defined on the runs but not on all of them, the interval is *unbounded* too, and a
check or a value judged on it is not separated: the data cannot decide. That is when a run's own
value is undefined (NaN: the statistic is shown on the other runs), when more resamples than
one tail of the interval (5%) are undefined, and when leaving one run out makes it undefined: a
ratio of timeouts whose denominator is 0 on four runs of five would otherwise rest on the fifth
run alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "LEVEL",
    "RESAMPLES",
    "Measure",
    "change",
    "cost",
    "degenerate",
    "difference",
    "exact",
    "mean",
    "measure",
    "percentile",
    "ratio",
]

LEVEL = 0.90
RESAMPLES = 2000
SEED = 20_231  # any fixed seed: intervals must not change between two runs of the same data
# From this many replications the expanded percentile interval keeps its level alone, and the
# jackknife, needed below it, would only add its own noise: on a median or a percentile (which
# moves by whole order statistics when one run is left out) it is erratic at any n.
JACKKNIFE_BELOW = 10

Samples = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Measure:
    """A statistic of ``n`` replications: its value on all of them and its 90% interval.

    ``degenerate`` is empty for a defined statistic, else why it is undefined (then the value
    and interval are NaN and no claim can hold or miss on it)."""

    value: float
    low: float
    high: float
    n: int
    degenerate: str = ""

    @property
    def is_degenerate(self) -> bool:
        return bool(self.degenerate)

    def to_dict(self, digits: int = 4) -> dict[str, Any]:
        if self.degenerate:
            return {"value": None, "ci90": None, "n": self.n, "degenerate": self.degenerate}
        return {
            "value": _round(self.value, digits),
            "ci90": [_round(self.low, digits), _round(self.high, digits)],
            "n": self.n,
        }

    @property
    def is_bounded(self) -> bool:
        """Whether the interval is finite (an unbounded one decides nothing)."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    def __str__(self) -> str:
        if self.degenerate:
            return f"degenerate ({self.degenerate})"
        if not self.is_bounded:
            one_run = self.n == 1
            why = "one replication measures no spread" if one_run else "undefined on some runs or resamples"
            return f"{self.value:.4g} [unbounded: {why}]"
        if self.low == self.high:
            return f"{self.value:.4g}"
        return f"{self.value:.4g} [{self.low:.4g}, {self.high:.4g}]"


def _round(x: float, digits: int) -> float | None:
    if not math.isfinite(x):
        return None
    return float(f"{x:.{digits}g}")


def degenerate(reason: str, n: int = 0) -> Measure:
    """A measure that is undefined for a stated reason (a point where nothing can be measured)."""
    return Measure(math.nan, math.nan, math.nan, n, degenerate=reason)


def exact(value: float) -> Measure:
    """A number with no replication spread: a constant, or our own arithmetic."""
    v = float(value)
    if not math.isfinite(v):
        return degenerate("not a finite number")
    return Measure(v, v, v, 0)


def measure(stat: Callable[..., Any], *samples: Samples, level: float = LEVEL) -> Measure:
    """``stat`` of the per-replication ``samples``, with its 90% interval (the expanded
    percentile bootstrap, joined below 10 runs by the jackknife t interval; unbounded where the
    data cannot bound it: see the module's text)."""
    arrays = [np.asarray(s, dtype=float).ravel() for s in samples]
    if not arrays or any(a.size == 0 for a in arrays):
        return degenerate("no replications")
    n = min(a.size for a in arrays)
    defined = _defined_runs(arrays)
    if any(a.size == 0 for a in defined):
        return degenerate("undefined on every run (no value to measure)", n)
    with np.errstate(all="ignore"):
        value = float(stat(*defined))
    if not math.isfinite(value):
        return degenerate("undefined on these runs (a division by zero, or no runs to count)", n)
    unbounded = Measure(value, -math.inf, math.inf, n)
    if n < 2 or any(d.size < a.size for d, a in zip(defined, arrays, strict=True)):
        return unbounded  # one run measures no spread; or a run's value is undefined
    spread = _Spread(variance=None, df=n - 1)
    if n < JACKKNIFE_BELOW:
        jackknifed = _jackknife(stat, arrays)
        if jackknifed is None:
            return unbounded  # leaving one run out makes it undefined: it rests on that run
        spread = jackknifed
    boot = _expanded_percentile(stat, arrays, spread.df, level)
    if boot is None:
        return unbounded
    low, high = boot
    if spread.variance is not None and spread.df + 1 < JACKKNIFE_BELOW:
        half = _t_quantile(spread.df, level) * math.sqrt(spread.variance)
        low, high = min(low, value - half), max(high, value + half)
    return Measure(value, min(low, value), max(high, value), n)


def _paired(arrays: list[np.ndarray]) -> bool:
    return len({a.size for a in arrays}) == 1


def _t_quantile(df: float, level: float) -> float:
    from scipy.stats import t  # here: scipy takes a while to import

    return float(t.ppf((1 + level) / 2, df))


def _expanded_percentile(
    stat: Callable[..., Any], arrays: list[np.ndarray], df: float, level: float
) -> tuple[float, float] | None:
    """The bootstrap's interval cut at Hesterberg's expanded tail probability for ``df`` + 1
    runs, or None when more resamples than one tail are undefined."""
    from scipy.stats import norm

    rng = np.random.default_rng(SEED)
    if _paired(arrays):
        n = arrays[0].size
        idx = rng.integers(0, n, size=(RESAMPLES, n))
        resampled = [a[idx] for a in arrays]
    else:
        resampled = [a[rng.integers(0, a.size, size=(RESAMPLES, a.size))] for a in arrays]
    with np.errstate(all="ignore"):
        stats = np.asarray(stat(*resampled), dtype=float).ravel()
    finite = stats[np.isfinite(stats)]
    if stats.size - finite.size > (1 - level) / 2 * stats.size:
        return None
    tail = float(norm.cdf(-math.sqrt((df + 1) / df) * _t_quantile(df, level)))
    low, high = np.quantile(finite, [tail, 1 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class _Spread:
    """The jackknife variance of a statistic (None where not computed) and its degrees of
    freedom."""

    variance: float | None
    df: float


def _jackknife(stat: Callable[..., Any], arrays: list[np.ndarray]) -> _Spread | None:
    """The delete-one jackknife variance and its degrees of freedom: n - 1 for paired arrays;
    for unpaired ones the sum of each array's part, on Welch and Satterthwaite's degrees of
    freedom (between the smallest array's n - 1 and the sum of all). None when leaving a run out
    makes the statistic undefined."""
    if _paired(arrays):
        variance = _jackknife_variance(stat, arrays, range(len(arrays)))
        return None if variance is None else _Spread(variance, arrays[0].size - 1)
    maybe = [_jackknife_variance(stat, arrays, [k]) for k in range(len(arrays))]
    parts = [v for v in maybe if v is not None]
    if len(parts) < len(maybe):
        return None
    variance = sum(parts)
    least, most = min(a.size for a in arrays) - 1, sum(a.size - 1 for a in arrays)
    if variance == 0:
        return _Spread(0.0, least)
    welch = variance**2 / sum(v * v / (a.size - 1) for v, a in zip(parts, arrays, strict=True))
    return _Spread(variance, min(max(welch, least), most))


def _jackknife_variance(
    stat: Callable[..., Any], arrays: list[np.ndarray], left: Sequence[int]
) -> float | None:
    """The jackknife variance from leaving one replication out of the arrays in ``left`` (all
    of equal length) at a time, the others whole."""
    m = arrays[left[0]].size
    keep = ~np.eye(m, dtype=bool)
    out = np.nonzero(keep)[1].reshape(m, m - 1)  # row i: every replication but i
    args = [a[out] if k in left else np.broadcast_to(a, (m, a.size)) for k, a in enumerate(arrays)]
    with np.errstate(all="ignore"):
        thetas = np.asarray(stat(*args), dtype=float).ravel()
    if thetas.size != m or not np.all(np.isfinite(thetas)):
        return None
    return float((m - 1) / m * ((thetas - thetas.mean()) ** 2).sum())


def _defined_runs(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The runs whose values are defined (not NaN): arrays of equal length lose a replication
    wherever any of them is undefined, so that their pairing holds; others each their own."""
    if _paired(arrays):
        keep = np.logical_and.reduce([~np.isnan(a) for a in arrays])
        return [a[keep] for a in arrays]
    return [a[~np.isnan(a)] for a in arrays]


# ---------------------------------------------------------------- the usual statistics


def mean(x: Samples) -> Measure:
    """The mean over replications."""
    return measure(lambda a: a.mean(-1), x)


def difference(a: Samples, b: Samples) -> Measure:
    """mean(a) - mean(b)."""
    return measure(lambda x, y: x.mean(-1) - y.mean(-1), a, b)


def ratio(a: Samples, b: Samples) -> Measure:
    """mean(a) / mean(b)."""
    return measure(lambda x, y: x.mean(-1) / y.mean(-1), a, b)


def change(a: Samples, b: Samples) -> Measure:
    """mean(a) / mean(b) - 1: the relative gain of a over b (negative: a loss)."""
    return measure(lambda x, y: x.mean(-1) / y.mean(-1) - 1, a, b)


def cost(a: Samples, b: Samples) -> Measure:
    """1 - mean(a) / mean(b): the share of b's mean that a loses."""
    return measure(lambda x, y: 1 - x.mean(-1) / y.mean(-1), a, b)


def percentile(x: Samples, q: float) -> Measure:
    """The q-th percentile over replications (q in 0..100; 50 is the median)."""
    return measure(lambda a: np.percentile(a, q, axis=-1), x)
