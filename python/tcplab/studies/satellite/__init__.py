"""Satellite study: WWW traffic over ATM UBR+ on WAN, MEO and GEO links (Goyal et al., 1998).

100 WWW server-client pairs (the core's ``[www]`` model of Sec. 5: persistent HTTP/1.1,
pipelined requests, file sizes of Table 1) share a 45 Mb/s T3 between two ATM switches whose
one-way delay is 5 ms (WAN), 100 ms (multi-hop LEO / single-hop MEO) or 275 ms (GEO). For each
link type the paper's full factorial: Vanilla, Reno, NewReno (ns-2.1b3) and SACK (Sec. 3) x EPD
and Selective Drop x three switch buffers of about 0.5, 1 and 2 RTT x bandwidth (Table 2).
Efficiency and fairness as Sec. 7 defines them, then Jain's factorial analysis (Sec. 8.1) of
our runs beside the paper's Tables 4-12.

Files: network.py (the scenario of Sec. 6), metrics.py (Sec. 7), paper.py (the paper's printed
tables, as reference data), sweeps.py, results.py (derived once), tables.py, claims.py,
estimates.py (the factorial analysis' intervals the claims' orderings are judged on),
figures.py, backlog.py (a diagnostic not in the paper: how many servers are backlogged over
time), can_fail.py (each claim on the paper's own tables and on a refuting copy),
sensitivity.py (each link type's factorial under each reading of what the paper leaves open),
budget.py (where a configuration's efficiency goes, from the sensitivity runs), restart.py (how
the servers stalled by the synchronised start come back under EPD and SD).
docs/satellite.md lists every choice the paper leaves open.
"""

from __future__ import annotations

from tcplab.report.study import Paper, Study
from tcplab.studies.satellite.can_fail import can_fail
from tcplab.studies.satellite.claims import claims
from tcplab.studies.satellite.figures import figures
from tcplab.studies.satellite.results import derive
from tcplab.studies.satellite.sweeps import FULL, QUICK, sweeps, tiny
from tcplab.studies.satellite.tables import tables

STUDY = Study(
    name="satellite",
    title="TCP enhancements for WWW traffic over ATM UBR+ on satellite links",
    papers=(
        Paper(
            "M. Goyal, R. Goyal, R. Jain, B. Vandalore, S. Fahmy, T. vonDeak, K. Bhasin, N. Butts "
            "and S. Kota",
            "Performance Analysis of TCP Enhancements for WWW Traffic using UBR+ with Limited Buffers "
            "over Satellite Links",
            1998,
            "ATM Forum contribution 98-0876R1",
        ),
    ),
    summary=__doc__ or "",
    sweeps=sweeps,
    tiny=tiny,
    derive=derive,
    figures=figures,
    claims=claims,
    can_fail=can_fail,
    tables=tables,
    assumptions=(
        'TCP is the ns-2.1b3 stack preset (`tcp.stack = "ns2"`: 100 ms timer tick, no delayed ACK, no '
        "silly-window avoidance), overridden only where Secs. 3 and 6.2 say: MSS 1024/9180, the scaled "
        "receive window, initial ssthresh = bandwidth-delay product, Hoe's flywheel "
        "(`newreno_changes = true`) for NewReno, and Sec. 7's 40 bytes of TCP/IP headers on top of "
        "the MSS (`header_bytes = 40`; ns-2.1b3's packet is `packetSize_` with no header).",
        "SACK is the PIPE algorithm of Sec. 3.2 (`sack`).",
        "The paper ran each configuration once; we run each "
        f"{FULL.replications} times (independent seeds) in full mode, so the ANOVA's error term is "
        "the replication error plus the second-order interaction. Replication i of every "
        "configuration uses the same seed (common random numbers: the same WWW workload).",
        "The hosts' own output queues hold 10^6 cells (they never drop); the switch ports towards the "
        "hosts get the trunk's buffer and policy.",
        "Where the paper is silent about the start of a run, one reading fixed before any claim was looked "
        "at: the paper's text, else ns-2.1b3's defaults. Every client's first batch at t = 0 (Sec. 6.1's "
        "buffer argument, one packet for each of the 100 connections, presumes they send at once); each "
        "host's timer ticks at a random phase (ns-2's per-agent boot time); no handshake (ns-2's one-way "
        "TCP); a 6 s first timeout (ns-2.1b3's default); a batch every 10 s (Sec. 5). docs/satellite.md "
        "has the WAN results under the other readings.",
        "The body of the paper's Table 10 (GEO per configuration) is missing from the available text; "
        "GEO is compared through Tables 11 and 12 only.",
        "How this study's claims are judged (claims.py): each cell of Tables 4 and 7 within 1.645 "
        "sqrt(se_paper^2 + se_ours^2 / n) of the paper's value (the paper's and our error standard "
        "deviations); orderings and trends on the 90% interval of Jain's factorial analysis of our runs, "
        "the paper's own method (Sec. 8.1), against zero, the paper's own intervals, or one stated reading "
        "of each word ('much': twice; 'around 2%': at most 0.025; 'not much difference': within 0.02).",
    ),
    quick_note=(
        f"{QUICK.replications} replication of {QUICK.duration_s:g} s runs (full mode: "
        f"{FULL.replications} replications of {FULL.duration_s:g} s); still all 24 configurations for "
        "each of WAN, MEO and GEO, so every table and claim is computed."
    ),
)
