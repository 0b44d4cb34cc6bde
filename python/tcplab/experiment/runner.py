"""Run a sweep: expand the spec, skip runs already stored, run the rest, store each as it ends.

The spec is expanded once: every point is checked by the core once (its scenario, then its
memory estimate) before any run starts, and kept (up to ``expand.HOLD_BYTES``; a bigger sweep
makes its points again, unchecked, when it needs them). Runs are made from the points, checked
against the store and handed to the workers a batch at a time, so a sweep of a million runs never
holds a million-run list (or a million keys). A worker crosses into the core once per run.

Workers only compute; this process writes every result, one transaction per run, the moment it
arrives. So a sweep that is killed keeps every run that finished, and running it again runs
only what is missing. Failed runs are stored with status 'failed' and their error, the sweep
goes on, and the next run of the sweep tries them again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.errors import counted, not_kept, printable
from tcplab.experiment.arguments import check_max_runs
from tcplab.experiment.budget import MemoryCheck
from tcplab.experiment.executors import Executor, ExecutorChoice
from tcplab.experiment.expand import CheckedSweep, Run, check_sweep, iter_runs
from tcplab.experiment.progress import SweepProgress
from tcplab.experiment.spec import SweepSpec, check_size, load_spec, run_count
from tcplab.experiment.store import RunRecord, Store, make_room
from tcplab.experiment.store_checks import (
    check_store_argument,
    check_store_path,
    check_writable,
    refuse_link_to_nothing,
    remove_folders,
    writable,
)
from tcplab.experiment.store_lock import sweep_lock
from tcplab.experiment.worker import Task

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SweepPlan", "SweepResult", "default_store", "load_sweep", "plan_sweep", "run_sweep"]

# Runs made, looked up in the store and handed to the executor at a time: enough to keep every
# worker busy (a batch's stragglers idle the others only at its end), few enough to hold. A batch
# also ends once its points' scenario texts reach BATCH_BYTES, so the parent's memory does not
# grow with the size of a point (1,024 points of a 4 MB scenario would be 4 GB in one batch).
BATCH = 4096
BATCH_BYTES = 16 << 20


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
    checked: CheckedSweep = field(repr=False, compare=False)

    @cached_property
    def runs(self) -> tuple[Run, ...]:
        """Every run of the sweep, made from its checked points when first asked for."""
        return tuple(self.checked.iter_runs())

    @cached_property
    def _index(self) -> list[RunIndex]:
        return run_index(self.checked.iter_runs())

    @property
    def df(self) -> pd.DataFrame:
        return sweep_frame(self.spec, self.store, self._index)

    def flows_df(self) -> pd.DataFrame:
        """One row per flow of each successful run: key, factor columns, replication, seed, and
        the per-flow fields (a method, as on every result: ``RunResult.flows_df()``)."""
        with Store(self.store, create=False) as store:
            flows = store.flows_df(keys=[r.key for r in self._index], levels=False)
        if flows.empty:
            return flows
        return _levels_frame(self.spec, self._index).merge(flows, on="key", how="inner")

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
            f"sweep '{printable(self.spec.name)}': {self.total} runs ({counted(points, 'point')} x "
            f"{counted(self.spec.replications, 'replication')}): {self.ran} ran, "
            f"{self.skipped} already stored, {self.failed} failed, in {self.wall_s:.1f} s"
        )
        # Each line escaped on its own: a name's control or bidi characters shown, not obeyed.
        return text + f"\nstore: {printable(self.store)}"

    def _repr_html_(self) -> str:
        from tcplab.report.html import sweep_html

        return sweep_html(self)


@dataclass(frozen=True)
class RunIndex:
    """What result tables need of a run: its key and levels, not its scenario."""

    key: str
    levels: dict[str, Any]


def run_index(runs: Iterable[Run]) -> list[RunIndex]:
    """Keys and levels of ``runs``, taken one run at a time (a point's scenario is not kept)."""
    return [RunIndex(r.key, r.levels) for r in runs]


def _levels_frame(spec: SweepSpec, runs: Iterable[RunIndex | Run]) -> pd.DataFrame:
    """key and one column per factor (named by its label), from the expansion."""
    import pandas as pd

    return pd.DataFrame(
        [
            {"key": r.key, **{spec.label(p): _cell(spec.level_label(p, r.levels[p])) for p in spec.paths}}
            for r in runs
        ],
        columns=["key", *spec.columns],
    )


def sweep_frame(spec: SweepSpec, store_path: Path, runs: Iterable[RunIndex | Run]) -> pd.DataFrame:
    """The runs of a sweep as stored, in expansion order, factor columns named by the labels.

    The factor columns come from the spec, not from the store, so a run stored by another sweep
    (the same scenario and seed under other names) shows under this sweep's names. The store
    must exist (reading never creates one)."""
    runs = run_index(runs) if not isinstance(runs, list) else runs
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


def _as_spec(spec: SweepSpec | str | os.PathLike[str], max_runs: int | None = None) -> SweepSpec:
    max_runs = check_max_runs(max_runs)  # before the spec is read: the cap is checked as it is
    spec = spec if isinstance(spec, SweepSpec) else load_spec(spec, max_runs)
    check_size(spec, max_runs)
    return spec


def _check(spec: SweepSpec, max_memory: int | str | None, hold: bool) -> tuple[CheckedSweep, int | None]:
    """The sweep expanded once, each point checked by the core as a scenario and then against
    the memory limit (with replication 0's seed: the estimate is the point's); and the limit."""
    memory = MemoryCheck(max_memory)
    checked = check_sweep(spec, lambda point: memory(point.text, point.seed(spec, 0), point.levels), hold)
    return checked, memory.limit


def _batches(runs: Iterable[Run]) -> Iterator[list[Run]]:
    """``runs`` in lists of at most BATCH runs and about BATCH_BYTES of distinct scenario text
    (a point's replications share one text)."""
    batch: list[Run] = []
    size = 0
    for run in runs:
        if not batch or run.text is not batch[-1].text:
            size += len(run.text)
        batch.append(run)
        if len(batch) >= BATCH or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _survey(db: Store, runs: Iterable[Run]) -> tuple[int, list[str]]:
    """How many of ``runs`` are not stored yet, and the fields of any run asking for output a
    sweep does not keep (``Run.unkept``; looked at once per point)."""
    todo, unkept, last = 0, set(), None
    for batch in _batches(runs):
        todo += len(_todo(db, batch))
        for run in batch:
            if run.text is not last:
                unkept.update(run.unkept())
                last = run.text
    return todo, sorted(unkept)


def _open_store(path: Path, held: ExitStack) -> tuple[Store, bool]:
    """The sweep's store, open in ``held``, and whether its sweep lock is held already.

    A store that does not exist yet is locked before it is made (its folders made first, for
    the lock file), so a sweep refused at the lock leaves nothing: neither a store file nor
    folders. An existing store is opened unlocked: a sweep with nothing left to run only reads
    it (``_locked_survey``). One that cannot be written (an archive on a read-only disk, in an
    immutable folder) is opened to read only, which writes nothing there (no journal, no
    lock); it is refused only if a run is left (``_locked_survey``)."""
    if os.path.lexists(path):
        if not writable(path):
            return held.enter_context(Store(path, create=False)), False
        return held.enter_context(Store(path)), False
    made = make_room(path)
    try:
        held.enter_context(sweep_lock(path))
    except BaseException:
        remove_folders(made)
        raise
    return held.enter_context(Store(path)), True


def _locked_survey(
    db: Store, path: Path, checked: CheckedSweep, held: ExitStack, locked: bool
) -> tuple[int, list[str]]:
    """``_survey``, holding the store's sweep lock in ``held`` (unless ``locked`` already) if
    anything is left to run: a second sweep writing to the store is refused before it runs
    anything. A sweep with nothing left to run only reads the store, and readers are never held
    up."""
    todo_count, unkept = _survey(db, checked.iter_runs())
    if not todo_count or locked:
        return todo_count, unkept
    if db.read_only:  # opened to read (``_open_store``), and now there is something to store
        check_writable(path)
    held.enter_context(sweep_lock(path))
    # Counted again under the lock: the sweep that held it may have stored some meanwhile.
    return _survey(db, checked.iter_runs())


def _todo(db: Store, batch: list[Run]) -> list[Run]:
    done = db.keys_among([r.key for r in batch], "ok")
    return [r for r in batch if r.key not in done]


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep would run: its size, every point checked, nothing run (``--dry-run``)."""

    spec: SweepSpec
    total: int
    points: int
    limit: int | None

    def summary(self) -> str:
        return (
            f"sweep '{printable(self.spec.name)}': {self.total:,} runs ({counted(self.points, 'point')} x "
            f"{counted(self.spec.replications, 'replication')}); every point is a valid scenario within the "
            "memory limit; nothing was run (--dry-run)"
        )


def plan_sweep(
    spec: SweepSpec | str | os.PathLike[str],
    *,
    max_memory: int | str | None = None,
    max_runs: int | None = None,
) -> SweepPlan:
    """Check a sweep as ``run_sweep`` would before its first run (size, every point's validity
    and memory), touching no store. Costs one validation per point, none per replication."""
    spec = _as_spec(spec, max_runs)
    checked, limit = _check(spec, max_memory, hold=False)
    return SweepPlan(spec=spec, total=run_count(spec), points=checked.points, limit=limit)


def run_sweep(
    spec: SweepSpec | str | os.PathLike[str],
    *,
    store: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    quiet: bool = False,
    max_memory: int | str | None = None,
    max_runs: int | None = None,
    progress: bool = True,
) -> SweepResult:
    """Run every run of ``spec`` not yet in ``store``; returns counts and the results.

    ``spec`` is a SweepSpec or a spec file. ``workers``: local processes (default: all cores);
    ``dask``: 'local' for a LocalCluster, or a scheduler address. A progress bar is drawn when
    stderr is a terminal or in a notebook; ``progress=False`` (or ``quiet=True``) turns it off.
    Raises UserError for a bad spec, store or address, or a sweep of more than ``max_runs`` runs
    (default ``tcplab.experiment.spec.MAX_RUNS``).
    ``max_memory`` (bytes or a size) replaces the default limit on each run's estimated memory;
    every point is checked against it before any run starts (ScenarioError naming the field).
    """
    started = time.perf_counter()
    if store is not None:
        check_store_argument(store)
    spec = _as_spec(spec, max_runs)
    choice = ExecutorChoice(workers=workers, dask=dask)
    # The name as given: Path drops the '/' of a folder's name ('--store trail/').
    path = check_store_path(store if store is not None else default_store(spec), write=True)
    refuse_link_to_nothing(path)  # a sweep never creates its store through a link
    failed = 0
    # Before the store exists: a refused sweep leaves nothing.
    checked, limit = _check(spec, max_memory, hold=True)
    total = run_count(spec)
    # The executor first (a --dask address refused leaves no store), then the store and its
    # sweep lock (after the store's own checks, so a refused store gets no lock file).
    with Executor(choice) as executor, ExitStack() as held:
        db, locked = _open_store(path, held)
        # A first pass counts what is missing (for the progress bar and the summary); both
        # passes make runs from the checked points a batch at a time.
        todo_count, unkept = _locked_survey(db, path, checked, held, locked)
        if unkept:
            not_kept(unkept)
        with SweepProgress(todo_count, f"sweep {spec.name}", quiet=quiet or not progress) as bar:
            for batch in _batches(checked.iter_runs()):
                todo = _todo(db, batch)
                by_key = {r.key: r for r in todo}
                tasks = [Task(r.key, r.text, r.seed, r.traced, limit) for r in todo]
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
                        ),
                        sole_writer=True,  # the sweep lock is held: anything to run takes it
                    )
                    failed += outcome.error is not None
                    bar.advance()
    return SweepResult(
        spec=spec,
        store=path,
        total=total,
        ran=todo_count,
        skipped=total - todo_count,
        failed=failed,
        wall_s=time.perf_counter() - started,
        checked=checked,
    )


def load_sweep(
    spec: SweepSpec | str | os.PathLike[str], store: str | os.PathLike[str] | None = None
) -> pd.DataFrame:
    """The stored results of a sweep as a DataFrame, without running anything.

    Never creates files: a missing store raises UserError naming where it looked (the spec's
    ``store``, else ``out/sweeps/<name>.sqlite`` under the working directory)."""
    if store is not None:
        check_store_argument(store)
    spec = _as_spec(spec)
    path = check_store_path(store, write=False) if store is not None else default_store(spec)
    return sweep_frame(spec, path, iter_runs(spec))
