"""TCP over hybrid fiber-coax access networks: Cohen and Ramanathan, 1998, Secs. IV-VII.

**The network** (Sec. IV.A, Fig. 1): a server on the cable head-end sends to a subscriber's PC
over one HFC downstream channel of 25 Mb/s; ACKs return on a separate 3 Mb/s upstream channel.
The cable modem (CM) forwards to the PC over 10 Mb/s 10Base-T; its buffer is unbounded in
Sec. IV and 10 KB in Sec. V. The round trip is 20 ms (all of it on the HFC hop, 10 ms each
way). Data packets are lost downstream and ACKs upstream, independently (Bernoulli per packet,
each direction set on its own). Several connections share one CM in Fig. 10.

**The stack.** The paper ran "the *ns* network simulator from Lawrence Berkeley Laboratories"
(Sec. IV.A), in a manuscript received in July 1997: the LBL ns of that time is ns-1 (ns-2's first
betas came from the VINT project in 1997), so the primary reproduction runs on tcplab's `ns1`
preset (which is the ns-2.1b code paths with ns-1's 3 s first timeout; see docs/stacks.md for
what could not be checked against ns-1's own source). 4.4BSD-Lite (`bsd44`) runs beside it as a
sensitivity run; the claims table has a column per stack and the headline count is ns-1's.

**TCP on ns-1** (the primary run): one-way Reno agents with no handshake (no SYN to lose); the
window in packets (ns's `window_`): the paper's socket buffer converted to whole packets by
rounding to the nearest, the conversion the paper itself makes in Sec. V.B ("10 kb (seven
packets)"), so 8 KB is 6 packets of 1460 bytes, 16 KB 11, 24 KB 17, 48 KB 34; no send buffer
beyond the window, no silly-window avoidance. Where the ns preset conflicts with the paper's
text, the text wins: MSS 1460 (not ns's 1000), the 500 ms timer granularity (ns's exact timer,
samples and RTO in 500 ms ticks, at least two ticks; not ns-2's 100 ms tick), and the PC's
delayed ACK "limited to about 200 ms" as ns's fixed-interval delayed-ACK sink: every second
segment, or 200 ms after the first unacknowledged one (ns's DelAckSink default is 100 ms), with
out-of-order data ACKed at once. The 200 ms timer of Sec. VI is the same ns timer with 200 ms
ticks.

**TCP on 4.4BSD-Lite** (the sensitivity run): 4.4BSD Reno at both ends: a 500 ms coarse timer
(RTO = srtt + 4 rttvar in ticks, at least two ticks, firing on tick boundaries), 6 s before the
first RTT sample; the PC delays ACKs (every second full segment, or on its free-running 200 ms
clock) and ACKs out-of-order data at once (Reno-era; Tahoe-era PCs keep delaying); the socket
buffer in bytes at both ends; MSS 1460 with 40 bytes of TCP/IP header. Connections open with a
three-way handshake: FTP data connections are opened by the server (window 1 after the
handshake), HTTP connections by the PC (the server, as acceptor, ends the handshake with window
2).

On both stacks the HTTP server writes its 200-byte response header as a segment of its own
before the body. The server-side enhancements of Sec. VI: initial window 2, smaller MSS, the
200 ms timer, super fast retransmit (fast retransmit on the first duplicate ACK) and their
combination ("modified TCP": initial window 2, 200 ms timer, super fast retransmit).

**Throughput** is per transfer: the transfer's bytes (an HTTP body without its header) times 8
over the time from the connection's start (its first SYN on BSD) to the moment the PC holds
the last byte. On BSD the handshake's packets cross the same lossy channels as the rest (media
errors spare no packet).

**Choices the paper leaves open** (each used throughout):

- *"3-Mb"* is 3 megabytes (3,000,000 bytes): the paper's "kb" are kilobytes ("30 kb ... approximately
  20 packets of 1.5 kb each"), so its "Mb" are megabytes. Transfer sizes are powers of 1000 bytes;
  buffers (8, 16, 24, 48 KB socket buffers, 10 KB CM) are powers of 1024 (4.4BSD's 8192-byte
  default socket buffer; 10 KiB is the paper's "seven packets").
- *The Fig. 12 fix for HTTP*: "increase the initial setting of the TCP window ... at the local
  servers alone to two packets": on ns the initial window is simply 2. On BSD it is applied as
  4.4BSD would apply it: the initial window becomes 2,
  and the handshake's last ACK still adds one segment at the acceptor. An HTTP server therefore
  starts with 3 segments (header + two full segments, which the PC ACKs at once), an FTP server
  with 2. (Setting the HTTP server's window to 2, as it already is, would change nothing, and the
  paper says the fix helps HTTP.)
- *The MSS values of Fig. 14*: 1460 (the paper's default), 1024 and 512 bytes, after Sec. VI.B's own
  example of "1-kb" and "0.5-kb" packets.
- *The "modified TCP Reno transmitter" of Sec. IV.D (Figs. 6-7)*, used "to evaluate the effect of
  packet loss without being biased by the implementation of delayed ACK", is read as the server's
  initial window of 2 (Sec. VI.A's server-side fix for the delayed-ACK stall). Fig. 18 uses the same
  transmitter as its "TCP" and adds the 200 ms timer and super fast retransmit for "modified TCP".
- *Socket buffer where the paper does not say*: 8 KB (the paper's default, stated for Figs. 4, 6, 13),
  with the unbounded CM of Sec. IV; Fig. 3's "larger" buffer is 24 KB.
- *FTP put* (Sec. VI.A: put requests "do not experience this problem"): the PC sends upstream (3 Mb/s)
  to a server that delays ACKs as every receiver of the paper does; the PC starts with the acceptor's
  window of two (on BSD from the handshake the server opens, on ns, which has no handshake, as
  ``initial_cwnd = 2``); a PC window of one is run beside it as a control (``put.py``).
- *Sec. VI.B's trade-offs of a smaller MSS* (``mss.py``): MSS 1460, 1024 and 512; burst noise in time
  set so 1 KB packets lose 10% (the paper's example), bursts of 0.1, 1 and 10 times a 1 KB packet's
  time (the paper's "depending on the burstiness" left open); fast retransmits against timeouts at 1%
  and 3% per-packet loss; goodput and slow start lossless with a 48 KB window.
- *Sec. VII's "enhancements"* for ACK loss: modified TCP, MSS 512 and a 16 KB socket buffer (the
  largest of the paper's grid under the Sec. V.B bound of about 19 KB).

The `tcplab hfc buffer` command computes the Sec. V.B bound for any CM buffer, connection count,
MSS and rates, and with `--simulate` checks it against the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcplab.report.study import Paper, Study
from tcplab.studies.hfc import sweeps as sw
from tcplab.studies.hfc.can_fail import can_fail
from tcplab.studies.hfc.claims import claims
from tcplab.studies.hfc.figures import figures
from tcplab.studies.hfc.results import derive
from tcplab.studies.hfc.scenarios import STACKS
from tcplab.studies.hfc.tables import tables

if TYPE_CHECKING:
    import typer


def _cli() -> typer.Typer:
    from tcplab.studies.hfc.cli import hfc_app

    return hfc_app


def _quick_note() -> str:
    q, f = sw.reps(True), sw.reps(False)
    return (
        f"{q['dist']} runs per point for the percentile figure (Fig. 7) and the short transfers "
        f"of Figs. 6 and 18, {q['mean']} for the other means, {q['det']} for lossless runs, {q['trace']} "
        f"traced runs for Fig. 5, {q['share']} runs for the one-in-five proportion, {q['mss']} for the "
        f"burst-noise loss rates of Sec. VI.B (full mode: {f['dist']}, {f['mean']}, {f['det']}, "
        f"{f['trace']}, {f['share']} and {f['mss']})."
    )


STUDY = Study(
    name="hfc",
    title="TCP over hybrid fiber-coax access networks",
    papers=(
        Paper(
            "R. Cohen and S. Ramanathan",
            "TCP for High Performance in Hybrid Fiber Coaxial Broad-Band Access Networks",
            1998,
            "IEEE/ACM Transactions on Networking 6(1)",
        ),
    ),
    summary=__doc__ or "",
    sweeps=sw.sweeps,
    tiny=sw.tiny,
    stacks=STACKS,
    stack_sweeps=sw.sweeps,
    derive=derive,
    figures=figures,
    claims=claims,
    can_fail=can_fail,
    tables=tables,
    cli=_cli,
    assumptions=(
        "Rates: 25 Mb/s downstream, 3 Mb/s upstream, 10 Mb/s CM to PC (paper). Propagation: 10 ms "
        "each way on "
        "the HFC hop, 0 on the 10Base-T cable, for the paper's 20 ms round trip; serialisation adds 1.8 ms.",
        "Packets: MSS 1460 payload bytes + 40 bytes TCP/IP header (a 1500-byte packet); ACKs 40 "
        "bytes (paper: "
        "'1460 and 40 bytes'; read as payload, since a 30 KB transfer is 'about 20 packets of 1.5 kb'). "
        "Link-layer framing is not modelled (the paper ignores it in Sec. V.B).",
        "Queues: the head-end and upstream queues are large (100,000 packets): the paper avoids "
        "overload. The "
        "CM queue is unbounded in Sec. IV and 10240 bytes in Sec. V (bytes waiting, so 6 waiting 1500-byte "
        "packets plus the one being sent: the paper's 'seven packets').",
        "Loss: Bernoulli per packet on each channel, SYNs and handshake ACKs included (media errors do not "
        "spare them); 'Poisson' loss in the paper.",
        "Stack: ns-1 (the paper's LBL ns, by the manuscript's date) is the primary run; 4.4BSD-Lite the "
        "sensitivity run. The paper's text wins over the ns preset for the MSS (1460), the timer "
        "granularity (500 ms; 200 ms for the modified TCP) and the PC's delayed-ACK wait (200 ms, fixed "
        "interval on ns).",
        "TCP on ns-1: Reno with ns's window arithmetic and recovery, no handshake, timers firing exactly "
        "when due with samples and RTO in 500 ms ticks (at least two), first timeout 3 s, windows in "
        "packets: the socket buffer rounded to the nearest whole packet (8/16/24/48 KB = 6/11/17/34 "
        "packets), as the paper rounds its 10 KB CM buffer to 'seven packets'.",
        "TCP on 4.4BSD-Lite: Reno (fast recovery left on the first new ACK), 500 ms ticks, minimum RTO two "
        "ticks, RTO srtt + 4 rttvar in ticks, initial RTO 6 s (4.4BSD's first SYN timeout), exponential "
        "backoff to 64 s; no window scaling; silly-window avoidance at the sender; delayed ACKs on every "
        "second full segment or the free-running 200 ms clock (a wait of 0-200 ms).",
        "PC: out-of-order data ACKed at once (Reno-era), the application reads at once.",
        "Socket buffers: 8192, 16384, 24576, 49152 bytes, set at both ends on BSD (server send buffer, PC "
        "receive buffer); on ns the window in packets above. HTTP response header: 200 bytes. The HTTP "
        "request is not modelled: the server starts its response when the connection opens.",
        "Throughput: bytes x 8 / (time the PC holds the last byte - time of the first SYN), per transfer, "
        "averaged over runs (Fig. 10: per connection). Runs are long enough for every transfer to finish.",
        "Seeds: common random numbers (replication i of every point uses the same seed), base seed 1998.",
        "FTP put: the PC sends transfers of Fig. 12's sizes upstream (3 Mb/s, 10 ms) to the "
        "server, which delays ACKs like the paper's receivers; the PC's initial window is 2 (BSD: from the "
        "server-opened handshake; ns: set directly, ns has no handshake); 8 KB socket buffers.",
        "Sec. VI.B: burst noise in time (exponential good and bad periods; a packet overlapping a bad "
        "period is lost), good periods set so a 1064-byte packet (MSS 1024) is lost with 10% on the "
        "25 Mb/s downstream channel, mean bursts 34 us, 340 us and 3.4 ms (0.1, 1, 10 packet times).",
        "Fig. 16: a congestion window of eight segments (initial ssthresh 8 segments, 48 KB socket buffer so "
        "the receiver window does not limit fast recovery), packets 20 and 23 lost (the paper's 11 and 14 "
        "fall in slow start here); the claim also checks every pair (n, n + 3), n = 13..40.",
        "Consequence, not a tuned value: on BSD tcp_mss rounds both socket buffers up to whole segments "
        "(4.4BSD-Lite's tcp_input.c: 8192, 16384, 24576 and 49152 bytes become 8760, 17520, 24820 and "
        "49640): 6, 12, 17 and 34 segments, against 6, 11, 17 and 34 packets on ns.",
    ),
    quick_note=_quick_note(),
)
