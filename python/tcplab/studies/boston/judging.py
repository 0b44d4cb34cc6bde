"""How the TCP Boston study's claims read the runs (Bestavros and Kim, 1997): per-replication
samples at a point, the points where nothing can be measured, and the few statistics over
several points that the claims share. Every interval is tcplab.report.measure's bootstrap over
replications (the points share seeds, so replications pair across points).

**Degenerate points.** Under packet access (a sensitivity model; the study's default is cell
access) a packet's cells reach the switch's output buffer all at once, so a packet with more
cells than the buffer holds can never cross it whole: at 64 cells the 4352- and 9180-byte
packets (91 and 192 cells; Boston 95 and 200) are lost on every try and every protocol is dead.
Such a point is degenerate: its checks are left out of the orderings and trends (the claim says
how many), and a trend "toward the smallest buffer" runs to the smallest buffer the packet fits.
Under cell access (cells cross the access link one by one) every point is live; the claims'
texts say which buffers they read (``smallest_note``, ``dead_note``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from tcplab.report.measure import Measure, degenerate, measure
from tcplab.studies.boston.scenarios import DEFAULT_ACCESS, FIT_PROTOCOLS, cannot_fit
from tcplab.studies.boston.sweeps import REF_BUFFER, REF_PACKET, REF_WINDOW

__all__ = [
    "FIT_PROTOCOLS",
    "Runs",
    "cannot_fit",
    "correlation",
    "dead_note",
    "fits",
    "mean_difference",
    "mean_of",
    "median_ratio",
    "smallest_live",
    "smallest_note",
]

W = REF_WINDOW


class Runs(Protocol):
    """What a claim reads: ``results.Results`` or a test's stand-in."""

    packets: tuple[int, ...]
    buffers: tuple[int, ...]
    window_sizes: tuple[int, ...]

    def samples(
        self,
        kind: str,
        protocol: str,
        metric: str,
        packet: int = REF_PACKET,
        window: int = REF_WINDOW,
        buffer: int = REF_BUFFER,
        timer: str = "stack",
    ) -> np.ndarray: ...


def fits(packet: int, buffer: int, access: str = DEFAULT_ACCESS) -> bool:
    return not cannot_fit(packet, buffer, access)


def smallest_live(r: Runs, packet: int) -> int:
    """The smallest buffer of the grid a packet of this size fits."""
    return min(b for b in r.buffers if fits(packet, b))


def smallest_note(r: Runs, packets: Sequence[int]) -> str:
    """The smallest buffer each of ``packets`` fits, as a claim's text says it: "64 cells" when
    one buffer serves all, else "64 cells; 256 for 4352 and 9180 B"."""
    by: dict[int, list[int]] = {}
    for pk in packets:
        by.setdefault(smallest_live(r, pk), []).append(pk)
    first, *rest = sorted(by)
    if not rest:
        return f"{first} cells"
    return "; ".join([f"{first} cells", *(f"{b} for {' and '.join(map(str, by[b]))} B" for b in rest)])


def dead_note(r: Runs, packets: Sequence[int]) -> str:
    """ "; 64 cells is degenerate for every size" for the grid's buffers no packet of ``packets``
    fits, "" when every point is live."""
    dead = [b for b in r.buffers if not any(fits(pk, b) for pk in packets)]
    return f"; {', '.join(map(str, dead))} cells is degenerate for every size" if dead else ""


def at(
    r: Runs,
    stat: Callable[..., Any],
    points: Sequence[tuple[str, str, int, int]],
    window: int = W,
    kind: str = "star",
) -> Measure:
    """``stat`` of the samples at ``points`` ((protocol, metric, packet, buffer) each), or a
    degenerate measure if any point is one where no packet fits."""
    for _, _, pk, b in points:
        if why := cannot_fit(pk, b):
            return degenerate(why)
    return measure(stat, *[r.samples(kind, p, m, pk, window, b) for p, m, pk, b in points])


def mean_of(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The mean over points of each point's mean over replications (vectorised over resamples)."""
    return np.mean([a.mean(-1) for a in arrays], axis=0)


def mean_difference(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> Measure:
    """mean over ``a``'s points minus mean over ``b``'s (each point a mean over replications)."""
    k = len(a)
    return measure(lambda *xs: mean_of(xs[:k]) - mean_of(xs[k:]), *a, *b)


def _stacked(xs: Sequence[np.ndarray]) -> np.ndarray:
    return np.stack([x.mean(-1) for x in xs], axis=-1)


def correlation(x: Sequence[np.ndarray], y: Sequence[np.ndarray]) -> Measure:
    """Pearson correlation over points of the points' means of ``x`` and ``y``."""
    k = len(x)

    def stat(*xs: np.ndarray) -> np.ndarray:
        a, b = _stacked(xs[:k]), _stacked(xs[k:])
        a = a - a.mean(-1, keepdims=True)
        b = b - b.mean(-1, keepdims=True)
        return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))

    return measure(stat, *x, *y)


def median_ratio(x: Sequence[np.ndarray], y: Sequence[np.ndarray], floor: float = 1e-9) -> Measure:
    """The median over points of mean(y) / mean(x)."""
    k = len(x)
    return measure(
        lambda *xs: np.median(_stacked(xs[k:]) / np.maximum(_stacked(xs[:k]), floor), axis=-1), *x, *y
    )
