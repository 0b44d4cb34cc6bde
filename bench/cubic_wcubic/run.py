#!/usr/bin/env python3
"""CUBIC's window after one loss against RFC 9438's W_cubic(t) (issue 24, item 6).

One bulk CUBIC flow over a lossless 10 Mb/s, 10 ms path with a 1000-packet queue; the data
segment at offset 300 segments is dropped once. From the flow's trace this finds the
congestion event (the first change of ssthresh), W_max (the window just before it), the start
of the congestion-avoidance stage t_epoch (the first row after fast recovery whose window is
back at ssthresh) and cwnd_epoch, computes K = cbrt((W_max - cwnd_epoch) / C) (RFC 9438,
Fig. 2), and compares the window with W_cubic(t) = C (t - K)^3 + W_max (Fig. 1) from t_epoch
to t_epoch + 1.6 K. Run with the project's virtualenv:

    .venv/bin/python bench/cubic_wcubic/run.py [--out out/cubic_wcubic]

It writes report.md: a table of t, cwnd, W_cubic(t) and W_cubic(t + RTT), and how many points
lie outside the band [W_cubic(t) - 1, W_cubic(t + RTT) + 1] (Sec. 4.4: each ACK steps cwnd
towards W_cubic(t + RTT); RTT the largest round trip the queue allows in the stage; one segment
for the byte rounding of the window). It exits with status 1 if the window at t = K is more
than one segment from W_max (W_cubic(K) = W_max, the curve's defining point), or if the run
is not the one loss the check assumes.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tcplab

C = 0.4  # RFC 9438 Sec. 4.1.1, segments per second cubed
MSS = 1000
DROP_SEGMENT = 300
DURATION_S = 18.0  # before the grown window overflows the 1000-packet queue (about 20 s)
SLACK_SEGMENTS = 1.0
REPO = Path(__file__).resolve().parents[2]


def scenario() -> dict[str, Any]:
    drop = {"model": "drop_list", "flow": 0, "by": "segment", "values": [DROP_SEGMENT]}
    return {
        "name": "cubic-wcubic",
        "duration": DURATION_S,
        "nodes": ["a", "b"],
        "tcp": {"mss": MSS, "rcv_buf": "1MiB", "min_rto": "1s"},
        "link": [
            {"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms", "queue": 1000, "ab": {"loss": drop}},
        ],
        "flow": [{"src": "a", "dst": "b", "trace": True, "tcp": {"cc": "cubic", "variant": "newreno"}}],
    }


@dataclass(frozen=True)
class Row:
    t: float  # s
    cwnd: float  # segments
    ssthresh: float  # segments


@dataclass(frozen=True)
class Stage:
    t_epoch: float
    w_max: float
    cwnd_epoch: float
    k: float

    def w_cubic(self, t: float) -> float:
        """W_cubic at `t` seconds into the stage (RFC 9438, Fig. 1)."""
        return C * (t - self.k) ** 3 + self.w_max


def read_rows(path: Path) -> list[Row]:
    with path.open(newline="") as f:
        rows = csv.reader(f)
        next(rows)
        return [Row(float(r[0]), float(r[1]) / MSS, float(r[2]) / MSS) for r in rows]


def find_stage(rows: list[Row]) -> Stage:
    """The congestion-avoidance stage that follows the one congestion event."""
    i = next(i for i, r in enumerate(rows) if r.ssthresh != rows[0].ssthresh)
    w_max, ssthresh = rows[i - 1].cwnd, rows[i].ssthresh
    end = next(r for r in rows[i:] if r.cwnd <= ssthresh)
    return Stage(end.t, w_max, end.cwnd, ((w_max - end.cwnd) / C) ** (1 / 3))


def cwnd_at(rows: list[Row], t: float) -> float:
    return [r for r in rows if r.t <= t][-1].cwnd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "out" / "cubic_wcubic")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="wcubic-") as tmp:
        res = tcplab.run(scenario(), out_dir=tmp)
        rows = read_rows(Path(tmp) / "trace-flow0.csv")
    flow = res.report["flows"][0]
    if (flow["fast_retransmits"], flow["timeouts"]) != (1, 0):
        print(f"expected one fast retransmit and no timeout, got {flow['fast_retransmits']}, "
              f"{flow['timeouts']}", file=sys.stderr)
        return 1
    stage = find_stage(rows)
    # The smoothed RTT is not in the trace; bound it by the largest RTT the queue allows at the
    # stage's largest window (each queued segment adds one 1040-byte serialisation).
    base_rtt = 0.020864
    rtt = base_rtt + max(r.cwnd for r in rows if r.t >= stage.t_epoch) * 1040 * 8 / 10e6
    lines = [
        f"W_max {stage.w_max:.2f} segments, cwnd_epoch {stage.cwnd_epoch:.2f}, K {stage.k:.3f} s, "
        f"t_epoch {stage.t_epoch:.3f} s; band [W_cubic(t) - {SLACK_SEGMENTS:g}, "
        f"W_cubic(t + {rtt * 1e3:.0f} ms) + {SLACK_SEGMENTS:g}]",
        "",
        "| t - t_epoch (s) | t / K | cwnd (segments) | W_cubic(t) | W_cubic(t + RTT) | in band |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    worst, outside = 0.0, 0
    steps = 32
    for n in range(steps + 1):
        t = 1.6 * stage.k * n / steps
        cwnd = cwnd_at(rows, stage.t_epoch + t)
        lo, hi = stage.w_cubic(t) - SLACK_SEGMENTS, stage.w_cubic(t + rtt) + SLACK_SEGMENTS
        ok = lo <= cwnd <= hi
        outside += not ok
        worst = max(worst, abs(cwnd - stage.w_cubic(t)))
        lines.append(f"| {t:.3f} | {t / stage.k:.2f} | {cwnd:.2f} | {stage.w_cubic(t):.2f} | "
                     f"{stage.w_cubic(t + rtt):.2f} | {'yes' if ok else 'NO'} |")
    at_k = cwnd_at(rows, stage.t_epoch + stage.k)
    lines += ["", f"cwnd at t = K: {at_k:.2f} segments (W_max {stage.w_max:.2f}); largest "
              f"|cwnd - W_cubic(t)|: {worst:.2f} segments; {outside} of {steps + 1} points outside "
              "the band"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if abs(at_k - stage.w_max) > SLACK_SEGMENTS else 0


if __name__ == "__main__":
    sys.exit(main())
