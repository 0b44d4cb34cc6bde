"""The claims' 90% intervals keep their 90% with few replications (tcplab.report.measure).

Two samples of one distribution have no effect between them, so a ratio of their means should
have its 90% interval wholly above 1 in at most 5% of cases. The plain percentile bootstrap,
which the studies used before, did so in about a quarter of cases at 2 runs, a fifth at 3 and a
tenth at 5: a quick mode's orderings against "no effect" could hold on noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from tcplab.report.claims import HOLDS, NOT_SEPARATED, above
from tcplab.report.measure import mean, measure, ratio

TRIALS = 400
# 5% plus about two binomial standard deviations at 400 trials: a rule at 5% passes, the old
# rule's 10-26% cannot.
MOST = 0.075


def _no_effect_pairs(n: int, paired: bool, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two lognormal samples of one distribution; ``paired`` shares a random stream per run,
    as the studies' common random numbers do."""
    common = rng.normal(0, 0.5, n) if paired else np.zeros(n)
    return np.exp(common + rng.normal(0, 0.5, n)), np.exp(common + rng.normal(0, 0.5, n))


def false_holds(n: int, paired: bool, seed: int = 11) -> float:
    """The share of no-effect comparisons on which 'ratio above 1' holds."""
    rng = np.random.default_rng(seed)
    holds = 0
    for _ in range(TRIALS):
        a, b = _no_effect_pairs(n, paired, rng)
        holds += above("ratio", ratio(a, b), 1).verdict == HOLDS
    return holds / TRIALS


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
@pytest.mark.parametrize("n", [2, 3, 5, 10, 20])
def test_no_effect_holds_at_most_as_often_as_the_level_allows(n: int, paired: bool) -> None:
    assert false_holds(n, paired) <= MOST


def test_a_real_effect_still_holds_with_three_runs() -> None:
    # twice the mean, 5% spread: a claim the data settle must still be able to hold
    a, b = [1.9, 2.0, 2.1], [0.95, 1.0, 1.05]
    assert above("ratio", ratio(a, b), 1).verdict == HOLDS


def test_one_replication_measures_no_spread() -> None:
    m = mean([3.0])
    assert m.value == 3.0 and not m.is_bounded and m.n == 1
    assert above("one run", ratio([5.0], [1.0]), 1).verdict == NOT_SEPARATED
    assert "one replication" in str(m)


def test_two_runs_are_as_wide_as_a_t_interval_with_one_degree_of_freedom() -> None:
    m = mean([1.0, 2.0])
    # t[0.95, 1] = 6.314 times the standard error 0.5 either side of 1.5
    assert m.low == pytest.approx(1.5 - 6.3138 * 0.5, rel=1e-4)
    assert m.high == pytest.approx(1.5 + 6.3138 * 0.5, rel=1e-4)


def test_a_statistic_resting_on_one_run_is_unbounded() -> None:
    # a mean ratio whose denominator is nonzero on one run of twenty: without that run (a third
    # of the resamples, and one jackknife sample) it is 0/0
    m = measure(lambda x, y: x.mean(-1) / y.mean(-1), [1.0] * 20, [0.0] * 19 + [3.0])
    assert m.is_bounded is False and math.isfinite(m.value)


def test_many_runs_keep_the_bootstrap_width() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(10, 1, 200)
    m = mean(x)
    se = x.std(ddof=1) / math.sqrt(x.size)
    # a 90% interval of a mean of 200 runs: about 1.65 standard errors either side
    assert 1.5 * se < (m.high - m.low) / 2 < 1.9 * se


def test_many_noisy_runs_against_three_steady_ones_count_as_many() -> None:
    # The HFC study's shape: a median of 40 lossy runs over the median of 3 lossless runs,
    # whose spread is a thousandth. Welch's degrees of freedom follow the noisy array, so the
    # interval is about what the 40 runs alone give, not a 3-run interval.
    rng = np.random.default_rng(2)
    lossy = np.r_[rng.uniform(0.1, 0.3, 10), rng.uniform(1.4, 2.0, 30)]
    lossless = np.array([2.0, 2.001, 2.002])
    both = measure(lambda a, b: np.median(a, axis=-1) / np.median(b, axis=-1), lossy, lossless)
    alone = measure(lambda a: np.median(a, axis=-1) / 2.001, lossy)
    assert both.high - both.low < 1.3 * (alone.high - alone.low)
