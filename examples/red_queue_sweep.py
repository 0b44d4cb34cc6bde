"""Goodput against queue size on a RED bottleneck, RED's thresholds scaled with the queue.

Four flows share a 10 Mb/s, 20 ms bottleneck whose RED queue grows from 20 to 200 packets; RED's
thresholds are zipped with the queue size (min_th = queue / 4, max_th = 3 queue / 4), so each
point is one whole configuration. Reno against SACK, 3 replications each, goodput with 90%
intervals.

    python red_queue_sweep.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import tcplab
from tcplab.experiment.scenario import dumbbell

parser = argparse.ArgumentParser(description="Goodput against queue size on a RED bottleneck.")
parser.add_argument("--quick", action="store_true", help="5 s runs instead of 30 s (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="folder for the store and figure")
args = parser.parse_args()
args.out.mkdir(parents=True, exist_ok=True)

base = dumbbell(4, duration="5s" if args.quick else "30s", stagger_s=0.5)
base["link"][0]["qdisc"] = {"kind": "red", "min_th": 25, "max_th": 75}  # the bottleneck
spec = tcplab.SweepSpec(
    name="red_queue",
    base=base,
    factors={"tcp.variant": ["reno", "sack"]},
    zips=[
        {
            "link.0.queue": [20, 50, 100, 200],
            "link.0.qdisc.min_th": [5, 12, 25, 50],
            "link.0.qdisc.max_th": [15, 37, 75, 150],
        }
    ],
    replications=3,
    labels={"tcp.variant": "variant", "link.0.queue": "queue", "link.0.qdisc.min_th": "min_th",
            "link.0.qdisc.max_th": "max_th"},
)
result = tcplab.sweep(spec, store=args.out / "red_queue.sqlite")
print(result.summary())

table = tcplab.summarize(result.df, ["variant", "queue"], "total_goodput_bps")
print(table[["variant", "queue", "n", "mean", "ci_low", "ci_high"]].to_string(index=False))

ax = tcplab.plot.response(result.df, "queue", "total_goodput_bps", by="variant")
ax.set_xlabel("bottleneck queue (packets); RED thresholds at 1/4 and 3/4 of it")
ax.set_title("Four flows over a 10 Mb/s RED bottleneck")
ax.figure.savefig(args.out / "red_queue.png", dpi=80)
print(f"figure: {args.out / 'red_queue.png'}")
