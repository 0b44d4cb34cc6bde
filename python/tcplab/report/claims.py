"""The claim rule: every claim says what kind it is, what would refute it, and how it was judged.

**Kinds.** A ``paper`` claim is a statement of the reproduced paper, judged on what tcplab
measured; its ``subkind`` says its form: ``value`` (a number the paper prints), ``ordering`` (one
quantity above another, or above a bound the paper gives), ``trend`` (a direction along a
factor), ``proportion`` (a share of runs). Only paper claims make a report's headline:
"paper claims: K of N hold (M not separated, D degenerate)". Our own checks are listed apart
and never counted in it: ``fitted`` (a signature used to choose a model or a parameter, which
cannot then be evidence for it), ``analytic`` (our arithmetic: the paper's formula evaluated, or
a number that follows from the setup by construction) and ``diagnostic`` (a check of this
reproduction itself, or of a reading of the setup that is not the paper's).

**Verdicts.** ``holds``, ``misses``, ``not separated`` (the data cannot tell: neither a hold nor
a miss) or ``degenerate`` (the measured quantities are undefined at the point: nothing was
delivered, no packet can fit). ``Claim.holds`` is True, False, or None for the last two.

**Values** (``Cell``): the paper's number as printed (``printed``) stands for every value that
prints the same ("2.8" is 2.75..2.85, "11" is 10.5..11.5, "300%" is 250..350%, "fivefold"
4.5..5.5, "a third" 1/3.5..1/2.5). Two ranges judge a measured value, as an ordering is judged
on both sides of its bound:
- its *band*, the printed range widened by our 90% interval on each side (by sqrt(1 + n/N) more
  when the paper's number is itself from N runs, e.g. one trace): a value outside it misses (the
  two cannot be the same number);
- its *agreement range*, the printed range widened only by the paper's own sampling spread (a
  mean of N runs, at the least spread our n runs allow: ``least_spread``; nothing when the
  paper does not say N): the value holds when our whole 90% interval lies inside it (our
  number is the paper's, as far as the paper's own precision can tell).
In between, the data cannot tell: not separated. So a wide interval that merely overlaps the
paper's number no longer holds. Both ranges and how they were derived are in claims.json.

**Orderings and trends** (``Check``): a comparison of a measured quantity (a difference, a
ratio, a cost) with a bound: the paper's own effect size where it gives one ("over 50%",
"less than 10%"), else zero or the study's stated reading of a word, never a tuned number.
Every study reads a comparison the paper sizes only by "much", "far" or "remarkably" the same
way (``MUCH``): the larger quantity at least twice the smaller ("much larger", "much more",
"remarkably outperforms"), its mirror at most half ("much smaller", "far less"), so that a small
effect measured over many runs cannot hold as "much". "Significantly" carries no size: it reads
as a difference our interval separates from none. A check holds when the 90% interval of the
quantity lies wholly on the claimed side, misses when it lies wholly on the other, and is not
separated otherwise. A claim of several checks misses if any misses, is not separated if any
is, and holds if all hold; degenerate checks are left out (the claim says how many), and a claim with only
degenerate checks is degenerate.

**Proportions**: the share's exact (Clopper-Pearson) 90% interval against the printed share.

**Every paper claim can fail.** A study declares, for each paper claim, its claim function and
inputs (``CanFail``): the paper's own numbers, on which it must hold, and/or a refuting input,
on which it must miss; tests/test_claims_can_fail.py runs them without simulating. A claim with
neither is not a paper claim.

The helpers ``value``, ``ordering``, ``trend`` and ``proportion`` with a ``holds`` computed by the
study (and ``about``, the old "within 25%" band) remain for studies not yet moved to the rule:
their claims are marked ``rule = "legacy"`` and the report says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import binomtest
from tcplab.report.measure import LEVEL, Measure

__all__ = [
    "ABOUT_TOL",
    "DEGENERATE",
    "HOLDS",
    "KINDS",
    "MISSES",
    "MUCH",
    "NOT_SEPARATED",
    "OWN_KINDS",
    "POLICY",
    "RULE",
    "SUBKINDS",
    "VERDICTS",
    "CanFail",
    "Cell",
    "Check",
    "Claim",
    "Printed",
    "about",
    "above",
    "analytic",
    "at_least",
    "at_most",
    "below",
    "cell",
    "combine",
    "counts",
    "diagnostic",
    "fitted",
    "headline",
    "least_spread",
    "ordering",
    "own_checks_line",
    "paper_ordering",
    "paper_proportion",
    "paper_trend",
    "paper_value",
    "plain",
    "printed",
    "printed_fraction",
    "printed_multiple",
    "proportion",
    "trend",
    "value",
    "within",
]

KINDS = ("paper", "fitted", "analytic", "diagnostic")
OWN_KINDS = KINDS[1:]
SUBKINDS = ("value", "ordering", "trend", "proportion")
HOLDS, MISSES, NOT_SEPARATED, DEGENERATE = "holds", "misses", "not separated", "degenerate"
MUCH = 2.0
"""The project's reading of "much", "far" and "remarkably" in a comparison the paper gives no
number for: at least twice ("much larger"), or at most half ("much smaller"): the module's doc."""
VERDICTS = (HOLDS, MISSES, NOT_SEPARATED, DEGENERATE)

