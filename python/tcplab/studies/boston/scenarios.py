"""TCP Boston (Bestavros and Kim, 1997) as scenarios: the star network of Sec. 3 and the multi-hop
chain used to check the wasted byte-hops of Sec. 4.3 (their metrics are in ``metrics.py``).

**Star** (Fig. 6): ``sources`` hosts and one sink on one output-buffered ATM switch; every link
1.5 Mb/s with 10 ms of propagation delay. The switch's output buffer towards the sink holds
``buffer`` cells (FIFO; tail drop, or EPD for "Reno with EPD"). AAL5 without trailer or LLC/SNAP
(the paper's simulator marks the last cell with a flag instead: the core's ``framing = "flag"``;
the receiving AAL's largest frame is the largest packet's, ``max_frame``): a packet of b IP
bytes is ceil(b/48) cells. TCP Boston sends a header cell plus m shard cells per segment, m from the
codec's geometry (``shard_geometry``: 47-byte shards, or 46 when N = 8m exceeds 256 shards).

How a source's link feeds the switch (``access``) is a modelling choice the paper leaves open
that decides whether a single source can overflow the switch (it does in the paper: Fig. 15
reports a 2.3% cell drop rate with one source):

- ``"payload"``: the access link moves 48-byte cell payloads at 1.5 Mb/s, i.e. 53-byte cells at
  1.5 x 53/48 = 1.656 Mb/s, the way a packet link of ns serialises a packet's IP bytes at
  1.5 Mb/s; the switch's output link sends 53-byte cells at 1.5 Mb/s, so it is the bottleneck
  even for one source (the cell tax);
- ``"cell"``: 53-byte cells at 1.5 Mb/s on every link; a source's cells arrive no faster than
  the output drains them, so a lone source with an unbounded interface queue never loses a cell
  at the switch (its standing queue sits in its own interface);
- ``"packet"``: the access links are packet links at 1.5 Mb/s and the switch cuts each packet
  into cells that enter its output buffer at the same instant (a burst of a whole packet).

With it, two more open choices: each source's interface queue (``source_queue``, packets
waiting behind the one being sent; None: unbounded) and the sink's reassembly mode. The
defaults (``DEFAULT_*``) are the setting the model sweep's rule picks (signatures.py).

**Chain** (Sec. 4.3): a tagged connection crosses ``switches`` cell switches in a line
(``switches + 1`` hops); the switch ``congested`` (1-based, default the middle one) is shared
with ``cross`` Reno connections that enter there and leave at the next switch, so only the
congested link carries both. Its output buffer is small; every other buffer is large.

TCP, for every connection: the ``stack`` preset (docs/stacks.md), ns-1 by default (the paper ran
a modified ns, Sec. 3), 4.4BSD-Lite as the sensitivity run. The study overrides only what the
paper sets: the MSS (its packet sizes), the window (its kB) and the Boston codec; on bsd44 also
the send buffer, which would otherwise cap every window at the preset's 8192 bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcplab.errors import UserError

__all__ = [
    "ACCESS_MODELS",
    "FIT_PROTOCOLS",
    "cannot_fit",
    "BUFFERS",
    "PACKET_SIZES",
    "PRIMARY_STACK",
    "PROTOCOLS",
    "STACKS",
    "WINDOWS",
    "ChainConfig",
    "StarConfig",
    "cells_per_packet",
    "chain",
    "mss_of",
    "protocol_of",
    "shard_geometry",
    "star",
]

LINK_BPS = 1_500_000
DELAY_S = 0.010
CELL_BYTES = 53
CELL_PAYLOAD = 48
SHARD_BYTES = 47
WIDE_SHARD_BYTES = 46  # 2-byte shard ids (GF(2^16)) when N exceeds what 1 byte can name
MAX_NARROW_SHARDS = 256
HEADER_BYTES = 40
BIG_QUEUE = 100_000

PACKET_SIZES = (512, 1518, 4352, 9180)
WINDOWS = (8000, 16000, 32000, 64000)  # the paper's kB are 1000 bytes (27 kB = 512 cells of 53)
BUFFERS = (64, 256, 512, 1000, 2000, 4000)
ACCESS_MODELS = ("payload", "cell", "packet")
# How the destination finds frame boundaries: the core's ``[atm] reassembly`` modes.
REASSEMBLY_MODES = ("aal5", "per_packet")
# The study's defaults for what the paper leaves open, chosen by the model sweep's rule
# (signatures.py; the sweep's table is in the report and docs/boston.md).
DEFAULT_ACCESS = "cell"
DEFAULT_SOURCE_QUEUE: int | None = 1  # packets waiting behind the one sent; None: unbounded
DEFAULT_REASSEMBLY = "per_packet"
EPD_THRESHOLD = 0.8
PRIMARY_STACK = "ns1"
STACKS = ("ns1", "bsd44")

# What the study sets on top of the stack preset. The ns1 preset already is what the study
# used to spell out by hand (Reno, one ACK per packet, 100 ms ticks, RTO of at least 2 ticks)
# except: the ns timer fires exactly when due rather than on a tick clock, the first timeout is
# ns-1's 3 s rather than ns-2.1b's 6 s, and the backoff multiplier stops at 64 rather than being
# unbounded (ns-1 has no maxrto: the timeout itself can exceed 64 s). The preset's values are
# taken for all three: the paper states none of them.
NS1_TCP: dict[str, Any] = {
    # N = 8m distinct shards, the paper's N >> m: a retransmission carries only shards never
    # sent before (every cell that gets through is used, Sec. 2.1) until 7m have gone, which no
    # segment comes near in these runs (the core counts repeats: `boston_repeated_shards`).
    # With N = 2m the fresh shards ran out within a few lossy rounds of a 9180-byte segment.
    # GF(2^8) up to m = 32, GF(2^16) with 2-byte ids above (4352 B: m = 94, N = 752; 9180 B:
    # m = 199, N = 1592). Decoding a 199-shard GF(2^16) segment is slow, so one rebuilt
    # segment in a hundred is decoded and checked byte for byte.
    "boston_dispersal": 8,
    "boston_verify_every": 100,
}


@dataclass(frozen=True)
class Protocol:
    name: str
    label: str
    codec: str
    drop: Mapping[str, Any]


PROTOCOLS: dict[str, Protocol] = {
    "reno": Protocol("reno", "Reno", "plain", {"policy": "tail"}),
    "reno_epd": Protocol("reno_epd", "Reno with EPD", "plain", {"policy": "epd", "threshold": EPD_THRESHOLD}),
    "boston": Protocol("boston", "Boston", "boston", {"policy": "tail"}),
    "boston_bitmap": Protocol(
        "boston_bitmap", "Boston (bitmap, Sec. 2.5)", "boston_bitmap", {"policy": "tail"}
    ),
}


def protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"protocol: unknown protocol '{name}' (known: {', '.join(PROTOCOLS)})") from None


def protocol_of(codec: str, drop: Any) -> str:
    """The protocol name of a run from its codec and its bottleneck drop policy (dict or JSON)."""
    policy = (json.loads(drop) if isinstance(drop, str) else drop or {}).get("policy", "tail")
    for p in PROTOCOLS.values():
        if p.codec == codec and p.drop["policy"] == policy:
            return p.name
    raise ValueError(f"no protocol has codec {codec!r} and drop policy {policy!r}")


def mss_of(packet: int) -> int:
    """TCP payload of an IP packet of ``packet`` bytes."""
    return packet - HEADER_BYTES


@dataclass(frozen=True)
class ShardGeometry:
    """How the core's codec disperses one segment: m data shards of ``shard_bytes``, N in all."""

    m: int
    n: int
    shard_bytes: int


