"""The paper's claims (Feng, Kandlur, Saha and Shin, 1997, Secs. 3-6) as functions of measured
samples, judged by the rule of ``tcplab.report.claims``; ``can_fail.py`` runs each on the paper's
numbers or inputs that satisfy it, and on inputs that refute it.

Inputs are per-run values (one per replication): throughputs in b/s, tokens lost in packets per
5 s (the paper's traces are 5 s long), and, for the congestion window's swings, one number per
trace. Ideals are of payload: the link carries 1040-byte packets of 1000 bytes of data, so the
paper's 1.5, 2.5, 4.5 and 0.5 Mb/s of a 10 Mb/s link are 1.44, 2.40, 4.33 and 0.48 Mb/s of
payload (9.62 Mb/s in all), and a reservation r carries at most r x 1000/1040 of payload.

Words the paper uses without a number are read once, here: "far less" and "much smaller" as at
most half (the mirror of the project's "much larger": at least twice), and so is a "low number"
of lost tokens against the stalled New-Reno's; "slightly more" as more,
but by at most a quarter; "almost no" lost tokens as under a tenth of plain TCP's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tcplab.report.claims import (
    MUCH,
    Claim,
    Printed,
    above,
    at_least,
    at_most,
    below,
    cell,
    paper_ordering,
    paper_value,
    printed,
)
from tcplab.report.measure import Samples, exact, measure, ratio
from tcplab.studies.intserv.scenarios import (
    FIG11_CONNS,
    PAYLOAD_IDEAL_BPS,
    PAYLOAD_RESERVATION_BPS,
    WIRE,
    full_buffers_rtt_s,
    unloaded_rtt_s,
)

FENG = "Feng et al. 1997"
IDEAL = {**PAYLOAD_IDEAL_BPS, "BE": PAYLOAD_IDEAL_BPS["BE1"]}
RESERVATION = PAYLOAD_RESERVATION_BPS
COLLAPSE_BPS = 0.5e6  # Sec. 6: "achieving a throughput less than 0.5Mb/s"
HALF = 1 / MUCH  # "far less", "much smaller"
SLIGHTLY = 1.25  # "slightly more": by at most a quarter
ALMOST_NONE = 0.1  # "almost no lost tokens": under a tenth of plain TCP's
CLOSE_TO_ZERO = 0.001  # a marked packet's drop probability "close to zero": under 1 in 1000


def _mbps(x: Samples) -> float:
    return round(float(np.mean(x)) / 1e6, 3)


def _mean_mbps(x: Samples):  # noqa: ANN202 - a Measure
    return measure(lambda a: a.mean(-1) / 1e6, x)


def _gap_ratio(a: Samples, b: Samples, ideal: float):  # noqa: ANN202
    """|mean(a) - ideal| / |mean(b) - ideal|: below 1 when a is the closer to the ideal."""
    return measure(lambda x, y: np.abs(x.mean(-1) - ideal) / np.abs(y.mean(-1) - ideal), a, b)


def _ideal_mbps(name: str) -> float:
    return IDEAL[name] / 1e6


# ---------------------------------------------------------------- Sec. 3: plain TCP


def sec3_reserved_below_ideal(reserved: Mapping[str, Samples]) -> Claim:
    return paper_ordering(
        "sec3_reserved_below_ideal",
        "With plain TCP every reserved connection gets less than its ideal share (of payload: 1.44, 2.40, "
        "4.33 Mb/s)",
        f"{FENG}, Fig. 2(a): 'not close to their respective ideals' (1.5, 2.5, 4.5 Mb/s)",
        [below(f"{f} Mb/s", _mean_mbps(x), _ideal_mbps(f)) for f, x in reserved.items()],
        {f: _mbps(x) for f, x in reserved.items()},
    )


def sec3_best_effort_above_ideal(best_effort: Samples) -> Claim:
    return paper_ordering(
        "sec3_best_effort_above_ideal",
        "With plain TCP the best-effort connections (their mean) get more than their 0.48 Mb/s share",
        f"{FENG}, Fig. 2(a): 'more than their expected share of residual bandwidth'",
        [above("best-effort mean, Mb/s", _mean_mbps(best_effort), _ideal_mbps("BE"))],
        {"best-effort mean": _mbps(best_effort)},
    )


def sec3_compliant_far_below_reservation(compliant: Mapping[str, Samples]) -> Claim:
    checks = [
        at_most(f"{f} compliant / reservation", measure(lambda a, r=RESERVATION[f]: a.mean(-1) / r, x), HALF)
        for f, x in compliant.items()
    ]
    return paper_ordering(
        "sec3_compliant_far_below_reservation",
        "With plain TCP every reserved connection's compliant throughput is far less than its reservation: "
        "at most half of what the reservation carries as payload (0.96, 1.92, 3.85 Mb/s; the header "
        "overhead alone keeps it below)",
        f"{FENG}, Fig. 2(b): 'far less than their respective reservations'",
        checks,
        {f: _mbps(x) for f, x in compliant.items()},
    )


def sec3_order_by_reservation(c4: Samples, c2: Samples, c1: Samples, best_effort: Samples) -> Claim:
    pairs = (("C4 / C2", c4, c2), ("C2 / C1", c2, c1), ("C1 / best effort", c1, best_effort))
    return paper_ordering(
        "sec3_order_by_reservation",
        "With plain TCP, C4 > C2 > C1 > best effort (each ratio of means above 1)",
        f"{FENG}, Sec. 3: larger reservations lose fewer packets and get more",
        [above(label, ratio(a, b), 1) for label, a, b in pairs],
        {"C4": _mbps(c4), "C2": _mbps(c2), "C1": _mbps(c1), "BE": _mbps(best_effort)},
    )


def _tokens_value(cid: str, text: str, number: str, tokens_per_5s: Samples) -> Claim:
    m = measure(lambda a: a.mean(-1), tokens_per_5s)
    # The paper's number is one 5 s trace of one run.
    return paper_value(
        cid, text, [cell("C4's tokens lost, packets per 5 s", printed(number, runs=1), m)], round(m.value, 1)
    )


def sec3_tokens_lost_830(tokens_per_5s: Samples) -> Claim:
    return _tokens_value(
        "sec3_tokens_lost_830",
        "Plain TCP's C4 loses about 830 packets' worth of tokens in 5 s (Fig. 3)",
        "830",
        tokens_per_5s,
    )


def sec3_marked_not_dropped(share_by_network: Mapping[str, Samples]) -> Claim:
    """``share_by_network``: per run, the routers' drops of marked packets over the marked
    packets that reached them."""
    return paper_ordering(
        "sec3_marked_not_dropped",
        "ERED drops marked packets with a probability close to zero: under 1 in 1000 of those reaching "
        "the routers, on each network (every scheme and recovery)",
        f"{FENG}, Sec. 3: marked packets have 'lower (in this case close to zero) probability of getting "
        "dropped'; 'marked packets are not dropped by the network'",
        [
            at_most(f"{net}: marked drops / marked arrivals", measure(lambda a: a.mean(-1), x), CLOSE_TO_ZERO)
            for net, x in share_by_network.items()
        ],
        {net: float(f"{np.mean(x):.3g}") for net, x in share_by_network.items()},
    )


# ---------------------------------------------------------------- Sec. 4: the rate-adaptive window


def sec4_window_raises_c4(normal: Samples, window: Samples) -> Claim:
    return paper_ordering(
        "sec4_window_raises_c4",
        "The rate-adaptive window raises C4's throughput above plain TCP's (ratio of means above 1)",
        f"{FENG}, Fig. 5(a): 'significantly improves the throughput seen by connection C4'",
        [above("C4 window / normal", ratio(window, normal), 1)],
        {"normal": _mbps(normal), "window": _mbps(window)},
    )


def sec4_window_compliant_below_reservation(compliant: Samples) -> Claim:
    return paper_ordering(
        "sec4_window_compliant_below_reservation",
        "With the rate-adaptive window C4's compliant throughput stays below the payload its 4 Mb/s "
        "reservation carries (3.85 Mb/s)",
        f"{FENG}, Fig. 5(b): 'still less than the reserved bandwidth'",
        [below("C4 compliant, Mb/s", _mean_mbps(compliant), RESERVATION["C4"] / 1e6)],
        _mbps(compliant),
    )


def sec4_token_loss_falls(normal: Samples, window: Samples) -> Claim:
    return paper_ordering(
        "sec4_token_loss_falls",
        "C4 loses fewer tokens with the rate-adaptive window than with plain TCP (ratio of means below 1)",
        f"{FENG}: 560 packets of tokens in Fig. 6's 5 s against 830 in Fig. 3's",
        [below("tokens lost, window / normal", ratio(window, normal), 1)],
        {
            "normal (packets per 5 s)": round(float(np.mean(normal)), 1),
            "window": round(float(np.mean(window)), 1),
        },
    )


def sec4_tokens_lost_560(tokens_per_5s: Samples) -> Claim:
    return _tokens_value(
        "sec4_tokens_lost_560",
        "With the rate-adaptive window C4 loses about 560 packets' worth of tokens in 5 s (Fig. 6)",
        "560",
        tokens_per_5s,
    )


def sec4_swings_smaller(normal_swing: float, window_swing: float) -> Claim:
    return paper_ordering(
        "sec4_swings_smaller",
        "In C4's 5 s traces the congestion window swings much less with the rate-adaptive window than "
        "with plain TCP: its standard deviation at most half",
        f"{FENG}, Fig. 6: 'the swings in the congestion window are much smaller than those in Figure 3'",
        [at_most("cwnd std, window / normal", exact(window_swing / normal_swing), HALF)]
        if normal_swing > 0
        else [at_most("cwnd std, window / normal", exact(float("nan")), HALF)],
        {"normal (packets)": round(normal_swing, 2), "window (packets)": round(window_swing, 2)},
    )


# ---------------------------------------------------------------- Sec. 5: delayed and timed send


def sec5_timers_closer_to_ideal(c4: Mapping[str, Samples]) -> Claim:
    """``c4`` by scheme: normal, window, window_delayed, window_timed. Closer than the windowing
    change alone, and (the margin that keeps collapsed schemes out) closer than plain TCP, which
    the windowing change itself improves on (Fig. 5)."""
    ideal = IDEAL["C4"]
    checks = [
        below(f"|C4 - ideal|, {s} / {base}", _gap_ratio(c4[s], c4[base], ideal), 1)
        for s in ("window_delayed", "window_timed")
        for base in ("window", "normal")
    ]
    return paper_ordering(
        "sec5_timers_closer_to_ideal",
        "Delayed and timed send each bring C4 closer to its 4.33 Mb/s ideal than the windowing change "
        "alone, and than plain TCP",
        f"{FENG}, Fig. 9(c): 'get closer to the ideal bandwidth than those using just the windowing changes'",
        checks,
        {s: _mbps(x) for s, x in c4.items()},
    )


def sec5_timers_more_compliant(compliant: Mapping[str, Samples]) -> Claim:
    checks = [
        above(f"C4 compliant, {s} / {base}", ratio(compliant[s], compliant[base]), 1)
        for s in ("window_delayed", "window_timed")
        for base in ("window", "normal")
    ]
    return paper_ordering(
        "sec5_timers_more_compliant",
        "Delayed and timed send each give C4 more compliant throughput than the windowing change alone, "
        "and than plain TCP",
        f"{FENG}, Fig. 9(d): 'significantly better compliant throughput'",
        checks,
        {s: _mbps(x) for s, x in compliant.items()},
    )


def sec5_timed_loses_fewer_tokens(normal: Samples, delayed: Samples, timed: Samples) -> Claim:
    return paper_ordering(
        "sec5_timed_loses_fewer_tokens",
        "Timed send loses fewer tokens than delayed send, and almost none: under a tenth of plain TCP's",
        f"{FENG}, Fig. 9(a, b): delayed send 'tokens are still lost', timed send 'almost no lost tokens'",
        [
            below("tokens lost, timed / delayed", ratio(timed, delayed), 1),
            at_most("tokens lost, timed / normal", ratio(timed, normal), ALMOST_NONE),
        ],
        {
            "normal (packets per 5 s)": round(float(np.mean(normal)), 1),
            "window_delayed": round(float(np.mean(delayed)), 1),
            "window_timed": round(float(np.mean(timed)), 1),
        },
    )


def sec5_window_timed_best(throughput: Mapping[str, Mapping[str, Samples]]) -> Claim:
    """``throughput[scheme][flow]`` for normal, window, window_timed and timed; flows C1, C2, C4
    and BE (the best-effort mean)."""
    best = throughput["window_timed"]
    checks = [
        below(f"|{f} - ideal|, windowing + timed / {s}", _gap_ratio(best[f], throughput[s][f], IDEAL[f]), 1)
        for f in best
        for s in throughput
        if s != "window_timed"
    ]
    return paper_ordering(
        "sec5_window_timed_best",
        "Windowing + timed send is closest to the ideal share for C1, C2, C4 and the best-effort mean, "
        "among normal, windowing, windowing + timed and timed-only",
        f"{FENG}, Fig. 10: 'perform the best in all cases'",
        checks,
        {s: {f: _mbps(x) for f, x in by_flow.items()} for s, by_flow in throughput.items()},
    )


def sec5_timed_only_short(c4: Samples, best_effort: Samples) -> Claim:
    return paper_ordering(
        "sec5_timed_only_short",
        "Timed send alone leaves C4 below its 4.33 Mb/s ideal and lets the best-effort mean above 0.48",
        f"{FENG}, Fig. 10: high bandwidth connections 'slightly less than their respective ideal'",
        [
            below("C4, Mb/s", _mean_mbps(c4), _ideal_mbps("C4")),
            above("best-effort mean, Mb/s", _mean_mbps(best_effort), _ideal_mbps("BE")),
        ],
        {"C4": _mbps(c4), "best-effort mean": _mbps(best_effort)},
    )


# ---------------------------------------------------------------- Sec. 6: the multi-hop network


def sec6_windowing_collapses_multihop(c4: Mapping[str, Samples]) -> Claim:
    return paper_ordering(
        "sec6_windowing_collapses_multihop",
        "On the multi-hop network both windowing schemes leave C4 below 0.5 Mb/s (New-Reno, no MaxBurst)",
        f"{FENG}, Fig. 12(a): 'achieving a throughput less than 0.5Mb/s'",
        [below(f"C4 {s}, Mb/s", _mean_mbps(x), COLLAPSE_BPS / 1e6) for s, x in c4.items()],
        {s: _mbps(x) for s, x in c4.items()},
    )


def _fix_claim(
    cid: str, name: str, fig: str, newreno: Mapping[str, Samples], fixed: Mapping[str, Samples]
) -> Claim:
    """``newreno`` and ``fixed``: C4's throughput and tokens lost (windowing + timed send)."""
    return paper_ordering(
        cid,
        f"With windowing + timed send on the multi-hop network, {name} gives C4 more throughput than "
        "New-Reno and a low token loss: at most half of New-Reno's (ratios of means)",
        f"{FENG}, {fig}: 'both schemes perform comparably well with a low number of lost tokens'",
        [
            above(f"C4 throughput, {name} / New-Reno", ratio(fixed["throughput"], newreno["throughput"]), 1),
            at_most(f"C4 tokens lost, {name} / New-Reno", ratio(fixed["tokens"], newreno["tokens"]), HALF),
        ],
        {
            "New-Reno": {
                "Mb/s": _mbps(newreno["throughput"]),
                "tokens/5 s": round(float(np.mean(newreno["tokens"])), 1),
            },
            name: {
                "Mb/s": _mbps(fixed["throughput"]),
                "tokens/5 s": round(float(np.mean(fixed["tokens"])), 1),
            },
        },
    )


