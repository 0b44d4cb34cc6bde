"""How each of the intserv study's paper claims can fail (``tcplab.report.claims.CanFail``).

For every paper claim: the claim function ``claims.py`` calls on the measured runs; the paper's
own numbers where its text prints them (830 and 560 packets of tokens in 5 s, the 0.5 Mb/s
collapse, Sec. 6's stall formula evaluated for C4), on which it must hold; inputs built to
satisfy the statement where the paper's figures are plots; and a refuting input, on which it
must miss. Throughputs in Mb/s, a few runs
per point spread a little so the intervals are not points.
"""

from __future__ import annotations

from tcplab.report.claims import CanFail
from tcplab.studies.intserv import claims_paper as c


def runs(mbps: float, n: int = 5, rel: float = 0.01) -> list[float]:
    """``n`` runs (in b/s) spread evenly within +-2 ``rel`` of ``mbps`` Mb/s."""
    half = (n - 1) / 2
    return [mbps * 1e6 * (1 + 2 * rel * (k - half) / half) for k in range(n)]


def count(x: float, n: int = 5) -> list[float]:
    """``n`` runs of a count (tokens per 5 s) around ``x``."""
    return [v / 1e6 for v in runs(x, n)]


def _fig10(best: bool) -> dict[str, dict[str, list[float]]]:
    """Fig. 10: windowing + timed send closest to every ideal (``best``), or timed-only closer for C4."""
    near = {"C1": runs(1.5), "C2": runs(2.35), "C4": runs(4.25), "BE": runs(0.5)}
    return {
        "normal": {"C1": runs(1.2), "C2": runs(1.7), "C4": runs(3.3), "BE": runs(0.95)},
        "window": {"C1": runs(1.3), "C2": runs(2.0), "C4": runs(3.9), "BE": runs(0.7)},
        "window_timed": near if best else {**near, "C4": runs(3.6)},
        "timed": {"C1": runs(1.3), "C2": runs(2.2), "C4": runs(4.0), "BE": runs(0.62)},
    }


def _multihop(mbps: float, tokens: float) -> dict[str, list[float]]:
    return {"throughput": runs(mbps), "tokens": count(tokens)}


def can_fail() -> list[CanFail]:
    return [*_sec3(), *_sec4(), *_sec5(), *_sec6()]


def _sec3() -> list[CanFail]:
    return [
        CanFail(
            "sec3_reserved_below_ideal",
            c.sec3_reserved_below_ideal,
            satisfying={"reserved": {"C1": runs(1.2), "C2": runs(1.8), "C4": runs(3.3)}},
            refuting={"reserved": {"C1": runs(1.2), "C2": runs(1.8), "C4": runs(4.5)}},
        ),
        CanFail(
            "sec3_best_effort_above_ideal",
            c.sec3_best_effort_above_ideal,
            satisfying={"best_effort": runs(0.9)},
            refuting={"best_effort": runs(0.45)},
        ),
        CanFail(
            "sec3_compliant_far_below_reservation",
            c.sec3_compliant_far_below_reservation,
            satisfying={"compliant": {"C1": runs(0.4), "C2": runs(0.8), "C4": runs(1.8)}},
            # below the reservation, as the header overhead alone makes it, but not far below
            refuting={"compliant": {"C1": runs(0.4), "C2": runs(0.8), "C4": runs(3.6)}},
        ),
        CanFail(
            "sec3_order_by_reservation",
            c.sec3_order_by_reservation,
            satisfying={"c4": runs(3.3), "c2": runs(1.8), "c1": runs(1.2), "best_effort": runs(0.9)},
            refuting={"c4": runs(3.3), "c2": runs(1.1), "c1": runs(1.2), "best_effort": runs(0.9)},
        ),
        CanFail(
            "sec3_tokens_lost_830",
            c.sec3_tokens_lost_830,
            paper={"tokens_per_5s": count(830)},
            refuting={"tokens_per_5s": count(450)},
            source="Sec. 4.2: '830 in Figure 3'",
        ),
        CanFail(
            "sec3_marked_not_dropped",
            c.sec3_marked_not_dropped,
            satisfying={"share_by_network": {"fig1": [0.0] * 5, "fig11": [0.0, 0.0, 1e-5, 0.0, 2e-5]}},
            refuting={"share_by_network": {"fig1": [0.0] * 5, "fig11": [0.02, 0.03, 0.025, 0.02, 0.03]}},
        ),
    ]


def _sec4() -> list[CanFail]:
    return [
        CanFail(
            "sec4_window_raises_c4",
            c.sec4_window_raises_c4,
            satisfying={"normal": runs(3.3), "window": runs(3.9)},
            refuting={"normal": runs(3.3), "window": runs(1.7)},
        ),
        CanFail(
            "sec4_window_compliant_below_reservation",
            c.sec4_window_compliant_below_reservation,
            satisfying={"compliant": runs(3.2)},
            refuting={"compliant": runs(3.95)},
        ),
        CanFail(
            "sec4_token_loss_falls",
            c.sec4_token_loss_falls,
            paper={"normal": count(830), "window": count(560)},
            refuting={"normal": count(450), "window": count(1600)},
            source="Sec. 4.2: 560 packets of tokens in Fig. 6 against 830 in Fig. 3",
        ),
        CanFail(
            "sec4_tokens_lost_560",
            c.sec4_tokens_lost_560,
            paper={"tokens_per_5s": count(560)},
            refuting={"tokens_per_5s": count(1600)},
            source="Sec. 4.2: '560 packets worth of tokens'",
        ),
        CanFail(
            "sec4_swings_smaller",
            c.sec4_swings_smaller,
            satisfying={"normal_swing": 10.0, "window_swing": 3.0},
            refuting={"normal_swing": 10.0, "window_swing": 9.0},
        ),
    ]


