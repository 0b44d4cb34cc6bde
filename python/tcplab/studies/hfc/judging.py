"""What the HFC claims share: per-point samples, and how numbers and labels are written.

Every claim of the study is a function of per-run samples (one value per replication, in
replication order: the study's points share seeds, so arrays of two points pair up), judged by
the rule of ``tcplab.report.claims``: a value by whether our 90% interval agrees with the paper's
printed number, an ordering or trend by whether the 90% interval of the compared quantity lies
beyond its bound. Where the paper gives a size ("over 50%", "less than 10%", "about 200 ms")
that is the bound; where it only says "much" or "remarkably", the bound is the project's reading
of the word (``MUCH``: a ratio at least 2, or at most 1/2); where it says "significantly", no
difference, and our replication spread decides; a few equivalence words ("comparable", "does
not improve", "avoids") have a stated reading, given in the claim's text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tcplab.report.claims import Claim
from tcplab.report.measure import Samples
from tcplab.studies.hfc.results import samples
from tcplab.studies.hfc.scenarios import kib

B8, B16, B24, B48 = kib(8), kib(16), kib(24), kib(48)
GRID = (B8, B16, B24, B48)

Points = Mapping[Any, Samples]


def at(runs, value: str = "mbps", **where: Any) -> np.ndarray:
    """The samples of one point (``results.samples``)."""
    return samples(runs, value, **where)


def over(runs, key: str, levels: Sequence[Any], value: str = "mbps", **where: Any) -> dict[Any, np.ndarray]:
    """The samples at each level of ``key`` (the other coordinates fixed by ``where``)."""
    return {lv: samples(runs, value, **{key: lv}, **where) for lv in levels}


def arr(x: Samples) -> np.ndarray:
    return np.asarray(x, dtype=float)


def r2(x: float) -> float:
    return round(float(x), 2)


def r3(x: float) -> float:
    return round(float(x), 3)


def pct(x: float) -> str:
    return f"{x:.0%}"


def size(s: int) -> str:
    return f"{s / 1000:g} KB" if s < 1_000_000 else f"{s / 1e6:g} MB"


def buf(b: int) -> str:
    return f"{b // 1024} KB"


def loss(p: float) -> str:
    return f"{p:.0%}" if abs(p * 100 - round(p * 100)) < 1e-9 else f"{p:.1%}"


def as_kind(claim: Claim, kind: str, note: str = "") -> Claim:
    """``claim`` judged the same way but standing as another kind (a reading of the setup that
    is not the paper's is a diagnostic: it explains a miss, it is not evidence)."""
    text = f"{claim.claim} {note}".strip()
    return Claim(**{**claim.__dict__, "kind": kind, "claim": text})
