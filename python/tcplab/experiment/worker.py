"""What a worker does with one run: simulate it and hand back the report and traces.

This module is imported by worker processes (local or Dask), so it stays small: it imports the
core and, only for traced runs, pandas/pyarrow to turn the trace CSVs into Parquet bytes. A
worker never touches the store; the sweep's parent process writes every result.
"""

from __future__ import annotations

import io
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab import _core

__all__ = ["Outcome", "Task", "execute"]


@dataclass(frozen=True)
class Task:
    key: str
    text: str  # scenario TOML
    seed: int
    traced: bool = False
    max_memory: int | None = None  # bytes; None: the core's default limit


@dataclass
class Outcome:
    key: str
    report: dict[str, Any] | None = None
    error: str | None = None
    traces: dict[str, bytes] = field(default_factory=dict)


def _parquet(csv: Path) -> bytes:
    import pandas as pd

    buf = io.BytesIO()
    pd.read_csv(csv).to_parquet(buf, index=False)
    return buf.getvalue()


def _error(e: BaseException) -> str:
    if isinstance(e, _core.ScenarioError) and len(e.args) == 2:
        return f"{type(e).__name__}: {e.args[0]}: {e.args[1]}"
    return f"{type(e).__name__}: {e}"


def _run(task: Task, out: str | None) -> str:
    """The core's report; the limit is passed only when the sweep set one (else the default)."""
    if task.max_memory is None:
        return _core.run_scenario(task.text, task.seed, out)
    return _core.run_scenario(task.text, task.seed, out, task.max_memory)


def execute(task: Task) -> Outcome:
    """Run one scenario; any failure becomes an Outcome with the error text, never a raise."""
    try:
        if not task.traced:
            report = json.loads(_run(task, None))
            return Outcome(task.key, report=report)
        with tempfile.TemporaryDirectory(prefix="tcplab-run-") as tmp:
            report = json.loads(_run(task, tmp))
            traces = {
                p.with_suffix(".parquet").name: _parquet(p) for p in sorted(Path(tmp).glob("*-flow*.csv"))
            }
        return Outcome(task.key, report=report, traces=traces)
    except BaseException as e:  # a Rust panic is a BaseException (pyo3's PanicException)
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return Outcome(task.key, error=_error(e))  # a failed run is data, not a crash of the sweep
