"""The study's claims, Secs. 3-6 of Feng et al. (1997), from the derived results.

Throughputs are means over replications of each run's 20 s windows after the first. Secs. 3-5
read Fig. 1's network with ns-2 New-Reno (the figures' captions); Sec. 6 the multi-hop network.
"""

from __future__ import annotations

from collections.abc import Callable

from tcplab.report.claims import about, analytic, diagnostic, ordering, value
from tcplab.report.study import Claim
from tcplab.studies.intserv.figures import RESERVATION, RESERVED, sensitivity_mean
from tcplab.studies.intserv.results import Results, mbps
from tcplab.studies.intserv.scenarios import (
    FIG1_CONNS,
    IDEAL_BPS,
    NAMES,
    WIRE,
    ideal_shares_bps,
    timed_zero_loss_interval_s,
    unloaded_bdp_packets,
)
from tcplab.studies.intserv.sweeps import RTT_SCALES

FENG = "Feng et al. 1997"
TRACE_S = 5.0


def claims(r: Results) -> list[Claim]:
    return [
        *_analytic(),
        *_sec3(r),
        *_sec4(r),
        *_sec5(r),
        *_sec6(r),
        *_diagnostics(r),
        *_min_rtt(r),
    ]


def _each_mbps(
    cid: str, text: str, paper: str, values: dict[str, float], holds: Callable[[str, float], bool]
) -> Claim:
    """An ordering claim that every value (a throughput in b/s, by connection or scheme) meets
    ``holds(name, value)``; the values are reported in Mb/s."""
    measured = {k: mbps(x) for k, x in values.items()}
    return ordering(cid, text, paper, measured, all(holds(k, x) for k, x in values.items()))


def _analytic() -> list[Claim]:
    shares = ideal_shares_bps([c.reservation_bps for c in FIG1_CONNS])
    paper = [1.5e6, 2.5e6, 4.5e6, 0.5e6, 0.5e6, 0.5e6]
    intervals = {
        c.name: round(timed_zero_loss_interval_s(c.reservation_bps) * 1000, 2)
        for c in FIG1_CONNS
        if c.reservation_bps > 0
    }
    return [
        analytic(
            "ideal_shares",
            "The ideal shares (reservation plus an equal share of the 3 Mb/s residual) are 1.5, 2.5, 4.5 and "
            "0.5 Mb/s",
            f"{FENG}, Sec. 1: 1.5, 2.5, 4.5 Mb/s and 0.5 Mb/s for best effort",
            dict(zip(NAMES, [mbps(x) for x in shares], strict=True)),
            all(abs(a - b) < 1 for a, b in zip(shares, paper, strict=True)),
        ),
        analytic(
            "timed_interval_20ms_suffices",
            "Sec. 5's zero-token-loss interval (depth - (packet - 1)) / rate exceeds the 20 ms timer used, "
            "for "
            "every reservation (50 ms bucket, 1040-byte packets)",
            f"{FENG}, Sec. 5: timer interval 20 ms",
            {k: f"{v} ms" for k, v in intervals.items()},
            all(v > 20 for v in intervals.values()),
        ),
    ]


def _sec3(r: Results) -> list[Claim]:
    got = {f: r.mean("fig1", f, scheme="normal") for f in RESERVED}
    comp = {f: r.mean("fig1", f, "compliant_bps", scheme="normal") for f in RESERVED}
    be = r.be_mean("fig1", scheme="normal")
    order = [got["C4"], got["C2"], got["C1"], be]
    return [
        _each_mbps(
            "sec3_reserved_below_ideal",
            "With plain TCP every reserved connection gets less than its ideal share",
            f"{FENG}, Fig. 2(a): C1, C2, C4 below 1.5, 2.5, 4.5 Mb/s",
            got,
            lambda f, x: x < IDEAL_BPS[f],
        ),
        ordering(
            "sec3_best_effort_above_ideal",
            "With plain TCP the best-effort connections get more than their 0.5 Mb/s share",
            f"{FENG}, Fig. 2(a)",
            {"best-effort mean": mbps(be)},
            be > IDEAL_BPS["BE1"],
        ),
        _each_mbps(
            "sec3_compliant_below_reservation",
            "With plain TCP every reserved connection's compliant throughput is below its reservation",
            f"{FENG}, Fig. 2(b): 'far less than their respective reservations'",
            comp,
            lambda f, x: x < RESERVATION[f],
        ),
        ordering(
            "sec3_order_by_reservation",
            "With plain TCP, C4 > C2 > C1 > best effort",
            f"{FENG}, Sec. 3: larger reservations lose fewer packets and get more",
            {"C4": mbps(order[0]), "C2": mbps(order[1]), "C1": mbps(order[2]), "BE": mbps(order[3])},
            all(a > b for a, b in zip(order, order[1:], strict=False)),
        ),
    ]


