"""Rich display of results in a notebook (``_repr_html_``): what the terminal shows, as HTML.

A run shows its flow table (the same cells as ``tcplab run``, summarised beyond a few dozen
flows) and where its files went; a sweep its counts, its store and its first runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcplab.experiment.api import RunResult
    from tcplab.experiment.runner import SweepResult

__all__ = ["SWEEP_ROWS", "run_html", "sweep_html"]

# Runs of a sweep shown in its table (the DataFrame, ``result.df``, has them all).
SWEEP_ROWS = 10


def _table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def run_html(result: RunResult) -> str:
    from tcplab.report.terminal import FLOW_CAPTION, FLOW_COLUMNS, flow_rows
    from tcplab.report.udp_table import UDP_CAPTION, UDP_COLUMNS, udp_rows

    r = result.report
    wall = r.get("wall_s", 0.0)
    rate = f", {r['events'] / wall / 1e6:.1f} M events/s" if wall > 0 else ""
    udp = udp_rows(r)
    udp_html = f"{_table(UDP_COLUMNS, udp)}<p><small>{escape(UDP_CAPTION)}</small></p>" if udp else ""
    where = f"; files in <code>{escape(str(result.out_dir))}</code>" if result.out_dir else ""
    return (
        f"<p><b>{escape(str(r.get('scenario', 'run')))}</b>: seed {r.get('seed')}, "
        f"{r.get('sim_time_s', 0):g} s simulated, {r.get('events')} events in {wall:.3f} s of wall "
        f"time{rate}{where}</p>{_table(FLOW_COLUMNS, flow_rows(r))}<p><small>{escape(FLOW_CAPTION)}"
        f"</small></p>{udp_html}"
    )


def sweep_html(result: SweepResult) -> str:
    spec = result.spec
    summary = result.summary().splitlines()[0]
    head = f"<p><b>{escape(summary)}</b><br>store: <code>{escape(str(result.store))}</code></p>"
    try:
        df = result.df
    except Exception as e:  # noqa: BLE001 (a display must not raise: say why there is no table)
        return head + f"<p>(runs not shown: {escape(str(e))})</p>"
    metrics = [c for c in ("total_goodput_bps", "jain_fairness", "retransmits", "timeouts") if c in df]
    shown = df[[*spec.columns, "replication", "status", *metrics]].head(SWEEP_ROWS)
    more = (
        f"<p><small>first {len(shown)} of {len(df)} runs: <code>result.df</code> has them all</small></p>"
        if len(df) > len(shown)
        else ""
    )
    return head + shown.to_html(index=False, float_format=lambda v: f"{v:.6g}") + more