def shard_geometry(mss: int, codec: str, dispersal: int = NS1_TCP["boston_dispersal"]) -> ShardGeometry:
    """The core's ``Geometry::for_segment`` (crates/tcplab-core/src/atm/ida.rs): IDA asks for
    N = dispersal x m shards; above 256 the ids take 2 bytes, leaving 46 data bytes per cell.
    The bitmap variant sends the data blocks themselves (N = m). No redundancy (the paper's)."""
    factor = 1 if codec == "boston_bitmap" else max(dispersal, 1)
    m = max(math.ceil(mss / SHARD_BYTES), 1)
    if m * factor <= MAX_NARROW_SHARDS:
        return ShardGeometry(m, m * factor, SHARD_BYTES)
    m = max(math.ceil(mss / WIDE_SHARD_BYTES), 1)
    return ShardGeometry(m, min(m * factor, 65_536), WIDE_SHARD_BYTES)


def cells_per_packet(packet: int, protocol_name: str) -> int:
    """Cells of one full-size packet: ceil(b/48) (AAL5 without trailer), or for Boston a header
    cell plus the codec's m shard cells (9180 bytes: 192 for Reno, 200 for IDA Boston, 196 for
    the bitmap variant)."""
    codec = PROTOCOLS[protocol_name].codec
    if codec == "plain":
        return math.ceil(packet / CELL_PAYLOAD)
    return 1 + shard_geometry(mss_of(packet), codec).m