def _tokens_per_5s(r: Results, scheme: str) -> float:
    return TRACE_S * r.mean("fig1", "C4", "tokens_lost_pkts_per_s", scheme=scheme)


def _fewer_tokens(
    cid: str, text: str, paper: str, lost: dict[str, float], unit: str, fewer: str, than: str
) -> Claim:
    """An ordering claim that scheme ``fewer`` loses fewer tokens than ``than`` (``lost`` in
    packets per 5 s by scheme, reported with ``unit``)."""
    measured = {f"{s} ({unit})": round(x, 1) for s, x in lost.items()}
    return ordering(cid, text, paper, measured, lost[fewer] < lost[than])


def _sec4(r: Results) -> list[Claim]:
    c4 = {s: r.mean("fig1", "C4", scheme=s) for s in ("normal", "window")}
    comp = r.mean("fig1", "C4", "compliant_bps", scheme="window")
    lost = {s: _tokens_per_5s(r, s) for s in ("normal", "window")}
    return [
        ordering(
            "sec4_window_raises_c4",
            "The rate-adaptive window raises C4's throughput above plain TCP's",
            f"{FENG}, Fig. 5(a)",
            {s: mbps(x) for s, x in c4.items()},
            c4["window"] > c4["normal"],
        ),
        ordering(
            "sec4_window_compliant_below_reservation",
            "With the rate-adaptive window C4's compliant throughput stays below its 4 Mb/s reservation",
            f"{FENG}, Fig. 5(b)",
            mbps(comp),
            comp < RESERVATION["C4"],
        ),
        _fewer_tokens(
            "sec4_token_loss_falls",
            "C4 loses fewer tokens with the rate-adaptive window than with plain TCP (Fig. 6 against Fig. 3)",
            f"{FENG}: 830 tokens in Fig. 3's 5 s, 560 in Fig. 6's",
            lost,
            "packets per 5 s, mean of runs",
            "window",
            "normal",
        ),
        *(
            value(cid, text, paper, round(lost[s], 1), about(lost[s], paper))
            for cid, text, paper, s in (
                (
                    "sec3_tokens_lost_830",
                    "Plain TCP's C4 loses about 830 packets of tokens in 5 s",
                    830,
                    "normal",
                ),
                (
                    "sec4_tokens_lost_560",
                    "With the rate-adaptive window C4 loses about 560 packets of tokens in 5 s",
                    560,
                    "window",
                ),
            )
        ),
    ]


