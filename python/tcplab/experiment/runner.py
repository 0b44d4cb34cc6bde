"""Run a sweep: expand the spec, skip runs already stored, run the rest, store each as it ends.

Workers only compute; this process writes every result, one transaction per run, the moment it
arrives. So a sweep that is killed keeps every run that finished, and running it again runs
only what is missing. Failed runs are stored with status 'failed' and their error, the sweep
goes on, and the next run of the sweep tries them again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.experiment.budget import check_memory
from tcplab.experiment.executors import Executor, ExecutorChoice
from tcplab.experiment.expand import Run, expand
from tcplab.experiment.progress import SweepProgress
from tcplab.experiment.spec import SweepSpec, load_spec
from tcplab.experiment.store import RunRecord, Store
from tcplab.experiment.worker import Task

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SweepResult", "default_store", "load_sweep", "run_sweep"]


def default_store(spec: SweepSpec) -> Path:
    """The spec's own ``store``, else ``out/sweeps/<name>.sqlite`` under the working directory."""
    return spec.store if spec.store is not None else Path("out") / "sweeps" / f"{spec.name}.sqlite"


@dataclass(frozen=True)
class SweepResult:
    """What a sweep did, and its results (``df``: one row per run of this sweep)."""

    spec: SweepSpec
    store: Path
    total: int
    ran: int
    skipped: int
    failed: int
    wall_s: float
    runs: tuple[Run, ...]

    @property
    def df(self) -> pd.DataFrame:
        return sweep_frame(self.spec, self.store, self.runs)

    def flows_df(self) -> pd.DataFrame:
        """One row per flow of each successful run: key, factor columns, replication, seed, and
        the per-flow fields (a method, as on every result: ``RunResult.flows_df()``)."""
        with Store(self.store, create=False) as store:
            flows = store.flows_df(keys=[r.key for r in self.runs], levels=False)
        if flows.empty:
            return flows
        return _levels_frame(self.spec, self.runs).merge(flows, on="key", how="inner")

    def errors(self) -> pd.DataFrame:
        """The failed runs: factor columns, replication, seed and error."""
        df = self.df
        return df.loc[df["status"] == "failed", [*self.spec.columns, "replication", "seed", "error"]]

    def __repr__(self) -> str:
        return (
            f"SweepResult(sweep={self.spec.name!r}, runs={self.total}, ran={self.ran}, "
            f"skipped={self.skipped}, failed={self.failed}, store={str(self.store)!r})"
        )

    def summary(self) -> str:
        points = self.total // self.spec.replications
        text = (
            f"sweep '{self.spec.name}': {self.total} runs ({points} points x {self.spec.replications} "
            f"replications): {self.ran} ran, {self.skipped} already stored, {self.failed} failed, "
            f"in {self.wall_s:.1f} s"
        )
        return text + f"\nstore: {self.store}"


def _levels_frame(spec: SweepSpec, runs: tuple[Run, ...] | list[Run]) -> pd.DataFrame:
    """key and one column per factor (named by its label), from the expansion."""
    import pandas as pd

    return pd.DataFrame(
        [
            {"key": r.key, **{spec.label(p): _cell(spec.level_label(p, r.levels[p])) for p in spec.paths}}
            for r in runs
        ],
        columns=["key", *spec.columns],
    )


def sweep_frame(spec: SweepSpec, store_path: Path, runs: tuple[Run, ...] | list[Run]) -> pd.DataFrame:
    """The runs of a sweep as stored, in expansion order, factor columns named by the labels.

    The factor columns come from the spec, not from the store, so a run stored by another sweep
    (the same scenario and seed under other names) shows under this sweep's names. The store
    must exist (reading never creates one)."""
    with Store(store_path, create=False) as store:
        stored = store.runs_df(keys=[r.key for r in runs], levels=False)
    order = {r.key: i for i, r in enumerate(runs)}
    df = _levels_frame(spec, runs).merge(stored, on="key", how="inner")
    df = df.sort_values("key", key=lambda keys: keys.map(order)).reset_index(drop=True)
    front = ["key", "sweep", "status", "error", *spec.columns]
    return df[front + [c for c in df.columns if c not in front]]


def _cell(level: Any) -> Any:
    import json

    return (
        json.dumps(level, sort_keys=True, separators=(",", ":")) if isinstance(level, dict | list) else level
    )


def _as_spec(spec: SweepSpec | str | os.PathLike[str]) -> SweepSpec:
    return spec if isinstance(spec, SweepSpec) else load_spec(spec)


def run_sweep(
    spec: SweepSpec | str | os.PathLike[str],
    *,
    store: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    quiet: bool = True,
    max_memory: int | str | None = None,
) -> SweepResult:
    """Run every run of ``spec`` not yet in ``store``; returns counts and the results.

    ``spec`` is a SweepSpec or a spec file. ``workers``: local processes (default: all cores);
    ``dask``: 'local' for a LocalCluster, or a scheduler address. ``quiet=False`` draws a
    progress bar when stderr is a terminal. Raises UserError for a bad spec, store or address.
    ``max_memory`` (bytes or a size) replaces the default limit on each run's estimated memory;
    every point is checked against it before any run starts (ScenarioError naming the field).
    """
    started = time.perf_counter()
    spec = _as_spec(spec)
    choice = ExecutorChoice(workers=workers, dask=dask)
    runs = expand(spec)
    path = Path(store) if store is not None else default_store(spec)
    by_key = {r.key: r for r in runs}
    failed = 0
    limit = check_memory(runs, max_memory)  # before the store exists: a refused sweep leaves nothing
    with Store(path) as db, Executor(choice) as executor:
        done = db.keys("ok")
        todo = [r for r in runs if r.key not in done]
        tasks = [Task(r.key, r.text, r.seed, r.traced, limit) for r in todo]
        with SweepProgress(len(todo), f"sweep {spec.name}", quiet=quiet) as progress:
            for outcome in executor.run(tasks):
                run = by_key[outcome.key]
                db.put(
                    RunRecord(
                        key=run.key,
                        sweep=spec.name,
                        levels={spec.label(p): spec.level_label(p, v) for p, v in run.levels.items()},
                        replication=run.replication,
                        seed=run.seed,
                        version=_core.__version__,
                        scenario=run.text,
                        report=outcome.report,
                        error=outcome.error,
                        traces=outcome.traces,
                    )
                )
                failed += outcome.error is not None
                progress.advance()
    return SweepResult(
        spec=spec,
        store=path,
        total=len(runs),
        ran=len(todo),
        skipped=len(runs) - len(todo),
        failed=failed,
        wall_s=time.perf_counter() - started,
        runs=tuple(runs),
    )


def load_sweep(
    spec: SweepSpec | str | os.PathLike[str], store: str | os.PathLike[str] | None = None
) -> pd.DataFrame:
    """The stored results of a sweep as a DataFrame, without running anything.

    Never creates files: a missing store raises UserError naming where it looked (the spec's
    ``store``, else ``out/sweeps/<name>.sqlite`` under the working directory)."""
    spec = _as_spec(spec)
    return sweep_frame(spec, Path(store) if store is not None else default_store(spec), expand(spec))
