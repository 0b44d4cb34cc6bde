"""Where runs execute: in this process, on local worker processes, or on a Dask cluster.

Each executor takes a list of tasks and yields their outcomes as they finish (in any order).
The results do not depend on the executor: a run's report depends only on its scenario text and
seed, and the core is deterministic.

- ``workers=1``: one after the other in this process.
- ``workers=N`` (default: every core): a pool of N worker processes (forked on Linux; spawned
  where there is no fork, and then a script needs the ``if __name__ == "__main__":`` guard).
- ``dask="local"``: a Dask LocalCluster of N single-threaded worker processes on this machine.
- ``dask="tcp://host:8786"``: an existing Dask scheduler; its workers need the same tcplab
  installed (the run key contains the version; the results are checked against nothing else).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from tcplab.errors import InternalError, UserError
from tcplab.experiment.worker import Outcome, Task, execute

__all__ = ["Executor", "ExecutorChoice", "default_workers"]

DASK_CONNECT_TIMEOUT_S = 5.0


def dask_timeout() -> float:
    """Seconds to wait for a Dask scheduler: $TCPLAB_DASK_TIMEOUT, else 5."""
    value = os.environ.get("TCPLAB_DASK_TIMEOUT")
    try:
        return float(value) if value else DASK_CONNECT_TIMEOUT_S
    except ValueError:
        raise UserError(f"TCPLAB_DASK_TIMEOUT: not a number of seconds: {value!r}") from None


def default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True)
class ExecutorChoice:
    """How to run: ``workers`` processes here, or ``dask`` ('local' or a scheduler address)."""

    workers: int | None = None
    dask: str | None = None

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise UserError(f"--workers: must be at least 1, got {self.workers}")
        if self.dask is not None and not self.dask.strip():
            raise UserError("--dask: give a scheduler address (tcp://host:8786) or 'local'")
        if self.dask is not None:
            from tcplab.extras import require

            require("dask", "--dask")

    @property
    def n_workers(self) -> int:
        return self.workers or default_workers()

    def describe(self) -> str:
        if self.dask == "local":
            return f"a Dask LocalCluster of {self.n_workers} workers"
        if self.dask:
            return f"the Dask scheduler at {self.dask}"
        n = self.n_workers
        return "this process" if n == 1 else f"{n} local worker processes"


class Executor:
    """Runs tasks as ``choice`` says; use as a context manager (it owns pools and clients).

    A remote Dask scheduler is contacted on entry, so an unreachable address is reported at
    once even when there is nothing to run; local pools and clusters start only when needed.
    """

    def __init__(self, choice: ExecutorChoice) -> None:
        self.choice = choice
        self._client: object | None = None
        self._cluster: object | None = None

    def __enter__(self) -> Executor:
        if self.choice.dask and self.choice.dask != "local":
            self._client, self._cluster = _connect(self.choice.dask, self.choice.n_workers)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()  # type: ignore[attr-defined]
        if self._cluster is not None:
            self._cluster.close()  # type: ignore[attr-defined]
        self._client = self._cluster = None

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """Outcomes of ``tasks`` as they finish."""
        if not tasks:
            return iter(())
        if self.choice.dask:
            if self._client is None:
                self._client, self._cluster = _connect(self.choice.dask, self.choice.n_workers)
            return _dask(tasks, self._client)
        if self.choice.n_workers == 1 or len(tasks) == 1:
            return (execute(t) for t in tasks)
        return _pool(tasks, min(self.choice.n_workers, len(tasks)))


def _context() -> multiprocessing.context.BaseContext:
    # fork where there is one: workers start at once and never re-import the caller's
    # __main__ (scripts without a main guard, notebooks). They only run tcplab.experiment.worker, which
    # takes no lock that a parent thread (the progress bar's) could hold.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _die_with_parent() -> None:
    """Linux: a worker gets SIGKILL when the sweep process dies (even by SIGKILL), instead of
    waiting forever on a queue nobody writes to."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
        except (OSError, AttributeError):
            pass


def _start_worker() -> None:
    """A worker ignores Ctrl-C (the terminal sends it to the whole process group): the parent
    decides, and stops its workers itself (``_stop_workers``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's workers now, mid-run: after Ctrl-C (or an error) the parent must
    not wait for their runs, which may never end. Their runs are not stored; a rerun does them.
    (Python 3.14 has ``terminate_workers``; before it, the pool's process table.)"""
    if hasattr(pool, "terminate_workers"):
        pool.terminate_workers()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


# The status of a process whose allocation failed (crates/tcplab-py/src/oom.rs): the run did
# not fit the memory there was, which its worker has said in one line on stderr.
EXIT_OUT_OF_MEMORY = 2


def _pool(tasks: Sequence[Task], workers: int) -> Iterator[Outcome]:
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_start_worker)
    done = broken = False
    # The pool forgets its processes once broken; their exit statuses say why it broke. It
    # starts them at the first submit, and may break before the last (a run that dies at once).
    processes: list[multiprocessing.process.BaseProcess] = []
    try:
        futures = []
        for t in tasks:
            futures.append(pool.submit(execute, t))
            processes = processes or list((getattr(pool, "_processes", None) or {}).values())
        for future in as_completed(futures):
            yield future.result()
        done = True
    except BrokenProcessPool:
        broken = True
    finally:
        if not done:  # interrupted, or the caller stopped early: workers may be mid-run
            _stop_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)
    if broken:
        # Read only now: the pool's own thread has waited for every worker, and reading a
        # status while it waits could find the process neither running nor with a status.
        raise _why_broken([p.exitcode for p in processes])


def _why_broken(exit_codes: Sequence[int | None]) -> UserError | InternalError:
    """The error for a pool whose worker died, from its workers' exit statuses (the ones the
    pool ended itself show SIGTERM)."""
    kept = "runs stored so far are kept, and a rerun goes on from them"
    if EXIT_OUT_OF_MEMORY in exit_codes:
        return UserError(
            f"a run ran out of memory in a worker process (the line above says how much it wanted); {kept}: "
            "use fewer --workers, or make the run smaller"
        )
    died = sorted({c for c in exit_codes if c not in (None, 0, -signal.SIGTERM)})
    how = ", ".join(f"killed by {_signal_name(-c)}" if c < 0 else f"status {c}" for c in died)
    return InternalError(f"a worker process died ({how or 'no status'}); {kept}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _connect(address: str, workers: int) -> tuple[object, object | None]:
    from dask.distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        return Client(cluster), cluster
    # The client logs its retries at ERROR level before giving up; the UserError says it once.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    timeout = dask_timeout()
    try:
        return Client(address, timeout=timeout), None
    except ValueError as e:  # a malformed address
        raise UserError(f"--dask {address}: not a scheduler address ({e}); e.g. tcp://host:8786") from None
    except Exception as e:  # OSError, TimeoutError, ...
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UserError(
            f"--dask {address}: cannot reach a Dask scheduler at this address within {timeout:g} s ({reason})"
        ) from None


def _dask(tasks: Sequence[Task], client: object) -> Iterator[Outcome]:
    from dask.distributed import as_completed as dask_completed

    keys = [f"tcplab-run-{t.key}" for t in tasks]
    futures = client.map(execute, list(tasks), key=keys)  # type: ignore[attr-defined]
    try:
        for future in dask_completed(futures):
            try:
                yield future.result()
            except Exception as e:  # a worker died again and again (KilledWorker), say
                raise InternalError(f"Dask could not run a task: {e}") from None
    finally:
        for future in futures:
            future.cancel()