def _sec5(r: Results) -> list[Claim]:
    schemes = ("window", "window_delayed", "window_timed")
    gap = {s: abs(r.mean("fig1", "C4", scheme=s) - IDEAL_BPS["C4"]) for s in schemes}
    comp = {s: r.mean("fig1", "C4", "compliant_bps", scheme=s) for s in schemes}
    lost = {s: _tokens_per_5s(r, s) for s in ("window_delayed", "window_timed")}
    fig10 = ("normal", "window", "window_timed", "timed")
    dev = {s: {f: abs(r.mean("fig1", f, scheme=s) - IDEAL_BPS[f]) for f in NAMES} for s in fig10}
    best = {f: min(fig10, key=lambda s, f=f: dev[s][f]) for f in ("C1", "C2", "C4", "BE1")}
    timed_c4 = r.mean("fig1", "C4", scheme="timed")
    timed_be = r.be_mean("fig1", scheme="timed")
    return [
        ordering(
            "sec5_timers_closer_to_ideal",
            "Delayed and timed send each bring C4 closer to its 4.5 Mb/s ideal than the windowing change "
            "alone",
            f"{FENG}, Fig. 9(c)",
            {f"{s} |C4 - 4.5| Mb/s": mbps(x) for s, x in gap.items()},
            gap["window_delayed"] < gap["window"] and gap["window_timed"] < gap["window"],
        ),
        ordering(
            "sec5_timers_more_compliant",
            "Delayed and timed send each give C4 more compliant throughput than the windowing change alone",
            f"{FENG}, Fig. 9(d)",
            {s: mbps(x) for s, x in comp.items()},
            comp["window_delayed"] > comp["window"] and comp["window_timed"] > comp["window"],
        ),
        _fewer_tokens(
            "sec5_timed_loses_fewer_tokens",
            "Timed send loses fewer tokens than delayed send",
            f"{FENG}, Fig. 9(a, b): delayed send still loses tokens, timed send almost none",
            lost,
            "packets per 5 s",
            "window_timed",
            "window_delayed",
        ),
        ordering(
            "sec5_window_timed_best",
            "Windowing + timed send is closest to the ideal share for C1, C2, C4 and best effort among "
            "normal, "
            "windowing, windowing + timed and timed-only",
            f"{FENG}, Fig. 10: 'perform the best in all cases'",
            {f: s for f, s in best.items()},
            all(s == "window_timed" for s in best.values()),
        ),
        ordering(
            "sec5_timed_only_short",
            "Timed send alone leaves C4 below its ideal share and lets best effort above 0.5 Mb/s",
            f"{FENG}, Fig. 10",
            {"C4": mbps(timed_c4), "best-effort mean": mbps(timed_be)},
            timed_c4 < IDEAL_BPS["C4"] and timed_be > IDEAL_BPS["BE1"],
        ),
    ]


COLLAPSE_BPS = 0.5e6  # the paper: "achieving a throughput less than 0.5Mb/s"


def _sec6(r: Results) -> list[Claim]:
    win = ("window", "window_timed")
    plain = {s: r.mean("fig11", "C4", scheme=s, recovery="newreno") for s in win}
    sack = {s: r.mean("fig11", "C4", scheme=s, recovery="sack") for s in win}
    mb2 = {s: r.mean("fig11", "C4", scheme=s, recovery="newreno_mb2") for s in win}
    fixed = {"window": "newreno_mb2", "window_timed": "newreno_mb2"}
    c1 = r.mean("fig11", "C1", scheme="window_timed", recovery=fixed["window_timed"])
    be = r.be_mean("fig11", scheme="window_timed", recovery=fixed["window_timed"])
    return [
        _each_mbps(
            "sec6_windowing_collapses_multihop",
            "On the multi-hop network both windowing schemes leave C4 below 0.5 Mb/s (New-Reno, no MaxBurst)",
            f"{FENG}, Fig. 12(a)",
            plain,
            lambda _, x: x < COLLAPSE_BPS,
        ),
        _each_mbps(
            "sec6_sack_restores",
            "SACK restores C4 under both windowing schemes: above its 4 Mb/s reservation",
            f"{FENG}, Fig. 13(a)",
            sack,
            lambda _, x: x >= RESERVATION["C4"],
        ),
        _each_mbps(
            "sec6_maxburst_restores",
            "MaxBurst 2 restores C4 under both windowing schemes: above its 4 Mb/s reservation",
            f"{FENG}, Figs. 13(b), 14(c)",
            mb2,
            lambda _, x: x >= RESERVATION["C4"],
        ),
        ordering(
            "sec6_rtt_bias",
            "With the fixes, C1 (shortest RTT) gets more than its 1.5 Mb/s share and best effort "
            "(longest RTT) "
            "less than 0.5 Mb/s",
            f"{FENG}, Fig. 14 (windowing + timed send, MaxBurst 2)",
            {"C1": mbps(c1), "best-effort mean": mbps(be)},
            c1 > IDEAL_BPS["C1"] and be < IDEAL_BPS["BE1"],
        ),
    ]