FIT_PROTOCOLS = ("reno", "boston")  # Boston's packets are the larger (a header cell, 2-byte ids)


def cannot_fit(packet: int, buffer: int, access: str = DEFAULT_ACCESS) -> str:
    """Why no packet of this size can cross a buffer this small ("" when one can): under packet
    access a packet's cells reach the output buffer at once."""
    if access != "packet":
        return ""
    cells = max(cells_per_packet(packet, p) for p in FIT_PROTOCOLS)
    if cells <= buffer:
        return ""
    return f"a {packet}-byte packet ({cells} cells) cannot fit a {buffer}-cell buffer under packet access"


def access_rate_bps(access: str) -> float:
    if access == "payload":
        return LINK_BPS * CELL_BYTES / CELL_PAYLOAD
    if access in ("cell", "packet"):
        return float(LINK_BPS)
    raise UserError(f"access: unknown access model '{access}' (known: {', '.join(ACCESS_MODELS)})")


def _tcp(
    packet: int, window: int, proto: Protocol, extra: Mapping[str, Any] | None, stack: str = PRIMARY_STACK
) -> dict[str, Any]:
    if stack not in STACKS:
        raise UserError(f"stack: unknown stack '{stack}' (known: {', '.join(STACKS)})")
    tcp = {"stack": stack, **NS1_TCP, "mss": mss_of(packet), "rcv_buf": window, "codec": proto.codec}
    if stack == "bsd44":
        # BSD's 8192-byte send buffer would cap the paper's windows (up to 64 kB): the largest
        # window, so the receive window alone limits the sender, as in the ns runs.
        tcp["snd_buf"] = max(WINDOWS[-1], window)
    if extra:
        tcp.update(extra)
    return tcp


def source_queue_limit(source_queue: int | None, access: str, packet: int, protocol_name: str) -> int:
    """A source's interface queue in the link's own unit: room for ``source_queue`` full packets
    of the protocol waiting behind the one being sent; None: unbounded. A link's limit counts what
    waits, not what is in service: on a packet link that is ``source_queue`` packets; on a cell
    link the packet being sent still has all but one of its cells waiting, so the same room is
    (source_queue + 1) x cells per packet - 1 cells."""
    if source_queue is None:
        return BIG_QUEUE
    if source_queue < 1:
        raise UserError(f"source_queue: must be at least 1 packet (or unbounded), got {source_queue}")
    if access == "packet":
        return source_queue
    return (source_queue + 1) * cells_per_packet(packet, protocol_name) - 1


def _access_link(src: str, dst: str, access: str, queue: int = BIG_QUEUE) -> dict[str, Any]:
    link: dict[str, Any] = {"a": src, "b": dst, "rate": access_rate_bps(access), "delay": DELAY_S}
    link["queue"] = queue
    if access != "packet":
        link["atm"] = True
    return link


# ---------------------------------------------------------------- the star of Sec. 3


