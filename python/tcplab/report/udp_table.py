"""The table of a run's UDP flows (``protocol = "udp"``): what each source sent, what arrived,
what was lost, and the one-way delay percentiles the core measured from its delay histogram
(nearest rank, within 0.8%). The terminal and the notebook view show it under the flow table
when a run has UDP flows; every number is also in ``--json`` and ``summary.json`` under each
flow's ``udp``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcplab.errors import printable
from tcplab.report.flow_summary import MAX_FLOW_ROWS

__all__ = ["UDP_CAPTION", "UDP_COLUMNS", "udp_rows"]

UDP_COLUMNS = ("flow", "source", "sent", "recv", "lost", "loss %", "p50", "p95", "p99")
UDP_CAPTION = (
    "packets sent, received and lost (dropped on the way; the rest were still travelling at "
    "the end); p50, p95, p99: one-way delay percentiles in ms. Goodput and completion: the flow table"
)


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.1f}"


def _row(f: Mapping[str, Any]) -> list[str]:
    u = f["udp"]
    sent, lost = u["packets_sent"], u["packets_lost"]
    return [
        f"{f['id']} {printable(f['name'])}",
        u["source"],
        str(sent),
        str(u["packets_delivered"]),
        str(lost),
        f"{100 * lost / sent:.1f}" if sent else "-",
        _ms(u["delay_p50_s"]),
        _ms(u["delay_p95_s"]),
        _ms(u["delay_p99_s"]),
    ]


def udp_rows(report: Mapping[str, Any]) -> list[list[str]]:
    """The cells of the UDP table (``UDP_COLUMNS``), one row per UDP flow (the first
    ``MAX_FLOW_ROWS`` of many, then a row saying how many more); empty without UDP flows."""
    flows = [f for f in report["flows"] if f.get("udp")]
    rows = [_row(f) for f in flows[:MAX_FLOW_ROWS]]
    if len(flows) > MAX_FLOW_ROWS:
        rows.append([f"... {len(flows) - MAX_FLOW_ROWS} more UDP flows", *[""] * (len(UDP_COLUMNS) - 1)])
    return rows