def _diagnostics(r: Results) -> list[Claim]:
    traces = {
        **{f"fig1 {k}": t for k, t in r.traces_fig1.items()},
        **{f"fig11 {k}": t for k, t in r.traces_fig11.items()},
    }
    replay = {
        k: (
            round(t.replay_lost_bytes / WIRE, 1),
            round(t.core_lost_bytes / WIRE, 1),
            t.replay_marked,
            t.core_marked,
        )
        for k, t in traces.items()
    }
    ok = all(abs(a - b) <= 1 and m == n for a, b, m, n in replay.values())
    sens = {
        f"x{s:g}": {
            "reserved below ideal": all(sensitivity_mean(r, "normal", s, f) < IDEAL_BPS[f] for f in RESERVED),
            "BE above 0.5": sensitivity_mean(r, "normal", s, "BE1") > IDEAL_BPS["BE1"],
        }
        for s in sorted([*RTT_SCALES, 1.0])
    }
    at_awnd = {k: round(t.ssthresh_at_awnd, 3) for k, t in r.traces_fig1.items()}
    return [
        diagnostic(
            "window_change_keeps_ssthresh_at_awnd",
            "Why the windowing change stalls New-Reno here: in the 5 s traces C4's ssthresh sits at the "
            "advertised window (RWND from the smoothed RTT at or above AWND) more with the rate-adaptive "
            "window than with plain TCP",
            "not in the paper: share of the trace's ACKs with ssthresh = AWND",
            at_awnd,
            at_awnd["window"] > at_awnd["normal"],
        ),
        diagnostic(
            "unloaded_window_100",
            "Fig. 1's links give an unloaded delay-bandwidth product of 100 packets, the paper's window",
            f"{FENG}, Sec. 3: advertised window 100 segments = the unloaded delay-bandwidth product",
            unloaded_bdp_packets("fig1"),
            unloaded_bdp_packets("fig1") == 100,
        ),
        diagnostic(
            "token_replay_matches_core",
            "The traces' token losses, replayed from the segment log, match the core's count (within one "
            "packet) and its marked-packet count exactly",
            "replayed lost, core lost (packets), replayed marked, core marked",
            {k: list(v) for k, v in replay.items()},
            ok,
        ),
        diagnostic(
            "sensitivity_sec3_holds_at_every_rtt",
            "Sec. 3's pattern (reserved below ideal, best effort above) with plain TCP at every RTT scale",
            "not in the paper: the link delays are this study's choice",
            sens,
            all(all(v.values()) for v in sens.values()),
        ),
    ]


def _min_rtt(r: Results) -> list[Claim]:
    """The alternative reading of RWND (from the minimum RTT): what it changes, stated as checks
    of this reproduction, not as the paper's claims."""
    c4 = {
        "normal": r.mean("fig1", "C4", scheme="normal"),
        "window (smoothed RTT)": r.mean("fig1", "C4", scheme="window"),
        "window (minimum RTT)": r.mean("fig1_min", "C4", scheme="window_min"),
    }
    at_awnd = {s: round(r.traces_fig1[s].ssthresh_at_awnd, 3) for s in ("window", "window_min")}
    multihop = {
        s: mbps(r.mean("fig11_min", "C4", scheme=s, recovery="newreno"))
        for s in ("window_min", "window_timed_min")
    }
    return [
        diagnostic(
            "alt_min_rtt_window_raises_c4",
            "Alternative (RWND from the minimum RTT, not the paper's reading): on Fig. 1's network with "
            "New-Reno the rate-adaptive window raises C4 above plain TCP, and C4's ssthresh sits at the "
            "advertised window less often than with the smoothed RTT",
            f"{FENG}, Fig. 5(a): the windowing change raises C4",
            {
                "C4 Mb/s": {k: mbps(x) for k, x in c4.items()},
                "ssthresh = AWND share of the trace's ACKs": at_awnd,
            },
            c4["window (minimum RTT)"] > c4["normal"] and at_awnd["window_min"] < at_awnd["window"],
        ),
        diagnostic(
            "alt_min_rtt_no_multihop_collapse",
            "Alternative (RWND from the minimum RTT): the collapse of Fig. 12(a) does not appear; C4 stays "
            "above 0.5 Mb/s under both windowing schemes on the multi-hop network with New-Reno",
            f"{FENG}, Fig. 12(a): both windowing schemes below 0.5 Mb/s",
            multihop,
            all(x > COLLAPSE_BPS / 1e6 for x in multihop.values()),
        ),
    ]
