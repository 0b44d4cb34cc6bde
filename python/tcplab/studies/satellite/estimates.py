"""The intervals the satellite study's orderings and trends are judged on: the paper's own method.

Goyal et al. (1998) ran each configuration once and judged its comparisons by Jain's factorial
analysis (Sec. 8.1): the error term is what the main effects and first-order interactions leave
unexplained, and a 90% interval is the estimate +- t[0.95, de] times its standard deviation. We
do the same on our runs: an ``Estimate`` is a mean over runs of one link type with its variance
under that analysis (se^2 / m for a mean of m runs, se from ``factorial_anova`` of our runs: with
one replication the second-order interaction, as in the paper; with r replications the
replication spread as well). Means over disjoint sets of runs, and means on different link types,
are independent, so a difference adds their variances; an interval across link types uses the
larger of their t quantiles.

On the paper's own tables the same functions reproduce the paper's intervals (its Tables 6, 9
and 12 are this analysis of its Tables 4 and 7), which is how the claims' can-fail fixtures
judge the paper's numbers by the rule its own text used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tcplab.analysis.anova import AnovaResult
from tcplab.report.measure import Measure, degenerate
from tcplab.studies.satellite.results import Results

__all__ = ["Estimate", "level_mean", "mean_of", "share_gap"]


@dataclass(frozen=True)
class Estimate:
    """A linear combination of run means: its value, its variance under the factorial analysis,
    the t quantile of its interval and the fewest runs behind any of its means."""

    value: float
    var: float
    t: float
    runs: int

    def __sub__(self, other: Estimate) -> Estimate:
        return Estimate(
            self.value - other.value, self.var + other.var, max(self.t, other.t), min(self.runs, other.runs)
        )

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(
            self.value + other.value, self.var + other.var, max(self.t, other.t), min(self.runs, other.runs)
        )

    def scaled(self, k: float) -> Estimate:
        return Estimate(k * self.value, k * k * self.var, self.t, self.runs)

    @property
    def half_width(self) -> float:
        return self.t * math.sqrt(self.var)

    def measure(self) -> Measure:
        """As a ``Measure``: the value and its 90% interval."""
        h = self.half_width
        return Measure(self.value, self.value - h, self.value + h, self.runs)


def _error(a: AnovaResult) -> tuple[float, float]:
    """(se, t): with no degree of freedom left for error the estimate is taken as exact."""
    if a.se is None or a.t_quantile is None:
        return 0.0, 0.0
    return a.se, a.t_quantile


def level_mean(r: Results, case: str, response: str, **where: str) -> Estimate:
    """The mean of ``response`` over the runs of ``case`` matching ``where`` (factor=level)."""
    df = r.runs[case]
    for factor, level in where.items():
        df = df[df[factor] == level]
    m = len(df)
    if m == 0:
        raise KeyError(f"satellite {case}: no runs with {where}")
    se, t = _error(r.anova[case][response])
    return Estimate(float(df[response].mean()), se * se / m, t, m)


def mean_of(estimates: list[Estimate]) -> Estimate:
    """The mean of estimates over disjoint sets of runs."""
    k = len(estimates)
    total = estimates[0]
    for e in estimates[1:]:
        total = total + e
    return total.scaled(1 / k)


def _factor_ss(a: AnovaResult, factor: str) -> tuple[float, float]:
    """A factor's sum of squares and its variance by the delta method: SS = (N/k) sum(alpha^2),
    each main effect with the standard deviation se sqrt((k - 1) / N) of Jain's analysis."""
    effects = [e.effect for e in a.effects if e.factor == factor]
    k, n = len(effects), a.n
    se, _ = _error(a)
    s_alpha = se * math.sqrt((k - 1) / n)
    sum_sq = sum(x * x for x in effects)
    return n / k * sum_sq, (2 * n / k) ** 2 * s_alpha**2 * sum_sq


def share_gap(a: AnovaResult, top: str, other: str) -> Measure:
    """``top``'s share of the variation minus ``other``'s, in percentage points, with its 90%
    interval (the two factors' effects are orthogonal, so their variances add)."""
    if not a.ss_t:
        return degenerate("no variation among the configurations")
    ss_a, var_a = _factor_ss(a, top)
    ss_b, var_b = _factor_ss(a, other)
    scale = 100 / a.ss_t
    _, t = _error(a)
    return Estimate(scale * (ss_a - ss_b), scale * scale * (var_a + var_b), t, a.replications).measure()
