"""The one way the HFC study makes a sweep: common random numbers, labels named per path.

Its own module so that the sweep modules of the figures (sweeps.py) and of Sec. VI.B (mss.py),
which sweeps.py imports, build their specs the same way without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.experiment.spec import SweepSpec


def common_seed_spec(
    name: str,
    base: Mapping[str, Any],
    reps: int,
    seed: int,
    labels: Mapping[str, str],
    factors: Mapping[str, Sequence[Any]] | None = None,
    zips: Sequence[Mapping[str, Sequence[Any]]] = (),
    level_labels: Mapping[str, Sequence[str]] | None = None,
) -> SweepSpec:
    """A sweep whose replication i of every point uses the same seed; each swept path that
    ``labels`` names gets that label as its column, and ``level_labels`` names the levels of a
    path (a configuration's name for its whole ``tcp`` table, say)."""
    factors = dict(factors or {})
    paths = [*factors, *(p for z in zips for p in z)]
    return SweepSpec(
        name=name,
        base=base,
        factors=factors,
        zips=list(zips),
        replications=reps,
        seed=seed,
        seeds="common",
        labels={p: labels[p] for p in paths if p in labels},
        level_labels=dict(level_labels or {}),
    )
