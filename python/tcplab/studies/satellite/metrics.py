"""Efficiency and fairness as Goyal et al., "Performance Analysis of TCP Enhancements for WWW
Traffic using UBR+ with Limited Buffers over Satellite Links" (1998), Sec. 7 defines them.

- The most TCP throughput C a link can carry follows from the encapsulation of a full
  segment: MSS + TCP/IP headers + LLC/SNAP + the AAL5 trailer, padded to whole 48-byte cell
  payloads, each cell 53 bytes on the link. C = link rate * MSS / (cells * 53).
- Throughput x_i of server i: the highest in-order byte received at its client over the run
  time; efficiency E = sum x_i / C.
- Fairness: Jain's index of x_i / e_i, with e_i the max-min fair share of server i computed
  from its scheduled load S_i (bytes asked of it over the run time) by the rounds of Sec. 7.

Pure functions over plain numbers and the run report's dict; the max-min rounds and the index
are tcplab.fairness's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tcplab.analysis.fairness import jain_index, max_min_shares

__all__ = [
    "SatelliteMetrics",
    "atm_bytes_per_segment",
    "max_tcp_throughput",
    "satellite_metrics",
]

CELL_BYTES = 53
CELL_PAYLOAD = 48
TCP_IP_HEADERS = 40
LLC_SNAP = 8
AAL5_TRAILER = 8


def atm_bytes_per_segment(
    mss: int, headers: int = TCP_IP_HEADERS, llc_snap: int = LLC_SNAP, trailer: int = AAL5_TRAILER
) -> int:
    """Bytes a full segment occupies at the ATM layer: whole cells, 53 bytes each."""
    if mss <= 0:
        raise ValueError("mss must be positive")
    cells = math.ceil((mss + headers + llc_snap + trailer) / CELL_PAYLOAD)
    return cells * CELL_BYTES


def max_tcp_throughput(link_bps: float, mss: int, **overheads: int) -> float:
    """C: the TCP payload rate of a link carrying nothing but full segments, bits/s."""
    if link_bps <= 0:
        raise ValueError("link_bps must be positive")
    return link_bps * mss / atm_bytes_per_segment(mss, **overheads)


@dataclass(frozen=True)
class SatelliteMetrics:
    efficiency: float
    fairness: float
    capacity_bps: float
    throughputs_bps: list[float]
    fair_shares_bps: list[float]


def satellite_metrics(report: Mapping[str, Any], link_bps: float, mss: int) -> SatelliteMetrics:
    """Efficiency and fairness of one run from its JSON report (with a ``www`` list).

    Servers that asked for nothing (possible in a short run) have a fair share of zero and
    are left out of the fairness index, which divides by the share.
    """
    pairs: Sequence[Mapping[str, Any]] = report["www"]
    if not pairs:
        raise ValueError("the report has no WWW pairs")
    duration = float(report["sim_time_s"])
    flows = report["flows"]
    throughputs = [flows[p["response_flow"]]["bytes_delivered"] * 8 / duration for p in pairs]
    loads = [float(p["scheduled_load_bps"]) for p in pairs]
    capacity = max_tcp_throughput(link_bps, mss)
    shares = max_min_shares(loads, capacity)
    kept = [(x, e) for x, e in zip(throughputs, shares, strict=True) if e > 0]
    fairness = jain_index([x for x, _ in kept], [e for _, e in kept]) if kept else float("nan")
    return SatelliteMetrics(
        efficiency=sum(throughputs) / capacity,
        fairness=fairness,
        capacity_bps=capacity,
        throughputs_bps=throughputs,
        fair_shares_bps=shares,
    )