RULE = (
    "Paper claims make the headline; fitted, analytic and diagnostic checks are our own and are listed "
    "apart. A value holds when the 90% interval of our measurement (over replications; one "
    "replication measures no spread and decides nothing) lies within the range of values that print "
    "as the paper's number ('2.8': 2.75-2.85), widened only by the paper's own sampling spread when "
    "it is from a few runs, and misses when our value is outside that range widened by our interval "
    "too; an ordering or "
    "trend holds when the 90% interval of the compared quantity lies wholly beyond its bound (the "
    "paper's effect size where it gives one; 'much' or 'remarkably' without a number: at least twice, or "
    "at most half), misses when it lies wholly on the other side, and is "
    "'not separated' otherwise; a point where nothing can be measured is 'degenerate'."
)
ABOUT_TOL = 0.25
COUNT_BELOW = 5
COUNT_SLACK = 1
POLICY = (
    f'Legacy rule (claims marked "legacy"): "about x" holds within {ABOUT_TOL:.0%} of x (a count under '
    f"{COUNT_BELOW}: within {COUNT_SLACK} of x); orderings and trends compare means over the replications."
)


# ---------------------------------------------------------------- values: what the paper prints

_NUMBER = re.compile(r"^\s*(-?)(\d+)(?:\.(\d+))?\s*(%?)\s*$")


@dataclass(frozen=True)
class Printed:
    """A number as the paper prints it: ``text``, its ``value``, and the range ``low..high`` of
    values that print the same. ``runs``: how many runs the paper's number comes from (1 for a
    single trace), None when the paper does not say (its number is then taken as exact up to
    its printed digits, the stricter reading)."""

    text: str
    value: float
    low: float
    high: float
    runs: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "value": _sig(self.value, 6),
            "prints_as": [_sig(self.low, 6), _sig(self.high, 6)],
        }
        if self.runs is not None:
            out["runs"] = self.runs
        return out


def printed(text: str, runs: int | None = None) -> Printed:
    """A number as printed: "2.8" (2.75..2.85), "11" (10.5..11.5), "25%" (0.245..0.255), "300%"
    (2.5..3.5: an integer ending in zeros is read to its last nonzero digit, since round numbers
    are round)."""
    m = _NUMBER.match(text)
    if m is None:
        raise ValueError(f"printed: {text!r} is not a number as printed (digits, a decimal point, a %)")
    sign, whole, decimals, percent = m.groups()
    number = float(f"{sign}{whole}.{decimals}" if decimals else f"{sign}{whole}")
    if decimals:
        half = 0.5 * 10.0 ** -len(decimals)
    else:
        significant = whole.rstrip("0")
        half = 0.5 * 10.0 ** (len(whole) - len(significant) if significant else 0)
    scale = 0.01 if percent else 1.0
    return Printed(text, number * scale, (number - half) * scale, (number + half) * scale, runs)


def printed_multiple(text: str, k: int, runs: int | None = None) -> Printed:
    """A multiple in words: "fivefold", "doubles" (k = 2): k - 0.5 .. k + 0.5."""
    return Printed(text, float(k), k - 0.5, k + 0.5, runs)


def printed_fraction(text: str, k: int, runs: int | None = None) -> Printed:
    """A fraction in words, "a third" (k = 3): 1/k, and every 1/x that rounds x to k."""
    return Printed(text, 1 / k, 1 / (k + 0.5), 1 / (k - 0.5), runs)


