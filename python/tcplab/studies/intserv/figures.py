"""The study's figures: the paper's Figs. 2, 3, 5, 6, 9, 10, 12, 13 and 14, and the RTT
sensitivity of Fig. 1's results. Throughput plots show the mean over replications per 20 s
window with the range of the replications shaded; dashed lines are the ideal shares."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.figures import new_figure, save
from tcplab.report.study import Figure
from tcplab.studies.intserv.results import Results, Trace, main_variant, mbps
from tcplab.studies.intserv.scenarios import (
    FIG1_CONNS,
    NAMES,
    PAYLOAD_IDEAL_BPS,
    PAYLOAD_RESERVATION_BPS,
    SCHEME_NAMES,
    unloaded_bdp_packets,
)
from tcplab.studies.intserv.sweeps import (
    FIG1_SCHEMES,
    RECOVERY_NAMES,
    RTT_SCALES,
    SENSITIVITY_SCHEMES,
    TRACE_LEN_S,
    TRACE_START_S,
)

RESERVED = [c.name for c in FIG1_CONNS if c.reservation_bps > 0]
RESERVATION = {c.name: c.reservation_bps for c in FIG1_CONNS}


def _series(r: Results, sweep: str, flow: str, column: str, **levels: Any) -> pd.DataFrame:
    w = r.windows[(r.windows["sweep"] == sweep) & (r.windows["flow"] == flow)]
    for k, v in main_variant(sweep, levels).items():
        w = w[w[k] == v]
    return w.groupby("window")[column].agg(["mean", "min", "max"]).reset_index()


def _plot_series(
    ax: Any, r: Results, sweep: str, flow: str, column: str, label: str, ls: str = "-", **levels: Any
) -> None:
    s = _series(r, sweep, flow, column, **levels)
    t = (s["window"].to_numpy() + 1) * r.window_s
    (line,) = ax.plot(t, s["mean"] / 1e6, marker="o", ms=3, lw=1.2, ls=ls, label=label)
    ax.fill_between(t, s["min"] / 1e6, s["max"] / 1e6, color=line.get_color(), alpha=0.15)


def _ideal(ax: Any, flow: str, column: str = "throughput_bps") -> None:
    # Payload ideals and reservations: what the link's 1040-byte packets carry as data.
    y = PAYLOAD_IDEAL_BPS[flow] if column == "throughput_bps" else PAYLOAD_RESERVATION_BPS[flow]
    ax.axhline(y / 1e6, color="k", ls="--", lw=0.8)


def _finish(ax: Any, title: str) -> None:
    ax.set_title(title, fontsize="small", loc="left")
    ax.set_xlabel("time (s), end of 20 s window")
    ax.set_ylabel("Mb/s")
    ax.grid(alpha=0.3)


def _trace(ax_top: Any, ax_bottom: Any, tr: Trace, title: str) -> None:
    a = tr.acks
    window = (TRACE_START_S, TRACE_START_S + TRACE_LEN_S)
    for ax in (ax_top, ax_bottom):
        ax.set_xlim(*window)  # the whole 5 s, whatever the trace holds
    if len(a) == 0:
        ax_bottom.text(0.5, 0.5, "no ACK reached C4 in these 5 s", transform=ax_bottom.transAxes, ha="center")
    ack0 = float(a["ack_pkts"].iloc[0]) if len(a) else 0.0
    ax_top.plot(a["time_s"], a["ack_pkts"] - ack0, lw=1, label="cumulative ACK (packets from start)")
    ax_top.plot(tr.tokens["time_s"], tr.tokens["lost_pkts"], lw=1, label="tokens lost (packets)")
    ax_top.set_title(
        f"{title}: {tr.lost_in_window_pkts:.0f} packets of tokens lost", fontsize="small", loc="left"
    )
    ax_top.legend(fontsize="x-small")
    ax_top.grid(alpha=0.3)
    ax_bottom.plot(a["time_s"], a["cwnd_pkts"], drawstyle="steps-post", lw=1, label="cwnd")
    ax_bottom.plot(a["time_s"], a["avail_pkts"], drawstyle="steps-post", lw=1, label="available window")
    ax_bottom.set_ylabel("packets")
    ax_bottom.set_xlabel("time (s)")
    ax_bottom.legend(fontsize="x-small")
    ax_bottom.grid(alpha=0.3)


def _trace_figure(outdir: Path, file: str, traces: list[tuple[Trace, str]]) -> None:
    fig, axes = new_figure(7.0, 3.4 * len(traces), rows=2 * len(traces))
    axes = np.atleast_1d(axes)
    for i, (tr, title) in enumerate(traces):
        _trace(axes[2 * i], axes[2 * i + 1], tr, title)
    save(fig, outdir / file)


# What the throughput plots draw (every figure made with ``_plot_series``).
BANDS = (
    " Lines: the mean over replications of each 20 s window; shaded: the lowest to the highest "
    "replication in that window."
)
SERIES_FIGURES = {
    "fig2_throughput_normal.png",
    "fig5_c4_windowing.png",
    "fig9cd_c4_timers.png",
    "fig10_schemes.png",
    "fig12a_c4_multihop.png",
    "fig14_multihop_schemes.png",
    "alt_min_rtt_c4.png",
}


def figures(r: Results, outdir: Path) -> list[Figure]:
    return [
        replace(f, caption=f.caption + BANDS) if f.file in SERIES_FIGURES else f for f in _figures(r, outdir)
    ]


def _figures(r: Results, outdir: Path) -> list[Figure]:
    return [
        _fig2(r, outdir),
        _fig_trace(r, outdir, "fig3_trace_normal.png", "normal", "Fig. 3", 830),
        _fig5(r, outdir),
        _fig_trace(r, outdir, "fig6_trace_window.png", "window", "Fig. 6", 560),
        _fig9ab(r, outdir),
        _fig9(r, outdir),
        _fig10(r, outdir),
        _fig12(r, outdir),
        _fig12b(r, outdir),
        _fig13(r, outdir),
        _fig14(r, outdir),
        _sensitivity(r, outdir),
        _min_rtt(r, outdir),
        _min_rtt_trace(r, outdir),
    ]


def _fig2(r: Results, outdir: Path) -> Figure:
    fig, axes = new_figure(7.0, 7.5, rows=2)
    for flow in NAMES:
        _plot_series(axes[0], r, "fig1", flow, "throughput_bps", flow, scheme="normal")
    for flow in RESERVED:
        _plot_series(axes[1], r, "fig1", flow, "compliant_bps", flow, scheme="normal")
    for flow in ("C1", "C2", "C4", "BE1"):
        _ideal(axes[0], flow)
    for flow in RESERVED:
        _ideal(axes[1], flow, "compliant_bps")
    _finish(axes[0], "(a) total throughput (dashed: ideal payload shares 1.44, 2.40, 4.33, 0.48 Mb/s)")
    _finish(axes[1], "(b) compliant throughput (dashed: payload of the reservations)")
    axes[0].legend(fontsize="x-small", ncol=3)
    save(fig, outdir / "fig2_throughput_normal.png")
    got = ", ".join(f"{f} {mbps(r.mean('fig1', f, scheme='normal'))}" for f in RESERVED)
    comp = ", ".join(f"{f} {mbps(r.mean('fig1', f, 'compliant_bps', scheme='normal'))}" for f in RESERVED)
    return Figure(
        "fig2_throughput_normal.png",
        "Fig. 2: throughput of normal (New-Reno) TCP on the network of Fig. 1",
        "Paper: reserved connections get more with larger reservations but stay below their ideal "
        "shares (1.5, 2.5, 4.5 Mb/s); best-effort connections get more than their 0.5 Mb/s; compliant "
        f"throughput is far below the reservations. Measured (Mb/s, mean of windows after the first): "
        f"total {got}; best-effort mean {mbps(r.be_mean('fig1', scheme='normal'))}; compliant {comp}.",
    )


def _fig_trace(r: Results, outdir: Path, file: str, scheme: str, label: str, paper_lost: int) -> Figure:
    tr = r.traces_fig1[scheme]
    _trace_figure(outdir, file, [(tr, f"C4, {SCHEME_NAMES[scheme]}")])
    return Figure(
        file,
        f"{label}: 5-second packet trace of C4, {SCHEME_NAMES[scheme]}",
        f"Cumulative ACK, tokens lost, cwnd and available window (cwnd minus the packets outstanding) of "
        f"C4 from 40 to 45 s of one run. Paper: {paper_lost} tokens lost in its 5 seconds. Measured: "
        f"{tr.lost_in_window_pkts:.0f} packets of tokens in this trace; over the replications of the "
        f"main sweep {5 * r.mean('fig1', 'C4', 'tokens_lost_pkts_per_s', scheme=scheme):.0f} per 5 s.",
    )


def _fig5(r: Results, outdir: Path) -> Figure:
    fig, axes = new_figure(7.0, 7.0, rows=2)
    for scheme in ("normal", "window"):
        _plot_series(axes[0], r, "fig1", "C4", "throughput_bps", SCHEME_NAMES[scheme], scheme=scheme)
        _plot_series(axes[1], r, "fig1", "C4", "compliant_bps", SCHEME_NAMES[scheme], scheme=scheme)
    _ideal(axes[0], "C4")
    _ideal(axes[1], "C4", "compliant_bps")
    _finish(axes[0], "(a) total throughput of C4 (dashed: ideal payload 4.33 Mb/s)")
    _finish(axes[1], "(b) compliant throughput of C4 (dashed: reservation 4 Mb/s)")
    axes[0].legend(fontsize="x-small")
    save(fig, outdir / "fig5_c4_windowing.png")
    m = {
        s: (mbps(r.mean("fig1", "C4", scheme=s)), mbps(r.mean("fig1", "C4", "compliant_bps", scheme=s)))
        for s in ("normal", "window")
    }
    return Figure(
        "fig5_c4_windowing.png",
        "Fig. 5: C4 with and without the rate-adaptive window",
        "Paper: the windowing change raises C4's throughput, still short of the 4.5 Mb/s ideal, and "
        "its compliant throughput stays below the 4 Mb/s reservation. Measured (total, compliant Mb/s): "
        + "; ".join(f"{SCHEME_NAMES[s]} {a}, {b}" for s, (a, b) in m.items())
        + ".",
    )


def _fig9ab(r: Results, outdir: Path) -> Figure:
    _trace_figure(
        outdir,
        "fig9ab_traces_timers.png",
        [
            (r.traces_fig1["window_delayed"], "(a) C4, windowing + delayed send"),
            (r.traces_fig1["window_timed"], "(b) C4, windowing + timed send"),
        ],
    )
    lost = {s: r.traces_fig1[s].lost_in_window_pkts for s in ("window_delayed", "window_timed")}
    return Figure(
        "fig9ab_traces_timers.png",
        "Fig. 9(a, b): 5-second packet traces of C4 with delayed and with timed send",
        "Paper: delayed send still loses tokens after losses open gaps in the ACK stream; timed send "
        "loses almost none. Measured tokens lost from 40 to 45 s: "
        f"delayed {lost['window_delayed']:.0f}, timed {lost['window_timed']:.0f} packets.",
    )


def _fig9(r: Results, outdir: Path) -> Figure:
    fig, axes = new_figure(7.0, 7.0, rows=2)
    for scheme in ("window", "window_delayed", "window_timed"):
        _plot_series(axes[0], r, "fig1", "C4", "throughput_bps", SCHEME_NAMES[scheme], scheme=scheme)
        _plot_series(axes[1], r, "fig1", "C4", "compliant_bps", SCHEME_NAMES[scheme], scheme=scheme)
    _ideal(axes[0], "C4")
    _ideal(axes[1], "C4", "compliant_bps")
    _finish(axes[0], "(c) total throughput of C4")
    _finish(axes[1], "(d) compliant throughput of C4")
    axes[0].legend(fontsize="x-small")
    save(fig, outdir / "fig9cd_c4_timers.png")
    m = {
        s: (mbps(r.mean("fig1", "C4", scheme=s)), mbps(r.mean("fig1", "C4", "compliant_bps", scheme=s)))
        for s in ("window", "window_delayed", "window_timed")
    }
    lost = {s: r.traces_fig1[s].lost_in_window_pkts for s in ("window_delayed", "window_timed")}
    return Figure(
        "fig9cd_c4_timers.png",
        "Fig. 9(c, d): C4's throughput with the windowing change and delayed or timed send",
        "Paper: delayed send still loses tokens after losses; timed send shows almost none; both come "
        "closer to the 4.5 Mb/s ideal than the windowing change alone and get much more compliant "
        "throughput. Measured (total, compliant Mb/s): "
        + "; ".join(f"{SCHEME_NAMES[s]} {a}, {b}" for s, (a, b) in m.items())
        + f". Tokens lost in the traces: delayed {lost['window_delayed']:.0f}, timed "
        f"{lost['window_timed']:.0f} packets.",
    )


def _four_panels(
    r: Results, outdir: Path, file: str, sweep: str, lines: list[tuple[str, dict[str, Any]]]
) -> None:
    fig, axes = new_figure(9.0, 7.0, rows=2, cols=2)
    for ax, flow, title in zip(
        axes.flat,
        ("C1", "C2", "C4", "BE1"),
        ("(a) C1", "(b) C2", "(c) C4", "(d) a best-effort connection (BE1)"),
        strict=True,
    ):
        for label, levels in lines:
            _plot_series(ax, r, sweep, flow, "throughput_bps", label, **levels)
        _ideal(ax, flow)
        _finish(ax, title)
    axes.flat[0].legend(fontsize="x-small")
    save(fig, outdir / file)


def _fig10(r: Results, outdir: Path) -> Figure:
    schemes = ["normal", "window", "window_timed", "timed"]
    _four_panels(r, outdir, "fig10_schemes.png", "fig1", [(SCHEME_NAMES[s], {"scheme": s}) for s in schemes])
    rows = "; ".join(
        f"{SCHEME_NAMES[s]}: "
        + ", ".join(f"{f} {mbps(r.mean('fig1', f, scheme=s))}" for f in RESERVED)
        + f", BE {mbps(r.be_mean('fig1', scheme=s))}"
        for s in schemes
    )
    return Figure(
        "fig10_schemes.png",
        "Fig. 10: throughput of C1, C2, C4 and a best-effort connection under four schemes",
        "Paper: windowing + timed send is best for every connection; timed send alone leaves the larger "
        "reservations slightly short and best-effort above 0.5 Mb/s. Measured (Mb/s): " + rows + ".",
    )


def _fig12(r: Results, outdir: Path) -> Figure:
    fig, axes = new_figure(7.0, 3.6)
    for scheme in ("normal", "window", "window_timed"):
        _plot_series(
            axes, r, "fig11", "C4", "throughput_bps", SCHEME_NAMES[scheme], scheme=scheme, recovery="newreno"
        )
    _ideal(axes, "C4")
    _finish(axes, "(a) C4 on the multi-hop network, New-Reno")
    axes.legend(fontsize="x-small")
    save(fig, outdir / "fig12a_c4_multihop.png")
    m = {
        s: mbps(r.mean("fig11", "C4", scheme=s, recovery="newreno"))
        for s in ("normal", "window", "window_timed")
    }
    return Figure(
        "fig12a_c4_multihop.png",
        "Fig. 12(a): C4 on the multi-hop network of Fig. 11",
        "Paper: both windowing schemes collapse below 0.5 Mb/s, the sender stalling one packet per round "
        "trip after burst losses. Measured C4 (Mb/s): "
        + ", ".join(f"{SCHEME_NAMES[s]} {v}" for s, v in m.items())
        + f"; tokens lost in the trace: {r.traces_fig11['newreno'].lost_in_window_pkts:.0f} packets.",
    )


def _fig12b(r: Results, outdir: Path) -> Figure:
    tr = r.traces_fig11["newreno"]
    _trace_figure(outdir, "fig12b_trace_multihop.png", [(tr, "(b) C4, windowing + timed send, New-Reno")])
    return Figure(
        "fig12b_trace_multihop.png",
        "Fig. 12(b): C4's packet trace on the multi-hop network, windowing + timed send, New-Reno",
        "Paper: after a burst of losses the sender repairs one packet per round trip (a nearly flat "
        "cumulative ACK) while tokens are lost at the reserved rate minus one packet per round trip. "
        f"Measured tokens lost from 40 to 45 s: {tr.lost_in_window_pkts:.0f} packets; "
        + _stall_note(r),
    )


def _stall_note(r: Results) -> str:
    """Sec. 6's stall rate over every replication of the traced runs (the claim's measure)."""
    d = r.stalls_fig11[r.stalls_fig11["recovery"] == "newreno"]
    stalled = float(d["stall_s"].sum())
    if stalled <= 0:
        return "C4 never stalled (no cycle of a burst and a wait of at least 100 ms)."
    return (
        f"while stalled ({stalled:.0f} s over {len(d)} run(s)), {d['lost_pkts'].sum() / stalled:.1f} "
        f"tokens lost per second, {d['sends'].sum() / max(1, d['cycles'].sum()):.1f} packets sent per "
        "stalled cycle (the paper's formula: 480.8 less one packet per round trip)."
    )


def _fig13(r: Results, outdir: Path) -> Figure:
    _trace_figure(
        outdir,
        "fig13_traces_sack_maxburst.png",
        [
            (r.traces_fig11["sack"], "(a) C4, windowing + timed send, SACK"),
            (r.traces_fig11["newreno_mb2"], "(b) C4, windowing + timed send, New-Reno with MaxBurst 2"),
        ],
    )
    lost = {k: r.traces_fig11[k].lost_in_window_pkts for k in ("sack", "newreno_mb2", "newreno")}
    return Figure(
        "fig13_traces_sack_maxburst.png",
        "Fig. 13: C4's packet traces on the multi-hop network with SACK and with MaxBurst 2",
        "Paper: both perform comparably well with few lost tokens. Measured tokens lost in 5 s: "
        f"SACK {lost['sack']:.0f}, MaxBurst 2 {lost['newreno_mb2']:.0f} (New-Reno without MaxBurst "
        f"{lost['newreno']:.0f}).",
    )


FIG14_LINES = [("normal", "newreno"), ("window", "newreno_mb2"), ("window_timed", "newreno_mb2")]


def _fig14(r: Results, outdir: Path) -> Figure:
    lines = [
        (f"{SCHEME_NAMES[s]} ({RECOVERY_NAMES[rec]})", {"scheme": s, "recovery": rec})
        for s, rec in FIG14_LINES
    ]
    _four_panels(r, outdir, "fig14_multihop_schemes.png", "fig11", lines)
    rows = "; ".join(
        f"{label}: "
        + ", ".join(f"{f} {mbps(r.mean('fig11', f, **lv))}" for f in RESERVED)
        + f", BE {mbps(r.be_mean('fig11', **lv))}"
        for label, lv in lines
    )
    return Figure(
        "fig14_multihop_schemes.png",
        "Fig. 14: the schemes on the multi-hop network, MaxBurst 2 for the windowing schemes",
        "Paper: the windowing schemes with MaxBurst 2 approach the ideal; C1 (shortest RTT) gets slightly "
        "more than its share, best-effort (longest RTT) less. Measured (Mb/s): " + rows + ".",
    )


def _sensitivity(r: Results, outdir: Path) -> Figure:
    fig, axes = new_figure(9.0, 3.8, cols=len(SENSITIVITY_SCHEMES))
    scales = sorted([*RTT_SCALES, 1.0])
    width = 0.8 / len(scales)
    x = np.arange(len(NAMES))
    for ax, scheme in zip(axes, SENSITIVITY_SCHEMES, strict=True):
        for j, s in enumerate(scales):
            ys = [sensitivity_mean(r, scheme, s, f) / 1e6 for f in NAMES]
            ax.bar(x + (j - (len(scales) - 1) / 2) * width, ys, width, label=f"RTT x{s:g}")
        ax.scatter(
            x,
            [PAYLOAD_IDEAL_BPS[f] / 1e6 for f in NAMES],
            color="k",
            marker="_",
            s=200,
            zorder=3,
            label="ideal",
        )
        ax.set_xticks(x, NAMES, fontsize="x-small")
        ax.set_title(SCHEME_NAMES[scheme], fontsize="small", loc="left")
        ax.set_ylabel("Mb/s")
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize="x-small")
    save(fig, outdir / "sensitivity_rtt.png")
    c4 = {s: mbps(sensitivity_mean(r, "normal", s, "C4")) for s in scales}
    return Figure(
        "sensitivity_rtt.png",
        "Sensitivity: Fig. 1's results with every propagation delay halved or doubled",
        "Not in the paper: its link labels are unknown, so every delay is scaled by 0.5 and 2 (the "
        "advertised window following the unloaded delay-bandwidth product: "
        + " and ".join(f"{unloaded_bdp_packets('fig1', s)}" for s in RTT_SCALES)
        + " packets). Bars: mean throughput per connection; black ticks: ideal shares. "
        f"C4 with normal TCP (Mb/s) by scale: {c4}.",
    )


MIN_RTT_LINES = [
    ("normal", ""),
    ("window", ""),
    ("window_min", "_min"),
    ("window_timed", ""),
    ("window_timed_min", "_min"),
]


def _min_rtt(r: Results, outdir: Path) -> Figure:
    """C4 under each windowing scheme with RWND from the smoothed RTT (the paper's reading) and
    from the minimum RTT (the alternative), on both networks with New-Reno."""
    fig, axes = new_figure(7.0, 7.0, rows=2)
    nets = [
        ("fig1", {}, "(a) C4 on Fig. 1's network"),
        ("fig11", {"recovery": "newreno"}, "(b) C4 on Fig. 11's network"),
    ]
    for ax, (sweep, levels, title) in zip(axes, nets, strict=True):
        for scheme, suffix in MIN_RTT_LINES:
            # The alternative's lines are dashed: not the paper's reading.
            ls = "--" if suffix else "-"
            label = SCHEME_NAMES[scheme]
            _plot_series(ax, r, sweep + suffix, "C4", "throughput_bps", label, ls, scheme=scheme, **levels)
        _ideal(ax, "C4")
        _finish(ax, f"{title}, New-Reno (dashed: ideal payload 4.33 Mb/s)")
    axes[0].legend(fontsize="x-small")
    save(fig, outdir / "alt_min_rtt_c4.png")
    rows = "; ".join(
        f"{sweep}: "
        + ", ".join(
            f"{SCHEME_NAMES[s]} {mbps(r.mean(sweep + x, 'C4', scheme=s, **lv))}" for s, x in MIN_RTT_LINES
        )
        for sweep, lv, _ in nets
    )
    return Figure(
        "alt_min_rtt_c4.png",
        "Alternative, not the paper's reading: C4 with RWND from the minimum RTT",
        "Not in the paper: RWND = reservation x the smallest RTT sample instead of the smoothed RTT, "
        "which grows during a long New-Reno recovery until RWND reaches the advertised window. Measured "
        "C4 (Mb/s): " + rows + ".",
    )


def _min_rtt_trace(r: Results, outdir: Path) -> Figure:
    file = "alt_fig6_trace_window_min.png"
    tr = r.traces_fig1["window_min"]
    _trace_figure(outdir, file, [(tr, f"C4, {SCHEME_NAMES['window_min']}")])
    return Figure(
        file,
        "Alternative, not the paper's reading: Fig. 6's trace with RWND from the minimum RTT",
        "The run of Fig. 6 with RWND from the smallest RTT sample. Measured: "
        f"{tr.lost_in_window_pkts:.0f} packets of tokens lost from 40 to 45 s (Fig. 6's run with the "
        f"smoothed RTT: {r.traces_fig1['window'].lost_in_window_pkts:.0f}; the paper's Fig. 6: 560); "
        f"ssthresh at the advertised window at {tr.ssthresh_at_awnd:.0%} of the trace's ACKs "
        f"(smoothed: {r.traces_fig1['window'].ssthresh_at_awnd:.0%}).",
    )


def sensitivity_mean(r: Results, scheme: str, scale: float, flow: str) -> float:
    """A connection's throughput at an RTT scale (1.0 is the main sweep)."""
    if scale == 1.0:
        return r.mean("fig1", flow, scheme=scheme)
    return r.mean("fig1_rtt", flow, scheme=scheme, rtt_scale=f"{scale:g}")


__all__ = ["FIG1_SCHEMES", "figures", "sensitivity_mean"]
