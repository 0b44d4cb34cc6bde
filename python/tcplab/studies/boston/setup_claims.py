"""The TCP Boston paper's set-up (Bestavros and Kim, 1997, Sec. 3) checked against the model: the
bandwidth-delay product of about 300 cells. (Sec. 3's 120 MB in 700 s is a paper value in
claims_ref.py; Reno's exponential loss below 50 kB a trend in claims_figs.py.)
"""

from __future__ import annotations

import math

from tcplab.report.claims import about, analytic
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

__all__ = ["base_rtt", "setup_claims"]

CELL_BITS = CELL_BYTES * 8


def base_rtt(packet: int) -> float:
    """The round trip of one packet and its ACK on the empty star: four 10 ms hops, the packet's
    cells through the 1.5 Mb/s output (the slower of its two links) and the ACK's one cell on
    each of its two links."""
    cells = cells_per_packet(packet, "reno")
    ack_cells = math.ceil(HEADER_BYTES / 48)
    return 4 * DELAY_S + (cells + 2 * ack_cells) * CELL_BITS / LINK_BPS


def setup_claims(r: Results) -> list[Claim]:
    return [_bdp()]


def _bdp() -> Claim:
    with_packet = LINK_BPS * base_rtt(REF_PACKET) / CELL_BITS
    propagation = LINK_BPS * 4 * DELAY_S / CELL_BITS
    return analytic(
        "bdp_300_cells",
        "The model's bandwidth-delay product is about 300 cells (within 25%): 1.5 Mb/s times the "
        "round trip of a 9180-byte packet and its ACK on the empty network, in 53-byte cells "
        "(propagation alone listed beside, not judged)",
        "Sec. 3: a relatively low bandwidth-delay product (approximately 300 cells)",
        {
            "9180_B_round_trip_cells": round(with_packet, 1),
            "round_trip_ms": round(base_rtt(REF_PACKET) * 1e3, 2),
            "propagation_only_cells": round(propagation, 1),
        },
        about(with_packet, 300),
    )
