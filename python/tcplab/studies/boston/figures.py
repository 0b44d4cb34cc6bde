"""The TCP Boston study's figures (Bestavros and Kim, 1997, Figs. 7-17) and three of its own
(retransmission, the gap against the window, sensitivity), from the derived results. Each
caption states what the paper reported beside what was measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tcplab.report.figures import new_figure, save
from tcplab.report.numbers import pct
from tcplab.report.study import Figure
from tcplab.studies.boston.results import Results, loss_metric, timers_run
from tcplab.studies.boston.scenarios import CELL_BYTES, DEFAULT_ACCESS
from tcplab.studies.boston.sweeps import NAMES, PROTOS, REF_BUFFER, SERIES_S

__all__ = ["figures"]

PK = "9180-byte packets, 512 cells"


def figures(r: Results, outdir: Path) -> list[Figure]:
    out: list[Figure] = []
    for window, nums in ((64000, (7, 8, 9, 10)), (8000, (11, 12, 13, 14))):
        if window in r.window_sizes:
            out += _buffer_figures(r, outdir, window, nums)
    out += _series_figures(r, outdir)
    out += _own_figures(r, outdir)
    return out


def _kb(cells: float) -> float:
    return cells * CELL_BYTES / 1000


def _panel_grid(title: str) -> tuple[Any, Any]:
    fig, axes = new_figure(10.0, 7.5, rows=2, cols=2)
    fig.suptitle(title)
    return fig, axes.ravel()


def _vs_buffer(
    r: Results,
    outdir: Path,
    fname: str,
    metric: str,
    window: int,
    ylabel: str,
    title: str,
    *,
    scale: float = 1.0,
    logy: bool = False,
    ylim: tuple[float, float] | None = None,
    per_protocol_metric: Callable[[str], str] | None = None,
) -> None:
    t = r.runs["star"]
    t = t[t["window"] == window]
    fig, axes = _panel_grid(title)
    for ax, proto in zip(axes, PROTOS, strict=True):
        col = per_protocol_metric(proto) if per_protocol_metric else metric
        for packet in r.packets:
            g = t[(t["protocol"] == proto) & (t["packet"] == packet)].groupby("buffer")[col]
            mean, lo, hi = g.mean(), g.min(), g.max()
            xs = [_kb(b) for b in mean.index]
            y = mean.replace(np.inf, np.nan).to_numpy(dtype=float) * scale
            lo_, hi_ = (v.replace(np.inf, np.nan).to_numpy(dtype=float) * scale for v in (lo, hi))
            err = np.clip(np.nan_to_num([y - lo_, hi_ - y], nan=0.0), 0.0, None)
            ax.errorbar(xs, y, yerr=err, marker="o", ms=4, capsize=2, lw=1.2, label=f"{packet} B")
        ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(
            NAMES[proto] + (" (cell loss)" if col == "cell_loss_rate" else ""), fontsize="small", loc="left"
        )
        ax.set_xlabel("switch buffer (kB; 64-4000 cells of 53 bytes)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize="x-small", title="packet size", title_fontsize="x-small")
    save(fig, outdir / fname)


def _series_figure(r: Results, outdir: Path, fname: str, sources: int, flow: int | None, title: str) -> None:
    protos = PROTOS
    fig, axes = new_figure(14.0, 7.5, rows=3, cols=len(protos))
    fig.suptitle(title)
    rows = [("switch_input", "switch input"), ("bottleneck", "bottleneck link"), ("receiver", "receiver")]
    for col, proto in enumerate(protos):
        s = r.series.get((sources, proto, flow), {k: [] for k, _ in rows})
        for row, (key, label) in enumerate(rows):
            ax = axes[row][col]
            y = np.asarray(s[key][:SERIES_S], dtype=float) / 1000
            if y.size:
                ax.plot(np.arange(y.size) + 0.5, y, lw=0.8, drawstyle="steps-mid")
                ax.set_ylim(bottom=0)
            else:
                ax.text(
                    0.5,
                    0.5,
                    "no per-connection series\nin this run",
                    ha="center",
                    va="center",
                    transform=ax.transAxes,
                    fontsize="small",
                )
            ax.set_xlim(0, SERIES_S)
            ax.grid(alpha=0.3)
            if row == 0:
                ax.set_title(NAMES[proto], fontsize="small")
            if col == 0:
                ax.set_ylabel(f"{label}\n(kB/s)")
            if row == 2:
                ax.set_xlabel("time (s)")
    save(fig, outdir / fname)


def _window_figure(r: Results, outdir: Path) -> None:
    m = r.means["star"].reset_index()
    fig, axes = new_figure(10.0, 4.2, rows=1, cols=2)
    for ax, other in zip(axes, ("boston", "reno_epd"), strict=True):
        for packet in r.packets:
            gaps = []
            for w in r.window_sizes:
                sel = m[(m["packet"] == packet) & (m["window"] == w)]
                a = sel[sel["protocol"] == other].set_index("buffer")["effective_throughput"]
                b = sel[sel["protocol"] == "reno"].set_index("buffer")["effective_throughput"]
                gaps.append(float((a - b).mean()))
            ax.plot([w / 1000 for w in r.window_sizes], gaps, marker="o", label=f"{packet} B")
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_xticks([8, 16, 32, 64], labels=["8", "16", "32", "64"])
        ax.set_xlabel("TCP window (kB)")
        ax.set_ylabel(f"{NAMES[other]} minus Reno\neffective throughput (mean over buffers)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle("The gap between the protocols against the window (16 sources)")
    save(fig, outdir / "window_gap.png")


def _sensitivity_figure(r: Results, outdir: Path) -> None:
    fig, axes = new_figure(11.0, 4.4, rows=1, cols=2)
    for ax, n in zip(axes, (1, 16), strict=True):
        labels, xs = [], []
        width = 0.2
        for i, access in enumerate(r.access):
            m = r.means[f"access_{access}{n}"].reset_index()
            levels = timers_run(m)
            for j, timer in enumerate(levels):
                x = i * len(levels) + j
                labels.append(f"{access}\n{timer}")
                xs.append(x)
                for k, proto in enumerate(PROTOS):
                    sel = m[(m["protocol"] == proto) & (m["timer"] == timer) & (m["buffer"] == REF_BUFFER)]
                    v = float(sel["effective_throughput"].iloc[0]) if len(sel) else math.nan
                    ax.bar(
                        x + (k - 1.5) * width, v, width, color=f"C{k}", label=NAMES[proto] if x == 0 else None
                    )
        ax.set_xticks(xs, labels=labels, fontsize="x-small")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("effective throughput")
        ax.set_title(f"{n} source{'s' if n > 1 else ''}: 9180 B, 64 kB, 512 cells", fontsize="small")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize="x-small")
    fig.suptitle(
        "Sensitivity: access-link model x TCP timer (FR: what a fast retransmit does to the backoff)"
    )
    save(fig, outdir / "sensitivity.png")


def _buffer_figures(r: Results, outdir: Path, window: int, nums: tuple[int, int, int, int]) -> list[Figure]:
    """Figs. 7-10 (64 kB window) or 11-14 (8 kB): loss, response time (and zoomed), effective
    throughput against the buffer."""
    kb = window // 1000
    f_loss, f_rt, f_rtz, f_eff = nums
    _vs_buffer(
        r,
        outdir,
        f"fig{f_loss:02d}_loss_{kb}kB.png",
        "loss_rate",
        window,
        "loss rate",
        f"Fig. {f_loss}: loss rate against buffer size, {kb} kB window, 16 sources",
        logy=True,
        per_protocol_metric=loss_metric,
    )
    _vs_buffer(
        r,
        outdir,
        f"fig{f_rt:02d}_response_{kb}kB.png",
        "response_time_ms_per_byte",
        window,
        "response time per byte (ms/byte)",
        f"Fig. {f_rt}: response time per byte against buffer size, {kb} kB window",
        logy=True,
    )
    t = r.runs["star"]
    t = t[(t["window"] == window) & (t["buffer"] >= 512)]
    top = float(np.nanpercentile(t["response_time_ms_per_byte"].replace(np.inf, np.nan), 90)) * 1.2
    _vs_buffer(
        r,
        outdir,
        f"fig{f_rtz:02d}_response_zoom_{kb}kB.png",
        "response_time_ms_per_byte",
        window,
        "response time per byte (ms/byte)",
        f"Fig. {f_rtz}: as Fig. {f_rt}, y range reduced",
        ylim=(0, top if math.isfinite(top) else 1.0),
    )
    _vs_buffer(
        r,
        outdir,
        f"fig{f_eff:02d}_effective_{kb}kB.png",
        "effective_throughput",
        window,
        "effective throughput (fraction of the link)",
        f"Fig. {f_eff}: effective throughput against buffer size, {kb} kB window",
        ylim=(0, 1.05),
    )

    def at(proto: str, metric: str) -> float:
        return r.at("star", proto, metric, window=window)

    return [
        Figure(
            f"fig{f_loss:02d}_loss_{kb}kB.png",
            f"Fig. {f_loss}: loss rate, {kb} kB window",
            f"Packet loss rate (Reno, Reno with EPD) and cell loss rate (Boston) against the switch "
            f"buffer, one curve per packet size; means over replications, bars min-max. Paper: loss "
            f"grows as the buffer shrinks, Reno's exponentially below about 50 kB and near 100% at the "
            f"smallest buffer; Reno/Boston between 1.7 and 2.4. Measured at {PK}: Reno "
            f"{pct(at('reno', 'packet_loss_rate'), 1)}, Boston "
            f"{pct(at('boston', 'cell_loss_rate'), 1)} (cells).",
        ),
        Figure(
            f"fig{f_rt:02d}_response_{kb}kB.png",
            f"Fig. {f_rt}: response time per byte, {kb} kB window",
            "Connection time over bytes delivered (ms/byte, log scale). Paper: Reno's response time "
            "rises steeply for the two larger packet sizes as the buffer shrinks below 250 kB; with "
            "large buffers Boston edges Reno by about 0.007 ms/byte. Measured at "
            f"{PK}: Reno {at('reno', 'response_time_ms_per_byte'):.4f}, "
            f"Boston {at('boston', 'response_time_ms_per_byte'):.4f} ms/byte.",
        ),
        Figure(
            f"fig{f_rtz:02d}_response_zoom_{kb}kB.png",
            f"Fig. {f_rtz}: response time per byte (reduced range), {kb} kB window",
            f"Fig. {f_rt} on a linear axis cut at 1.2 x the 90th percentile of the points at 512 cells "
            "and more, as the paper's reduced-range figure.",
        ),
        Figure(
            f"fig{f_eff:02d}_effective_{kb}kB.png",
            f"Fig. {f_eff}: effective throughput, {kb} kB window",
            "Useful cells over the bottleneck's cell capacity. Paper (64 kB): Reno stays low, "
            "especially for large packets; Boston approaches the optimum near 100 kB of buffer "
            "(8 kB window: the two converge). Measured at "
            f"{PK}: Reno {pct(at('reno', 'effective_throughput'), 1)}, "
            f"Reno+EPD {pct(at('reno_epd', 'effective_throughput'), 1)}, "
            f"Boston {pct(at('boston', 'effective_throughput'), 1)}, "
            f"Boston bitmap {pct(at('boston_bitmap', 'effective_throughput'), 1)}"
            " (9180-byte IDA packets carry 199 shards of 46 bytes with 2-byte ids, see the report).",
        ),
    ]


def _series_figures(r: Results, outdir: Path) -> list[Figure]:
    """Figs. 15-17: bytes per second into the switch, on the bottleneck and delivered."""
    _series_figure(
        r,
        outdir,
        "fig15_one_source.png",
        1,
        None,
        "Fig. 15: one source alone, bytes per second (first 100 s)",
    )
    _series_figure(
        r, outdir, "fig16_one_of_16.png", 16, 0, "Fig. 16: one source of 16, bytes per second (first 100 s)"
    )
    _series_figure(
        r, outdir, "fig17_all_16.png", 16, None, "Fig. 17: all 16 sources, bytes per second (first 100 s)"
    )

    def one(proto: str, metric: str) -> float:
        return r.at("single", proto, metric)

    def ref(proto: str, metric: str) -> float:
        return r.at("star", proto, metric)

    return [
        Figure(
            "fig15_one_source.png",
            "Fig. 15: one source alone (9180 B, 64 kB, 512 cells)",
            "Bytes per second serialised towards the switch by the source (top), on the bottleneck "
            "link (middle) and delivered to the receiving application (bottom), from per-second "
            "counters of the core (one run). Paper: Boston 2.3% cell drops, Reno 4.9% packet drops; "
            "Boston sends 3.2% more; effective throughput Reno 83.1%, Boston 89.6%. Measured (means "
            f"over replications): cell drops Boston {pct(one('boston', 'cell_loss_rate'), 1)}, packet "
            f"drops Reno {pct(one('reno', 'packet_loss_rate'), 1)}; effective throughput Reno "
            f"{pct(one('reno', 'effective_throughput'), 1)}, Reno+EPD "
            f"{pct(one('reno_epd', 'effective_throughput'), 1)}, Boston "
            f"{pct(one('boston', 'effective_throughput'), 1)}.",
        ),
        Figure(
            "fig16_one_of_16.png",
            "Fig. 16: one source among 16",
            "Source 0's bytes per second into the switch (top), its cells on the bottleneck link "
            "(middle, from the link's per-connection series) and delivered (bottom). Paper: the Boston "
            "source sent 6.7 MB and Reno's 5.1 MB in 700 s; "
            "effective throughput per source Boston 5.1%, Reno 3.8%. Measured (mean per source): "
            f"Reno {ref('reno', 'source_bytes') / 1e6:.1f} MB, {pct(ref('reno', 'source_eff'), 1)}; "
            f"Boston {ref('boston', 'source_bytes') / 1e6:.1f} MB, {pct(ref('boston', 'source_eff'), 1)} "
            f"(over {r.duration_s:g} s).",
        ),
        Figure(
            "fig17_all_16.png",
            "Fig. 17: all 16 sources",
            "Aggregate bytes per second into the switch, on the bottleneck and delivered. Paper: "
            "effective throughput Boston 78.9%, Reno 59.1%. Measured (means over replications): Reno "
            f"{pct(ref('reno', 'effective_throughput'), 1)}, Reno+EPD "
            f"{pct(ref('reno_epd', 'effective_throughput'), 1)}, Boston "
            f"{pct(ref('boston', 'effective_throughput'), 1)}, Boston bitmap "
            f"{pct(ref('boston_bitmap', 'effective_throughput'), 1)}.",
        ),
    ]


def _own_figures(r: Results, outdir: Path) -> list[Figure]:
    """Figures the paper describes but does not show, and this study's sensitivity runs."""
    _vs_buffer(
        r,
        outdir,
        "retransmission_64kB.png",
        "retransmission_rate",
        64000,
        "retransmission rate",
        "Retransmission rate against buffer size, 64 kB window (omitted in the paper)",
        logy=True,
    )
    _window_figure(r, outdir)
    _sensitivity_figure(r, outdir)
    return [
        Figure(
            "retransmission_64kB.png",
            "Retransmission rate, 64 kB window",
            "Retransmitted data packets over data packets sent. Paper: almost identical to the loss "
            "rates of Fig. 7 (so omitted there).",
        ),
        Figure(
            "window_gap.png",
            "The gap against the window",
            "Effective throughput of Boston (left) and Reno with EPD (right) minus Reno's, averaged over "
            "the six buffers, against the window. Paper: the protocols converge as the window shrinks "
            "to 8 kB.",
        ),
        Figure(
            "sensitivity.png",
            "Sensitivity to the access-link model and the timer",
            "Effective throughput at the reference point for each access-link model (payload: 48-byte "
            "payloads at 1.5 Mb/s into the switch; cell: 53-byte cells at 1.5 Mb/s; packet: packet links, "
            f"cells cut at the switch; the study's default from the model sweep: {DEFAULT_ACCESS}) and timer "
            "on the ns1 stack, "
            "labelled by what ran: ns-1's timer (100 ms ticks, 200 ms minimum RTO) with a fast retransmit "
            "doubling the backoff (the study's reading) or keeping it (ns-2.1b's), and ns-2's timer in "
            "100 ms ticks (200 ms minimum) or 500 ms ticks (1 s minimum).",
        ),
    ]