def sec6_sack_restores(newreno: Mapping[str, Samples], sack: Mapping[str, Samples]) -> Claim:
    return _fix_claim("sec6_sack_restores", "SACK", "Fig. 13(a)", newreno, sack)


def sec6_maxburst_restores(newreno: Mapping[str, Samples], maxburst: Mapping[str, Samples]) -> Claim:
    return _fix_claim("sec6_maxburst_restores", "MaxBurst 2", "Fig. 13(b)", newreno, maxburst)


def sec6_rtt_bias(c1: Samples, c4: Samples, best_effort: Samples) -> Claim:
    """Fig. 14 with windowing + timed send and MaxBurst 2."""
    i1, i4, ibe = IDEAL["C1"], IDEAL["C4"], IDEAL["BE"]
    return paper_ordering(
        "sec6_rtt_bias",
        "With windowing + timed send and MaxBurst 2, C1 (shortest RTT) gets slightly more than its 1.44 "
        "Mb/s share (more, by at most a quarter), best effort (longest RTT) less than 0.48 Mb/s, and C4 "
        "approaches its 4.33 Mb/s ideal (at least 0.8 of it: short of it by at most the mirror of "
        "'slightly more') and overcomes its long RTT: its share of its ideal above best effort's",
        f"{FENG}, Fig. 14: 'these schemes approach the ideal performance', C1 'slightly more than its "
        "fair share', best effort 'less than their fair share', 'C4 overcomes the negative impact of "
        "the long round-trip time'",
        [
            above("C1 / ideal", measure(lambda a: a.mean(-1) / i1, c1), 1),
            at_most("C1 / ideal", measure(lambda a: a.mean(-1) / i1, c1), SLIGHTLY),
            below("best-effort mean, Mb/s", _mean_mbps(best_effort), ibe / 1e6),
            at_least("C4 / ideal", measure(lambda a: a.mean(-1) / i4, c4), 1 / SLIGHTLY),
            above(
                "(C4 / ideal) / (best effort / ideal)",
                measure(lambda a, b: (a.mean(-1) / i4) / (b.mean(-1) / ibe), c4, best_effort),
                1,
            ),
        ],
        {"C1": _mbps(c1), "C4": _mbps(c4), "best-effort mean": _mbps(best_effort)},
    )


