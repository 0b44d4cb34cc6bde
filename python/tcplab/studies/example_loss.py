"""Example study: goodput of Vanilla, Reno, NewReno and SACK against random loss on one link.

It exercises the whole reproduce path (sweeps with replications, the store, traces, confidence
intervals, figures, claims) on a question with well-known answers, before the seed studies.

One bulk TCP flow over a 10 Mb/s link with 20 ms of propagation delay each way (a 41.2 ms
round trip with serialisation) and a 100-packet drop-tail queue. Data packets are lost at
random (Bernoulli) at 0, 0.5, 1, 2 and 5%; ACKs are never lost. MSS 1460 bytes, a 64 KiB
receive window (above the 51.5 KB bandwidth-delay product, so a lossless flow fills the link),
fine-grained RTO with the default 1 s minimum, no delayed ACKs. SACK is the seed 002 PIPE
algorithm (``sack``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab.figures import new_figure, plot_means, save
from tcplab.spec import SweepSpec
from tcplab.stats import summarize
from tcplab.study import Claim, Figure, Study, StudyData, Table

VARIANTS = ["vanilla", "reno", "newreno", "sack"]
NAMES = {"vanilla": "Vanilla", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"}
LOSS = [0.0, 0.005, 0.01, 0.02, 0.05]
RATE_BPS = 10e6
DELAY_S = 0.020
MSS = 1460
HEADER = 40
# Round trip without queueing: propagation both ways, a data packet's and an ACK's serialisation.
BASE_RTT_S = 2 * DELAY_S + (MSS + HEADER) * 8 / RATE_BPS + HEADER * 8 / RATE_BPS
PAYLOAD_RATE_BPS = RATE_BPS * MSS / (MSS + HEADER)
TRACE_LOSS = 0.02


def scenario(duration_s: float, trace: bool = False) -> dict[str, Any]:
    return {
        "name": "example-loss",
        "duration": duration_s,
        "nodes": ["sender", "receiver"],
        "tcp": {"variant": "reno", "mss": MSS, "header_bytes": HEADER, "rcv_buf": "64KiB"},
        "link": [
            {
                "a": "sender",
                "b": "receiver",
                "rate": RATE_BPS,
                "delay": DELAY_S,
                "queue": 100,
                "ab": {"loss": {"model": "bernoulli", "p": 0.0}},
            }
        ],
        "flow": [{"name": "bulk", "src": "sender", "dst": "receiver", "trace": trace}],
    }


LABELS = {"tcp.variant": "variant", "link.0.ab.loss.p": "loss"}


def sweeps(quick: bool) -> list[SweepSpec]:
    duration, reps = (20.0, 5) if quick else (100.0, 20)
    return [
        SweepSpec(
            name="loss",
            base=scenario(duration),
            factors={"tcp.variant": VARIANTS, "link.0.ab.loss.p": LOSS},
            replications=reps,
            seed=1996,
            labels=LABELS,
        ),
        SweepSpec(
            name="traces",
            base=scenario(10.0, trace=True),
            factors={"tcp.variant": VARIANTS, "link.0.ab.loss.p": [TRACE_LOSS]},
            replications=1,
            seed=1996,
            labels=LABELS,
        ),
    ]


def mathis_bps(p: float, rtt_s: float = BASE_RTT_S) -> float:
    """Mathis et al. (1997): BW = MSS / RTT * sqrt(3/2) / sqrt(p)."""
    return MSS * 8 / rtt_s * math.sqrt(1.5) / math.sqrt(p)


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def goodput(data: StudyData) -> pd.DataFrame:
    return summarize(_ok(data["loss"]), ["variant", "loss"], "total_goodput_bps", confidence=0.90)


def _mean(table: pd.DataFrame, variant: str, loss: float) -> float:
    row = table[(table["variant"] == variant) & (table["loss"] == loss)]
    return float(row["mean"].iloc[0])


def _mbps(x: float) -> float:
    return round(x / 1e6, 3)


# ---------------------------------------------------------------- figures


def figures(data: StudyData, outdir: Path) -> list[Figure]:
    g = goodput(data)
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

    t = summarize(_ok(data["loss"]), ["variant", "loss"], "timeouts", confidence=0.90)
    fig2, ax2 = new_figure()
    plot_means(ax2, t, "loss", "variant", x_scale=100, label=lambda v: NAMES[v])
    duration = data.specs["loss"].base["duration"]
    ax2.set_xlabel("random loss rate of data packets (%)")
    ax2.set_ylabel(f"retransmission timeouts per {duration:g} s run")
    ax2.set_title("Timeouts against random loss")
    ax2.legend(fontsize="small")
    save(fig2, outdir / "timeouts_vs_loss.png")

    traces = _ok(data["traces"])
    fig3, axes = new_figure(7.0, 7.5, rows=len(VARIANTS))
    for ax3, variant in zip(axes, VARIANTS, strict=True):
        key = traces.loc[traces["variant"] == variant, "key"].iloc[0]
        tr = data.trace(key)
        ax3.plot(tr["time_s"], tr["cwnd"] / 1000, drawstyle="steps-post", lw=0.8)
        ax3.set_ylabel("cwnd (KB)")
        ax3.set_title(NAMES[variant], fontsize="small", loc="left")
        ax3.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig3.suptitle(f"Congestion window at {TRACE_LOSS:.0%} random loss (one run each)")
    save(fig3, outdir / "cwnd_traces.png")

    at2 = {v: _mean(g, v, 0.02) for v in VARIANTS}
    measured = ", ".join(f"{NAMES[v]} {_mbps(at2[v])}" for v in VARIANTS)
    return [
        Figure(
            "goodput_vs_loss.png",
            "Goodput against random loss",
            "Mean goodput over replications with 90% confidence intervals; dashed: the formula of "
            "Mathis et al. (1997), MSS/RTT x sqrt(3/2)/sqrt(p) with the 41.2 ms base RTT. "
            "Paper: Fall & Floyd (1996) report that Reno suffers when several packets of one window "
            "are lost, and that NewReno and SACK avoid it; Mathis et al. predict goodput falling as "
            f"1/sqrt(p). Measured at 2% loss (Mb/s): {measured}; formula {_mbps(mathis_bps(0.02))}.",
        ),
        Figure(
            "timeouts_vs_loss.png",
            "Retransmission timeouts against random loss",
            "Mean number of retransmission timeouts per run, 90% confidence intervals. Paper: without "
            "fast retransmit (Vanilla) every loss ends in a timeout; Fall & Floyd (1996) show Reno "
            "falling back to timeouts after multiple losses in a window. Measured at 2% loss: "
            + ", ".join(f"{NAMES[v]} {_mean(t, v, 0.02):.1f}" for v in VARIANTS)
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


# ---------------------------------------------------------------- claims


def claims(data: StudyData) -> list[Claim]:
    g = goodput(data)
    lossy = [p for p in LOSS if p > 0]
    lossless = {v: _mean(g, v, 0.0) for v in VARIANTS}
    falls = {v: [_mean(g, v, p) for p in LOSS] for v in VARIANTS}
    at2 = {v: _mean(g, v, 0.02) for v in VARIANTS}
    slowest = {p: min(VARIANTS, key=lambda v, p=p: _mean(g, v, p)) for p in lossy}
    ratio = {p: _mean(g, "newreno", p) / mathis_bps(p) for p in (0.005, 0.01, 0.02)}
    return [
        Claim(
            "lossless_link_rate",
            "Without loss every variant fills the link: goodput at least 95% of the payload rate",
            f"first principles: 10 Mb/s x 1460/1500 = {_mbps(PAYLOAD_RATE_BPS)} Mb/s",
            {NAMES[v]: _mbps(x) for v, x in lossless.items()},
            all(x >= 0.95 * PAYLOAD_RATE_BPS for x in lossless.values()),
        ),
        Claim(
            "goodput_falls_with_loss",
            "For every variant, mean goodput falls at each step up in loss rate (0, 0.5, 1, 2, 5%)",
            "Mathis et al. 1997: goodput proportional to 1/sqrt(p)",
            {NAMES[v]: [_mbps(x) for x in xs] for v, xs in falls.items()},
            all(a > b for xs in falls.values() for a, b in zip(xs, xs[1:], strict=False)),
        ),
        Claim(
            "vanilla_slowest",
            "At every non-zero loss rate Vanilla (timeouts only) has the lowest mean goodput",
            "Fall & Floyd 1996: without fast retransmit every loss waits for the retransmission timer",
            {f"{p:.1%}": NAMES[v] for p, v in slowest.items()},
            all(v == "vanilla" for v in slowest.values()),
        ),
        Claim(
            "recovery_beats_reno_2pct",
            "At 2% loss NewReno and SACK both have a higher mean goodput than Reno",
            "Fall & Floyd 1996: Reno suffers with several losses in one window; NewReno and SACK do not",
            {NAMES[v]: _mbps(at2[v]) for v in ("reno", "newreno", "sack")},
            at2["newreno"] > at2["reno"] and at2["sack"] > at2["reno"],
        ),
        Claim(
            "sack_ge_newreno_2pct",
            "At 2% loss SACK's mean goodput is at least NewReno's",
            "Fall & Floyd 1996: SACK repairs several losses per round trip, NewReno one per round trip",
            {NAMES[v]: _mbps(at2[v]) for v in ("newreno", "sack")},
            at2["sack"] >= at2["newreno"],
        ),
        Claim(
            "mathis_newreno",
            "NewReno's goodput is within a factor of 1.5 of the Mathis et al. formula at 0.5-2% loss",
            "Mathis et al. 1997: BW = MSS/RTT x sqrt(3/2)/sqrt(p) ("
            + ", ".join(f"{p:.1%}: {_mbps(mathis_bps(p))} Mb/s" for p in ratio)
            + ")",
            {f"{p:.1%}": round(r, 3) for p, r in ratio.items()},
            all(1 / 1.5 <= r <= 1.5 for r in ratio.values()),
        ),
    ]


# ---------------------------------------------------------------- tables


def tables(data: StudyData) -> list[Table]:
    g = goodput(data)
    rows = []
    for p in LOSS:
        row: dict[str, Any] = {"loss (%)": p * 100}
        for v in VARIANTS:
            r = g[(g["variant"] == v) & (g["loss"] == p)].iloc[0]
            ci = "" if math.isnan(r["ci_low"]) else f" [{r['ci_low'] / 1e6:.3f}, {r['ci_high'] / 1e6:.3f}]"
            row[NAMES[v]] = f"{r['mean'] / 1e6:.3f}{ci}"
        rows.append(row)
    n = int(g["n"].min())
    return [
        Table(
            "Mean goodput (Mb/s) with 90% confidence intervals",
            pd.DataFrame(rows),
            f"{n} replications per point; intervals from Student's t.",
        )
    ]


STUDY = Study(
    name="example_loss",
    title="Example: TCP variants against random loss on one link",
    paper="K. Fall and S. Floyd, Simulation-based Comparisons of Tahoe, Reno, and SACK TCP, CCR 26(3), "
    "1996; M. Mathis et al., The Macroscopic Behavior of the TCP Congestion Avoidance Algorithm, "
    "CCR 27(3), 1997 (an example study, not a seed study)",
    summary=__doc__ or "",
    sweeps=sweeps,
    figures=figures,
    claims=claims,
    tables=tables,
    assumptions=(
        "Random loss hits data packets only (the `ab` direction); ACKs are never lost.",
        "The Mathis formula is evaluated with the 41.2 ms base RTT (no queueing delay), for periodic "
        "loss and no delayed ACKs (constant sqrt(3/2)); the factor of 1.5 allowed is this study's choice.",
        "SACK is the seed 002 PIPE algorithm (`sack`); `sack_rfc6675` is not part of this study.",
    ),
    quick_note="20 s runs and 5 replications per point (full mode: 100 s runs, 20 replications).",
)
