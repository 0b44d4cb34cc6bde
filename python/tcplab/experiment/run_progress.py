"""A progress bar for one long run (``tcplab run``, a study's single runs): simulated seconds
done of the run's, wall time elapsed and an estimate of the time left.

The core calls it every 50 ms of a run (``_core.run_scenario(..., progress=...)``). It draws
nothing for the first ``SHOW_AFTER_S`` of wall time, so that the common short run prints
exactly what it printed before, and nothing at all unless stderr is a terminal (or a notebook
rich can draw in): logs and pipes stay clean. rich is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["SHOW_AFTER_S", "RunProgress", "clock"]

# Wall seconds before a bar appears: long enough that a run of a second or two never flashes
# one, short enough that a run of hours says so within a few seconds of its start.
SHOW_AFTER_S = 2.0


class RunProgress:
    """``with RunProgress() as p: _core.run_scenario(text, ..., progress=p)``."""

    def __init__(self, label: str = "", quiet: bool = False, console: Console | None = None) -> None:
        """``label``: which run this is, where a command makes several (shown before the bar)."""
        self._label = f"{label}: " if label else ""
        self._enabled = not quiet
        self._console = console
        self._started = time.monotonic()
        self._first: tuple[float, float] | None = None  # wall and simulated time at the loop's first call
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, simulated_s: float, end_s: float) -> None:
        if end_s <= 0:
            return  # the core is still setting the run up
        now = time.monotonic()
        if self._first is None:
            self._first = (now, simulated_s)
        if self._bar is None and not self._start(now):
            return
        text = self._text(now, simulated_s, end_s)
        self._bar.update(self._task, completed=simulated_s, total=end_s, text=text)

    def _text(self, now: float, simulated_s: float, end_s: float) -> str:
        """Simulated of total seconds, wall time elapsed, and left at the loop's mean speed."""
        elapsed = now - self._started
        wall0, sim0 = self._first or (now, simulated_s)
        left = "?"
        if simulated_s > sim0 and now > wall0:
            left = clock((end_s - simulated_s) * (now - wall0) / (simulated_s - sim0))
        done = f"{self._label}simulated {simulated_s:.4g} of {end_s:.4g} s"
        return f"{done}, {clock(elapsed)} elapsed, about {left} left"

    def _start(self, now: float) -> bool:
        """Start the bar if it is time to; whether it runs."""
        if not self._enabled or now - self._started < SHOW_AFTER_S:
            return False
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn
        from tcplab.experiment.progress import can_draw

        console = self._console or Console(file=sys.stderr)
        if not can_draw(console):
            self._enabled = False
            return False
        self._bar = Progress(
            BarColumn(bar_width=20), TextColumn("{task.fields[text]}"), console=console, transient=True
        )
        self._task = self._bar.add_task("run", total=1.0, text="")
        self._bar.start()
        return True

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def clock(seconds: float) -> str:
    """``h:mm:ss``, or days beyond two (a run asked for 10^9 simulated seconds can need months)."""
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:,.0f} days"
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
