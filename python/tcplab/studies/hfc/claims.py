"""The HFC study's claims: one per quantitative statement of Cohen and Ramanathan (1998), Secs. IV-VII.

Each claim is a function of per-run samples, judged by the rule of ``tcplab.report.claims``
(``judging.py`` says how the study applies it); the functions live by section, and
``can_fail.py`` gives each paper claim the paper's own numbers and a refuting input:

- ``claims_sec4.py``: ACK loss, data loss, transfer sizes (Figs. 3-7);
- ``claims_sec5.py``: the socket buffer against the CM (Figs. 8-10, the Sec. V.B bound);
- ``claims_sec6.py``: delayed ACKs (Figs. 11-13, Tahoe-era PCs), MSS against ACK loss (Fig. 14);
- ``put.py``, ``mss.py``: FTP put, and the trade-offs of a smaller MSS (Sec. VI.A-B);
- ``claims_sec6cd.py``: the 200 ms timer, super fast retransmit, modified TCP, Sec. VII.
"""

from __future__ import annotations

from tcplab.report.claims import Claim
from tcplab.studies.hfc import claims_sec4, claims_sec5, claims_sec6, claims_sec6cd, put
from tcplab.studies.hfc import mss as mss_tradeoffs
from tcplab.studies.hfc.claims_sec5 import bound_str
from tcplab.studies.hfc.reasons import REASONS, REASONS_BSD
from tcplab.studies.hfc.results import Results

__all__ = ["REASONS", "REASONS_BSD", "bound_str", "claims"]


def claims(r: Results) -> list[Claim]:
    return [
        *claims_sec4.claims(r),
        *claims_sec5.claims(r),
        *claims_sec6.claims(r),
        *_put(r),
        *(mss_tradeoffs.claims(r.mss) if r.mss is not None else []),
        *claims_sec6cd.claims(r),
    ]


def _put(r: Results) -> list[Claim]:
    """FTP put against get (put.py): only when the put sweeps ran."""
    if put.SWEEP not in r.runs or r.put_first_ack is None:
        return []
    return put.claims(r.runs[put.SWEEP], r.runs["fig12_ftp"], r.put_first_ack)
