"""Fairness (Jain's index, max-min shares, Goyal et al. 1998, Sec. 7) and statistics over replications."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from tcplab.analysis.fairness import jain_index, max_min_shares
from tcplab.analysis.stats import mean_ci, summarize


def test_jain_index_equal_and_unequal_shares() -> None:
    assert jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(0.25)  # one of N gets everything: 1/N
    assert jain_index([3, 1]) == pytest.approx(16 / 20)
    # Against expected shares: each connection getting the same fraction of its share is fair.
    assert jain_index([2, 4, 8], expected=[1, 2, 4]) == pytest.approx(1.0)
    assert jain_index([1, 1], expected=[1, 2]) == pytest.approx((1 + 0.5) ** 2 / (2 * (1 + 0.25)))
    for bad in ([], [0, 0]):
        with pytest.raises(ValueError):
            jain_index(bad)
    with pytest.raises(ValueError):
        jain_index([1, 2], expected=[1])
    with pytest.raises(ValueError):
        jain_index([1, 2], expected=[1, 0])


def test_max_min_shares_follow_the_rounds_of_seed_002() -> None:
    # C = 10 among 4: fair share 2.5; the one offering 1 keeps 1, then 9 / 3 = 3 each;
    # the one offering 2 (< 3) keeps 2, then 7 / 2 = 3.5 for the two big ones.
    assert max_min_shares([1, 2, 8, 20], 10) == pytest.approx([1, 2, 3.5, 3.5])
    assert max_min_shares([5, 5], 10) == pytest.approx([5, 5])  # not below the share: the share
    assert max_min_shares([1, 1, 1], 10) == pytest.approx([1, 1, 1])  # capacity left over
    assert max_min_shares([], 10) == []
    shares = max_min_shares([0.3 * i for i in range(100)], 37.8)
    assert sum(shares) == pytest.approx(37.8)
    assert all(s <= 0.3 * i + 1e-12 for i, s in enumerate(shares))


def test_mean_ci_is_the_student_t_interval() -> None:
    ci = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0], confidence=0.90)
    half = 2.131846786 * math.sqrt(2.5) / math.sqrt(5)  # t[0.95; 4] s / sqrt(n)
    assert (ci.n, ci.mean) == (5, 3.0)
    assert ci.low == pytest.approx(3 - half) and ci.high == pytest.approx(3 + half)
    one = mean_ci([7.0])
    assert one.mean == 7.0 and math.isnan(one.low)
    assert mean_ci([float("nan"), 1.0, 3.0]).n == 2  # failed runs (NaN) are left out


def test_summarize_groups_replications_with_percentiles() -> None:
    df = pd.DataFrame(
        {
            "variant": ["reno"] * 4 + ["sack"] * 4,
            "loss": [0.01, 0.01, 0.02, 0.02] * 2,
            "goodput": [10.0, 12.0, 5.0, 7.0, 11.0, 13.0, 6.0, float("nan")],
        }
    )
    s = summarize(df, ["variant", "loss"], "goodput", percentiles=(50, 90))
    assert list(s.columns) == ["variant", "loss", "n", "mean", "std", "ci_low", "ci_high", "p50", "p90"]
    assert list(zip(s["variant"], s["loss"], strict=True)) == [
        ("reno", 0.01),
        ("reno", 0.02),
        ("sack", 0.01),
        ("sack", 0.02),
    ]
    assert list(s["mean"]) == [11.0, 6.0, 12.0, 6.0] and list(s["n"]) == [2, 2, 2, 1]
    assert s["p90"].iloc[0] == pytest.approx(11.8)
    with pytest.raises(KeyError):
        summarize(df, ["nope"], "goodput")


def test_jains_index_is_one_for_equal_shares_of_any_magnitude() -> None:
    """The squares of 1e-200 underflowed ("every throughput is zero") and those of 1e200 raised
    OverflowError, not the documented ValueError."""
    from tcplab.analysis.fairness import jain_index

    for size in (1e-200, 1.0, 1e200):
        assert jain_index([size, size]) == pytest.approx(1.0)
        assert jain_index([size, 0.0]) == pytest.approx(0.5)
