"""The TCP Boston paper's set-up (Bestavros and Kim, 1997, Sec. 3) checked against the runs: the
bandwidth-delay product of about 300 cells, from the lone source's first measured round trip.
(Sec. 3's 120 MB in 700 s is a paper value in claims_ref.py; Reno's exponential loss below
50 kB a trend in claims_figs.py.)
"""

from __future__ import annotations

import math

from tcplab.report.claims import cell, paper_value, printed
from tcplab.report.measure import degenerate, exact
from tcplab.report.study import Claim
from tcplab.studies.boston.results import Results
from tcplab.studies.boston.scenarios import (
    CELL_BYTES,
    DELAY_S,
    HEADER_BYTES,
    LINK_BPS,
    cells_per_packet,
)
from tcplab.studies.boston.sweeps import REF_PACKET

__all__ = ["base_rtt", "bdp_claim", "setup_claims"]

CELL_BITS = CELL_BYTES * 8


def base_rtt(packet: int) -> float:
    """The round trip of one packet and its ACK on the empty star: four 10 ms hops, the packet's
    cells through the 1.5 Mb/s output (the slower of its two links) and the ACK's one cell on
    each of its two links."""
    cells = cells_per_packet(packet, "reno")
    ack_cells = math.ceil(HEADER_BYTES / 48)
    return 4 * DELAY_S + (cells + 2 * ack_cells) * CELL_BITS / LINK_BPS


def setup_claims(r: Results) -> list[Claim]:
    return [bdp_claim(r.first_rtt.get("reno", math.nan))]


def bdp_claim(first_rtt_s: float) -> Claim:
    """Sec. 3's pipe, measured: 1.5 Mb/s times the lone Reno source's first round trip (its first
    9180-byte packet and the ACK, on the empty network: the run's own, so it moves with the
    access model), in 53-byte cells. One sample of one run: no spread, so its band is the
    range that prints as 300 (250-350)."""
    m = (
        exact(LINK_BPS * first_rtt_s / CELL_BITS)
        if math.isfinite(first_rtt_s)
        else degenerate("no RTT sample")
    )
    claim = paper_value(
        "bdp_300_cells",
        "The bandwidth-delay product is about 300 cells: 1.5 Mb/s times the lone Reno source's first "
        "measured round trip (a 9180-byte packet and its ACK on the empty network), in 53-byte cells",
        [cell("first round trip x 1.5 Mb/s, cells", printed("300"), m)],
    )
    measured = {
        "cells": None if m.is_degenerate else round(m.value, 1),
        "first_rtt_ms": None if m.is_degenerate else round(first_rtt_s * 1e3, 2),
        "empty_network_formula_cells (not judged)": round(LINK_BPS * base_rtt(REF_PACKET) / CELL_BITS, 1),
        "propagation_only_cells (not judged)": round(LINK_BPS * 4 * DELAY_S / CELL_BITS, 1),
    }
    return Claim(**{**claim.__dict__, "measured": measured})
