"""The HFC network of Cohen and Ramanathan (1998) as tcplab scenarios.

::

    server ==== HFC: 25 Mb/s downstream, 3 Mb/s upstream, 10 ms ==== cm ---- 10Base-T 10 Mb/s ---- pc
                (independent data loss down, ACK loss up)          (CM buffer in bytes)

Link 0 joins the server and the cable modem (CM): its ``ab`` channel is the HFC downstream
channel, ``ba`` the upstream one, each with its own rate and its own random loss. Link 1 is
the 10Base-T hop from the CM to the PC; its ``ab`` queue is the CM's buffer (``queue_bytes``;
unbounded in the paper's Sec. IV). Every connection runs from the server to the PC through the
one CM.

TCP is 4.4BSD Reno at both ends with a coarse retransmission timer (500 ms ticks, RTO =
srtt + 4 rttvar in ticks), delayed ACKs at the PC (every second full segment, or on the
free-running 200 ms clock), and the socket buffer set at both ends. The connection patterns:

- FTP: the server opens the data connection (``handshake = "sender"``): it is the initiator and
  starts with a window of one segment.
- HTTP: the PC opens (``handshake = "receiver"``): the server is the acceptor and ends the
  handshake with a window of two; its response header leaves as a segment of its own
  (``first_write``) before the body.

The enhancements of Sec. VI are server-side settings: ``initial_cwnd = 2``, a smaller MSS, the
200 ms timer, super fast retransmit (``dupack_threshold = 1``), and their combination.

The constants below are the values this study had to choose; each says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcplab.units import kib

__all__ = [
    "ACK_BYTES",
    "CM_BUFFER",
    "DOWN_BPS",
    "HEADER_BYTES",
    "HFC_DELAY_S",
    "HTTP_HEADER",
    "LAN_BPS",
    "MSS",
    "MODIFIED_TCP",
    "PRIMARY_STACK",
    "STACKS",
    "SOCKET_BUFFERS",
    "UP_BPS",
    "hfc_scenario",
    "kib",
    "stack_tcp",
    "window_packets",
]

# ---------------------------------------------------------------- the network (Sec. IV.A)

# "The downstream and upstream bandwidths on the HFC network are assumed to be 25 and 3 Mb/s."
DOWN_BPS = 25e6
UP_BPS = 3e6
# The CM's 10Base-T interface to the PC (Sec. V.A).
LAN_BPS = 10e6
# "the round-trip delay between the servers and a subscriber PC is set to 20 ms": all of it is
# put on the HFC hop (the server complex's ATM network and the cable plant), 10 ms each way; the
# 10Base-T cable in the home adds no propagation delay worth modelling. Serialisation (0.5 ms at
# 25 Mb/s, 1.2 ms at 10 Mb/s for a data packet, 0.1 ms for an ACK upstream) comes on top.
HFC_DELAY_S = 0.010
LAN_DELAY_S = 0.0
# The head-end (SCS) queue downstream and the upstream queues are never the bottleneck (the paper
# controls the load "so as to avoid network overload"): large drop-tail queues in packets.
BIG_QUEUE = 100_000

# ---------------------------------------------------------------- packets (Sec. IV.A)

# "The TCP data packets and ACK's are assumed to be 1460 and 40 bytes in length": 1460 is read as
# the payload (the MSS of a 1500-byte Ethernet MTU) and 40 as the TCP/IP header, so a data packet
# is 1500 bytes on the wire and an ACK 40. Sec. IV.D's "approximately 20 packets of 1.5 kb each"
# for a 30 kb transfer fits this reading. Link-layer framing (HFC, Ethernet) is not modelled.
MSS = 1460
HEADER_BYTES = 40
ACK_BYTES = HEADER_BYTES


# Socket buffers: the paper's "8 kb" is read as the 4.4BSD default socket buffer of 8192 bytes,
# and 16/24/48 kb as 16, 24, 48 KiB. The buffer is set at both ends (the server's send buffer
# and the PC's receive buffer), so the effective window is this value (Sec. V.B: "the effective
# socket buffer size used for a TCP connection is the minimum of the values at each end").
SOCKET_BUFFERS = (kib(8), kib(16), kib(24), kib(48))
# The CM buffer of Sec. V: "10 kb (seven packets)": 10 KiB = 10240 bytes. The CM's queue limit
# counts bytes waiting, not the packet being sent to the PC, so it holds 6 waiting 1500-byte
# packets plus the one on the wire: the paper's seven.
CM_BUFFER = kib(10)
# HTTP response header: "much smaller than the maximum-sized TCP data packet". 200 bytes, a
# typical HTTP/1.0 response header (status line, server, date, content type and length).
HTTP_HEADER = 200

# ---------------------------------------------------------------- TCP (Secs. IV-VI)

# BSD Reno at both ends: 500 ms coarse timer (minimum RTO two ticks, as 4.4BSD), delayed ACKs
# at the PC on the free-running 200 ms clock, Reno-era out-of-order ACKs.
BASE_TCP: dict[str, Any] = {
    "variant": "reno",
    "mss": MSS,
    "header_bytes": HEADER_BYTES,
    "timer": "500ms",
    "delayed_ack": True,
    "delayed_ack_timeout": "200ms",
    "out_of_order_ack": "immediate",
    "initial_cwnd": 1,
    "dupack_threshold": 3,
    "window_scaling": False,
    # 4.4BSD's first retransmission timeout before any RTT sample (a lost SYN or SYN-ACK):
    # t_rxtcur = ((TCPTV_SRTTBASE >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1 = 12 ticks = 6 s.
    "initial_rto": "6s",
}

# ---------------------------------------------------------------- the stack (Sec. IV.A)

# "using the ns network simulator from Lawrence Berkeley Laboratories": the manuscript was
# received in July 1997, so its simulations predate ns-2's first beta releases (ns-2.1b, 1997);
# the LBL ns of that time is ns-1, and "from Lawrence Berkeley Laboratories" names LBL's ns rather
# than the VINT project's ns-2. The primary reproduction therefore runs on tcplab's ns1 preset;
# 4.4BSD-Lite (bsd44) runs beside it as a sensitivity run.
PRIMARY_STACK = "ns1"
STACKS = ("ns1", "bsd44")

# The ns agents with the paper's own mechanisms kept where the preset would differ (the paper's
# text wins): MSS 1460 (the preset's 1000 is ns's default packetSize_), the 500 ms timer
# granularity (Sec. VI.C; the preset's tick is ns-2's 100 ms), a delayed-ACK PC whose wait is
# "limited to about 200 ms" (Sec. III; ns's DelAckSink waits a fixed 100 ms by default) as a
# fixed-interval delayed ACK, exactly 200 ms after the first unacknowledged segment. What is the
# ns stack's own stays: no handshake (one-way agents), timers firing exactly when due, windows
# counted in packets (``window_packets``), no sender socket buffer beyond the window, no SWS
# avoidance or Nagle, ns's window arithmetic and Reno recovery.
NS_TCP: dict[str, Any] = {
    "variant": "reno",
    "mss": MSS,
    "header_bytes": HEADER_BYTES,
    "timer": "ns2:500ms",
    "delayed_ack": True,
    "delayed_ack_aligned": False,
    "delayed_ack_timeout": "200ms",
    "out_of_order_ack": "immediate",
    "initial_cwnd": 1,
    "dupack_threshold": 3,
}


def window_packets(sock_buf: int, mss: int = MSS) -> int:
    """An ns window (``window_``, in packets) for the paper's socket buffer in bytes.

    The paper converts bytes to packets once, in Sec. V.B: "a CM buffer of 10 kb (seven
    packets)"; 10 KiB / 1460 = 7.01 and 10 kB / 1460 = 6.85, so the paper's conversion is
    rounding to the nearest packet, not truncation (which gives 6 for 10 kB). Applied to the
    8 KB socket buffer (8192 / 1460 = 5.6) it gives 6 packets.
    """
    return max(1, round(sock_buf / mss))


def stack_timer(timer: str, stack: str) -> str:
    """The paper's timer granularity as ``stack`` runs it: a BSD tick clock, or ns's exact timer
    with samples and the RTO in ticks of the same granularity."""
    return f"ns2:{timer}" if stack in ("ns1", "ns2") and not timer.startswith("ns2:") else timer


def stack_tcp(stack: str, sock_buf: int, tcp: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The whole ``[tcp]`` table for ``stack`` with the socket buffer ``sock_buf`` (bytes) and the
    study's changes ``tcp`` (timers given as BSD ticks, as the paper gives them)."""
    extra = dict(tcp or {})
    if "timer" in extra:
        extra["timer"] = stack_timer(str(extra["timer"]), stack)
    if stack == "bsd44":
        return {"stack": "bsd44", **BASE_TCP, "rcv_buf": sock_buf, "snd_buf": sock_buf, **extra}
    if stack not in ("ns1", "ns2"):
        raise ValueError(f"stack must be one of {', '.join(STACKS)}, got {stack!r}")
    mss = int(extra.get("mss", MSS))
    buf = int(extra.pop("rcv_buf", sock_buf))
    extra.pop("snd_buf", None)
    return {"stack": stack, **NS_TCP, "rcv_buf": window_packets(buf, mss) * mss, **extra}


