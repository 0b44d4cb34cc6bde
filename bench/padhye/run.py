#!/usr/bin/env python3
"""Full-scale check of Reno under random loss against Padhye et al. (1998).

Sweeps loss 0.5..5% x delayed ACK off/on x seeds, writes out/padhye/report.md (a table of
loss, measured goodput, model, ratio) and out/padhye/padhye.png, and exits with status 1 if
a run's goodput lies more than 20% from the model. Run with the project's virtualenv:

    .venv/bin/python bench/padhye/run.py [--duration 1000] [--seeds 1 2 3 4 5] [--stack ns2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

import padhye_check as pc

LOSSES = (0.005, 0.01, 0.02, 0.03, 0.04, 0.05)
REPO = Path(__file__).resolve().parents[2]


def sweep(losses: Sequence[float], seeds: Sequence[int], duration_s: float,
          stack: str | None) -> list[pc.Point]:
    points = []
    for delayed_ack in (False, True):
        for loss in losses:
            for seed in seeds:
                points.append(pc.run_point(loss, delayed_ack, seed, duration_s, stack))
                print(f"loss {loss:.3f} delayed_ack {delayed_ack!s:5} seed {seed}: "
                      f"ratio {points[-1].ratio:.3f}", file=sys.stderr)
    return points


def groups(points: list[pc.Point]) -> dict[tuple[bool, float], list[pc.Point]]:
    out: dict[tuple[bool, float], list[pc.Point]] = {}
    for pt in points:
        out.setdefault((pt.delayed_ack, pt.loss), []).append(pt)
    return out


def table(points: list[pc.Point]) -> list[str]:
    lines = [
        "| delayed ACK (b) | loss p | measured goodput (pkt/s) | model (pkt/s) | ratio | "
        "worst run ratio | send rate (pkt/s) | closed form (pkt/s) | RTT (ms) | T0 (s) | "
        "loss indications / pkt | ratio at p = loss indications | send rate / model | "
        "timeout seq. / timeouts | fast rexmits | timeout share: measured / model |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (delack, loss), pts in sorted(groups(points).items()):
        mean = statistics.fmean
        worst = max((pt.ratio for pt in pts), key=lambda r: abs(r - 1))
        good = mean(pt.measured.goodput_pps for pt in pts)
        model = mean(pt.model_pps for pt in pts)
        t0s = [pt.measured.t0_s for pt in pts if pt.measured.timeout_sequences]
        t0 = f"{mean(t0s):.3f}" if t0s else "not measured"
        seqs = sum(pt.measured.timeout_sequences for pt in pts)
        frs = sum(pt.measured.fast_retransmits for pt in pts)
        lines.append(
            f"| {'on (2)' if delack else 'off (1)'} | {loss:.3f} | {good:.2f} | {model:.2f} | "
            f"{good / model:.3f} | {worst:.3f} | "
            f"{mean(pt.measured.send_pps for pt in pts):.2f} | "
            f"{mean(pt.model_approx_pps for pt in pts):.2f} | "
            f"{1e3 * mean(pt.measured.rtt_s for pt in pts):.1f} | {t0} | "
            f"{mean(pt.measured.loss_indication_rate for pt in pts):.4f} | "
            f"{good / mean(pt.model_lir_pps for pt in pts):.3f} | "
            f"{mean(pt.measured.send_pps for pt in pts) / model:.3f} | "
            f"{seqs} / {sum(pt.measured.timeouts for pt in pts)} | {frs} | "
            f"{seqs / max(1, seqs + frs):.3f} / "
            f"{pc.timeout_share(loss, 2 if delack else 1, pc.RCV_BUF // pc.MSS):.3f} |")
    return lines


def plot(points: list[pc.Point], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for delack, color in ((False, "tab:blue"), (True, "tab:red")):
        by_loss = {k[1]: v for k, v in groups(points).items() if k[0] == delack}
        losses = sorted(by_loss)
        label = f"delayed ACK {'on, b = 2' if delack else 'off, b = 1'}"
        for loss in losses:
            ax.scatter([loss] * len(by_loss[loss]),
                       [pt.measured.goodput_pps for pt in by_loss[loss]],
                       color=color, marker="o", s=14, alpha=0.7)
        model = [statistics.fmean(pt.model_pps for pt in by_loss[x]) for x in losses]
        ax.plot(losses, model, color=color, label=f"model, {label}")
        ax.fill_between(losses, [m * (1 - pc.BOUND) for m in model],
                        [m * (1 + pc.BOUND) for m in model], color=color, alpha=0.12)
        ax.scatter([], [], color=color, marker="o", s=14, label=f"tcplab runs, {label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("packet loss rate p")
    ax.set_ylabel("goodput (packets/s)")
    ax.set_title("Reno under Bernoulli loss vs Padhye et al. (1998), band = +-20%")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(points: list[pc.Point], args: argparse.Namespace, misses: list[pc.Point]) -> str:
    seeds = " ".join(str(s) for s in args.seeds)
    stack = f" --stack {args.stack}" if args.stack else ""
    lines = [
        "# Reno under random loss vs the Padhye et al. (1998) model",
        "",
        "Padhye, Firoiu, Towsley and Kurose, \"Modeling TCP Throughput: A Simple Model and its",
        "Empirical Validation\" (1998): the full model, eq. (31), with the timeout term and the",
        "receiver-window limit W_max / RTT.",
        "",
        f"Command: `.venv/bin/python bench/padhye/run.py --duration {args.duration:g} "
        f"--seeds {seeds}{stack}`",
        "",
        "## Set-up",
        "",
        f"- Two hosts, one link of {pc.LINK_RATE} and {1e3 * pc.ONE_WAY_DELAY_S:g} ms each way,",
        "  one bulk Reno flow for "
        f"{args.duration:g} simulated seconds per run, seeds {seeds}.",
        "- Data packets (a -> b) are lost independently with probability p (Bernoulli); ACKs "
        "are never lost.",
        f"- mss {pc.MSS} B, receive window {pc.RCV_BUF} B, so W_max = {pc.RCV_BUF // pc.MSS} "
        "segments; tcplab's other TCP defaults (fine timer, min RTO 1 s, initial RTO 3 s).",
        "- Delayed ACKs off: b = 1. On (ACK every second segment, 200 ms timer on the host's "
        "clock): b = 2.",
        "",
        "## What is measured, and how the model is fed",
        "",
    ]
    lines += [ln.removeprefix("  ") for ln in (pc.__doc__ or "").split("What the simulator is "
                                                                        "compared with:")[1]
              .strip().splitlines()]
    lines += [
        "",
        "`ratio` is measured goodput / model, both averaged over the seeds; `worst run ratio`",
        "is the single run furthest from 1. The check fails if any run's ratio is outside",
        f"[{1 - pc.BOUND:.2f}, {1 + pc.BOUND:.2f}]. `closed form` is eq. (33) for reference;",
        "`ratio at p = loss indications` evaluates the full model at the measured loss",
        "indication rate instead of the configured loss rate (the paper's own trace analysis).",
        "`send rate / model` compares what the model itself predicts: Padhye et al. count every",
        "packet sent, retransmissions included. `timeout share` is the fraction of loss",
        "indications that were timeout sequences, measured and as the model's Q-hat at E[W]",
        "(eq. 24) gives it.",
        "",
        "## Results",
        "",
        *table(points),
        "",
        "![goodput against loss rate](padhye.png)",
        "",
    ]
    if misses:
        lines += ["## Misses", ""]
        lines += [f"- p = {pt.loss}, delayed ACK {pt.delayed_ack}, seed {pt.seed}: "
                  f"ratio {pt.ratio:.3f}" for pt in misses]
    else:
        lines.append(f"Every run lies within {pc.BOUND:.0%} of the model.")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=1000.0, help="simulated seconds per run")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--losses", type=float, nargs="+", default=list(LOSSES))
    ap.add_argument("--stack", default=None, help="TCP stack preset, passed as [tcp] stack")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "padhye")
    args = ap.parse_args()
    if args.duration <= 0 or not all(0 < p < 1 for p in args.losses):
        print("error: --duration must be positive and --losses in (0, 1)", file=sys.stderr)
        return 2

    points = sweep(args.losses, args.seeds, args.duration, args.stack)
    misses = [pt for pt in points if not pt.within_bound]
    args.out.mkdir(parents=True, exist_ok=True)
    plot(points, args.out / "padhye.png")
    (args.out / "report.md").write_text(report(points, args, misses))
    print("\n".join(table(points)))
    print(f"wrote {args.out / 'report.md'} and {args.out / 'padhye.png'}")
    if misses:
        print(f"{len(misses)} of {len(points)} runs outside {pc.BOUND:.0%} of the model",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
