"""The example study's network: one bulk TCP flow over one lossy link, and the Mathis formula.

One bulk TCP flow over a 10 Mb/s link with 20 ms of propagation delay each way (a 41.2 ms
round trip with serialisation) and a 100-packet drop-tail queue. Data packets are lost at
random (Bernoulli); ACKs are never lost. MSS 1460 bytes, a 64 KiB receive window (above the
51.5 KB bandwidth-delay product, so a lossless flow fills the link), fine-grained RTO with the
default 1 s minimum, no delayed ACKs.
"""

from __future__ import annotations

import math
from typing import Any

RATE_BPS = 10e6
DELAY_S = 0.020
MSS = 1460
HEADER = 40
# Round trip without queueing: propagation both ways, a data packet's and an ACK's serialisation.
BASE_RTT_S = 2 * DELAY_S + (MSS + HEADER) * 8 / RATE_BPS + HEADER * 8 / RATE_BPS
PAYLOAD_RATE_BPS = RATE_BPS * MSS / (MSS + HEADER)


def scenario(duration_s: float, trace: bool = False) -> dict[str, Any]:
    return {
        "name": "example-loss",
        "duration": duration_s,
        "nodes": ["sender", "receiver"],
        "tcp": {"variant": "reno", "mss": MSS, "header_bytes": HEADER, "rcv_buf": "64KiB"},
        "link": [
            {
                "a": "sender",
                "b": "receiver",
                "rate": RATE_BPS,
                "delay": DELAY_S,
                "queue": 100,
                "ab": {"loss": {"model": "bernoulli", "p": 0.0}},
            }
        ],
        "flow": [{"name": "bulk", "src": "sender", "dst": "receiver", "trace": trace}],
    }


# Fall and Floyd's (1996) drop-list cases, on the same link: a fixed transfer whose window has
# grown to about 11 segments (slow start ends at 8 segments, then congestion avoidance) when
# segment 40 is lost, alone (one drop) or with 42 and 44 (three drops in one window).
DROP_TRANSFER = 100 * MSS
DROP_SSTHRESH = 8 * MSS
ONE_DROP = [40]
THREE_DROPS = [40, 42, 44]


def drop_scenario(drops: list[int], trace: bool = True) -> dict[str, Any]:
    """One transfer of ``DROP_TRANSFER`` bytes that loses the listed segments once each."""
    doc = scenario(2.0, trace=trace)
    doc["name"] = "example-drops"
    doc["tcp"]["initial_ssthresh"] = DROP_SSTHRESH
    doc["link"][0]["ab"]["loss"] = {"model": "drop_list", "flow": 0, "by": "segment", "values": list(drops)}
    doc["flow"][0]["bytes"] = DROP_TRANSFER
    return doc


def mathis_bps(p: float, rtt_s: float = BASE_RTT_S) -> float:
    """Mathis et al. (1997): BW = MSS / RTT * sqrt(3/2) / sqrt(p)."""
    return MSS * 8 / rtt_s * math.sqrt(1.5) / math.sqrt(p)
