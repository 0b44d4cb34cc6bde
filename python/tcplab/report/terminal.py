"""Human-readable tables for the terminal (rich): a run's flows, bench results. Names from the
scenario are printed with control characters escapes (``tcplab.errors.printable``): a flow
named with an ESC sequence must not reach the terminal raw."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from tcplab.errors import printable, quiet_broken_pipe
from tcplab.report.flow_summary import summary_rows
from tcplab.report.udp_table import UDP_CAPTION, UDP_COLUMNS, udp_rows

__all__ = [
    "FLOW_CAPTION",
    "FLOW_COLUMNS",
    "flow_rows",
    "print_bench",
    "print_run",
    "print_whole",
    "run_table",
    "udp_table",
]

FLOW_COLUMNS = ("flow", "route", "goodput Mb/s", "KB", "retx", "fast", "RTO", "done s")
FLOW_CAPTION = (
    "retx: segments retransmitted; fast: fast retransmits; RTO: timeouts; "
    "done: completion time from the flow's start"
)


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def _table(
    title: str, caption: str, columns: Sequence[str], left: Sequence[str], rows: list[list[str]]
) -> Table:
    """A table in the run's style: the ``left`` columns left-aligned and unwrapped, numbers right."""
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, caption=caption, caption_justify="left"
    )
    for col in columns:
        table.add_column(col, justify="left" if col in left else "right", no_wrap=col in left)
    for row in rows:
        table.add_row(*row)
    return table


def run_table(report: Mapping[str, Any]) -> Table:
    """One row per flow: goodput, bytes, retransmits, timeouts, completion."""
    title = f"{printable(report['scenario'])}: seed {report['seed']}, {report['sim_time_s']:g} s simulated"
    return _table(title, FLOW_CAPTION, FLOW_COLUMNS, ("flow", "route"), flow_rows(report))


def udp_table(report: Mapping[str, Any]) -> Table | None:
    """The run's UDP flows (``tcplab.report.udp_table``), or None when it has none."""
    rows = udp_rows(report)
    return _table("UDP flows", UDP_CAPTION, UDP_COLUMNS, ("flow", "source"), rows) if rows else None


def flow_rows(report: Mapping[str, Any]) -> list[list[str]]:
    """The cells of the flow table (``FLOW_COLUMNS``), summarised beyond a few dozen flows."""
    return summary_rows(report["flows"], _flow_row, _FORMATS)


def _count(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


# How summary rows (tcplab.report.flow_summary) print each column's statistics.
_FORMATS: dict[str, Callable[[float], str]] = {
    "goodput": _mbps,
    "bytes": lambda b: f"{b / 1000:.1f}",
    "retx": _count,
    "fast": _count,
    "rto": _count,
    "done": lambda s: f"{s:.3f}",
}


def _flow_row(f: Mapping[str, Any]) -> list[str]:
    done = f["completion_time_s"]
    # A UDP flow has no retransmissions or timeouts: its losses are in the UDP table.
    tcp = (lambda k: "-") if f.get("udp") else (lambda k: str(f[k]))
    return [
        f"{f['id']} {printable(f['name'])}",
        f"{printable(f['src'])} -> {printable(f['dst'])}",
        _mbps(f["goodput_bps"]),
        f"{f['bytes_delivered'] / 1000:.1f}",
        tcp("retransmits"),
        tcp("fast_retransmits"),
        tcp("timeouts"),
        f"{done:.3f}" if done is not None else "-",
    ]


class _Console(Console):
    """rich's console, but a reader that went away (``tcplab run x | head -1``) ends the command
    as every other one does (``tcplab.errors.quiet_broken_pipe``: status 141), not with rich's
    own exit status 1, which the CLI keeps for a broken invariant."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        quiet_broken_pipe()


def _console() -> Console:
    return _Console(markup=False, highlight=False)


# Wider than any table of results: the width a table is measured at to find its natural one.
_UNBOUNDED = 100_000


def print_whole(console: Console, table: Table) -> None:
    """Print a table at its natural width, never narrower: rich fits a table to the terminal
    (80 columns when piped) by cutting numbers to "0.…" and dropping columns, which a table of
    results must never do; a line longer than the terminal wraps instead. Piped, lines lose
    rich's padding, so the output diffs and greps cleanly."""
    natural = Measurement.get(console, console.options.update_width(_UNBOUNDED), table).maximum
    if console.is_terminal and natural <= console.width:
        console.print(table)
        return
    plain = Console(file=io.StringIO(), width=max(natural, console.width), markup=False, highlight=False)
    plain.print(table)
    lines = plain.file.getvalue().splitlines()  # type: ignore[attr-defined]
    console.out("\n".join(line.rstrip() for line in lines), highlight=False)


def print_run(report: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or _console()
    print_whole(console, run_table(report))
    if (udp := udp_table(report)) is not None:
        print_whole(console, udp)
    wall = report["wall_s"]
    rate = f", {report['events'] / wall / 1e6:.1f} M events/s" if wall > 0 else ""
    console.print(f"{report['events']} events in {wall:.3f} s of wall time{rate}", soft_wrap=True)


def print_bench(result: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or _console()
    table = Table(
        title=f"tcplab bench{' (quick)' if result['quick'] else ''}, {result['build']} build",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for col in ("scenario", "flows", "sim s", "events", "wall s", "Mev/s", "Mpkt/s", "RSS MiB"):
        table.add_column(col, justify="left" if col == "scenario" else "right", no_wrap=True)
    for name, r in result["scenarios"].items():
        table.add_row(
            name,
            str(r["flows"]),
            f"{r['sim_time_s']:g}",
            f"{r['events'] / 1e6:.2f}M",
            f"{r['wall_s']:.3f}",
            f"{r['events_per_sec'] / 1e6:.2f}",
            f"{r['packets_per_sec'] / 1e6:.2f}",
            f"{r['peak_rss_mb']:.0f}",
        )
    print_whole(console, table)
    console.print("Mev/s, Mpkt/s: million events, packet transmissions per wall-clock second", soft_wrap=True)
    if not result["targets"]:  # scenarios with no target (--only satellite_meo)
        console.print("targets: none for the scenarios run")
        return
    console.print("targets:")
    for t in result["targets"]:
        mark = "met" if t["met"] else "NOT met"
        line = f"  {t['scenario']}: {t['metric']} {t['target']}: measured {t['measured']:.4g}: {mark}"
        console.print(line, soft_wrap=True)