def stall_rate_formula() -> Printed:
    """Sec. 6's formula for C4 on Fig. 11, ReservedRate - SegmentSize / RoundTripTime, in
    packets of 1040 bytes (the bucket's unit) per second: 4 Mb/s is 480.8 packets/s, less one
    packet per round trip. The paper prints the formula, not its value, and not its network's
    delays: the range is the formula over C4's round trip from unloaded (205 ms) to every
    router's buffer full on its way (293 ms), the RTT a stalled sender's one packet can see."""
    rate = next(c.reservation_bps for c in FIG11_CONNS if c.name == "C4") / 8 / WIRE
    fast, slow = unloaded_rtt_s("fig11", "C4"), full_buffers_rtt_s("fig11", "C4")
    low, high = rate - 1 / fast, rate - 1 / slow
    text = f"{rate:.1f} - 1/RTT, RTT {fast * 1000:.0f}-{slow * 1000:.0f} ms"
    return Printed(text, low, low, high)


def sec6_stall_token_loss_rate(
    lost_pkts: Samples, stall_s: Samples, sends: Samples | None = None, cycles: Samples | None = None
) -> Claim:
    """Per run (windowing + timed send, New-Reno, Fig. 11): the tokens lost in C4's stalled
    cycles (results.py's ``Stall``) and their length; for the reader, the packets sent in them
    and how many there were. The rate is pooled over the runs (lost over stalled time), so a
    run that never stalls adds nothing, and runs none of which stall give a degenerate claim."""
    rate = measure(lambda lost, t: lost.sum(-1) / t.sum(-1), lost_pkts, stall_s)
    stalled = float(np.sum(stall_s))
    formula = stall_rate_formula()
    measured: dict[str, float | None] = {
        "packets/s": None if rate.is_degenerate else round(rate.value, 1),
        "stalled s (all runs)": round(stalled, 1),
    }
    if sends is not None and cycles is not None and np.sum(cycles) > 0:
        measured["packets sent per stalled cycle"] = round(float(np.sum(sends) / np.sum(cycles)), 2)
        measured["stalled cycle, s"] = round(stalled / float(np.sum(cycles)), 3)
    return paper_value(
        "sec6_stall_token_loss_rate",
        "On the multi-hop network (windowing + timed send, New-Reno), while C4 is stalled (cycles of a "
        "burst and a wait of at least 100 ms that fills half the cycle or more) its tokens are lost at "
        f"the reserved rate less one packet per round trip: {formula.low:.1f}-{formula.high:.1f} packets "
        f"of 1040 bytes per second ({FENG}, Sec. 6: 'tokens are lost at a rate equal to ReservedRate - "
        "(SegmentSize/RoundTripTime)')",
        [cell("C4's token loss while stalled, packets/s", formula, rate)],
        measured,
    )
