"""How each of the example study's paper claims can fail (``tcplab.report.claims.CanFail``).

The papers behind the example give no table for this network. Mathis et al.'s formula, evaluated,
is the one input taken from a paper (``paper``); Fall and Floyd's statements get inputs built to
satisfy them (``satisfying``); refuting inputs contradict each statement with a small spread.
"""

from __future__ import annotations

from tcplab.report.claims import CanFail
from tcplab.studies.example_loss import claims as c
from tcplab.studies.example_loss.scenarios import mathis_bps

RUNS = 5


def spread(mbps: float, rel: float = 0.02) -> list[float]:
    """Five runs around ``mbps`` Mb/s (in bit/s), a small even spread."""
    return [mbps * 1e6 * (1 + rel * k) for k in (-2, -1, 0, 1, 2)]


def _falling() -> dict[str, dict[float, list[float]]]:
    return {v: {p: spread(10 / (1 + 100 * p)) for p in (0.0, 0.01, 0.02)} for v in ("reno", "sack")}


def _vanilla(slowest: bool) -> dict[str, dict[float, list[float]]]:
    vanilla = 0.5 if slowest else 3.0
    return {"vanilla": {0.01: spread(vanilla)}, "reno": {0.01: spread(2.0)}, "newreno": {0.01: spread(2.5)}}


def can_fail() -> list[CanFail]:
    formula = {p: spread(mathis_bps(p) / 1e6, 0.01) for p in c.MATHIS_LOSS}
    steep = {p: spread(mathis_bps(p) / 1e6 * (p / 0.005) ** -0.5, 0.01) for p in c.MATHIS_LOSS}
    return [
        CanFail(
            "goodput_falls_with_loss",
            c.goodput_falls_with_loss,
            satisfying={"goodput": _falling()},
            refuting={"goodput": {"reno": {0.0: spread(9.6), 0.01: spread(3.0), 0.02: spread(3.5)}}},
            source="Mathis et al. (1997): goodput proportional to 1/sqrt(p), so falling at every step",
        ),
        CanFail(
            "vanilla_slowest",
            c.vanilla_slowest,
            satisfying={"goodput": _vanilla(slowest=True)},
            refuting={"goodput": _vanilla(slowest=False)},
            source="Fall and Floyd (1996): without fast retransmit every loss waits for the timer",
        ),
        CanFail(
            "recovery_beats_reno_2pct",
            c.recovery_beats_reno_2pct,
            satisfying={"reno": spread(1.5), "newreno": spread(1.9), "sack": spread(1.9)},
            refuting={"reno": spread(1.9), "newreno": spread(1.5), "sack": spread(1.6)},
            source="Fall and Floyd (1996): NewReno and SACK avoid Reno's multiple-loss timeouts",
        ),
        CanFail(
            "sack_beats_newreno_three_drops",
            c.sack_beats_newreno_three_drops,
            # Fall and Floyd's three-drop case: SACK about one round trip, NewReno three, Reno a timeout
            # (their figures give the order, not these times)
            satisfying={"completion_s": {"sack": 0.64, "newreno": 0.72, "reno": 1.8}},
            refuting={"completion_s": {"sack": 0.70, "newreno": 0.68, "reno": 1.8}},
            source="Fall and Floyd (1996), the three-drop runs: SACK < NewReno < Reno in recovery time",
        ),
        CanFail(
            "mathis_sqrt_scaling",
            c.mathis_sqrt_scaling,
            paper={"goodput": formula},
            refuting={"goodput": steep},
            source="Mathis et al. (1997): BW = MSS/RTT x sqrt(3/2)/sqrt(p), evaluated at 0.5, 1 and 2%",
        ),
    ]