@dataclass(frozen=True)
class Cell:
    """One value of a value claim: the paper's printed number, our measure, the band our value
    must lie in not to miss (the printed range widened by our interval), and the agreement range
    our whole interval must lie in to hold (the printed range widened by the paper's own sampling
    spread only)."""

    label: str
    paper: Printed
    measured: Measure
    band: tuple[float, float]
    agree: tuple[float, float]
    derivation: str

    @property
    def verdict(self) -> str:
        m = self.measured
        if m.is_degenerate:
            return DEGENERATE
        if not m.is_bounded:
            return NOT_SEPARATED  # the band would be unbounded too: it could not miss
        eps = 1e-9 * max(1.0, abs(m.value))  # arithmetic noise, not a tolerance
        if not self.band[0] - eps <= m.value <= self.band[1] + eps:
            return MISSES
        if self.agree[0] - eps <= m.low and m.high <= self.agree[1] + eps:
            return HOLDS
        return NOT_SEPARATED  # our interval reaches past what the paper's number allows

    @property
    def difference(self) -> float:
        """Measured minus the paper's value (NaN when degenerate)."""
        return self.measured.value - self.paper.value

    def to_dict(self) -> dict[str, Any]:
        inside = None if self.verdict in (DEGENERATE, NOT_SEPARATED) else self.verdict == HOLDS
        return {
            "label": self.label,
            "paper": self.paper.to_dict(),
            "measured": self.measured.to_dict(),
            "band": [_sig(self.band[0]), _sig(self.band[1])],
            "agree": [_sig(self.agree[0]), _sig(self.agree[1])],
            "difference": _sig(self.difference),
            "inside": inside,
            "derivation": self.derivation,
        }


def least_spread(n: int, level: float = LEVEL) -> float:
    """The factor that takes the half-width of a ``level`` interval over ``n`` runs to the least
    spread those runs allow: the half-width read as t[n-1] s / sqrt(n), and s replaced by the
    lower one-sided confidence bound of the standard deviation (chi-square, n - 1 degrees of
    freedom) with z in place of t. It is what "holds" may credit to the paper's own noise:
    0.13 at 2 runs, 0.33 at 3, 0.50 at 5, 0.65 at 10, 0.76 at 20, 0.83 at 40, 1 in the limit."""
    from scipy.stats import chi2, norm, t  # here: scipy takes a while to import

    if n < 2:
        return 0.0
    q = (1 + level) / 2
    return float(norm.ppf(q) / t.ppf(q, n - 1) * math.sqrt((n - 1) / chi2.ppf(q, n - 1)))


def cell(label: str, paper: Printed, measured: Measure) -> Cell:
    """One value judged against ``paper``'s printed range: its band (widened by ``measured``'s
    90% interval) and its agreement range (widened by the paper's own sampling spread)."""
    if measured.is_degenerate:
        printed_range = (paper.low, paper.high)
        return Cell(label, paper, measured, printed_range, printed_range, f"{paper.text!r}; nothing measured")
    above_, below = measured.high - measured.value, measured.value - measured.low
    widen = math.sqrt(1 + measured.n / paper.runs) if paper.runs else 1.0
    band = (paper.low - above_ * widen, paper.high + below * widen)
    # The paper's number is one draw of a mean of N runs: its spread is ours scaled to N runs,
    # at the least our runs allow, so that few runs of ours cannot make it look wide.
    least = least_spread(measured.n)
    theirs = math.sqrt(measured.n / paper.runs) * least if paper.runs else 0.0
    agree = (paper.low - above_ * theirs, paper.high + below * theirs)
    how = f"{paper.text!r} prints as {paper.low:.4g}..{paper.high:.4g}"
    if measured.n:
        how += f"; band widened by our 90% interval (-{below * widen:.3g}/+{above_ * widen:.3g}"
        how += f", {measured.n} replications"
        how += f", x{widen:.2f} since the paper's value is from {paper.runs} run(s))" if paper.runs else ")"
    if paper.runs and measured.n:
        how += (
            f"; agreement range {agree[0]:.4g}..{agree[1]:.4g}, the printed range widened by the paper's "
            f"own spread over {paper.runs} run(s) (our interval's half-widths x sqrt(n/N) x "
            f"{least:.2f}, the least spread our runs allow)"
        )
    elif measured.n:
        how += "; agreement range the printed range (the paper's number is read as exact to its digits)"
    return Cell(label, paper, measured, band, agree, how)


