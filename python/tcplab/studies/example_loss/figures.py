"""The example study's figures: goodput and timeouts against loss, and congestion-window traces."""

from __future__ import annotations

from pathlib import Path

from tcplab.report.figures import new_figure, plot_means, save
from tcplab.report.study import Figure
from tcplab.studies.example_loss.results import Results, mbps
from tcplab.studies.example_loss.scenarios import mathis_bps
from tcplab.studies.example_loss.sweeps import LOSS, NAMES, TRACE_LOSS, VARIANTS


def figures(r: Results, outdir: Path) -> list[Figure]:
    g = r.goodput
    fig, ax = new_figure()
    plot_means(ax, g, "loss", "variant", x_scale=100, y_scale=1e-6, label=lambda v: NAMES[v])
    ps = [p for p in LOSS if p > 0]
    ax.plot(
        [p * 100 for p in ps], [mathis_bps(p) / 1e6 for p in ps], "k--", lw=1, label="Mathis et al. formula"
    )
    ax.set_yscale("log")
    ax.set_xlabel("random loss rate of data packets (%)")
    ax.set_ylabel("goodput (Mb/s, log scale)")
    ax.set_title("Goodput against random loss, 10 Mb/s link, 41 ms RTT")
    ax.legend(fontsize="small")
    save(fig, outdir / "goodput_vs_loss.png")

    t = r.timeouts
    fig2, ax2 = new_figure()
    plot_means(ax2, t, "loss", "variant", x_scale=100, label=lambda v: NAMES[v])
    duration = r.duration_s
    ax2.set_xlabel("random loss rate of data packets (%)")
    ax2.set_ylabel(f"retransmission timeouts per {duration:g} s run")
    ax2.set_title("Timeouts against random loss")
    ax2.legend(fontsize="small")
    save(fig2, outdir / "timeouts_vs_loss.png")

    fig3, axes = new_figure(7.0, 7.5, rows=len(VARIANTS))
    for ax3, variant in zip(axes, VARIANTS, strict=True):
        tr = r.traces[variant]
        ax3.plot(tr["time_s"], tr["cwnd"] / 1000, drawstyle="steps-post", lw=0.8)
        ax3.set_ylabel("cwnd (KB)")
        ax3.set_title(NAMES[variant], fontsize="small", loc="left")
        ax3.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig3.suptitle(f"Congestion window at {TRACE_LOSS:.0%} random loss (one run each)")
    save(fig3, outdir / "cwnd_traces.png")

    at2 = {v: r.mean(v, 0.02) for v in VARIANTS}
    measured = ", ".join(f"{NAMES[v]} {mbps(at2[v])}" for v in VARIANTS)
    return [
        Figure(
            "goodput_vs_loss.png",
            "Goodput against random loss",
            "Mean goodput over replications with 90% confidence intervals; dashed: the formula of "
            "Mathis et al. (1997), MSS/RTT x sqrt(3/2)/sqrt(p) with the 41.2 ms base RTT. "
            "Paper: Fall & Floyd (1996) report that Reno suffers when several packets of one window "
            "are lost, and that NewReno and SACK avoid it; Mathis et al. predict goodput falling as "
            f"1/sqrt(p). Measured at 2% loss (Mb/s): {measured}; formula {mbps(mathis_bps(0.02))}.",
        ),
        Figure(
            "timeouts_vs_loss.png",
            "Retransmission timeouts against random loss",
            "Mean number of retransmission timeouts per run, 90% confidence intervals. Paper: without "
            "fast retransmit (Vanilla) every loss ends in a timeout; Fall & Floyd (1996) show Reno "
            "falling back to timeouts after multiple losses in a window. Measured at 2% loss: "
            + ", ".join(f"{NAMES[v]} {r.mean(v, 0.02, 'timeouts'):.1f}" for v in VARIANTS)
            + " timeouts per run.",
        ),
        Figure(
            "cwnd_traces.png",
            "Congestion window traces",
            f"The congestion window (KB) of one 10 s run per variant at {TRACE_LOSS:.0%} loss, from "
            "the traces in the result store. Paper: Fall & Floyd (1996), Figs. 2-5 show the same "
            "contrast for a few drops per window: Reno and Vanilla collapse to one segment after "
            "timeouts, NewReno and SACK halve and continue.",
        ),
    ]
