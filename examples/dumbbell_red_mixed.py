"""Four TCP variants share one RED bottleneck: goodput over time, windows and the queue.

A dumbbell of four flows, one each of Tahoe, Reno, NewReno and SACK, through a 10 Mb/s, 20 ms
bottleneck with a 100-packet RED queue (min_th 15, max_th 45). The run records per-flow
goodput every 0.5 s (series_bin), every flow's congestion window (trace) and the bottleneck's
queue at each arrival (trace_queue), and draws the three.

    python dumbbell_red_mixed.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import tcplab
from tcplab.experiment.scenario import dumbbell

parser = argparse.ArgumentParser(description="Four TCP variants over one RED bottleneck.")
parser.add_argument("--quick", action="store_true", help="a 5 s run instead of 30 s (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="folder for the run and figure")
args = parser.parse_args()

variants = ["tahoe", "reno", "newreno", "sack"]
doc = dumbbell(len(variants), duration="5s" if args.quick else "30s", bottleneck_queue=100, stagger_s=0.2)
doc["series_bin"] = "0.5s"
doc["link"][0]["qdisc"] = {"kind": "red", "min_th": 15, "max_th": 45}
doc["link"][0]["trace_queue"] = True
for flow, variant in zip(doc["flow"], variants, strict=True):
    flow["name"] = variant
    flow["tcp"] = {"variant": variant}
    flow["trace"] = True

run_dir = args.out / "dumbbell_red_mixed"
result = tcplab.run(doc, out_dir=run_dir)  # also writes flow<i>.png, one per traced flow
print(result.flows_df()[["name", "goodput_bps", "retransmits", "timeouts"]].to_string())
bottleneck = result.links_df().loc[0]
print("RED drops at the bottleneck: early", bottleneck["queue_drops_early"], "forced",
      bottleneck["queue_drops_forced"], "overflow", bottleneck["queue_drops_overflow"])

fig, (rates, windows, queue) = plt.subplots(3, 1, figsize=(7, 8), sharex=True, layout="constrained")
tcplab.plot.flow_series(result, ax=rates)
tcplab.plot.cwnd({f"flow {i} ({v})": result.trace(i) for i, v in enumerate(variants)}, ax=windows)
windows.set_ylim(0, 150)
tcplab.plot.queue(result, channel=0, ax=queue)
rates.set_title("Goodput per flow (0.5 s bins)")
windows.set_title("Congestion windows")
queue.set_title("Bottleneck queue and RED's average")
fig.savefig(args.out / "dumbbell_red_mixed.png", dpi=80)
print(f"figure: {args.out / 'dumbbell_red_mixed.png'}")
