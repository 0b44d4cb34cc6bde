"""TCP beside UDP cross traffic: goodput over time and each UDP source's one-way delays.

Runs udp_cross_traffic.toml (next to this script): a Reno flow through a 10 Mb/s, 20 ms
bottleneck with a constant-bit-rate source on from 1 s to 4 s, exponential and Pareto on-off
sources (ns-2's Application/Traffic/Exponential and /Pareto) and a short trace of frames. It
prints the UDP flows' packets sent, received and lost with their delay percentiles, and draws
goodput per flow (0.5 s bins) and the delay percentiles per UDP flow.

    python udp_cross_traffic.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import tcplab
from tcplab.experiment.scenario import read

parser = argparse.ArgumentParser(description="TCP beside CBR, on-off and trace-driven UDP flows.")
parser.add_argument("--quick", action="store_true", help="a 5 s run instead of 20 s (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="folder for the run and figure")
args = parser.parse_args()

doc = read(Path(__file__).with_suffix(".toml"))
if args.quick:
    doc["duration"] = "5s"
result = tcplab.run(doc, out_dir=args.out / "udp_cross_traffic")

udp = [f for f in result.flows if f.get("udp")]
print(f"{'flow':8} {'source':12} {'sent':>6} {'recv':>6} {'lost':>5} {'p50 ms':>7} {'p99 ms':>7}")
for f in udp:
    u = f["udp"]
    print(f"{f['name']:8} {u['source']:12} {u['packets_sent']:6} {u['packets_delivered']:6} "
          f"{u['packets_lost']:5} {u['delay_p50_s'] * 1e3:7.1f} {u['delay_p99_s'] * 1e3:7.1f}")

fig, (rates, delays) = plt.subplots(2, 1, figsize=(7, 6), layout="constrained")
tcplab.plot.flow_series(result, ax=rates)
rates.set_title("Goodput per flow (0.5 s bins)")
names = [f["name"] for f in udp]
for k, (p, hatch) in enumerate([("50", ""), ("95", "//"), ("99", "xx")]):
    values = [f["udp"][f"delay_p{p}_s"] * 1e3 for f in udp]
    delays.bar([i + (k - 1) * 0.27 for i in range(len(udp))], values, width=0.27, hatch=hatch,
               label=f"p{p}")
delays.set_xticks(range(len(udp)), names)
delays.set_ylabel("one-way delay (ms)")
delays.set_title("UDP one-way delay percentiles (22 ms of each is propagation)")
delays.legend()
fig.savefig(args.out / "udp_cross_traffic.png", dpi=80)
print(f"figure: {args.out / 'udp_cross_traffic.png'}")
