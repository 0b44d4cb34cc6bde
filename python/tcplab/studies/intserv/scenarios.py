"""The networks of Feng, Kandlur, Saha and Shin (1997): Fig. 1 (one 10 Mb/s ERED bottleneck) and
Fig. 11 (multi-hop), as scenario dicts, and the ideal shares of Sec. 1, computed.

The figures' link labels are not in the text. What the text fixes: a 10 Mb/s bottleneck, 1 KB
segments, an 80-segment ERED queue, a 50 ms token bucket, and an advertised window of 100
segments "equal to the delay bandwidth product of the unloaded network". So Fig. 1's access links
are fast (100 Mb/s, 5 ms) and the bottleneck's delay (34.5 ms) makes the unloaded round trip
80 ms: 10 Mb/s x 80 ms is 100 KB, 100 packets of 1000 bytes (``unloaded_bdp_packets`` computes
it). Fig. 11: C1 has the smallest and the best-effort connections the largest round trip; the
shared first hop R1 -> R2 is the bottleneck, 50 ms long so that C1's round trip (109 ms) is not
below one 100 ms tick of ns's timer (below it, ns's rounding to whole ticks, not C1's path,
would set C1's RTT estimate and so its RWND). ``rtt_scale`` stretches every propagation delay (the
sensitivity variant); the advertised window follows the stretched unloaded delay-bandwidth
product, the paper's own rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MSS = 1000  # ns-2's packetSize_ 1000: the paper's "1KB" segments
HEADER = 40
WIRE = MSS + HEADER
BOTTLENECK_BPS = 10e6
ACCESS_BPS = 100e6
QUEUE = 80  # the paper's 80-segment queue
DEPTH = "50ms"  # token bucket depth as time at the reserved rate (Sec. 3)

# The stack of the ns the paper ran: "modified NS", citing the LBNL ns of 1996, which stamped every
# transmission and took an RTT sample on every ACK of new data, rounded to the nearest 100 ms tick
# (the ``ns1`` preset). ns-2.1b (``ns2``: one timed segment per round trip, a rule ns took in
# October 1997) runs beside it as a labelled sensitivity run.
STACK = "ns1"
SENSITIVITY_STACK = "ns2"

# ERED: the paper gives neither thresholds nor max_p. The queue follows the stack's own RED
# (``rule`` and the defaults of that ns's Tcl: ns-1's thresh 5, maxthresh 15, linterm 50, i.e.
# max_p 0.02, q_weight 0.002, wait true; ns-2.1b the same with max_p 0.1), so nothing but the
# marked packets' rule is set here. Marked packets: "overflow", the literal reading of "close to
# zero" (only a full buffer drops them).
ERED: dict[str, Any] = {"kind": "ered", "marked": "overflow"}
# The sensitivity sweep over what the paper leaves open: ns's thresholds and a quarter/three
# quarters of the 80-packet buffer, each with ns-1's and ns-2.1b's max_p (the first is the primary).
ERED_LEVELS: dict[str, dict[str, Any]] = {
    f"{lo}/{hi}, max_p {p:g}": {**ERED, "min_th": lo, "max_th": hi, "max_p": p}
    for lo, hi in ((5, 15), (20, 60))
    for p in (0.02, 0.1)
}
PRIMARY_ERED = "5/15, max_p 0.02"


@dataclass(frozen=True)
class Conn:
    name: str
    src: str
    dst: str
    reservation_bps: float  # 0: best effort


# The six connections of both figures: C1, C2, C4 reserve 1, 2 and 4 Mb/s; three best-effort.
FIG1_CONNS = (
    Conn("C1", "s1", "sink", 1e6),
    Conn("C2", "s2", "sink", 2e6),
    Conn("C4", "s3", "sink", 4e6),
    Conn("BE1", "s4", "sink", 0.0),
    Conn("BE2", "s5", "sink", 0.0),
    Conn("BE3", "s6", "sink", 0.0),
)
FIG11_CONNS = (
    Conn("C1", "s1", "d1", 1e6),
    Conn("C2", "s2", "d2", 2e6),
    Conn("C4", "s3", "d3", 4e6),
    Conn("BE1", "s4", "d3", 0.0),
    Conn("BE2", "s4", "d3", 0.0),
    Conn("BE3", "s4", "d3", 0.0),
)
NAMES = [c.name for c in FIG1_CONNS]
C4 = NAMES.index("C4")  # the flow id of C4 (flows are numbered in order)

# Links as (a, b, rate, one-way delay in s); routers' outputs towards the sinks carry ERED.
FIG1_LINKS = [
    *((f"s{i}", "r1", ACCESS_BPS, 0.005) for i in range(1, 7)),
    ("r1", "sink", BOTTLENECK_BPS, 0.0345),
]
FIG11_LINKS = [
    ("s1", "r1", ACCESS_BPS, 0.002),
    ("s2", "r1", ACCESS_BPS, 0.002),
    ("s3", "r1", ACCESS_BPS, 0.002),
    ("s4", "r1", ACCESS_BPS, 0.020),
    ("r1", "r2", BOTTLENECK_BPS, 0.050),
    ("r2", "d1", ACCESS_BPS, 0.002),
    ("r2", "r3", 45e6, 0.020),
    ("r3", "d2", ACCESS_BPS, 0.002),
    ("r3", "d3", ACCESS_BPS, 0.030),
]
ROUTERS = ("r1", "r2", "r3")


def ideal_shares_bps(reservations: Sequence[float], capacity_bps: float = BOTTLENECK_BPS) -> list[float]:
    """Sec. 1: each connection gets its reservation plus an equal share of what is left."""
    residual = capacity_bps - sum(reservations)
    if residual < 0:
        raise ValueError("reservations exceed the capacity")
    return [r + residual / len(reservations) for r in reservations]


IDEAL_BPS = dict(zip(NAMES, ideal_shares_bps([c.reservation_bps for c in FIG1_CONNS]), strict=True))
# What the ideals carry as data: 1000 bytes of every 1040 on the wire (9.62 of the 10 Mb/s), so
# 1.44, 2.40, 4.33 and 0.48 Mb/s of payload; a reservation r carries at most r x 1000/1040.
PAYLOAD = MSS / WIRE
PAYLOAD_IDEAL_BPS = {k: v * PAYLOAD for k, v in IDEAL_BPS.items()}
PAYLOAD_RESERVATION_BPS = {c.name: c.reservation_bps * PAYLOAD for c in FIG1_CONNS}


def _path_delay(
    links: Sequence[tuple[str, str, float, float]], src: str, dst: str
) -> list[tuple[float, float]]:
    """(rate, delay) of each hop from src to dst (the networks are trees: a depth-first walk)."""
    adj: dict[str, list[tuple[str, float, float]]] = {}
    for a, b, rate, delay in links:
        adj.setdefault(a, []).append((b, rate, delay))
        adj.setdefault(b, []).append((a, rate, delay))

    def walk(node: str, seen: set[str]) -> list[tuple[float, float]] | None:
        if node == dst:
            return []
        for nxt, rate, delay in adj.get(node, []):
            if nxt in seen:
                continue
            rest = walk(nxt, seen | {nxt})
            if rest is not None:
                return [(rate, delay), *rest]
        return None

    path = walk(src, {src})
    if path is None:
        raise ValueError(f"no path from {src} to {dst}")
    return path


def unloaded_rtt_s(topology: str, conn: str, rtt_scale: float = 1.0) -> float:
    """Round trip without queueing: propagation both ways, a data packet's and an ACK's
    serialisation on every hop."""
    links, conns = _topology(topology)
    c = next(x for x in conns if x.name == conn)
    hops = _path_delay(links, c.src, c.dst)
    return sum(2 * d * rtt_scale + WIRE * 8 / r + HEADER * 8 / r for r, d in hops)


def full_buffers_rtt_s(topology: str, conn: str, rtt_scale: float = 1.0) -> float:
    """The unloaded round trip plus a full ``QUEUE``-packet buffer at every router on the data's
    way (every hop but the first: each host hangs off one router): the most a round trip can be
    when only the routers queue."""
    links, conns = _topology(topology)
    c = next(x for x in conns if x.name == conn)
    hops = _path_delay(links, c.src, c.dst)
    return unloaded_rtt_s(topology, conn, rtt_scale) + sum(QUEUE * WIRE * 8 / r for r, _ in hops[1:])


def unloaded_bdp_packets(topology: str, rtt_scale: float = 1.0) -> int:
    """The bottleneck's rate times the longest unloaded round trip, in whole packets of MSS bytes:
    the advertised window (Sec. 3: "equal to the delay bandwidth product of the unloaded network")."""
    _, conns = _topology(topology)
    rtt = max(unloaded_rtt_s(topology, c.name, rtt_scale) for c in conns)
    return round(BOTTLENECK_BPS * rtt / 8 / MSS)


def _topology(topology: str) -> tuple[list[tuple[str, str, float, float]], tuple[Conn, ...]]:
    if topology == "fig1":
        return FIG1_LINKS, FIG1_CONNS
    if topology == "fig11":
        return FIG11_LINKS, FIG11_CONNS
    raise ValueError(f"unknown topology {topology!r}")


# The sender schemes of Figs. 5-10 and 12-14 (the reserved connections' `reservation` table).
SCHEMES: dict[str, dict[str, Any] | None] = {
    "normal": None,
    "window": {"window": "rate_adaptive"},
    "window_delayed": {"window": "rate_adaptive", "send": "delayed", "max_delay": "50ms"},
    "window_timed": {"window": "rate_adaptive", "send": "timed", "interval": "20ms"},
    "timed": {"send": "timed", "interval": "20ms"},
    # Not the paper's reading: RWND from the smallest RTT sample instead of the smoothed RTT
    # (an alternative shown beside the paper's, docs/intserv.md).
    "window_min": {"window": "rate_adaptive", "rtt": "min"},
    "window_timed_min": {"window": "rate_adaptive", "rtt": "min", "send": "timed", "interval": "20ms"},
}
SCHEME_NAMES = {
    "normal": "normal TCP",
    "window": "windowing changes",
    "window_delayed": "windowing + delayed send",
    "window_timed": "windowing + timed send",
    "timed": "timed send only",
    "window_min": "windowing, min RTT (alternative)",
    "window_timed_min": "windowing + timed send, min RTT (alternative)",
}
# Each alternative scheme and the paper's scheme it differs from only in RWND's RTT.
MIN_RTT_OF = {"window_min": "window", "window_timed_min": "window_timed"}


def scenario(
    topology: str,
    scheme: str,
    duration_s: float,
    variant: str = "newreno_ns2",
    max_burst: int = 0,
    rtt_scale: float = 1.0,
    trace_c4: bool = False,
    window_bin_s: float = 20.0,
    stack: str = STACK,
) -> dict[str, Any]:
    """One run of a figure's network: the reserved connections run ``scheme``; every flow is a
    greedy ns TCP of ``variant`` on ``stack`` starting at 0 (ns's one-way agents)."""
    links, conns = _topology(topology)
    awnd = unloaded_bdp_packets(topology, rtt_scale)
    nodes = sorted({n for a, b, _, _ in links for n in (a, b)})
    reservation = SCHEMES[scheme]
    flows = []
    for i, c in enumerate(conns):
        flow: dict[str, Any] = {"name": c.name, "src": c.src, "dst": c.dst, "trace": trace_c4 and i == C4}
        if c.reservation_bps > 0:
            flow["marker"] = {"rate": c.reservation_bps, "depth_time": DEPTH}
            if reservation is not None:
                flow["reservation"] = dict(reservation)
        flows.append(flow)
    return {
        "name": f"intserv-{topology}",
        "duration": duration_s,
        "series_bin": window_bin_s,
        "nodes": nodes,
        "tcp": {
            "stack": stack,
            "variant": variant,
            "mss": MSS,
            "header_bytes": HEADER,
            "rcv_buf": awnd * MSS,
            "max_burst": max_burst,
        },
        "link": [_link(a, b, rate, delay * rtt_scale) for a, b, rate, delay in links],
        "flow": flows,
    }


def _link(a: str, b: str, rate: float, delay: float) -> dict[str, Any]:
    link: dict[str, Any] = {"a": a, "b": b, "rate": rate, "delay": delay, "queue": QUEUE}
    if a in ROUTERS:
        link["ab"] = {"qdisc": dict(ERED)}
    return link


def timed_zero_loss_interval_s(rate_bps: float, depth_s: float = 0.05, packet: int = WIRE) -> float:
    """Sec. 5: the timer interval that guarantees no token loss, (depth - (packet - 1)) / rate,
    depth and packet in bytes."""
    depth_bytes = rate_bps * depth_s / 8
    return (depth_bytes - (packet - 1)) * 8 / rate_bps if depth_bytes >= packet else math.nan