@dataclass(frozen=True)
class StarConfig:
    """One run of the star network. ``window`` is the receive window in bytes (a window below
    one packet still lets one packet out per round trip). ``source_queue``: each source's
    interface queue in full packets waiting behind the one being sent (None: unbounded);
    ``reassembly``: the core's ``[atm] reassembly`` mode at the sink."""

    sources: int = 16
    protocol: str = "reno"
    packet: int = 9180
    window: int = 64000
    buffer: int = 512
    duration: float = 700.0
    access: str = DEFAULT_ACCESS
    stagger: float = 0.05
    series_bin: float | None = None
    seed: int = 1
    tcp: Mapping[str, Any] | None = None
    stack: str = PRIMARY_STACK
    source_queue: int | None = DEFAULT_SOURCE_QUEUE
    reassembly: str = DEFAULT_REASSEMBLY

    def __post_init__(self) -> None:
        protocol(self.protocol)
        access_rate_bps(self.access)
        if self.reassembly not in REASSEMBLY_MODES:
            known = ", ".join(REASSEMBLY_MODES)
            raise UserError(f"reassembly: unknown mode '{self.reassembly}' (known: {known})")
        if self.sources < 1:
            raise UserError(f"sources: must be at least 1, got {self.sources}")
        if self.packet <= HEADER_BYTES:
            raise UserError(f"packet: must exceed the {HEADER_BYTES}-byte TCP/IP header, got {self.packet}")


def star(cfg: StarConfig) -> dict[str, Any]:
    """The scenario dict of one star run. Link 0 is switch -> sink (channel 0 the bottleneck);
    link i + 1 joins source i to the switch (channel 2i + 2 carries its data)."""
    proto = protocol(cfg.protocol)
    names = [f"s{i}" for i in range(cfg.sources)]
    source_q = source_queue_limit(cfg.source_queue, cfg.access, cfg.packet, cfg.protocol)
    bottleneck: dict[str, Any] = {
        "a": "sw",
        "b": "sink",
        "rate": LINK_BPS,
        "delay": DELAY_S,
        "atm": True,
        "queue": BIG_QUEUE,
        "ab": {"queue": cfg.buffer, "drop": dict(proto.drop)},
    }
    doc: dict[str, Any] = {
        "name": f"boston-star-{cfg.protocol}-{cfg.sources}",
        "duration": cfg.duration,
        "seed": cfg.seed,
        "nodes": ["sw", "sink", *names],
        "switches": ["sw"],
        "atm": _atm(cfg.reassembly, cfg.packet, proto.codec),
        "tcp": _tcp(cfg.packet, cfg.window, proto, cfg.tcp, cfg.stack),
        "link": [bottleneck, *(_access_link(n, "sw", cfg.access, source_q) for n in names)],
        # Source i starts at a random point of its own stagger slot: under ns-1's timers (no tick
        # phase) and with no random loss, the start times are what makes replications differ.
        "flow": [
            {"src": n, "dst": "sink", "start": round(i * cfg.stagger, 9), "start_jitter": cfg.stagger}
            for i, n in enumerate(names)
        ],
    }
    if cfg.series_bin is not None:
        doc["series_bin"] = cfg.series_bin
        bottleneck["per_flow_series"] = True  # each connection's cells on the bottleneck (Fig. 16)
    return doc


def max_frame(packet: int) -> int:
    """The receiving AAL's largest frame: the largest any protocol cuts a ``packet``-byte packet
    into (9180 B: 200 cells of 48 bytes for IDA Boston; 9180 is RFC 1626's IP MTU over AAL5, the
    paper's ref. [3]). A buffer growing past it cannot be one frame and is thrown away at once, so
    frames whose flagged last cell was lost are settled as losses instead of staying open."""
    return CELL_PAYLOAD * max(cells_per_packet(packet, p) for p in PROTOCOLS)


def _atm(reassembly: str, packet: int, codec: str) -> dict[str, Any]:
    """The paper's AAL (Sec. 3): a header flag marks a packet's last cell, no trailer, no LLC/SNAP.

    Only Reno's frames are cut at the largest frame. Boston's receiving AAL hands on whatever
    arrived of each packet (Sec. 2.4); a cut at a fixed length splits a packet whose flagged cell
    was lost from the packet after it, and the cells of that packet which arrive after the cut
    can then join nothing and are wasted (measured on the Sec. 4.3 chain, p about 0.9: 310-518
    wasted cell-hops per packet with the cut, 42-65 without)."""
    atm: dict[str, Any] = {"trailer": False, "llc_snap": False, "framing": "flag"}
    if codec == "plain":
        atm["max_frame"] = max_frame(packet)
    if reassembly != "aal5":  # the core's default mode
        atm["reassembly"] = reassembly
    return atm


