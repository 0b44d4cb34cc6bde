"""Example study: goodput of Vanilla, Reno, NewReno and SACK against random loss on one link.

It exercises the whole reproduce path (sweeps with replications, the store, traces, confidence
intervals, figures, claims) on a question with well-known answers, before the paper studies.

One bulk TCP flow over a 10 Mb/s link with 20 ms of propagation delay each way (a 41.2 ms
round trip with serialisation) and a 100-packet drop-tail queue. Data packets are lost at
random (Bernoulli) at 0, 0.5, 1, 2 and 5%; ACKs are never lost. MSS 1460 bytes, a 64 KiB
receive window (above the 51.5 KB bandwidth-delay product, so a lossless flow fills the link),
fine-grained RTO with the default 1 s minimum, no delayed ACKs. SACK is the PIPE algorithm of
Fall and Floyd (1996) (``sack``).

Files: scenarios.py (the network, the Mathis formula), sweeps.py, results.py (derived once),
claims.py, figures.py, tables.py.
"""

from __future__ import annotations

from tcplab.report.study import Paper, Study
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
    tables=tables,
    assumptions=(
        "Random loss hits data packets only (the `ab` direction); ACKs are never lost.",
        "The Mathis formula is evaluated with the 41.2 ms base RTT (no queueing delay), for periodic "
        "loss and no delayed ACKs (constant sqrt(3/2)); the factor of 1.5 allowed is this study's choice.",
        "SACK is the PIPE algorithm of Fall and Floyd (1996) (`sack`); `sack_rfc6675` is not part of "
        "this study.",
    ),
    quick_note="20 s runs and 5 replications per point (full mode: 100 s runs, 20 replications).",
)
