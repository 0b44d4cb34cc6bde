"""Example study: goodput of Vanilla, Reno, NewReno and SACK against random loss on one link.

It exercises the whole reproduce path (sweeps with replications, the store, traces, confidence
intervals, figures, claims written as functions of their inputs, and the fixtures that show each
paper claim can fail) on a question with well-known answers, before the paper studies.

One bulk TCP flow over a 10 Mb/s link with 20 ms of propagation delay each way (a 41.2 ms
round trip with serialisation) and a 100-packet drop-tail queue. Data packets are lost at
random (Bernoulli) at 0, 0.5, 1, 2 and 5%; ACKs are never lost. MSS 1460 bytes, a 64 KiB
receive window (above the 51.5 KB bandwidth-delay product, so a lossless flow fills the link),
fine-grained RTO with the default 1 s minimum, no delayed ACKs. SACK is the PIPE algorithm of
Fall and Floyd (1996) (``sack``). Fall and Floyd's own cases run on the same link as drop lists:
a 146 KB transfer (slow start to 8 segments, then congestion avoidance) loses segment 40 alone,
or segments 40, 42 and 44 of one window of about 11.

**SACK against NewReno.** Fall and Floyd's SACK advantage is for several losses in one window.
At 2% random loss the window is about 8 segments and two losses in one window are rare, so the
textbook gives no reason to expect SACK above NewReno there, and the study no longer claims it
(the table "SACK against NewReno under random loss" gives the measured ratio and its interval).
The drop-list cases (table "Fall and Floyd's drop-list cases") check the core's SACK against
the textbook: in the fast recovery of one drop it sends as many new segments as NewReno and
RFC 6675's SACK, and with three losses in one window it resends every hole within the recovery.
An earlier core counted the fast retransmission itself in PIPE (``SackPipe::on_sent``), so PIPE
started one segment high, one new segment fewer left per recovery and later holes went a round
trip late: this study's drop-list cases found it. Fall and Floyd's sack1 (ns's
Sack1TcpAgent::dupack_action sends it with ``output()``, outside send_much's ``pipe_++``) and
Goyal et al.'s equivalence ("inflating the CWND by one segment for every duplicate ACK") both
leave it out, and so does the core now; ``sack_one_drop_recovery`` keeps checking it.

Files: scenarios.py (the network, the drop-list cases, the Mathis formula), sweeps.py, results.py
(derived once), claims.py, can_fail.py (each paper claim's fixtures), figures.py, tables.py.
"""

from __future__ import annotations

from tcplab.report.study import Paper, Study
from tcplab.studies.example_loss.can_fail import can_fail
from tcplab.studies.example_loss.claims import claims
from tcplab.studies.example_loss.figures import figures
from tcplab.studies.example_loss.results import derive
from tcplab.studies.example_loss.sweeps import sweeps, tiny
from tcplab.studies.example_loss.tables import tables

STUDY = Study(
    name="example_loss",
    title="Example: TCP variants against random loss on one link",
    papers=(
        Paper(
            "K. Fall and S. Floyd",
            "Simulation-based Comparisons of Tahoe, Reno, and SACK TCP",
            1996,
            "ACM Computer Communication Review 26(3)",
        ),
        Paper(
            "M. Mathis, J. Semke, J. Mahdavi and T. Ott",
            "The Macroscopic Behavior of the TCP Congestion Avoidance Algorithm",
            1997,
            "ACM Computer Communication Review 27(3)",
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
        "Random loss hits data packets only (the `ab` direction); ACKs are never lost.",
        "The Mathis formula is evaluated with the 41.2 ms base RTT (no queueing delay), for periodic loss "
        "and no delayed ACKs (constant sqrt(3/2)), for the figure; the claim tests its 1/sqrt(p) scaling, "
        "which does not depend on the constant.",
        "SACK is the PIPE algorithm of Fall and Floyd (1996) (`sack`); `sack_rfc6675` runs only in the "
        "drop-list cases, as a reference for what the PIPE algorithm should send.",
        "Drop-list cases: a 146,000-byte transfer with initial ssthresh 8 segments; one drop (segment 40) "
        "or three (40, 42, 44), each lost on its first transmission only; one run each (deterministic).",
    ),
    quick_note="20 s runs and 5 replications per point (full mode: 100 s runs, 20 replications).",
)
