"""Reading a run's packet capture in Python: the handshake, the window scale, retransmissions.

Runs the shipped ``dumbbell`` example (four Reno flows over a 10 Mb/s bottleneck whose link is
captured) with a handshake, so the capture holds each connection's SYN and SYN-ACK and their
options, then reads the pcap with ``tcplab.read_pcap`` (no Wireshark needed): the window scale
each end announced, the bytes each connection carried by the capture against the run's report,
and one connection's time-sequence diagram with its retransmissions marked.

    python read_pcap.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import tcplab
from tcplab.analysis.pcap import iter_segments
from tcplab.experiment.scenario import loads

parser = argparse.ArgumentParser(description="Read a run's packet capture.")
parser.add_argument("--quick", action="store_true", help="a 5 s run instead of 30 s (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="folder for the run and figure")
args = parser.parse_args()

doc = loads(tcplab.scenario_text("dumbbell"))  # the packaged example, as a dict
doc["tcp"]["handshake"] = "sender"  # without it the capture has no SYN (and no window scale)
if args.quick:
    doc["duration"] = "5s"
run_dir = args.out / "read_pcap"
result = tcplab.run(doc, out_dir=run_dir)
pcap = run_dir / "link-r1-r2.pcap"

WINDOW_SCALE = 3  # the TCP option's kind
for seg in iter_segments(pcap):
    if "S" in seg.tcp_flags:
        scale = dict(seg.options).get(WINDOW_SCALE)
        print(f"{seg.time_s:8.4f} s  {seg.src}:{seg.sport} -> {seg.dst}:{seg.dport}  {seg.tcp_flags:2}  "
              f"window scale {scale[0] if scale else 'none'}")

packets = tcplab.read_pcap(pcap)  # one row per segment: time_s, src, sport, ..., seq, ack, win, length
data = packets[packets["length"] > 0]
by_sender = data.groupby(["src", "sport"])["length"].sum()
# The capture is taken where packets leave the queue onto the link: packets the queue dropped are
# not in it, their retransmissions are.
print(by_sender.rename("payload bytes on the bottleneck, retransmissions included").to_string())
print(result.flows_df()[["name", "bytes_delivered", "retransmits"]].to_string())

first = data[(data["src"] == data["src"].iloc[0]) & (data["sport"] == data["sport"].iloc[0])]
offset = (first["seq"] - first["seq"].iloc[0]) % 2**32  # sequence numbers relative to the first data byte
# A segment below the highest sequence number already sent is a retransmission (the capture is
# taken after the queue, so a segment the queue dropped shows only when it is sent again).
again = offset < offset.cummax().shift(fill_value=0)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
ax.plot(first["time_s"], offset / 1e3, ".", ms=2, label="data segment")
ax.plot(first["time_s"][again], offset[again] / 1e3, "rx", ms=5, label="retransmission")
ax.set_xlabel("time (s)")
ax.set_ylabel("sequence offset (KB)")
ax.set_title(f"Time-sequence of {first['src'].iloc[0]}:{first['sport'].iloc[0]}, from the capture")
ax.legend()
ax.grid(alpha=0.3)
fig.savefig(args.out / "read_pcap.png", dpi=80)
print(f"figure: {args.out / 'read_pcap.png'}")
