"""The study's tables: mean throughput (and compliant throughput) per connection for every scheme,
variant and network, and the RTT sensitivity."""

from __future__ import annotations

from typing import Any

import pandas as pd

from tcplab.report.study import Table
from tcplab.studies.intserv.figures import RESERVED, sensitivity_mean
from tcplab.studies.intserv.results import Results
from tcplab.studies.intserv.scenarios import (
    ERED_LEVELS,
    MIN_RTT_OF,
    NAMES,
    PAYLOAD_IDEAL_BPS,
    PRIMARY_ERED,
    SCHEME_NAMES,
)
from tcplab.studies.intserv.sweeps import (
    FIG1_SCHEMES,
    FIG1_VARIANTS,
    FIG11_SCHEMES,
    RECOVERY,
    RECOVERY_NAMES,
    RTT_SCALES,
    SENSITIVITY_SCHEMES,
)


def _row(r: Results, sweep: str, head: dict[str, Any], **levels: Any) -> dict[str, Any]:
    row = dict(head)
    for f in RESERVED:
        tot = r.mean(sweep, f, **levels) / 1e6
        comp = r.mean(sweep, f, "compliant_bps", **levels) / 1e6
        row[f"{f} (ideal {PAYLOAD_IDEAL_BPS[f] / 1e6:.2f})"] = f"{tot:.2f} ({comp:.2f})"
    row[f"BE mean (ideal {PAYLOAD_IDEAL_BPS['BE1'] / 1e6:.2f})"] = f"{r.be_mean(sweep, **levels) / 1e6:.2f}"
    row["C4 tokens lost (pkt/s)"] = f"{r.mean(sweep, 'C4', 'tokens_lost_pkts_per_s', **levels):.0f}"
    return row


def tables(r: Results) -> list[Table]:
    fig1 = [
        _row(r, "fig1", {"variant": v, "scheme": SCHEME_NAMES[s]}, scheme=s, variant=v)
        for v in FIG1_VARIANTS
        for s in FIG1_SCHEMES
    ]
    fig11 = [
        _row(r, "fig11", {"recovery": RECOVERY_NAMES[k], "scheme": SCHEME_NAMES[s]}, scheme=s, recovery=k)
        for k in RECOVERY
        for s in FIG11_SCHEMES
    ]
    scales = sorted([*RTT_SCALES, 1.0])
    sens = [
        {
            "scheme": SCHEME_NAMES[s],
            "RTT scale": f"x{x:g}",
            **{f: f"{sensitivity_mean(r, s, x, f) / 1e6:.2f}" for f in NAMES},
        }
        for s in SENSITIVITY_SCHEMES
        for x in scales
    ]
    return [
        Table(
            "Fig. 1's network: throughput (compliant) in Mb/s per connection",
            pd.DataFrame(fig1),
            "Means over replications of each run's 20 s windows after the first; New-Reno is ns's "
            "(the figures' captions), Reno and SACK as the paper says the enhancements apply to both.",
        ),
        Table(
            "Fig. 11's multi-hop network: throughput (compliant) in Mb/s per connection",
            pd.DataFrame(fig11),
            "C1 has the shortest round trip, best effort the longest; R1-R2 is the shared bottleneck.",
        ),
        Table(
            "RTT sensitivity on Fig. 1's network (New-Reno): throughput in Mb/s",
            pd.DataFrame(sens),
            "Every propagation delay scaled; the window follows the unloaded delay-bandwidth product.",
        ),
        _ered_table(r),
        _min_rtt_table(r),
    ]


def _ered_table(r: Results) -> Table:
    """ERED's parameters the paper does not give, on Fig. 1 (New-Reno): the primary (ns-1's
    defaults) beside the other levels."""
    rows = []
    for level in ERED_LEVELS:
        for s in SENSITIVITY_SCHEMES:
            head = {
                "ERED": level + (" (primary)" if level == PRIMARY_ERED else ""),
                "scheme": SCHEME_NAMES[s],
            }
            if level == PRIMARY_ERED:
                rows.append(_row(r, "fig1", head, scheme=s))
            else:
                rows.append(_row(r, "fig1_ered", head, scheme=s, ered=level))
    return Table(
        "ERED sensitivity on Fig. 1's network (New-Reno): throughput (compliant) in Mb/s",
        pd.DataFrame(rows),
        "min_th/max_th in packets of the 80-packet buffer, and max_p; w_q 0.002 and ns's RED rule "
        "throughout. "
        "The primary is ns-1's RED defaults (thresh 5, maxthresh 15, linterm 50); max_p 0.1 is ns-2's "
        "linterm 10 (from March 1997); 20/60 is a quarter and three quarters of the buffer.",
    )


def _min_rtt_table(r: Results) -> Table:
    """The windowing schemes with RWND from the smoothed RTT (the paper's) and, beside each,
    from the minimum RTT (the alternative), on both networks."""
    rows = []
    networks = [("Fig. 1 (New-Reno)", "fig1", {})]
    networks += [(f"Fig. 11 ({RECOVERY_NAMES[k]})", "fig11", {"recovery": k}) for k in RECOVERY]
    for network, sweep, levels in networks:
        for alt, paper in MIN_RTT_OF.items():
            head = {"network": network, "scheme": SCHEME_NAMES[paper]}
            rows.append(_row(r, sweep, {**head, "RWND's RTT": "smoothed (paper)"}, scheme=paper, **levels))
            rows.append(
                _row(r, f"{sweep}_min", {**head, "RWND's RTT": "minimum (alternative)"}, scheme=alt, **levels)
            )
    return Table(
        "Alternative, not the paper's reading: RWND from the minimum RTT, throughput (compliant) in Mb/s",
        pd.DataFrame(rows),
        "Each windowing scheme with RWND = reservation x the smoothed RTT (the paper's 'estimated "
        "round-trip time'), and beside it x the smallest RTT sample, which a long recovery cannot inflate.",
    )
