"""The one place claims are built: a helper per kind, and the one tolerance policy for "about".

Every study builds its claims with these, so every claim says what kind of check it is (see
``tcplab.report.study.KINDS``) and "about x" means the same thing in every report:

    ABOUT: a value the paper gives as "about x" holds within 25% of x; a count under 5 holds
    within 1 of x.

Why 25%: the papers' "about" values are read off figures or rounded to one or two significant
digits ("about 0.2 Mb/s", "about 11 timeouts"); rounding alone spans up to +-25% at one digit.
"""

from __future__ import annotations

from typing import Any

from scipy.stats import binomtest
from tcplab.report.study import Claim

__all__ = [
    "ABOUT_TOL",
    "POLICY",
    "about",
    "analytic",
    "diagnostic",
    "ordering",
    "proportion",
    "trend",
    "value",
]

ABOUT_TOL = 0.25
COUNT_BELOW = 5  # counts under this are judged within COUNT_SLACK, not relatively
COUNT_SLACK = 1
POLICY = (
    f'"About x" holds within {ABOUT_TOL:.0%} of x (a count under {COUNT_BELOW}: within '
    f"{COUNT_SLACK} of x); orderings and trends compare means over the replications."
)


def about(measured: float, paper: float, count: bool = False, tolerance: float = ABOUT_TOL) -> bool:
    """Within ``tolerance`` (relative) of the paper's value; a small count within 1."""
    if count and abs(paper) < COUNT_BELOW:
        return bool(abs(measured - paper) <= COUNT_SLACK)
    return bool(abs(measured - paper) <= tolerance * abs(paper))


def value(
    cid: str,
    text: str,
    paper: Any,
    measured: Any,
    holds: bool,
    tolerance: float = ABOUT_TOL,
) -> Claim:
    """A measured value against the paper's, within ``tolerance`` (``holds`` usually from
    ``about``; a claim with several values combines them)."""
    return Claim(cid, text, paper, measured, holds, kind="value", tolerance=tolerance)


def ordering(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """One measured quantity above or below another, or a threshold."""
    return Claim(cid, text, paper, measured, holds, kind="ordering")


def trend(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """A direction along a factor (rises, falls, grows, shrinks)."""
    return Claim(cid, text, paper, measured, holds, kind="trend")


def analytic(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """The paper's own formula evaluated: nothing simulated."""
    return Claim(cid, text, paper, measured, holds, kind="analytic")


def diagnostic(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """A check of this reproduction itself, not a statement of the paper."""
    return Claim(cid, text, paper, measured, holds, kind="diagnostic")


def proportion(cid: str, text: str, paper: float, successes: int, trials: int, alpha: float = 0.05) -> Claim:
    """A share against the paper's: holds unless a two-sided binomial test rejects the paper's
    proportion at level ``alpha``."""
    if trials <= 0:
        return Claim(cid, text, paper, {"successes": successes, "trials": trials}, False, kind="proportion")
    p_value = float(binomtest(successes, trials, paper).pvalue)
    measured = {
        "share": round(successes / trials, 4),
        "successes": successes,
        "trials": trials,
        "p_value": round(p_value, 4),
    }
    return Claim(cid, text, paper, measured, p_value >= alpha, kind="proportion")
