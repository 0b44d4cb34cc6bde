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


def jain_index(throughputs: Sequence[float], expected: Sequence[float] | None = None) -> float:
    """Jain's fairness index of ``throughputs``, each normalised by its ``expected`` share.

    Without ``expected`` every connection's share is equal. Raises ValueError for an empty
    list, mismatched lengths, non-positive expected shares, or all-zero throughputs.
    """
    x = [float(v) for v in throughputs]
    if not x:
        raise ValueError("jain_index: no throughputs")
    if expected is not None:
        e = [float(v) for v in expected]
        if len(e) != len(x):
            raise ValueError(f"jain_index: {len(x)} throughputs but {len(e)} expected shares")
        if any(not v > 0 for v in e):
            raise ValueError("jain_index: expected shares must be positive")
        x = [a / b for a, b in zip(x, e, strict=True)]
    denominator = len(x) * math.fsum(v * v for v in x)
    if denominator == 0:
        raise ValueError("jain_index: every throughput is zero")
    return math.fsum(x) ** 2 / denominator


def max_min_shares(offered: Sequence[float], capacity: float) -> list[float]:
    """Max-min fair shares of ``capacity`` among connections offering ``offered`` loads.

    The rounds of Goyal et al. (1998), Sec. 7 (water filling). The shares add up to ``capacity``, or to the
    total offered load if that is smaller.
    """
    if capacity < 0:
        raise ValueError("max_min_shares: capacity must not be negative")
    loads = [float(s) for s in offered]
    if any(s < 0 for s in loads):
        raise ValueError("max_min_shares: offered loads must not be negative")
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
