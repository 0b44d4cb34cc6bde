"""Fairness: Jain's index against expected shares, and max-min fair shares from offered loads.

Goyal et al. (1998), Sec. 7: with x_i the throughput of connection i and e_i its
expected (max-min fair) throughput, the fairness index is

    F = (sum x_i / e_i)^2 / (N * sum (x_i / e_i)^2)

which is 1 when every connection gets the same fraction of its fair share. The fair shares come
from the connections' offered loads S_i (data scheduled over the run time) on a link of capacity
C: each round gives every connection still unsettled an equal share of the capacity left; one
offering less than that share gets exactly its offered load and leaves the rest to the others;
when every remaining connection offers at least the share, each gets the share.

Plain Python (no numpy): the result store computes the index for every run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["jain_index", "max_min_shares"]


def _amount(value: float, name: str, function: str) -> float:
    """``value`` as a float; ValueError naming it if it is NaN, infinite or negative (a
    throughput, a load, a share or a capacity is a finite amount, at least 0)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{function}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{function}: {name} is {v}; it must be a finite number, at least 0")
    return v


def _amounts(values: Sequence[float], argument: str, function: str) -> list[float]:
    """``values`` as floats, each checked by ``_amount`` (named ``argument[i]``)."""
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise TypeError(f"{function}: {argument} must be a list of numbers, got {values!r}")
    return [_amount(v, f"{argument}[{i}]", function) for i, v in enumerate(values)]


def jain_index(throughputs: Sequence[float], expected: Sequence[float] | None = None) -> float:
    """Jain's fairness index of ``throughputs``, each normalised by its ``expected`` share.

    Without ``expected`` every connection's share is equal. Raises ValueError for an empty
    list (the index of no connection is undefined), mismatched lengths, a NaN, infinite or
    negative throughput, non-positive or infinite expected shares, or all-zero throughputs.
    """
    x = _amounts(throughputs, "throughputs", "jain_index")
    if not x:
        raise ValueError("jain_index: no throughputs")
    if expected is not None:
        e = _amounts(expected, "expected", "jain_index")
        if len(e) != len(x):
            raise ValueError(f"jain_index: {len(x)} throughputs but {len(e)} expected shares")
        if any(not v > 0 for v in e):
            raise ValueError("jain_index: expected shares must be positive")
        x = [a / b for a, b in zip(x, e, strict=True)]
    top = max(x)
    if not top > 0:
        raise ValueError("jain_index: every throughput is zero")
    if not math.isfinite(top):
        raise ValueError("jain_index: a normalised throughput is too large to be a number")
    # Scaled by the largest (the index does not change): the squares of 1e-200 underflowed to
    # "every throughput is zero", and those of 1e200 overflowed.
    x = [v / top for v in x]
    return math.fsum(x) ** 2 / (len(x) * math.fsum(v * v for v in x))


def max_min_shares(offered: Sequence[float], capacity: float) -> list[float]:
    """Max-min fair shares of ``capacity`` among connections offering ``offered`` loads.

    The rounds of Goyal et al. (1998), Sec. 7 (water filling). The shares add up to ``capacity``, or to the
    total offered load if that is smaller. No connection (an empty list) gets no shares: [].
    Raises ValueError for a NaN, infinite or negative load or capacity.
    """
    capacity = _amount(capacity, "capacity", "max_min_shares")
    loads = _amounts(offered, "offered", "max_min_shares")
    shares = [0.0] * len(loads)
    remaining = set(range(len(loads)))
    left = float(capacity)
    while remaining:
        fair = left / len(remaining)
        below = sorted(i for i in remaining if loads[i] < fair)
        if not below:
            for i in remaining:
                shares[i] = fair
            break
        for i in below:
            shares[i] = loads[i]
            left -= loads[i]
        remaining -= set(below)
    return shares
