"""A progress bar for sweeps (rich): runs done of total, runs per second, time left.

It draws on stderr when stderr is a terminal, or in a Jupyter notebook (through ipywidgets,
which rich needs there: ``pip install 'tcplab[notebook]'``), and not ``quiet``; otherwise it
does nothing, so logs and pipes stay clean.
"""

from __future__ import annotations

import importlib.util
import sys
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["SweepProgress"]


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f} runs/s" if speed else "- runs/s", style="progress.data.speed")


def can_draw(console: Console) -> bool:
    """Whether a live bar shows anywhere: a terminal, or a notebook with ipywidgets (without it
    rich would warn at every refresh instead of drawing)."""
    if console.is_jupyter:
        return importlib.util.find_spec("ipywidgets") is not None
    return console.is_terminal


class SweepProgress:
    """``with SweepProgress(total, "sweep x") as p: ... p.advance()``."""

    def __init__(self, total: int, description: str, quiet: bool = False) -> None:
        console = Console(file=sys.stderr)
        self.enabled = not quiet and can_draw(console) and total > 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs"),
            _RateColumn(),
            TimeElapsedColumn(),
            TextColumn("elapsed,"),
            TimeRemainingColumn(),
            TextColumn("left"),
            console=console,
            disable=not self.enabled,
            transient=False,
        )
        self._task = self._progress.add_task(description, total=total)

    def __enter__(self) -> SweepProgress:
        self._progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def advance(self, n: int = 1) -> None:
        self._progress.advance(self._task, n)
