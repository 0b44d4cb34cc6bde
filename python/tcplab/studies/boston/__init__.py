"""TCP Boston over ATM (Bestavros and Kim, 1997): Figs. 7-17 and the claims of Sec. 4, from cell-level runs.

The network of Sec. 3 (Fig. 6): 16 sources and one sink on one output-buffered ATM switch, all
links 1.5 Mb/s with 10 ms of propagation delay, a FIFO output buffer of 64 to 4000 cells
towards the sink, infinite sources, 700 s runs. AAL5 cuts packets into 48-byte payloads of
53-byte cells (no trailer: the paper's simulator flags the last cell); the destination's AAL
discards incomplete packets (Reno) or hands on what arrived (Boston). Protocols: Reno, Reno
over a switch doing EPD, TCP Boston (IDA over GF(2^8), no redundancy, as in the paper) and,
as a diagnostic, Boston's bitmap variant of Sec. 2.5. Packet sizes 512/1518/4352/9180 bytes,
windows 8/16/32/64 kB, buffers 64/256/512/1000/2000/4000 cells.

Metrics (docs/boston.md has the details):

- **effective throughput**: the cells of the bottleneck link that carried data the application
  used, over the link's cell capacity (application bytes x cells per full packet / MSS x 53 /
  (1.5 Mb/s x T / 8)); 1 means every cell slot carried useful data. For Boston every cell that
  crosses the link is used, so its effective throughput is its utilisation less overheads, as
  Sec. 4.1 says;
- **loss rate**: for Reno (and Reno with EPD) the packet loss rate caused by cell drops: data
  packets that did not reach TCP intact over data packets sent; for Boston the cell loss rate:
  cells dropped at the switch over cells arriving at it;
- **retransmission rate**: cells of retransmissions over cells the sources sent (Boston's
  retransmissions of m - r shards count at their size), whatever the access link;
- **response time per byte**: connection time over bytes delivered to the application, summed
  over connections (the byte-weighted mean of each connection's time per byte), in ms/byte.

**The stack.** The paper ran "a heavily modified" ns (Sec. 3) in 1996-97, i.e. ns-1, so the
primary reproduction runs on tcplab's `ns1` preset (docs/stacks.md: the ns-2.1b code paths with
ns-1's 3 s first timeout): one-way Reno agents with no handshake, one ACK per packet, windows in
packets, ns's exact timer with 100 ms ticks and an RTO of at least two ticks, the backoff
multiplier doubling up to 64 at every timeout and (ns-1's reset_rtx_timer) every fast retransmit.
The study overrides only what the paper sets: the MSS (its packet sizes), the window (its kB)
and the codec. 4.4BSD-Lite (`bsd44`) runs beside it as a sensitivity run (its preset, plus a
send buffer as large as the largest window so that the receive window alone limits the
sender); the claims table has a column per stack and the headline count is ns-1's.

Where the model disagrees with the paper, the report says so and why (see the claims' notes and
docs/boston.md). The access-link model, the sources' interface queues and the reassembly mode,
which the paper does not state, are chosen by a model sweep scored against the paper's own
signatures (signatures.py; its table is in the report).

Files: scenarios.py (the star and the chain), metrics.py (the paper's metrics from a run),
analytic.py (eqs. 1-7), sweeps.py, results.py (derived once), claims.py, setup_claims.py,
signatures.py (the model sweep), partial.py (the partial ACK's two readings), figures.py,
tables.py, cli.py (`tcplab boston waste`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcplab.report.study import Paper, Study
from tcplab.studies.boston.can_fail import can_fail
from tcplab.studies.boston.claims import claims
from tcplab.studies.boston.figures import figures
from tcplab.studies.boston.results import derive
from tcplab.studies.boston.scenarios import STACKS
from tcplab.studies.boston.sweeps import FULL, QUICK, SENSITIVITY_QUICK, sweeps, tiny
from tcplab.studies.boston.tables import tables

if TYPE_CHECKING:
    import typer


def _cli() -> typer.Typer:
    from tcplab.studies.boston.cli import boston_app

    return boston_app


STUDY = Study(
    name="boston",
    title="TCP Boston: a fragmentation-tolerant TCP over ATM",
    papers=(
        Paper(
            "A. Bestavros and G. Kim",
            "TCP Boston: A Fragmentation-tolerant TCP Protocol for ATM Networks",
            1997,
            "Proc. IEEE INFOCOM",
        ),
    ),
    summary=__doc__ or "",
    sweeps=sweeps,
    stacks=STACKS,
    stack_sweeps=sweeps,
    tiny=tiny,
    derive=derive,
    figures=figures,
    claims=claims,
    tables=tables,
    cli=_cli,
    can_fail=can_fail,
    assumptions=(
        "kB are 1000 bytes (the paper's 27 kB buffer is 512 cells x 53 bytes); windows are 8000-64000 "
        "bytes of receive window; a window below one packet still sends one packet per round trip.",
        "Packet size is the IP packet (TCP/IP header 40 bytes): MSS = size - 40. AAL5 without trailer "
        "or LLC/SNAP: ceil(size/48) cells (9180 B: 192 cells). Boston: 1 header cell + m shard cells, "
        "counted as a full packet's useful cells, with m from the codec's geometry: IDA disperses m "
        "shards into N = 8m (the paper wants N >> m) over GF(2^8) with 47-byte shards while N <= 256, "
        "else over GF(2^16) with 2-byte ids and 46-byte shards (4352 B: m = 94, 95 cells; 9180 B: m = 199, "
        "N = 1592, 200 cells), a departure from the paper's one byte of heading per cell; "
        "the bitmap variant sends m = ceil(MSS/47) blocks (9180 B: 196 cells); no redundancy.",
        "Access links, source interface queues and the reassembly mode are not in the paper; the "
        "defaults come from the model sweep (its table and rule are below): cell links at 1.5 Mb/s "
        "into the switch (53-byte cells, so a source's cells reach the output buffer one at a time, "
        "no faster than it drains); one packet of room behind the one being sent in each source's "
        "interface queue; each frame judged alone at the sink (a lost flagged cell spoils only its own "
        "frame). The other access models (payload, packet) are in the sensitivity table.",
        "AAL: the paper's header-flag framing (no trailer, Sec. 3); the receiving AAL's largest frame "
        "is the run's largest (9600 bytes at 9180 B), so frames whose flagged cell was lost are counted "
        "as lost (Reno runs; Boston runs have no length cut, see docs/boston.md). Boston sends the "
        "m - r fresh shards at the next retransmission (Sec. 2.3); Sec. 2.1's reading is run beside it.",
        "TCP as the ns1 preset configures it (the paper states none of it): Reno, ns's exact timer with "
        "tcp-tick 0.1 s, RTO = srtt + 4 rttvar in ticks and at least 2 ticks (200 ms), 3 s before the "
        "first sample, the backoff multiplier doubling up to 64 at every timeout and every fast retransmit "
        '(ns-1\'s reset_rtx_timer; fast_retransmit_timer = "keep" is the other reading); one ACK per '
        "packet; no handshake. The study used to run the "
        "tcplab stack with these set by hand; three differ from it and follow the preset: the timer "
        "fires when due (not on a tick clock), the first timeout is 3 s (was 6 s) and the backoff "
        "multiplier stops at 64 (was unbounded; ns-1 has no maxrto, so gaps between timeouts reach 96 s "
        "on a 1.5 s RTO). Overrides: MSS, window and codec only. Sensitivity: 4.4BSD-Lite.",
        "EPD threshold 80% of the buffer (PPD on overflow), as the satellite study's switches; the paper "
        "gives none, so Reno with EPD is also run at 50% and 95% (its table is below).",
        "Degenerate points: under packet access (a sensitivity model) a packet's cells reach the output "
        "buffer at once, so at 64 cells no 4352- or 9180-byte packet (91 and 192 cells; Boston 95 and 200) "
        "can ever cross the switch and every protocol is dead; such points would be reported as "
        "degenerate and left out of every ordering and trend, trends toward the smallest buffer running to "
        "the smallest buffer the packet fits (256 cells). Under the default cell access every point of the "
        "grid is live.",
        "Source i starts at a uniformly random point of its own 50 ms slot (i x 50 ms to (i + 1) x "
        "50 ms): on ns-1's exact timer there are no tick phases, so the start times are what makes "
        "replications differ.",
    ),
    quick_note=f"{QUICK.duration:g} s runs and {QUICK.reps} replications per point (full mode: "
    f"{FULL.duration:g} s and {FULL.reps}); 'per 700 s' values are scaled from the shorter runs. The "
    f"4.4BSD-Lite sensitivity run uses the same grid in {SENSITIVITY_QUICK.duration:g} s runs in quick "
    "mode (full mode: as the primary).",
)
