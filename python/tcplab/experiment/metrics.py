"""The summary metrics of one run, computed from its report: the columns of the result store.

Per run: total and mean goodput, Jain's fairness index of the flows' goodputs (equal shares),
retransmits, timeouts and fast retransmits summed over the flows, how many flows completed and
their mean and largest completion time, plus the run's size (events, simulated time). Per flow
(the ``flows`` JSON of a row): the fields of ``FLOW_FIELDS``, and for a UDP flow also those of
``UDP_FIELDS`` (so a sweep's ``flows_df`` has them as columns, empty for TCP flows; a sweep of
TCP flows alone has exactly the columns it always had). The whole report is stored too, so
anything else can be computed later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcplab.analysis.fairness import jain_index

__all__ = ["FLOW_FIELDS", "METRICS", "UDP_FIELDS", "flow_metrics", "summary_metrics"]

# name -> SQLite type, in column order.
METRICS: dict[str, str] = {
    "total_goodput_bps": "REAL",
    "mean_goodput_bps": "REAL",
    "min_goodput_bps": "REAL",
    "jain_fairness": "REAL",
    "bytes_delivered": "INTEGER",
    "retransmits": "INTEGER",
    "timeouts": "INTEGER",
    "fast_retransmits": "INTEGER",
    "flows": "INTEGER",
    "completed": "INTEGER",
    "mean_completion_time_s": "REAL",
    "max_completion_time_s": "REAL",
    "events": "INTEGER",
    "packets_forwarded": "INTEGER",
    "sim_time_s": "REAL",
}

FLOW_FIELDS = (
    "id",
    "name",
    "goodput_bps",
    "bytes_delivered",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "completion_time_s",
)


# A UDP flow's own fields (its report's ``udp`` table), as per-flow columns.
UDP_FIELDS = (
    "source",
    "packets_sent",
    "packets_delivered",
    "packets_lost",
    "delay_p50_s",
    "delay_p95_s",
    "delay_p99_s",
    "delay_mean_s",
)


def flow_metrics(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per-flow summary: the FLOW_FIELDS of each flow, and a UDP flow's UDP_FIELDS."""
    rows = []
    for f in report.get("flows", []):
        row = {k: f.get(k) for k in FLOW_FIELDS}
        if udp := f.get("udp"):
            row.update({k: udp.get(k) for k in UDP_FIELDS})
        rows.append(row)
    return rows


def summary_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    """The METRICS of one run's report."""
    flows = report.get("flows", [])
    goodputs = [float(f["goodput_bps"]) for f in flows]
    done = [float(f["completion_time_s"]) for f in flows if f.get("completion_time_s") is not None]
    n = len(flows)
    return {
        "total_goodput_bps": sum(goodputs),
        "mean_goodput_bps": sum(goodputs) / n if n else None,
        "min_goodput_bps": min(goodputs) if n else None,
        "jain_fairness": jain_index(goodputs) if n and any(goodputs) else None,
        "bytes_delivered": sum(int(f["bytes_delivered"]) for f in flows),
        "retransmits": sum(int(f["retransmits"]) for f in flows),
        "timeouts": sum(int(f["timeouts"]) for f in flows),
        "fast_retransmits": sum(int(f["fast_retransmits"]) for f in flows),
        "flows": n,
        "completed": len(done),
        "mean_completion_time_s": sum(done) / len(done) if done else None,
        "max_completion_time_s": max(done) if done else None,
        "events": report.get("events"),
        "packets_forwarded": report.get("packets_forwarded"),
        "sim_time_s": report.get("sim_time_s"),
    }
