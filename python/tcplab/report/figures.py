"""Figure helpers for study reports: means with confidence intervals against a factor.

Drawn on matplotlib's Agg canvas directly (no pyplot state), like tcplab.report.plot.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["new_figure", "plot_means", "save"]


def new_figure(width: float = 7.0, height: float = 4.5, rows: int = 1, cols: int = 1) -> tuple[Figure, Any]:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols)


def save(fig: Figure, path: str | Path, dpi: int = 110) -> Path:
    """Write ``fig`` as a PNG at ``path``, replacing (never writing through) a link there."""
    import io

    from tcplab.experiment.safe_files import write_file

    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    return write_file(path, buf.getvalue())


def plot_means(
    ax: Axes,
    summary: pd.DataFrame,
    x: str,
    series: str,
    x_scale: float = 1.0,
    y_scale: float = 1.0,
    label: Callable[[Any], str] = str,
) -> None:
    """One line per value of ``series``: ``mean`` against ``x`` with ``ci_low``/``ci_high`` bars
    (a ``tcplab.analysis.stats.summarize`` frame). Values are multiplied by the scales for display."""
    for name, group in summary.groupby(series, sort=False):
        g = group.sort_values(x)
        xs = g[x].to_numpy(dtype=float) * x_scale
        mean = g["mean"].to_numpy(dtype=float) * y_scale
        low = g["ci_low"].to_numpy(dtype=float) * y_scale
        high = g["ci_high"].to_numpy(dtype=float) * y_scale
        yerr = [(mean - low), (high - mean)]
        ax.errorbar(xs, mean, yerr=yerr, marker="o", ms=4, capsize=3, lw=1.2, label=label(name))
    ax.grid(alpha=0.3)
