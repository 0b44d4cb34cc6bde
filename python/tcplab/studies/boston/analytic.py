"""Wasted byte-hops in a multi-hop ATM network: Bestavros and Kim (1997), TCP Boston, Sec. 4.3, eqs. 1-7.

One connection crosses ``h`` hops; a single congested switch, ``delta`` hops from the source,
lets a cell through with probability ``p`` (drops it with ``1 - p``), whatever the protocol.
A packet is ``m`` cells and ``t`` packets are transferred. The wasted byte-hops (in cell-hops;
times 53 for bytes) are

- eq. 1, TCP Boston: only the dropped cells are wasted, each after ``delta`` hops:
  ``(1 - p) delta m t``;
- eq. 2, Reno with EPD: a packet with any cell dropped is dropped whole at the congested switch:
  ``(1 - p^m) delta m t``;
- eq. 3, plain Reno: the cells of a corrupted packet that got through travel on to the sink:
  ``(1 - p^m) ((1 - p) delta + p h) m t``.

With ``delta = h / 2`` (every switch equally likely to be the congested one) the ratio is eq. 4,
``1 : (1 - p^m) / (1 - p) : (1 - p^m) (1 + p) / (1 - p)``, which tends to ``1 : m : 2m`` as
``p -> 1`` (eq. 5) and to ``1 : 1/(1 - p) : (1 + p)/(1 - p)`` when ``p^m`` is negligible (eq. 6).
For ``p = 0.9`` and ``m = 10`` it is ``1 : 6.51 : 12.38`` (eq. 7). (The paper's text calls the
packet loss probability ``q = 1 - p^m`` "0.18" there; it is 0.651, and 6.51 and 12.38 follow
from 0.651, so the 0.18 is a slip of the text, not of the equation.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tcplab.errors import UserError

__all__ = [
    "WasteRatio",
    "check_p",
    "packet_loss",
    "ratio",
    "ratio_large_loss",
    "ratio_small_loss",
    "waste_boston",
    "waste_epd",
    "waste_reno",
]


@dataclass(frozen=True)
class WasteRatio:
    """Wasted byte-hops of Boston : Reno with EPD : Reno, scaled so that Boston is 1."""

    boston: float
    epd: float
    reno: float

    def rounded(self, digits: int = 2) -> tuple[float, float, float]:
        return (round(self.boston, digits), round(self.epd, digits), round(self.reno, digits))

    def __str__(self) -> str:
        return f"{self.boston:.2f} : {self.epd:.2f} : {self.reno:.2f}"


def check_p(p: float, option: str = "--p") -> None:
    """p is a probability that a cell gets through: (0, 1]."""
    if not (isinstance(p, int | float) and math.isfinite(p) and 0.0 < p <= 1.0):
        raise UserError(f"{option}: must be in (0, 1] (the probability that a cell is not dropped), got {p}")


def check_m(m: int, option: str = "--m") -> None:
    if not isinstance(m, int) or isinstance(m, bool) or m < 1:
        raise UserError(f"{option}: must be an integer of at least 1 (cells per packet), got {m}")


def check_hops(h: int, option: str = "--hops") -> None:
    if not isinstance(h, int) or isinstance(h, bool) or h < 1:
        raise UserError(f"{option}: must be an integer of at least 1, got {h}")


def packet_loss(p: float, m: int) -> float:
    """q = 1 - p^m: the probability that a packet of m cells loses at least one."""
    return 1.0 - p**m


def waste_boston(p: float, m: int, t: float, delta: float) -> float:
    """Eq. 1: cell-hops wasted by TCP Boston."""
    return (1.0 - p) * delta * m * t


def waste_epd(p: float, m: int, t: float, delta: float) -> float:
    """Eq. 2: cell-hops wasted by Reno over switches with EPD."""
    return packet_loss(p, m) * delta * m * t


def waste_reno(p: float, m: int, t: float, delta: float, h: float) -> float:
    """Eq. 3: cell-hops wasted by plain Reno."""
    return packet_loss(p, m) * ((1.0 - p) * delta + p * h) * m * t


def ratio(p: float, m: int) -> WasteRatio:
    """Eq. 4 (delta = h/2). At p = 1 nothing is wasted; the limit p -> 1 (eq. 5) is returned."""
    check_p(p)
    check_m(m)
    if p == 1.0:
        return ratio_small_loss(m)
    q = packet_loss(p, m)
    return WasteRatio(1.0, q / (1.0 - p), q * (1.0 + p) / (1.0 - p))


def ratio_small_loss(m: int) -> WasteRatio:
    """Eq. 5: the limit of eq. 4 for p -> 1 (small cell loss): 1 : m : 2m."""
    check_m(m)
    return WasteRatio(1.0, float(m), 2.0 * m)


def ratio_large_loss(p: float) -> WasteRatio:
    """Eq. 6: eq. 4 when p^m is negligible (large cell loss): 1 : 1/(1-p) : (1+p)/(1-p)."""
    check_p(p)
    if p == 1.0:
        raise UserError("--p: eq. 6 (large cell loss) needs p < 1")
    return WasteRatio(1.0, 1.0 / (1.0 - p), (1.0 + p) / (1.0 - p))
