"""TCP Boston over ATM (Bestavros and Kim, 1997): Figs. 7-17 and the claims of Sec. 4, from cell-level runs.

The network of Sec. 3 (Fig. 6): 16 sources and one sink on one output-buffered ATM switch, all
links 1.5 Mb/s with 10 ms of propagation delay, a FIFO output buffer of 64 to 4000 cells
towards the sink, infinite sources, 700 s runs. AAL5 cuts packets into 48-byte payloads of
53-byte cells (no trailer: the paper's simulator flags the last cell); the destination's AAL5
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
- **retransmission rate**: retransmitted data packets over data packets sent;
- **response time per byte**: connection time over bytes delivered to the application, summed
  over connections (the byte-weighted mean of each connection's time per byte), in ms/byte.

Where the model disagrees with the paper, the report says so and why (see the claims' notes and
docs/boston.md): the access-link model, the TCP timers of ns-1, and AAL5's handling of a lost
last cell.

Files: scenarios.py (the star and the chain), metrics.py (the paper's metrics from a run),
analytic.py (eqs. 1-7), sweeps.py, results.py (derived once), claims.py, figures.py, tables.py,
cli.py (`tcplab boston waste`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcplab.report.claims import POLICY
from tcplab.report.study import Paper, Study
from tcplab.studies.boston.claims import claims
from tcplab.studies.boston.figures import figures
from tcplab.studies.boston.results import derive
from tcplab.studies.boston.sweeps import FULL, QUICK, sweeps, tiny
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
    tiny=tiny,
    derive=derive,
    figures=figures,
    claims=claims,
    tables=tables,
    cli=_cli,
    assumptions=(
        "kB are 1000 bytes (the paper's 27 kB buffer is 512 cells x 53 bytes); windows are 8000-64000 "
        "bytes of receive window; a window below one packet still sends one packet per round trip.",
        "Packet size is the IP packet (TCP/IP header 40 bytes): MSS = size - 40. AAL5 without trailer "
        "or LLC/SNAP: ceil(size/48) cells (9180 B: 192 cells). Boston: 1 header cell + ceil(MSS/47) "
        "shard cells (9180 B: 196 cells) counted as a full packet's useful cells; IDA disperses m "
        "shards into N = 2m (the paper wants N >> m), over GF(2^16) with 2-byte ids and 46-byte shards "
        "when 2m exceeds 256 (9180 B: 199 shards); no redundancy.",
        "Access links: each source's link delivers 48-byte cell payloads at 1.5 Mb/s (53-byte cells at "
        "1.656 Mb/s), as an ns packet link serialises a packet's IP bytes; the switch's output sends "
        "53-byte cells at 1.5 Mb/s. This makes one source able to overflow the switch, as Fig. 15 "
        "reports. The alternatives are in the sensitivity table.",
        "TCP as ns-1 (1995-97) configured it by default: Reno, tcp-tick 0.1 s, RTO = srtt + 4 rttvar in "
        "ticks, at least 2 ticks (200 ms), 6 s before the first sample, backoff up to 64x and no other "
        "cap; one ACK per packet (no delayed ACKs). The paper does not state these; they are fixed "
        "across the study, not tuned.",
        "EPD threshold 80% of the buffer (PPD on overflow), as the satellite study's switches.",
        "Sources start 50 ms apart (source i at 0.05 i s). Replications differ in the phases of the "
        "hosts' timer clocks.",
        POLICY,
    ),
    quick_note=f"{QUICK.duration:g} s runs and {QUICK.reps} replication per point (full mode: "
    f"{FULL.duration:g} s and {FULL.reps}); 'per 700 s' values are scaled from the shorter runs.",
)
