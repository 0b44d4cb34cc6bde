"""Claims on numbers of the TCP Boston paper's set-up and loss curves (Bestavros and Kim, 1997)
that the figure claims do not check: the bandwidth-delay product of about 300 cells (Sec. 3),
the 120 MB a 700 s run transfers (Sec. 3), and Reno's loss growing exponentially below 50 kB
of buffer (Sec. 4.1). Each is computed from the model's parameters or from our runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tcplab.report.claims import ABOUT_TOL, about, analytic, trend, value
from tcplab.report.study import Claim
from tcplab.studies.boston.results import Results
from tcplab.studies.boston.scenarios import (
    CELL_BYTES,
    DELAY_S,
    HEADER_BYTES,
    LINK_BPS,
    cells_per_packet,
)
from tcplab.studies.boston.sweeps import PAPER_S, REF_PACKET, REF_WINDOW

__all__ = ["FIFTY_KB_CELLS", "base_rtt", "setup_claims"]

CELL_BITS = CELL_BYTES * 8
FIFTY_KB_CELLS = 1000  # 50 kB of 53-byte cells is 943 cells: the grid's 1000-cell buffer
LOSS_FLOOR = 1e-4  # a loss rate of 0 read as this on the log scale


def base_rtt(packet: int) -> float:
    """The round trip of one packet and its ACK on the empty star: four 10 ms hops, the packet's
    cells through the 1.5 Mb/s output (the slower of its two links) and the ACK's one cell on
    each of its two links."""
    cells = cells_per_packet(packet, "reno")
    ack_cells = math.ceil(HEADER_BYTES / 48)
    return 4 * DELAY_S + (cells + 2 * ack_cells) * CELL_BITS / LINK_BPS


def setup_claims(r: Results) -> list[Claim]:
    return [_bdp(), _total(r), _exponential(r)]


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


def _total(r: Results) -> Claim:
    """The 16 sources' IP bytes into the switch over a run, scaled to 700 s, at the reference point."""
    scale = PAPER_S / r.duration_s
    totals = {p: r.at("star", p, "source_bytes") * 16 * scale for p in ("reno", "boston")}
    capacity = LINK_BPS * PAPER_S / 8 * 48 / CELL_BYTES  # the output's cell payload bytes in 700 s
    return value(
        "total_120mb",
        "16 sources put about 120 MB of data into the switch in 700 s (each protocol within "
        f"{ABOUT_TOL:.0%}; "
        "9180 B, 64 kB, 512 cells, scaled to 700 s; the output link's payload capacity listed, not judged)",
        120e6,
        {
            **{f"{p}_MB": round(v / 1e6, 1) for p, v in totals.items()},
            "output_payload_capacity_MB": round(capacity / 1e6, 1),
        },
        all(about(v, 120e6) for v in totals.values()),
    )


def _exponential(r: Results) -> Claim:
    """Reno's loss against the buffer: rising at every step below 50 kB, log-linear there
    (R^2 of ln loss on the buffer at least 0.9), and steeper per cell below 50 kB than above."""
    below = [b for b in r.buffers if b <= FIFTY_KB_CELLS]
    above = [b for b in r.buffers if b >= FIFTY_KB_CELLS]
    out: dict[int, dict[str, Any]] = {}
    ok = len(below) >= 3 and len(above) >= 2
    for pk in r.packets:
        loss = {
            b: max(r.at("star", "reno", "packet_loss_rate", pk, REF_WINDOW, b), LOSS_FLOOR) for b in r.buffers
        }
        x = np.array(below, dtype=float)
        y = np.log([loss[b] for b in below])
        slope, icpt = np.polyfit(x, y, 1) if len(below) >= 2 else (0.0, 0.0)
        fit = slope * x + icpt
        ss = float(np.sum((y - y.mean()) ** 2))
        r2 = 1 - float(np.sum((y - fit) ** 2)) / ss if ss > 0 else 0.0
        steep_below = (math.log(loss[below[0]]) - math.log(loss[below[-1]])) / (below[-1] - below[0])
        steep_above = (math.log(loss[above[0]]) - math.log(loss[above[-1]])) / (above[-1] - above[0])
        rising = all(loss[a] > loss[b] for a, b in zip(below, below[1:], strict=False))
        out[pk] = {
            "loss_at": {b: round(loss[b], 4) for b in r.buffers},
            "r2_below_50kB": round(r2, 3),
            "per_1000_cells_below": round(1000 * steep_below, 3),
            "per_1000_cells_above": round(1000 * steep_above, 3),
        }
        ok = ok and rising and r2 >= 0.9 and steep_below > steep_above
    return trend(
        "fig7_reno_exponential_below_50kB",
        "With a 64 kB window Reno's packet loss rises at every step as the buffer shrinks from 1000 cells "
        "(50 kB) to 64, ln(loss) is linear in the buffer there (R^2 >= 0.9), and it grows faster per cell "
        "below 1000 cells than above (1000-4000), for every packet size",
        "Sec. 4.1: loss rises gradually down to 50 kB; from there Reno's grows exponentially toward the "
        "marginal buffer",
        out,
        ok,
    )
