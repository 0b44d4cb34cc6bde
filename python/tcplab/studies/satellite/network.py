"""The network of Goyal et al., "Performance Analysis of TCP Enhancements for WWW Traffic
using UBR+ with Limited Buffers over Satellite Links" (ATM Forum 98-0876R1, 1998), Sec. 6,
as scenario TOML for the core.

100 WWW servers and 100 clients, one server per client, each pair on one persistent HTTP/1.1
connection (the core's ``[www]`` model of Sec. 5). Servers attach to switch ``sw1``, clients
to ``sw2``; the switches are joined by a 45 Mb/s T3, the bottleneck, whose one-way delay sets
the case: 5 ms (WAN), 100 ms (multi-hop LEO / single-hop MEO) or 275 ms (GEO). Access links
run at 155.52 Mb/s, 149.76 Mb/s after SONET overhead, with 5 us of delay. Every switch output
port has the buffer of Table 2 under EPD (R = 0.8) or Selective Drop (R = 0.8, Z = 0.8).
Cells carry LLC/SNAP (8 bytes) and the AAL5 trailer (8 bytes).

TCP (Sec. 6.2) is the ns-2.1b3 stack preset (``tcp.stack = "ns2"``, docs/stacks.md), which
already has the paper's 100 ms timer tick (``ns2:100ms``), no delayed ACK, no silly-window
avoidance and no Nagle. Overridden on top of the preset, each because Sec. 3 or 6.2 says so:
- ``mss``: 1024 (WAN) or 9180 (MEO, GEO), not ns-2's 1000;
- ``rcv_buf`` and ``window_scaling``: 65535 bytes, scaled by 2^5 on MEO (2,097,120 bytes) or
  2^6 on GEO (4,194,240 bytes), not ns-2's 20 packets;
- ``initial_ssthresh``: the bandwidth-delay product of the T3 over the propagation round trip
  (56,250, 1,125,000 and 3,093,750 bytes, computed here, not typed): Hoe's first change;
- ``newreno_changes = true``: Hoe's second change, one new packet on the second duplicate ACK
  in the fast-retransmit phase (Sec. 3.1: "we have incorporated two changes suggested by
  [HOE96]"); ns-2.1b3 had it off by default. It only affects ``newreno_ns2``;
- ``header_bytes = 40``: Sec. 7 counts 40 bytes of TCP/IP headers on top of the MSS (the
  efficiency C is computed from it). ns-2.1b3's own packet is ``packetSize_`` bytes with no
  header added, which the preset follows (``header_bytes = 0``), so the study sets the paper's.

Values the paper does not give, and what this module uses:
- The hosts' own output queues (host to switch): 10^6 cells, so that the host never drops;
  the paper's buffers are the switches'.
- The switch ports towards the hosts get the same buffer and policy as the trunk (an
  output-buffered switch has one buffer size); with one pair per port they never fill.

The readings of what the paper leaves open about the start of a run (``Reading``; the
sensitivity module runs the WAN factorial under each). The primary reading, ``PRIMARY``, was
fixed by one rule before any claim was looked at: take what the paper's own text implies, and
where it says nothing, ns-2.1b3's defaults (the simulator it names):
- ``client_start = "synchronized"``: every client's first batch at t = 0. Sec. 6.1 sizes the
  WAN buffer as "one complete packet for each of the 100 TCP connections", an argument that
  presumes the 100 connections send at once; the paper never mentions staggered starts.
- ``tick_phase = "random"``: ns-2.1b3 draws each agent's ``boot_time_`` uniformly in one tick.
- ``handshake = "none"``: ns-2.1b3's one-way agents start established (``syn_`` false).
- ``initial_rto``: ns-2.1b3's 6 s (``rtxcur_init_``), the ns2 preset's value.
- ``batch_period_s = 10``: Sec. 5 (a batch every 10 s); it is the offered load's knob, left at
  the paper's value rather than tuned to its footnote's 48 Mb/s.

This module depends on nothing else in tcplab: it only writes text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "BUFFERS",
    "CASES",
    "FLAVOURS",
    "PRIMARY",
    "Case",
    "Reading",
    "SatelliteConfig",
    "factorial",
    "initial_ssthresh",
    "satellite_scenario",
]

T3_BPS = 45_000_000
ACCESS_RATE = "149.76Mbps"
ACCESS_DELAY = "5us"
HOST_QUEUE_CELLS = 1_000_000


@dataclass(frozen=True)
class Case:
    """One link type of Sec. 6.1 with its TCP settings (Sec. 6.2) and buffers (Table 2)."""

    name: str
    one_way_delay_s: float
    mss: int
    window_scale: int
    buffers: tuple[int, int, int]

    @property
    def rcv_buf(self) -> int:
        """The effective receive window: 65535 shifted by the window scale."""
        return 65535 << self.window_scale


CASES: dict[str, Case] = {
    "wan": Case("wan", 0.005, 1024, 0, (531, 1062, 2300)),
    "meo": Case("meo", 0.100, 9180, 5, (10615, 21230, 42460)),
    "geo": Case("geo", 0.275, 9180, 6, (29190, 58380, 116760)),
}
BUFFERS = {name: case.buffers for name, case in CASES.items()}

# Sec. 3's flavours as the core names them: ns-2.1b3's NewReno with Hoe's changes, and SACK
# with the PIPE algorithm of Sec. 3.2.
FLAVOURS = {"vanilla": "vanilla", "reno": "reno", "newreno": "newreno_ns2", "sack": "sack"}

# What this study sets over the ns-2 preset besides the per-case mss, window and ssthresh.
NS2_OVERRIDES = "newreno_changes = true\nheader_bytes = 40\n"

DROPS = {
    "epd": '{ policy = "epd", threshold = 0.8 }',
    "sd": '{ policy = "sd", threshold = 0.8, z = 0.8 }',
}


@dataclass(frozen=True)
class Reading:
    """How a run starts, where the paper is silent (see the module's docstring)."""

    client_start: str = "synchronized"
    tick_phase: str = "random"
    handshake: str = "none"
    initial_rto_s: float = 6.0
    batch_period_s: float = 10.0
    # AAL5 at the receiver: "aal5" (cells after a lost last cell join the next frame and both
    # are lost, as real AAL5) or "per_packet" (each frame judged alone, as a simulator that
    # knows packet boundaries). Not about the start of a run, but the paper is silent on it too.
    reassembly: str = "aal5"

    def label(self) -> str:
        return (
            f"start {self.client_start}, ticks {self.tick_phase}, handshake {self.handshake}, "
            f"first RTO {self.initial_rto_s:g} s, batches every {self.batch_period_s:g} s, "
            f"reassembly {self.reassembly}"
        )


# The primary reading: the paper's text, else ns-2.1b3's defaults (module docstring).
PRIMARY = Reading()


@dataclass(frozen=True)
class SatelliteConfig:
    """One run of the factorial: link type, TCP flavour, drop policy and buffer (index 0-2
    into Table 2's row, or a number of cells)."""

    case: str = "meo"
    flavour: str = "sack"
    drop: str = "sd"
    buffer: int = 1
    pairs: int = 100
    duration_s: float = 100.0
    seed: int = 1
    pipelining: bool = True
    idle_restart: str = "none"
    reading: Reading = PRIMARY

    def buffer_cells(self) -> int:
        case = CASES[self.case]
        return case.buffers[self.buffer] if self.buffer in (0, 1, 2) else self.buffer


def factorial(case: str, **fixed: Any) -> list[SatelliteConfig]:
    """The paper's full factorial for one link type: 4 flavours x 2 drop policies x 3 buffers
    (24 runs; Sec. 8), other settings from ``fixed`` (e.g. ``seed``, ``duration_s``)."""
    return [
        SatelliteConfig(case=case, flavour=f, drop=d, buffer=b, **fixed)
        for f in FLAVOURS
        for d in DROPS
        for b in range(3)
    ]


def initial_ssthresh(case: Case, bottleneck_bps: int = T3_BPS) -> int:
    """The bandwidth-delay product over the propagation round trip, in bytes (Hoe 1996)."""
    return round(bottleneck_bps * 2 * case.one_way_delay_s / 8)


def _check(cfg: SatelliteConfig) -> Case:
    if cfg.case not in CASES:
        raise ValueError(f"case: unknown '{cfg.case}' (use {', '.join(CASES)})")
    if cfg.flavour not in FLAVOURS:
        raise ValueError(f"flavour: unknown '{cfg.flavour}' (use {', '.join(FLAVOURS)})")
    if cfg.drop not in DROPS:
        raise ValueError(f"drop: unknown '{cfg.drop}' (use {', '.join(DROPS)})")
    if cfg.pairs < 1:
        raise ValueError("pairs: must be at least 1")
    if cfg.buffer_cells() < 1:
        raise ValueError("buffer: must be 0, 1, 2 or a positive number of cells")
    return CASES[cfg.case]


def _link(a: str, b: str, rate: str, delay: str, queue_ab: int, queue_ba: int, drop: str) -> str:
    """A cell link; `drop` applies to the direction(s) whose queue is a switch's."""
    return (
        f'[[link]]\na = "{a}"\nb = "{b}"\nrate = "{rate}"\ndelay = "{delay}"\natm = true\n'
        f"[link.ab]\nqueue = {queue_ab}\n{drop if a.startswith('sw') else ''}"
        f"[link.ba]\nqueue = {queue_ba}\n{drop}"
    )


def satellite_scenario(cfg: SatelliteConfig) -> str:
    """The scenario TOML of one run."""
    case = _check(cfg)
    rd = cfg.reading
    buffer = cfg.buffer_cells()
    drop = f"drop = {DROPS[cfg.drop]}\n"
    servers = [f"s{i}" for i in range(cfg.pairs)]
    clients = [f"c{i}" for i in range(cfg.pairs)]
    nodes = ", ".join(f'"{n}"' for n in ["sw1", "sw2", *servers, *clients])
    delay_ms = case.one_way_delay_s * 1000
    parts = [
        f'name = "satellite-{case.name}-{cfg.flavour}-{cfg.drop}-{buffer}"\n'
        f"duration = {cfg.duration_s}\nseed = {cfg.seed}\nnodes = [{nodes}]\n"
        'switches = ["sw1", "sw2"]\n\n'
        f'[atm]\ntrailer = true\nllc_snap = true\nreassembly = "{rd.reassembly}"\n\n'
        f'[tcp]\nstack = "ns2"\nvariant = "{FLAVOURS[cfg.flavour]}"\n{NS2_OVERRIDES}'
        f"mss = {case.mss}\nrcv_buf = {case.rcv_buf}\nwindow_scaling = true\n"
        f"initial_ssthresh = {initial_ssthresh(case)}\n"
        f'tick_phase = "{rd.tick_phase}"\ninitial_rto = "{rd.initial_rto_s:g}s"\n\n'
        f'[www]\npipelining = {str(cfg.pipelining).lower()}\nidle_restart = "{cfg.idle_restart}"\n'
        f'client_start = "{rd.client_start}"\nhandshake = "{rd.handshake}"\n'
        f'batch_period = "{rd.batch_period_s:g}s"\n\n',
        _link("sw1", "sw2", "45Mbps", f"{delay_ms:g}ms", buffer, buffer, drop),
    ]
    # Host-side queues are the hosts' own (no drop policy); switch-side ones are Table 2's.
    for s in servers:
        parts.append(_link(s, "sw1", ACCESS_RATE, ACCESS_DELAY, HOST_QUEUE_CELLS, buffer, drop))
    for c in clients:
        parts.append(_link(c, "sw2", ACCESS_RATE, ACCESS_DELAY, HOST_QUEUE_CELLS, buffer, drop))
    for s, c in zip(servers, clients, strict=True):
        parts.append(f'[[www.pair]]\nclient = "{c}"\nserver = "{s}"\n')
    return "\n".join(parts)


def shipped_files() -> dict[str, str]:
    """The example scenarios (one per link type, SACK with SD and the 1 RTT buffer) and the MEO
    benchmark, by file name: what the package ships in ``tcplab/scenarios/``."""
    files = {}
    for case in CASES:
        cfg = SatelliteConfig(case=case)
        files[f"satellite_{case}.toml"] = _header(cfg) + satellite_scenario(cfg)
    bench = SatelliteConfig(case="meo", flavour="newreno")
    text = satellite_scenario(bench).replace('name = "satellite-', 'name = "bench-satellite-', 1)
    files["bench_satellite_meo.toml"] = _header(bench) + text
    return files


def _header(cfg: SatelliteConfig) -> str:
    return (
        "# Goyal et al. (1998), Sec. 6: 100 WWW server-client pairs over two ATM switches and a\n"
        f"# 45 Mb/s T3; {cfg.case.upper()}, {cfg.flavour}, {cfg.drop.upper()}, "
        f"{cfg.buffer_cells()}-cell buffers.\n"
        "# Written by `python -m tcplab.studies.satellite.write_scenarios DIR` from network.py\n"
        "# (edit that module, not this file).\n"
    )