# The modified TCP of Sec. VI (Figs. 17-18): every change made at the server alone. Fig. 17's
# best curve is "TCP with 200ms timer and super fast retransmit"; initial window 2 (Sec. VI.A)
# is part of the combination, since it is the server-side fix of the same section. The MSS is
# left at 1460: Sec. VI.B proposes the smaller MSS for upstream (ACK) loss, not data loss.
MODIFIED_TCP: dict[str, Any] = {"timer": "200ms", "dupack_threshold": 1, "initial_cwnd": 2}

PATTERNS = ("ftp", "http", "bulk")
# Simulated time allowed per run: every transfer of the study ends well before (the slowest, a
# 3 MB transfer at 30% ACK loss with 500 ms timers and exponential backoff, takes up to about
# 1600 s); a transfer still running at the end counts as unfinished in the report.
DURATION_S = 5000.0


def hfc_scenario(
    *,
    size: int,
    sock_buf: int = kib(8),
    data_loss: float = 0.0,
    ack_loss: float = 0.0,
    cm_buffer: int | None = None,
    connections: int = 1,
    pattern: str = "ftp",
    tcp: Mapping[str, Any] | None = None,
    header: int = HTTP_HEADER,
    trace: bool = False,
    duration_s: float = DURATION_S,
    down_bps: float = DOWN_BPS,
    lan_bps: float = LAN_BPS,
    name: str = "hfc",
    stack: str = PRIMARY_STACK,
) -> dict[str, Any]:
    """One HFC scenario: ``connections`` downloads of ``size`` bytes each from the server to the PC.

    ``pattern``: "ftp" (the server opens the data connection), "http" (the PC opens, the
    server's response header of ``header`` bytes leaves on its own before the ``size`` bytes of
    body), or "bulk" (no handshake). ``cm_buffer``: the CM's buffer in bytes (None: unbounded).
    ``tcp`` overrides the BSD Reno defaults (``MODIFIED_TCP`` for the modified TCP).
    """
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {', '.join(PATTERNS)}, got {pattern!r}")
    if connections < 1:
        raise ValueError("at least one connection")
    settings = stack_tcp(stack, sock_buf, tcp)
    if stack == "bsd44":
        settings["handshake"] = {"ftp": "sender", "http": "receiver", "bulk": "none"}[pattern]
    lan_ab: dict[str, Any] = {"queue_bytes": cm_buffer} if cm_buffer is not None else {"queue": BIG_QUEUE}
    flows = []
    for i in range(connections):
        f: dict[str, Any] = {"name": f"{pattern}{i}", "src": "server", "dst": "pc", "bytes": size}
        if pattern == "http":
            f["bytes"] = size + header
            f["first_write"] = header
        if trace:
            f["trace"] = True
        flows.append(f)
    return {
        "name": name,
        "duration": duration_s,
        "nodes": ["server", "cm", "pc"],
        "tcp": settings,
        "link": [
            {
                "a": "server",
                "b": "cm",
                "delay": HFC_DELAY_S,
                "ab": {"rate": down_bps, "queue": BIG_QUEUE, "loss": _loss(data_loss)},
                "ba": {"rate": UP_BPS, "queue": BIG_QUEUE, "loss": _loss(ack_loss)},
            },
            {
                "a": "cm",
                "b": "pc",
                "delay": LAN_DELAY_S,
                "ab": {"rate": lan_bps, **lan_ab},
                "ba": {"rate": lan_bps, "queue": BIG_QUEUE},
            },
        ],
        "flow": flows,
    }


def _loss(p: float) -> dict[str, Any]:
    return {"model": "bernoulli", "p": float(p)}


# Channel ids in a run's report: link i's a->b channel is 2i, b->a is 2i+1.
CH_DOWN = 0
CH_UP = 1
CH_CM = 2
