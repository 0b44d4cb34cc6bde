"""Per-flow plots from trace CSVs: a time-sequence diagram and the congestion window.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot state), so plotting works
without a display and from worker processes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["plot_flow_trace", "plot_run", "read_trace", "read_trace_for_plot", "trace_files"]

# A plot is at most 800 pixels wide: more points than this only cost memory and time.
PLOT_ROWS = 20_000
# The core writes ssthresh = u32::MAX (or more) for "not set yet": leave those points out.
_UNSET_SSTHRESH = 2**31
_TRACE_NAME = re.compile(r"^trace-flow(\d+)\.csv$")


def read_trace(path: str | Path) -> pd.DataFrame:
    """A trace CSV: time_s, cwnd, ssthresh (NaN until set), snd_una, snd_nxt (bytes)."""
    from tcplab.experiment.frames import tidy_trace

    return tidy_trace(pd.read_csv(path))


def read_trace_for_plot(path: str | Path, max_rows: int = PLOT_ROWS) -> pd.DataFrame:
    """A trace thinned to about ``max_rows`` rows, read in chunks so memory stays bounded.

    A traced flow at a gigabit has tens of millions of rows (gigabytes of CSV); read whole,
    they exhaust memory before the plot is drawn. Rows are taken in groups of consecutive
    rows, and each group keeps its first and last row and those with its smallest and largest
    cwnd, so the sawtooth's peaks and troughs survive the thinning.
    """
    from tcplab.experiment.frames import tidy_trace

    path = Path(path)
    group = -(-_estimated_rows(path) * 4 // max_rows)  # each group keeps up to 4 rows
    if group <= 4:
        return tidy_trace(pd.read_csv(path))
    parts = [_thin(chunk, group) for chunk in pd.read_csv(path, chunksize=group * 4096)]
    return tidy_trace(pd.concat(parts, ignore_index=True))


def _estimated_rows(path: Path) -> int:
    with path.open("rb") as f:
        head = f.read(1 << 16)
    lines = max(head.count(b"\n"), 1)
    return int(path.stat().st_size / (len(head) / lines))


def _thin(chunk: pd.DataFrame, group: int) -> pd.DataFrame:
    groups = chunk.groupby(np.arange(len(chunk)) // group, sort=False)
    keep = np.concatenate(
        [
            groups.head(1).index.to_numpy(),
            groups.tail(1).index.to_numpy(),
            groups["cwnd"].idxmin().to_numpy(),
            groups["cwnd"].idxmax().to_numpy(),
        ]
    )
    return chunk.loc[np.unique(keep)]


def trace_files(out_dir: str | Path) -> dict[int, Path]:
    """Trace CSVs in a run's output folder, by flow id."""
    found = {}
    for p in Path(out_dir).iterdir():
        m = _TRACE_NAME.match(p.name)
        if m:
            found[int(m.group(1))] = p
    return dict(sorted(found.items()))


def plot_flow_trace(trace: pd.DataFrame, path: str | Path, title: str = "") -> Path:
    """Write a two-panel PNG: sequence numbers against time, and cwnd/ssthresh against time."""
    t = trace["time_s"].to_numpy()
    kb = 1000.0
    fig = Figure(figsize=(8, 6.5), layout="constrained")
    FigureCanvasAgg(fig)
    seq, win = fig.subplots(2, 1, sharex=True)

    seq.plot(t, trace["snd_nxt"] / kb, drawstyle="steps-post", lw=1, label="snd_nxt (next to send)")
    seq.plot(t, trace["snd_una"] / kb, drawstyle="steps-post", lw=1, label="snd_una (oldest unACKed)")
    seq.set_ylabel("sequence offset (KB)")
    seq.set_title("time-sequence")
    seq.legend(loc="upper left", fontsize="small")
    seq.grid(alpha=0.3)

    ssthresh = np.array(trace["ssthresh"], dtype=float)  # a copy: traces read raw still hold the sentinel
    ssthresh[ssthresh >= _UNSET_SSTHRESH] = np.nan
    win.plot(t, trace["cwnd"] / kb, drawstyle="steps-post", lw=1, label="cwnd")
    win.plot(t, ssthresh / kb, drawstyle="steps-post", lw=1, ls="--", label="ssthresh")
    win.set_xlabel("time (s)")
    win.set_ylabel("window (KB)")
    win.set_title("congestion window")
    win.legend(loc="upper left", fontsize="small")
    win.grid(alpha=0.3)

    if title:
        fig.suptitle(title)
    # rendered in memory, then written by a rename: a link planted at ``path`` is replaced, never
    # written through (savefig would open the path and follow it)
    from tcplab.report.figures import save

    return save(fig, path, dpi=100)


def _flow_title(flow: Mapping[str, Any] | None, flow_id: int) -> str:
    if flow is None:
        return f"flow {flow_id}"
    return f"flow {flow_id} '{flow['name']}': {flow['src']} -> {flow['dst']}"


def plot_run(out_dir: str | Path, report: Mapping[str, Any] | None = None) -> list[Path]:
    """Plot every trace in a run's output folder to ``out_dir/flow<ID>.png``; returns the files."""
    out = Path(out_dir)
    flows = {f["id"]: f for f in report["flows"]} if report else {}
    written = []
    for flow_id, csv in trace_files(out).items():
        if flows and flow_id not in flows:
            continue  # left over from another run into the same folder
        png = out / f"flow{flow_id}.png"
        trace = read_trace_for_plot(csv)
        written.append(plot_flow_trace(trace, png, _flow_title(flows.get(flow_id), flow_id)))
    return written
