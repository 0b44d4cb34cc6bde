"""The study's claims, Secs. 3-6 of Feng et al. (1997), from the derived results: the paper's
(``claims_paper.py``, judged on per-run samples) and our own analytic and diagnostic checks.

A run's throughput (and tokens lost) is the mean of its 20 s windows after the first. Secs. 3-5
read Fig. 1's network with ns New-Reno (the figures' captions); Sec. 6 the multi-hop network.
"""

from __future__ import annotations

import numpy as np

from tcplab.report.claims import analytic, diagnostic
from tcplab.report.study import Claim
from tcplab.studies.intserv import claims_paper as p
from tcplab.studies.intserv.claims_paper import COLLAPSE_BPS, FENG, IDEAL
from tcplab.studies.intserv.figures import RESERVED, sensitivity_mean
from tcplab.studies.intserv.results import Results, mbps
from tcplab.studies.intserv.scenarios import (
    FIG1_CONNS,
    NAMES,
    PAYLOAD,
    WIRE,
    ideal_shares_bps,
    timed_zero_loss_interval_s,
    unloaded_bdp_packets,
)
from tcplab.studies.intserv.sweeps import RTT_SCALES

TRACE_S = 5.0


def claims(r: Results) -> list[Claim]:
    out = [*_analytic(), *_sec3(r), *_sec4(r), *_sec5(r), *_sec6(r), *_diagnostics(r)]
    if r.has("fig1_min"):
        out += _min_rtt(r)
    return out


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
            "0.5 Mb/s of the 10 Mb/s link; of payload (1000 of every 1040 bytes) 1.44, 2.40, 4.33 and 0.48",
            f"{FENG}, Sec. 1: 1.5, 2.5, 4.5 Mb/s and 0.5 Mb/s for best effort",
            {n: [mbps(x), mbps(x * PAYLOAD)] for n, x in zip(NAMES, shares, strict=True)},
            all(abs(a - b) < 1 for a, b in zip(shares, paper, strict=True)),
        ),
        analytic(
            "timed_interval_20ms_suffices",
            "Sec. 5's zero-token-loss interval (depth - (packet - 1)) / rate exceeds the 20 ms timer used, "
            "for every reservation (50 ms bucket, 1040-byte packets)",
            f"{FENG}, Sec. 5: timer interval 20 ms",
            {k: f"{v} ms" for k, v in intervals.items()},
            all(v > 20 for v in intervals.values()),
        ),
    ]


def _tokens(r: Results, scheme: str) -> np.ndarray:
    """C4's tokens lost per 5 s (the paper's traces), over the throughput windows of each run."""
    return TRACE_S * r.samples("fig1", "C4", "tokens_lost_pkts_per_s", scheme=scheme)


def _sec3(r: Results) -> list[Claim]:
    got = {f: r.samples("fig1", f, scheme="normal") for f in RESERVED}
    be = r.be_samples("fig1", scheme="normal")
    return [
        p.sec3_reserved_below_ideal(reserved=got),
        p.sec3_best_effort_above_ideal(best_effort=be),
        p.sec3_compliant_far_below_reservation(
            compliant={f: r.samples("fig1", f, "compliant_bps", scheme="normal") for f in RESERVED}
        ),
        p.sec3_order_by_reservation(c4=got["C4"], c2=got["C2"], c1=got["C1"], best_effort=be),
        p.sec3_tokens_lost_830(tokens_per_5s=_tokens(r, "normal")),
        p.sec3_marked_not_dropped(
            share_by_network={net: _marked_drop_share(r, net) for net in ("fig1", "fig11")}
        ),
    ]


def _marked_drop_share(r: Results, sweep: str) -> np.ndarray:
    d = r.routers[r.routers["sweep"] == sweep]
    return (d["drops_marked"] / d["arrivals_marked"].clip(lower=1)).to_numpy(dtype=float)


def _cwnd_swing(r: Results, scheme: str) -> float:
    t = r.traces_fig1.get(scheme)
    return float(t.acks["cwnd_pkts"].std()) if t is not None and len(t.acks) > 1 else float("nan")


def _sec4(r: Results) -> list[Claim]:
    c4 = {s: r.samples("fig1", "C4", scheme=s) for s in ("normal", "window")}
    return [
        p.sec4_window_raises_c4(normal=c4["normal"], window=c4["window"]),
        p.sec4_window_compliant_below_reservation(
            compliant=r.samples("fig1", "C4", "compliant_bps", scheme="window")
        ),
        p.sec4_token_loss_falls(normal=_tokens(r, "normal"), window=_tokens(r, "window")),
        p.sec4_tokens_lost_560(tokens_per_5s=_tokens(r, "window")),
        p.sec4_swings_smaller(normal_swing=_cwnd_swing(r, "normal"), window_swing=_cwnd_swing(r, "window")),
    ]


