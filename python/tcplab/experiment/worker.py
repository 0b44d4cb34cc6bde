"""What a worker does with one run: simulate it and hand back the report and traces.

This module is imported by worker processes (local or Dask), so it stays small: it imports the
core and, only for traced runs, pandas/pyarrow to turn the traces into Parquet bytes. A run is
one crossing into the core, which hands back the report and, for a traced run, its traces as CSV
text in memory (no files). A worker never touches the store; the sweep's parent process writes
every result.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
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


def _parquet(csv: str) -> bytes:
    import pandas as pd

    buf = io.BytesIO()
    pd.read_csv(io.StringIO(csv)).to_parquet(buf, index=False)
    return buf.getvalue()


def _error(e: BaseException) -> str:
    if isinstance(e, _core.ScenarioError) and len(e.args) == 2:
        return f"{type(e).__name__}: {e.args[0]}: {e.args[1]}"
    return f"{type(e).__name__}: {e}"


def _run(task: Task) -> Outcome:
    """One crossing into the core (with the sweep's memory limit, or the core's default)."""
    if not task.traced:
        report = _core.run_scenario(task.text, task.seed, None, task.max_memory)
        return Outcome(task.key, report=json.loads(report))
    report, csvs = _core.run_scenario_traces(task.text, task.seed, task.max_memory)
    traces = {name.removesuffix(".csv") + ".parquet": _parquet(csv) for name, csv in sorted(csvs.items())}
    return Outcome(task.key, report=json.loads(report), traces=traces)


def execute(task: Task) -> Outcome:
    """Run one scenario; any failure becomes an Outcome with the error text, never a raise."""
    try:
        return _run(task)
    except BaseException as e:  # a Rust panic is a BaseException (pyo3's PanicException)
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return Outcome(task.key, error=_error(e))  # a failed run is data, not a crash of the sweep