def _sec5() -> list[CanFail]:
    closer = {
        "normal": runs(3.3),
        "window": runs(3.9),
        "window_delayed": runs(4.2),
        "window_timed": runs(4.3),
    }
    # three collapsed schemes, the timers a little less collapsed than windowing alone
    collapsed = {
        "normal": runs(3.3),
        "window": runs(0.4),
        "window_delayed": runs(0.6),
        "window_timed": runs(0.7),
    }
    return [
        CanFail(
            "sec5_timers_closer_to_ideal",
            c.sec5_timers_closer_to_ideal,
            satisfying={"c4": closer},
            refuting={"c4": collapsed},
        ),
        CanFail(
            "sec5_timers_more_compliant",
            c.sec5_timers_more_compliant,
            satisfying={
                "compliant": {
                    "normal": runs(3.0),
                    "window": runs(3.2),
                    "window_delayed": runs(3.6),
                    "window_timed": runs(3.8),
                }
            },
            # collapsed: the timers above windowing alone, far below plain TCP
            refuting={
                "compliant": {
                    "normal": runs(3.0),
                    "window": runs(0.35),
                    "window_delayed": runs(0.5),
                    "window_timed": runs(0.6),
                }
            },
        ),
        CanFail(
            "sec5_timed_loses_fewer_tokens",
            c.sec5_timed_loses_fewer_tokens,
            satisfying={"normal": count(830), "delayed": count(300), "timed": count(20)},
            # both timer schemes collapsed: a near tie far above plain TCP's loss
            refuting={"normal": count(450), "delayed": count(2100), "timed": count(2050)},
        ),
        CanFail(
            "sec5_window_timed_best",
            c.sec5_window_timed_best,
            satisfying={"throughput": _fig10(best=True)},
            refuting={"throughput": _fig10(best=False)},
        ),
        CanFail(
            "sec5_timed_only_short",
            c.sec5_timed_only_short,
            satisfying={"c4": runs(4.0), "best_effort": runs(0.62)},
            refuting={"c4": runs(4.0), "best_effort": runs(0.4)},
        ),
    ]


def _stall_rate() -> float:
    """Sec. 6's formula at C4's unloaded round trip on Fig. 11, packets per second."""
    return c.stall_rate_formula().value


def _sec6() -> list[CanFail]:
    stalled = _multihop(0.2, 2300)
    stalls = [9.0, 11.5, 10.2, 8.7, 12.1]  # seconds of stall per run
    return [
        CanFail(
            "sec6_windowing_collapses_multihop",
            c.sec6_windowing_collapses_multihop,
            satisfying={"c4": {"window": runs(0.3), "window_timed": runs(0.2)}},
            refuting={"c4": {"window": runs(0.3), "window_timed": runs(3.8)}},
            source="Sec. 6: 'a throughput less than 0.5Mb/s'",
        ),
        CanFail(
            "sec6_sack_restores",
            c.sec6_sack_restores,
            satisfying={"newreno": stalled, "sack": _multihop(4.2, 100)},
            refuting={"newreno": stalled, "sack": _multihop(0.2, 2400)},
        ),
        CanFail(
            "sec6_maxburst_restores",
            c.sec6_maxburst_restores,
            satisfying={"newreno": stalled, "maxburst": _multihop(4.3, 80)},
            refuting={"newreno": stalled, "maxburst": _multihop(0.15, 2300)},
        ),
        CanFail(
            "sec6_rtt_bias",
            c.sec6_rtt_bias,
            satisfying={"c1": runs(1.6), "c4": runs(4.2), "best_effort": runs(0.4)},
            # C1 at three times its share, C4 collapsed: the bias is not "slight" and C4 did not
            # overcome its round trip
            refuting={"c1": runs(4.3), "c4": runs(0.25), "best_effort": runs(0.4)},
        ),
        CanFail(
            "sec6_stall_token_loss_rate",
            c.sec6_stall_token_loss_rate,
            # the formula's own value (480.8 - 1/0.205 s = 475.9 packets/s) over 5 runs' stalls
            paper={"lost_pkts": [s * _stall_rate() for s in stalls], "stall_s": stalls},
            # stalls in which C4 still spends most of its tokens: not one packet per round trip
            refuting={"lost_pkts": [s * 240.0 for s in stalls], "stall_s": stalls},
            source="Sec. 6: 'tokens are lost at a rate equal to ReservedRate - (SegmentSize/RoundTripTime)'",
        ),
    ]
