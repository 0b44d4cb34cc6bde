"""Figures for two statements of Cohen and Ramanathan (1998) that have no figure in the paper:
FTP put against the delayed-ACK stall (Sec. VI.A) and the trade-offs of a smaller MSS (Sec. VI.B).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tcplab.report.figures import new_figure, save
from tcplab.report.numbers import size_text
from tcplab.report.study import Figure
from tcplab.studies.hfc import mss as mt
from tcplab.studies.hfc import put
from tcplab.studies.hfc.results import Results


def fig_put(r: Results, out: Path) -> Figure | None:
    if r.put is None or r.put_first_ack is None:
        return None
    red = put.reductions(r.put, r.fig12[r.fig12["pattern"] == "ftp"])
    fig, ax = new_figure()
    x = red["size"].to_numpy(float) / 1000
    for col, label, style in (
        ("get reduction", "get (Fig. 12, FTP): server window 1, PC delays ACKs", "-s"),
        ("put iw 1 reduction", "put, PC window 1 (control)", ":^"),
        ("put reduction", "put: PC window 2, server delays ACKs", "-o"),
    ):
        ax.plot(x, 100 * red[col].to_numpy(float), style, ms=4, lw=1.2, label=label)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("transfer size (KB, log scale)")
    ax.set_ylabel("throughput lost to delayed ACKs (%)")
    ax.set_title("FTP put and get: the cost of the receiver's delayed ACKs (lossless)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, out / "ftp_put.png")
    wait = r.put_first_ack.groupby("config")["first_ack_s"].mean() * 1000
    small = red[red["size"] <= 150_000]
    big = red.iloc[-1]
    return Figure(
        "ftp_put.png",
        "FTP put (Sec. VI.A, no figure in the paper): throughput lost to delayed ACKs, put against get",
        "Reduction = 1 - (delayed ACK) / (ACK every segment) of mean throughput over "
        f"{int(r.put['count'].min())} runs per point; the put runs upstream (3 Mb/s), the get "
        "downstream. Paper: 'because the initial "
        "transmission window of the subscriber PC is two packets, put requests do not experience this "
        f"problem'. Measured up to 150 KB: put {small['put reduction'].min():.0%}-"
        f"{small['put reduction'].max():.0%}, get {small['get reduction'].min():.0%}-"
        f"{small['get reduction'].max():.0%}, put with a PC window of 1 "
        f"{small['put iw 1 reduction'].min():.0%}-{small['put iw 1 reduction'].max():.0%}; at "
        f"{size_text(int(big['size']))} put {big['put reduction']:.0%}, get {big['get reduction']:.0%}. "
        f"First ACK of a 30 KB put: {wait['put']:.0f} ms after the first segment (server ACKing every "
        f"segment: {wait['put_nodelack']:.0f} ms; PC window 1: {wait['put_iw1']:.0f} ms).",
    )


def fig_mss(r: Results, out: Path) -> Figure | None:
    t = r.mss
    if t is None:
        return None
    fig, axes = new_figure(9.0, 7.0, rows=2, cols=2)
    (a, b), (c, d) = axes
    for x in mt.BURST_RATIOS:
        g = t.burst[t.burst["burst / 1 KB packet time"] == x].sort_values("mss")
        line = a.plot(g["mss"], 100 * g["loss"], "-o", ms=4, label=f"bursts x{x:g}")[0]
        a.plot(g["mss"], 100 * g["predicted"], ":", color=line.get_color(), lw=1)
    a.axhspan(5, 10, color="grey", alpha=0.12)
    a.set_xlabel("MSS (bytes)")
    a.set_ylabel("packet loss (%)")
    a.set_title("(a) burst noise: 1 KB packets lose 10%", fontsize="small", loc="left")
    for p in mt.RECOVERY_LOSS:
        g = t.recovery[np.isclose(t.recovery["data_loss"], p)].sort_values("mss")
        b.plot(g["mss"], 100 * g["fr_share"], "-o", ms=4, label=f"{p:.0%} loss")
    b.set_xlabel("MSS (bytes)")
    b.set_ylabel("recoveries by fast retransmit (%)")
    b.set_title("(b) fast retransmit vs timeout", fontsize="small", loc="left")
    g = t.goodput.sort_values("mss")
    c.plot(g["mss"], g["goodput_mbps"], "o", ms=5, label="measured (3 to 6 MB)")
    c.plot(g["mss"], g["analytic_mbps"], "-", lw=1, label="10 Mb/s x MSS / (MSS + 40)")
    c.set_xlabel("MSS (bytes)")
    c.set_ylabel("lossless goodput (Mb/s)")
    c.set_title("(c) header overhead", fontsize="small", loc="left")
    for m in mt.MSS_LEVELS:
        tr = t.cwnd[m]
        tt = tr["time_s"].to_numpy(float) - float(tr["time_s"].iloc[0])
        d.step(1000 * tt, tr["cwnd"].to_numpy(float) / 1024, where="post", label=f"MSS {m}")
    d.axhline(mt.SLOWSTART_WINDOW / 1024, color="grey", lw=0.8, ls="--")
    d.set_xlim(0, 400)
    d.set_xlabel("time (ms)")
    d.set_ylabel("congestion window (KB)")
    d.set_title("(d) slow start, lossless", fontsize="small", loc="left")
    for ax in (a, b, c, d):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle("Sec. VI.B: the trade-offs of a smaller MSS")
    save(fig, out / "mss_tradeoffs.png")
    ss = t.slowstart.set_index("mss")
    return Figure(
        "mss_tradeoffs.png",
        "Sec. VI.B's trade-offs of a smaller MSS (no figure in the paper), MSS 1460, 1024, 512",
        "(a) Packet loss on the downstream channel under burst noise set so 1 KB packets (MSS 1024) lose "
        "10%, bursts of 0.1, 1 and 10 times a 1 KB packet's time (dotted: the two-state model's "
        "prediction; shaded: the paper's 5-10%); (b) share of loss recoveries that are fast retransmits, "
        "Bernoulli loss per packet, 3 MB, 8 KB window; (c) lossless marginal goodput on the 10 Mb/s "
        "bottleneck against the header arithmetic; (d) the congestion window of one lossless 300 KB "
        "transfer (48 KB window). Time to a 16 KB window: "
        + ", ".join(f"MSS {m} {ss.loc[m, 'to_16k_window_s'] * 1000:.0f} ms" for m in mt.MSS_LEVELS)
        + ".",
    )