def _sec5(r: Results) -> list[Claim]:
    timers = ("normal", "window", "window_delayed", "window_timed")
    fig10 = ("normal", "window", "window_timed", "timed")

    def by_flow(s: str) -> dict[str, np.ndarray]:
        return {**{f: r.samples("fig1", f, scheme=s) for f in RESERVED}, "BE": r.be_samples("fig1", scheme=s)}

    return [
        p.sec5_timers_closer_to_ideal(c4={s: r.samples("fig1", "C4", scheme=s) for s in timers}),
        p.sec5_timers_more_compliant(
            compliant={s: r.samples("fig1", "C4", "compliant_bps", scheme=s) for s in timers}
        ),
        p.sec5_timed_loses_fewer_tokens(
            normal=_tokens(r, "normal"),
            delayed=_tokens(r, "window_delayed"),
            timed=_tokens(r, "window_timed"),
        ),
        p.sec5_window_timed_best(throughput={s: by_flow(s) for s in fig10}),
        p.sec5_timed_only_short(
            c4=r.samples("fig1", "C4", scheme="timed"), best_effort=r.be_samples("fig1", scheme="timed")
        ),
    ]


def _c4_multihop(r: Results, recovery: str) -> dict[str, np.ndarray]:
    lv = {"scheme": "window_timed", "recovery": recovery}
    return {
        "throughput": r.samples("fig11", "C4", **lv),
        "tokens": TRACE_S * r.samples("fig11", "C4", "tokens_lost_pkts_per_s", **lv),
    }


def _sec6(r: Results) -> list[Claim]:
    fixed = {"scheme": "window_timed", "recovery": "newreno_mb2"}
    newreno = _c4_multihop(r, "newreno")
    # Fig. 12(b)'s sender: windowing + timed send, New-Reno (the traced runs, every replication)
    stalls = r.stalls_fig11[r.stalls_fig11["recovery"] == "newreno"].sort_values("replication")
    return [
        p.sec6_windowing_collapses_multihop(
            c4={s: r.samples("fig11", "C4", scheme=s, recovery="newreno") for s in ("window", "window_timed")}
        ),
        p.sec6_sack_restores(newreno=newreno, sack=_c4_multihop(r, "sack")),
        p.sec6_maxburst_restores(newreno=newreno, maxburst=_c4_multihop(r, "newreno_mb2")),
        p.sec6_rtt_bias(
            c1=r.samples("fig11", "C1", **fixed),
            c4=r.samples("fig11", "C4", **fixed),
            best_effort=r.be_samples("fig11", **fixed),
        ),
        p.sec6_stall_token_loss_rate(
            **{k: stalls[k].to_numpy(dtype=float) for k in ("lost_pkts", "stall_s", "sends", "cycles")}
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
    at_awnd = {k: round(t.ssthresh_at_awnd, 3) for k, t in r.traces_fig1.items()}
    out = [
        diagnostic(
            "window_change_leaves_ssthresh_below_awnd",
            "The rate-adaptive window does not pin C4's ssthresh at the advertised window: in the 5 s trace "
            "it sits there at under half the ACKs (when RWND, from an inflated smoothed RTT, reaches AWND, "
            "Fig. 4 never backs C4 off and New-Reno stalls)",
            "not in the paper: share of the trace's ACKs with ssthresh = AWND",
            at_awnd,
            at_awnd.get("window", 1.0) < 0.5,
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
    ]
    if r.has("fig1_rtt"):
        sens = {
            f"x{s:g}": {
                "reserved below ideal": all(sensitivity_mean(r, "normal", s, f) < IDEAL[f] for f in RESERVED),
                "BE above 0.48": sensitivity_mean(r, "normal", s, "BE1") > IDEAL["BE"],
            }
            for s in sorted([*RTT_SCALES, 1.0])
        }
        out.append(
            diagnostic(
                "sensitivity_sec3_holds_at_every_rtt",
                "Sec. 3's pattern (reserved below ideal, best effort above), plain TCP, at each RTT scale",
                "not in the paper: the link delays are this study's choice",
                sens,
                all(all(v.values()) for v in sens.values()),
            )
        )
    return out


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
            "alt_min_rtt_multihop_collapse",
            "Alternative (RWND from the minimum RTT): the collapse of Fig. 12(a) appears too; C4 stays "
            "below 0.5 Mb/s under both windowing schemes on the multi-hop network with New-Reno",
            f"{FENG}, Fig. 12(a): both windowing schemes below 0.5 Mb/s",
            multihop,
            all(x < COLLAPSE_BPS / 1e6 for x in multihop.values()),
        ),
    ]