# ---------------------------------------------------------------- the chain of Sec. 4.3


@dataclass(frozen=True)
class ChainConfig:
    """A tagged connection over ``switches`` switches in a line; packets of ``m`` cells
    (48 m IP bytes); ``cross`` Reno connections share the output of switch ``congested``."""

    switches: int = 3
    protocol: str = "reno"
    m: int = 10
    cross: int = 4
    buffer: int = 256
    congested: int | None = None
    window: int = 64000
    duration: float = 60.0
    seed: int = 1
    stack: str = PRIMARY_STACK

    def __post_init__(self) -> None:
        protocol(self.protocol)
        if self.switches < 1:
            raise UserError(f"--hops: must be an integer of at least 1, got {self.switches}")
        if not 1 <= self.m <= 240:
            raise UserError(f"--m: the simulated chain takes 1 to 240 cells per packet, got {self.m}")
        if not 1 <= self.where <= self.switches:
            raise UserError(f"congested: must name a switch from 1 to {self.switches}, got {self.congested}")
        if self.cross < 1:
            raise UserError(f"--cross: must be at least 1, got {self.cross}")

    @property
    def where(self) -> int:
        return self.congested if self.congested is not None else (self.switches + 1) // 2

    @property
    def hops(self) -> int:
        return self.switches + 1

    @property
    def packet(self) -> int:
        return CELL_PAYLOAD * self.m


def chain(cfg: ChainConfig) -> dict[str, Any]:
    """Link j (0-based) is hop j + 1 of the tagged connection (its channel 2j carries the data);
    then one link per cross source into the congested switch, then the cross sink's link."""
    proto = protocol(cfg.protocol)
    path = ["src", *(f"sw{i}" for i in range(1, cfg.switches + 1)), "dst"]
    k = cfg.where
    links: list[dict[str, Any]] = []
    for j in range(cfg.hops):
        link: dict[str, Any] = {
            "a": path[j],
            "b": path[j + 1],
            "rate": access_rate_bps("payload"),
            "delay": DELAY_S,
            "atm": True,
            "queue": BIG_QUEUE,
        }
        if j == k:  # the output of switch k: the one bottleneck
            link["rate"] = LINK_BPS
            link["ab"] = {"queue": cfg.buffer, "drop": dict(proto.drop)}
        links.append(link)
    cross = [f"x{i}" for i in range(cfg.cross)]
    links += [_access_link(x, f"sw{k}", "payload") for x in cross]
    exit_node = path[k + 1]
    separate = exit_node != "dst"
    if separate:
        links.append(
            {
                "a": exit_node,
                "b": "xsink",
                "rate": LINK_BPS,
                "delay": DELAY_S,
                "atm": True,
                "queue": BIG_QUEUE,
            }
        )
    tagged_tcp = _tcp(cfg.packet, cfg.window, proto, None, cfg.stack)
    cross_tcp = _tcp(cfg.packet, cfg.window, PROTOCOLS["reno"], None, cfg.stack)
    # Every source starts at a random point of its own 100 ms slot (see star()).
    flows = [
        {"name": "tagged", "src": "src", "dst": "dst", "start": 0.0, "start_jitter": 0.1, "tcp": tagged_tcp}
    ]
    flows += [
        {
            "name": f"cross{i}",
            "src": x,
            "dst": "xsink" if separate else "dst",
            "start": 0.1 * (i + 1),
            "start_jitter": 0.1,
            "tcp": cross_tcp,
        }
        for i, x in enumerate(cross)
    ]
    return {
        "name": f"boston-chain-{cfg.protocol}-{cfg.switches}",
        "duration": cfg.duration,
        "seed": cfg.seed,
        "nodes": [*path, *cross, *(["xsink"] if separate else [])],
        "switches": path[1:-1],
        "atm": _atm("aal5", cfg.packet, proto.codec),
        "tcp": {"stack": cfg.stack, **NS1_TCP},
        "link": links,
        "flow": flows,
    }