# ---------------------------------------------------------------- orderings and trends: checks

_RELATIONS = {">": "above", ">=": "at least", "<": "below", "<=": "at most", "within": "within"}


@dataclass(frozen=True)
class Check:
    """``measured`` (with its 90% interval) against ``bound`` under ``relation``."""

    label: str
    measured: Measure
    relation: str
    bound: float | tuple[float, float]

    def __post_init__(self) -> None:
        if self.relation not in _RELATIONS:
            raise ValueError(f"check {self.label}: relation must be one of {', '.join(_RELATIONS)}")

    @property
    def verdict(self) -> str:
        m = self.measured
        if m.is_degenerate:
            return DEGENERATE
        claimed, refuted = _sides(self.relation, self.bound, m.low, m.high)
        return HOLDS if claimed else MISSES if refuted else NOT_SEPARATED

    def refutation(self) -> str:
        """What would refute the check, in words."""
        b = self.bound
        if self.relation == "within":
            lo, hi = b  # type: ignore[misc]
            return f"{self.label}: 90% interval wholly outside [{lo:.4g}, {hi:.4g}]"
        side = {">": "at or below", ">=": "below", "<": "at or above", "<=": "above"}[self.relation]
        return f"{self.label}: 90% interval wholly {side} {b:.4g}"

    def to_dict(self) -> dict[str, Any]:
        bound = [_sig(x) for x in self.bound] if isinstance(self.bound, tuple) else _sig(self.bound)
        return {
            "label": self.label,
            "measured": self.measured.to_dict(),
            "relation": _RELATIONS[self.relation],
            "bound": bound,
            "verdict": self.verdict,
        }


def _sides(relation: str, bound: Any, lo: float, hi: float) -> tuple[bool, bool]:
    """(interval wholly on the claimed side, interval wholly on the refuting side)."""
    if relation == ">":
        return lo > bound, hi <= bound
    if relation == ">=":
        return lo >= bound, hi < bound
    if relation == "<":
        return hi < bound, lo >= bound
    if relation == "<=":
        return hi <= bound, lo > bound
    a, b = bound
    return a <= lo and hi <= b, hi < a or lo > b


def above(label: str, m: Measure, bound: float) -> Check:
    return Check(label, m, ">", float(bound))


def at_least(label: str, m: Measure, bound: float) -> Check:
    return Check(label, m, ">=", float(bound))


def below(label: str, m: Measure, bound: float) -> Check:
    return Check(label, m, "<", float(bound))


def at_most(label: str, m: Measure, bound: float) -> Check:
    return Check(label, m, "<=", float(bound))


def within(label: str, m: Measure, low: float, high: float) -> Check:
    return Check(label, m, "within", (float(low), float(high)))


def combine(verdicts: Iterable[str]) -> str:
    """One verdict from several: degenerate parts left out; any miss misses; then any not
    separated; all holding holds; nothing but degenerate parts is degenerate."""
    live = [v for v in verdicts if v != DEGENERATE]
    if not live:
        return DEGENERATE
    if MISSES in live:
        return MISSES
    return NOT_SEPARATED if NOT_SEPARATED in live else HOLDS


# ---------------------------------------------------------------- the claim


@dataclass(frozen=True)
class Claim:
    """One claim. ``paper`` is what the paper reported, ``measured`` what tcplab measured (both
    JSON-able, for the reader), ``verdict`` one of ``VERDICTS`` and ``holds`` its boolean (None
    when not separated or degenerate), ``kind`` one of ``KINDS`` (a paper claim also has a
    ``subkind``), ``refuted_if`` what would refute it, ``cells`` (values) or ``checks``
    (orderings, trends) how it was judged, ``tolerance`` how a value's bands were derived.
    ``rule`` is "derived" (this module's rule) or "legacy" (a boolean the study computed).

    Legacy kinds ("value", "ordering", "trend", "proportion") are read as paper claims of that
    subkind."""

    id: str
    claim: str
    paper: Any
    measured: Any
    holds: bool | None
    kind: str = field(kw_only=True)
    subkind: str | None = field(default=None, kw_only=True)
    verdict: str = field(default="", kw_only=True)
    refuted_if: str = field(default="", kw_only=True)
    tolerance: Any = field(default=None, kw_only=True)
    cells: tuple[Cell, ...] = field(default=(), kw_only=True)
    checks: tuple[Check, ...] = field(default=(), kw_only=True)
    rule: str = field(default="derived", kw_only=True)

    def __post_init__(self) -> None:
        if isinstance(self.holds, np.bool_):
            object.__setattr__(self, "holds", bool(self.holds))
        if self.kind in SUBKINDS:  # a legacy kind: a paper claim of that form
            object.__setattr__(self, "subkind", self.kind)
            object.__setattr__(self, "kind", "paper")
            if self.rule == "derived" and not (self.cells or self.checks):
                object.__setattr__(self, "rule", "legacy")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "paper" and self.subkind not in SUBKINDS:
            raise ValueError(f"claim {self.id}: a paper claim needs a subkind ({', '.join(SUBKINDS)})")
        if self.subkind is not None and self.subkind not in SUBKINDS:
            raise ValueError(f"claim {self.id}: subkind must be one of {', '.join(SUBKINDS)}")
        if not self.verdict:
            if not isinstance(self.holds, bool):
                raise TypeError(
                    f"claim {self.id}: holds must be a bool when no verdict is given, got {self.holds!r}"
                )
            object.__setattr__(self, "verdict", HOLDS if self.holds else MISSES)
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict must be one of {', '.join(VERDICTS)}")
        expected = {HOLDS: True, MISSES: False}.get(self.verdict)
        if self.holds is not None and self.holds is not expected:
            raise ValueError(f"claim {self.id}: holds={self.holds!r} contradicts verdict {self.verdict!r}")
        object.__setattr__(self, "holds", expected)

    @property
    def excluded(self) -> int:
        """How many of the claim's checks or cells were left out as degenerate."""
        parts = [*self.cells, *self.checks]
        return sum(p.verdict == DEGENERATE for p in parts) if len(parts) > 1 else 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind}
        if self.subkind is not None:
            out["subkind"] = self.subkind
        out |= {
            "claim": self.claim,
            "paper": plain(self.paper),
            "measured": plain(self.measured),
            "holds": self.holds,
            "verdict": self.verdict,
            "refuted_if": self.refuted_if,
            "rule": self.rule,
        }
        if self.tolerance is not None:
            out["tolerance"] = plain(self.tolerance)
        if self.cells:
            out["cells"] = [c.to_dict() for c in self.cells]
        if self.checks:
            out["checks"] = [c.to_dict() for c in self.checks]
        return out


def plain(value: Any) -> Any:
    """numpy scalars and containers of them as plain JSON values; NaN and infinities as None
    (strict JSON has no NaN)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    return value


def _sig(x: float, digits: int = 4) -> float | None:
    return float(f"{x:.{digits}g}") if math.isfinite(x) else None


def _measured(parts: Sequence[Cell] | Sequence[Check]) -> dict[str, Any]:
    return {p.label: None if p.measured.is_degenerate else _sig(p.measured.value) for p in parts}


# ---------------------------------------------------------------- paper claims


def paper_value(cid: str, text: str, cells: Sequence[Cell], measured: Any = None) -> Claim:
    """Numbers the paper prints, each judged against its band and agreement range (``Cell``);
    holds when every cell does, misses when any does."""
    if not cells:
        raise ValueError(f"claim {cid}: a value claim needs at least one cell")
    paper = cells[0].paper.text if len(cells) == 1 else {c.label: c.paper.text for c in cells}
    tolerance = {
        "rule": "misses outside the printed range widened by our 90% interval (band); holds when our "
        "whole interval lies within the printed range widened by the paper's own spread (agree)",
        "bands": {c.label: [_sig(c.band[0]), _sig(c.band[1])] for c in cells},
        "agree": {c.label: [_sig(c.agree[0]), _sig(c.agree[1])] for c in cells},
        "derivation": {c.label: c.derivation for c in cells},
    }
    return Claim(
        cid,
        text,
        paper,
        measured if measured is not None else _measured(cells),
        None,
        kind="paper",
        subkind="value",
        verdict=combine(c.verdict for c in cells),
        refuted_if="; ".join(f"{c.label} outside [{c.band[0]:.4g}, {c.band[1]:.4g}]" for c in cells),
        tolerance=tolerance,
        cells=tuple(cells),
    )


def _checked(
    kind: str, subkind: str | None, cid: str, text: str, paper: Any, checks: Sequence[Check], measured: Any
) -> Claim:
    if not checks:
        raise ValueError(f"claim {cid}: needs at least one check")
    return Claim(
        cid,
        text,
        paper,
        measured if measured is not None else _measured(checks),
        None,
        kind=kind,
        subkind=subkind,
        verdict=combine(c.verdict for c in checks),
        refuted_if="; ".join(c.refutation() for c in checks),
        checks=tuple(checks),
    )


def paper_ordering(cid: str, text: str, paper: Any, checks: Sequence[Check], measured: Any = None) -> Claim:
    """One quantity above another or beyond a bound, judged by ``checks``."""
    return _checked("paper", "ordering", cid, text, paper, checks, measured)


def paper_trend(cid: str, text: str, paper: Any, checks: Sequence[Check], measured: Any = None) -> Claim:
    """A direction along a factor, judged step by step by ``checks``."""
    return _checked("paper", "trend", cid, text, paper, checks, measured)


def paper_proportion(
    cid: str, text: str, paper: Printed, successes: int, trials: int, label: str = "share"
) -> Claim:
    """A share of runs against the paper's printed share, on the share's exact 90% interval."""
    if trials <= 0:
        m = Measure(math.nan, math.nan, math.nan, 0, degenerate="no runs")
    else:
        ci = binomtest(successes, trials).proportion_ci(confidence_level=LEVEL, method="exact")
        m = Measure(successes / trials, float(ci.low), float(ci.high), trials)
    c = cell(label, paper, m)
    how = c.derivation.replace("our 90% interval", "the exact binomial 90% interval")
    c = Cell(c.label, c.paper, c.measured, c.band, c.agree, how)
    claim = paper_value(cid, text, [c], {"share": _sig(m.value), "successes": successes, "trials": trials})
    return Claim(**{**claim.__dict__, "subkind": "proportion"})


# ---------------------------------------------------------------- our own checks


def _own(
    kind: str,
    cid: str,
    text: str,
    paper: Any,
    measured: Any,
    holds: bool | None,
    checks: Sequence[Check],
    refuted_if: str,
) -> Claim:
    if checks:
        claim = _checked(kind, None, cid, text, paper, checks, measured)
        return Claim(**{**claim.__dict__, "refuted_if": refuted_if or claim.refuted_if})
    if holds is None:
        raise ValueError(f"claim {cid}: give holds or checks")
    return Claim(
        cid, text, paper, measured, bool(holds), kind=kind, refuted_if=refuted_if or "the check stated fails"
    )


def fitted(
    cid: str,
    text: str,
    paper: Any,
    measured: Any,
    holds: bool | None = None,
    *,
    checks: Sequence[Check] = (),
    refuted_if: str = "",
) -> Claim:
    """A signature used to choose a model or parameter: shown, never counted as evidence."""
    return _own("fitted", cid, text, paper, measured, holds, checks, refuted_if)


def analytic(
    cid: str,
    text: str,
    paper: Any,
    measured: Any,
    holds: bool | None = None,
    *,
    checks: Sequence[Check] = (),
    refuted_if: str = "",
) -> Claim:
    """Our arithmetic: the paper's formula evaluated, or a number that follows from the setup by
    construction (simulated or not)."""
    return _own("analytic", cid, text, paper, measured, holds, checks, refuted_if)


def diagnostic(
    cid: str,
    text: str,
    paper: Any,
    measured: Any,
    holds: bool | None = None,
    *,
    checks: Sequence[Check] = (),
    refuted_if: str = "",
) -> Claim:
    """A check of this reproduction itself (or of a reading of the setup that is not the paper's)."""
    return _own("diagnostic", cid, text, paper, measured, holds, checks, refuted_if)


# ---------------------------------------------------------------- counts and the headline


def _tally(claims: Sequence[Claim]) -> dict[str, int]:
    return {
        "total": len(claims),
        "holds": sum(c.verdict == HOLDS for c in claims),
        "misses": sum(c.verdict == MISSES for c in claims),
        "not_separated": sum(c.verdict == NOT_SEPARATED for c in claims),
        "degenerate": sum(c.verdict == DEGENERATE for c in claims),
        "legacy": sum(c.rule == "legacy" for c in claims),
    }


def counts(claims: Sequence[Claim]) -> dict[str, Any]:
    """Verdicts of the paper claims (and by subkind), and of each of our own kinds apart."""
    paper = [c for c in claims if c.kind == "paper"]
    return {
        "total": len(claims),
        "paper": {
            **_tally(paper),
            "subkinds": {s: _tally([c for c in paper if c.subkind == s]) for s in SUBKINDS},
        },
        **{k: _tally([c for c in claims if c.kind == k]) for k in OWN_KINDS},
    }


def headline(n: Mapping[str, Any]) -> str:
    """ "paper claims: K of N hold (M not separated, D degenerate)" from ``counts``."""
    p = n["paper"]
    return (
        f"paper claims: {p['holds']} of {p['total']} hold "
        f"({p['not_separated']} not separated, {p['degenerate']} degenerate)"
    )


def own_checks_line(n: Mapping[str, Any]) -> str:
    """Our own checks, apart from the headline: "fitted 0 of 0, analytic 3 of 3, diagnostic 2 of 2 hold"."""
    return ", ".join(f"{k} {n[k]['holds']} of {n[k]['total']}" for k in OWN_KINDS) + " hold"


# ---------------------------------------------------------------- can it fail?


@dataclass(frozen=True)
class CanFail:
    """How one paper claim can fail: ``judge`` is the function that makes the claim from its
    inputs (keyword arguments, the same the study passes from its measurements); ``paper`` are
    inputs taken from the paper's own numbers (tables, values in its text), on which it must
    hold; ``refuting`` are inputs that contradict the claim's statement, on which it must miss.
    At least one of the two; ideally both. Where the paper prints no numbers for the claim,
    ``satisfying`` may give an input built to satisfy its statement (it must hold there too), so
    a function that can only miss does not pass. ``source`` says where the paper's numbers are."""

    claim: str
    judge: Callable[..., Claim]
    paper: Mapping[str, Any] | None = None
    refuting: Mapping[str, Any] | None = None
    source: str = ""
    satisfying: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.paper is None and self.refuting is None:
            raise ValueError(f"can-fail {self.claim}: give the paper's numbers, a refuting input, or both")


# ---------------------------------------------------------------- legacy helpers


def about(measured: float, paper: float, count: bool = False, tolerance: float = ABOUT_TOL) -> bool:
    """Legacy: within ``tolerance`` (relative) of the paper's value; a small count within 1."""
    if count and abs(paper) < COUNT_BELOW:
        return bool(abs(measured - paper) <= COUNT_SLACK)
    return bool(abs(measured - paper) <= tolerance * abs(paper))


_LEGACY = "legacy rule: the study's own boolean; tolerance not yet derived from replications"


def value(cid: str, text: str, paper: Any, measured: Any, holds: bool, tolerance: float = ABOUT_TOL) -> Claim:
    """Legacy: a measured value against the paper's, ``holds`` computed by the study."""
    return Claim(
        cid,
        text,
        paper,
        measured,
        holds,
        kind="paper",
        subkind="value",
        rule="legacy",
        refuted_if=_LEGACY,
        tolerance={"relative": tolerance, "rule": f"legacy: within {tolerance:.0%} of the paper's value"},
    )


def ordering(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """Legacy: one measured quantity above or below another, ``holds`` computed by the study."""
    return Claim(
        cid, text, paper, measured, holds, kind="paper", subkind="ordering", rule="legacy", refuted_if=_LEGACY
    )


def trend(cid: str, text: str, paper: Any, measured: Any, holds: bool) -> Claim:
    """Legacy: a direction along a factor, ``holds`` computed by the study."""
    return Claim(
        cid, text, paper, measured, holds, kind="paper", subkind="trend", rule="legacy", refuted_if=_LEGACY
    )


def proportion(cid: str, text: str, paper: float, successes: int, trials: int, alpha: float = 0.05) -> Claim:
    """Legacy: a share against the paper's; holds unless a two-sided binomial test rejects it."""
    if trials <= 0:
        measured: dict[str, Any] = {"successes": successes, "trials": trials}
        return Claim(
            cid,
            text,
            paper,
            measured,
            None,
            kind="paper",
            subkind="proportion",
            verdict=DEGENERATE,
            rule="legacy",
        )
    p_value = float(binomtest(successes, trials, paper).pvalue)
    measured = {
        "share": round(successes / trials, 4),
        "successes": successes,
        "trials": trials,
        "p_value": round(p_value, 4),
    }
    return Claim(
        cid,
        text,
        paper,
        measured,
        p_value >= alpha,
        kind="paper",
        subkind="proportion",
        rule="legacy",
        refuted_if=_LEGACY,
    )
