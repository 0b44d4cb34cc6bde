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

import asyncio
import contextlib
import logging
import math
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from tcplab.errors import InternalError, StoppedFromOutside, UserError
from tcplab.experiment.worker import Outcome, Task, execute

__all__ = ["Executor", "ExecutorChoice", "default_workers"]

DASK_CONNECT_TIMEOUT_S = 5.0


def dask_timeout() -> float:
    """Seconds to wait for a Dask scheduler: $TCPLAB_DASK_TIMEOUT, else 5."""
    value = os.environ.get("TCPLAB_DASK_TIMEOUT")
    if not value:
        return DASK_CONNECT_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    # nan, inf, 0 or less would wait forever or not at all (and distributed rejects them
    # with messages that blame the address).
    if not (math.isfinite(seconds) and seconds > 0):
        raise UserError(f"TCPLAB_DASK_TIMEOUT: must be a positive number of seconds, got {value!r}")
    return seconds


def default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True)
class ExecutorChoice:
    """How to run: ``workers`` processes here, or ``dask`` ('local' or a scheduler address)."""

    workers: int | None = None
    dask: str | None = None

    def __post_init__(self) -> None:
        # Checked here, before a sweep makes its store: 1.5 or '2' failed inside the pool,
        # after the store was made, and True was taken for 1. The CLI's --workers is an int.
        if self.workers is not None:
            object.__setattr__(self, "workers", _worker_count(self.workers))
        if self.dask is not None and not isinstance(self.dask, str):
            raise UserError(
                f"dask: expected a scheduler address (tcp://host:8786) or 'local', got "
                f"{type(self.dask).__name__} {self.dask!r}"[:300]
            )
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


def _worker_count(workers: object) -> int:
    """``workers`` as an int of at least 1 (a numpy integer is one; a bool, a float or a string
    is not)."""
    if isinstance(workers, bool) or not hasattr(workers, "__index__"):
        raise UserError(
            f"workers: must be a whole number of worker processes, at least 1, got "
            f"{type(workers).__name__} {workers!r}"[:300]
        )
    count = workers.__index__()
    if count < 1:
        raise UserError(f"workers: must be at least 1, got {count}")
    return count


class Executor:
    """Runs tasks as ``choice`` says; use as a context manager (it owns pools and clients).

    A remote Dask scheduler is contacted on entry, so an unreachable address is reported at
    once even when there is nothing to run; local pools and clusters start only when needed.
    """

    def __init__(self, choice: ExecutorChoice) -> None:
        self.choice = choice
        self._client: object | None = None
        self._cluster: object | None = None
        self._quiet = contextlib.ExitStack()

    def __enter__(self) -> Executor:
        if self.choice.dask:
            # Dask logs its own view of every failure (a lost scheduler, a closing worker);
            # tcplab says it once, in one line.
            self._quiet.enter_context(_dask_logs_silenced())
        if self.choice.dask and self.choice.dask != "local":
            try:
                self._client = _remote_client(self.choice.dask)
            except BaseException:
                self._quiet.close()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._client is not None:
                self._client.close()  # type: ignore[attr-defined]
            if self._cluster is not None:
                self._cluster.close()  # type: ignore[attr-defined]
        finally:
            self._client = self._cluster = None
            self._quiet.close()

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """Outcomes of ``tasks`` as they finish."""
        if not tasks:
            return iter(())
        if self.choice.dask:
            if self._client is None:
                self._start_local_cluster()
            where = (
                "the Dask LocalCluster's scheduler"
                if self.choice.dask == "local"
                else (f"the Dask scheduler at {self.choice.dask}")
            )
            watch = _WorkerWatch(self._local_workers) if self.choice.dask == "local" else None
            return _dask(tasks, self._client, where, watch)
        if self.choice.n_workers == 1 or len(tasks) == 1:
            return (execute(t) for t in tasks)
        return _pool(tasks, min(self.choice.n_workers, len(tasks)))

    def _local_workers(self) -> int:
        """The local cluster's workers, as its scheduler (in this process) knows them: read
        without a call through Dask's event loop, which a Ctrl-C could leave waiting."""
        return len(self._cluster.scheduler.workers)  # type: ignore[union-attr]

    def _start_local_cluster(self) -> None:
        from dask.distributed import Client, LocalCluster

        _quiet_resource_tracker()
        # The scheduler first, with no workers (it runs in this process), then the workers.
        from distributed.worker_memory import parse_memory_limit

        n = self.choice.n_workers
        self._cluster = cluster = LocalCluster(
            n_workers=0,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # The scheduler serves HTTP (health, metrics) even without a dashboard: on a free
            # local port, not on 8787 with a warning when another cluster holds it.
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            # What LocalCluster(n_workers=n) gives each worker: its share of the memory.
            memory_limit=parse_memory_limit("auto", 1, n, logger=logging.getLogger("distributed")),
            silence_logs=logging.CRITICAL,
        )
        self._client = Client(cluster)
        with _sigint_ignored_by_children():
            before = _child_count()
            cluster.scale(n)  # returns at once; the processes start in a thread
            _wait_for_children(before + n)


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


# Signals that come from outside a worker: SIGKILL from the kernel's out-of-memory killer or
# `kill -9`, SIGTERM and SIGHUP from an operator or a service manager, and SIGINT for `bench`'s
# child (a sweep's workers ignore SIGINT, even sent to one alone: the terminal's Ctrl-C goes to
# the whole group, and the parent stops them). A worker that crashes on its own (SIGSEGV,
# SIGBUS, SIGILL, SIGABRT, ...) or exits by itself is a bug in tcplab.
EXTERNAL_SIGNALS = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT})


def _why_broken(exit_codes: Sequence[int | None]) -> Exception:
    """The error for a pool whose worker died, from its workers' exit statuses (the ones the
    pool ended itself show SIGTERM)."""
    kept = "runs stored so far are kept, and a rerun goes on from them"
    if EXIT_OUT_OF_MEMORY in exit_codes:
        return UserError(
            f"a run ran out of memory in a worker process (the line above says how much it wanted); {kept}: "
            "use fewer --workers, or make the run smaller"
        )
    died = sorted({c for c in exit_codes if c not in (None, 0, -signal.SIGTERM)})
    if not died and -signal.SIGTERM in exit_codes:
        died = [-signal.SIGTERM]  # the pool broke, and nothing but SIGTERM ended its workers
    if died and all(c < 0 and -c in EXTERNAL_SIGNALS for c in died):
        names = ", ".join(_signal_name(-c) for c in died)
        oom = "; the system may have run out of memory" if -signal.SIGKILL in died else ""
        return StoppedFromOutside(f"a worker process was killed from outside ({names}{oom}); {kept}")
    how = ", ".join(f"killed by {_signal_name(-c)}" if c < 0 else f"status {c}" for c in died)
    return InternalError(f"a worker process died ({how or 'no status'}); {kept}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@contextlib.contextmanager
def _dask_logs_silenced() -> Iterator[None]:
    """Raise the level of distributed's loggers (its configuration gives some their own level,
    so the parent's alone is not enough) for as long as tcplab uses Dask, then restore them."""
    names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """Start the LocalCluster's worker processes with Ctrl-C ignored, as the local pool's are
    (``_start_worker``): the terminal sends it to the whole process group, and a Dask worker
    that gets it prints tracebacks; this process stops the cluster itself. Only an ignored
    signal survives the exec of a spawned worker (Python then installs no handler of its
    own), so this process ignores SIGINT until the workers are forked (a few milliseconds,
    not the seconds they take to start: a Ctrl-C then would be lost)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may change signal handlers
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _child_count() -> int:
    import psutil  # a dependency of distributed

    return len(psutil.Process().children())


def _wait_for_children(count: int, limit_s: float = 10.0) -> None:
    """Until this process has ``count`` children (or ``limit_s`` has passed)."""
    deadline = time.monotonic() + limit_s
    while _child_count() < count and time.monotonic() < deadline:
        time.sleep(0.005)


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its stderr on /dev/null. The LocalCluster's
    queues register semaphores with it; when this process is killed (SIGTERM, SIGKILL) the
    tracker, left alone, frees them and warns about 'leaked semaphore objects' after the
    command has already ended. The tracker inherits file descriptor 2 when it starts."""
    from multiprocessing import resource_tracker

    try:
        saved = os.dup(2)
    except OSError:
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class _Unreachable(Exception):
    """No TCP connection to the address within the deadline."""


class _Silent(Exception):
    """Connected, but nothing answered the handshake within the deadline."""


class _NotDask(Exception):
    """Connected, and what answered does not speak Dask's protocol."""


class _Closed(_NotDask):
    """Connected, and the other end closed the connection without a word."""


def _remote_client(address: str) -> object:
    """A client of the scheduler at ``address``, or a one-line UserError naming it. A probe
    does the connection and distributed's handshake first under one deadline
    (``TCPLAB_DASK_TIMEOUT``): ``Client(timeout=)`` bounds only the TCP connect, and waits
    forever for the handshake of something that accepts connections but never answers."""
    timeout = dask_timeout()
    if _in_this_process(address):  # an in-process cluster's scheduler: nothing to probe
        return _client(address, timeout)
    if "://" in address and not address.startswith("tcp://"):
        # tls:// would need certificates tcplab cannot pass; ucx://, ws://, ... are not offered.
        raise UserError(f"--dask {address}: not a scheduler address: use tcp://HOST:PORT or 'local'")
    try:
        _probe(address, timeout)
    except _Unreachable as e:
        raise UserError(
            f"--dask {address}: cannot reach a Dask scheduler at this address within {timeout:g} s ({e})"
        ) from None
    except _Silent:
        raise UserError(
            f"--dask {address}: something accepted the connection but did not answer as a Dask scheduler "
            f"within {timeout:g} s (TCPLAB_DASK_TIMEOUT sets the seconds)"
        ) from None
    except _Closed:
        raise UserError(
            f"--dask: something at {address} accepted the connection and closed it without answering: "
            "it is not a Dask scheduler (or one shutting down)"
        ) from None
    except _NotDask:
        raise UserError(f"--dask: something answered at {address} but it is not a Dask scheduler") from None
    return _client(address, timeout)


def _in_this_process(address: str) -> bool:
    """An ``inproc://HOST/PID/N`` address of this process (``LocalCluster(processes=False)``)."""
    parts = address.removeprefix("inproc://").split("/") if address.startswith("inproc://") else []
    return len(parts) == 3 and parts[1] == str(os.getpid())


def _client(address: str, timeout: float) -> object:
    from dask.distributed import Client

    try:
        return Client(address, timeout=timeout)
    except Exception as e:
        reason = _first_line(e)
        raise UserError(f"--dask {address}: the Dask scheduler there refused a client ({reason})") from None


def _first_line(e: BaseException) -> str:
    # distributed prefixes its connection errors with the repr of its connector object.
    text = re.sub(r"^in <[^>]*>: ", "", str(e).strip())
    return text.splitlines()[0] if text else type(e).__name__


def _probe(address: str, timeout: float) -> None:
    """Connect to ``address`` and exchange distributed's handshake, all within ``timeout``:
    raises _Unreachable, _Silent or _NotDask, or UserError for a malformed address.

    It runs distributed's own connector and message reader (so it follows distributed's
    protocol, not a copy of it) on an event loop of its own, in a thread of its own: the
    caller may be inside a running loop (a notebook), and Ctrl-C can still stop the wait."""
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        connector = get_backend(scheme).get_connector()
        from distributed.comm.addressing import parse_host_port

        parse_host_port(location)
    except (ValueError, TypeError) as e:
        raise UserError(
            f"--dask {address}: not a scheduler address ({_first_line(e)}): use tcp://HOST:PORT or 'local'"
        ) from None
    outcome: list[BaseException | None] = []
    thread = threading.Thread(
        target=lambda: outcome.append(_run_probe(connector, location, timeout)), daemon=True
    )
    thread.start()
    thread.join(timeout + 1.0)  # the probe keeps its own deadline; this is a backstop
    if not outcome:
        raise _Silent()
    if outcome[0] is not None:
        raise outcome[0]


def _run_probe(connector: object, location: str, timeout: float) -> BaseException | None:
    try:
        asyncio.run(_handshake(connector, location, timeout))
    except (_Unreachable, _Silent, _NotDask) as e:
        return e
    except Exception as e:  # whatever else went wrong in the probe: not a scheduler there
        return _NotDask(_first_line(e))
    return None


async def _handshake(connector: object, location: str, timeout: float) -> None:
    from distributed.comm import CommClosedError

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    comm = await _open(connector, location, deadline)
    try:
        await comm.write(comm.handshake_info())
        answer = await asyncio.wait_for(comm.read(), max(deadline - loop.time(), 0.001))
    except TimeoutError:
        raise _Silent() from None
    except CommClosedError as e:
        raise _Closed(_first_line(e)) from None
    except Exception as e:  # bytes that are no Dask message (an HTTP reply, say)
        raise _NotDask(_first_line(e)) from None
    finally:
        comm.abort()
    if not isinstance(answer, dict):
        raise _NotDask(f"answered {type(answer).__name__}")


async def _open(connector: object, location: str, deadline: float) -> object:
    """A connection, retried until ``deadline`` as distributed's ``connect`` does (a scheduler
    just starting refuses for a moment)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            left = max(deadline - loop.time(), 0.001)
            return await asyncio.wait_for(connector.connect(location), left)  # type: ignore[attr-defined]
        except (TimeoutError, OSError) as e:
            if deadline - loop.time() <= 0.05:
                raise _Unreachable(_first_line(e) if str(e).strip() else "timed out") from None
            await asyncio.sleep(0.05)


# How long a local cluster may have no worker before the sweep gives up on it: its nanny
# restarts a killed worker within a second or two, but workers killed while they start are
# not restarted, and the tasks then waited for a worker forever.
NO_WORKER_GRACE_S = 10.0


def _dask(tasks: Sequence[Task], client: object, where: str, watch: _WorkerWatch | None) -> Iterator[Outcome]:
    from dask.distributed import as_completed as dask_completed

    keys = [f"tcplab-run-{t.key}" for t in tasks]
    futures = client.map(execute, list(tasks), key=keys)  # type: ignore[attr-defined]
    try:
        done = dask_completed(futures)
        while not done.is_empty():
            if watch is not None and not done.has_ready():
                watch.check()
                time.sleep(0.05)
                continue
            for future in done.next_batch(block=True):
                try:
                    yield future.result()
                except Exception as e:
                    raise _dask_failure(e, client, where) from None
    finally:
        for future in futures:
            future.cancel()


class _WorkerWatch:
    """A local cluster's workers (``count()``), looked at about once a second while the sweep
    waits: none left for ``NO_WORKER_GRACE_S`` means they were killed from outside (exit 4)."""

    def __init__(self, count: Callable[[], int]) -> None:
        self._count = count
        self._asked = self._since = time.monotonic()

    def check(self) -> None:
        now = time.monotonic()
        if now - self._asked < 1.0:
            return
        self._asked = now
        if self._count():
            self._since = now
        elif now - self._since > NO_WORKER_GRACE_S:
            raise StoppedFromOutside(
                f"the Dask LocalCluster has had no worker for {NO_WORKER_GRACE_S:.0f} s (its workers "
                "were killed from outside, and not restarted); runs stored so far are kept, rerun to go on"
            )


def _dask_failure(e: Exception, client: object, where: str) -> Exception:
    """What a task's failure means: the scheduler lost (the client gave up reconnecting, and
    cancelled every future) is outside tcplab; anything else (a task that raised, a worker that
    died again and again: KilledWorker) is a bug."""
    from distributed.client import FutureCancelledError
    from distributed.comm import CommClosedError

    lost = isinstance(e, CommClosedError) or (
        isinstance(e, FutureCancelledError)
        and (e.reason == "scheduler-connection-lost" or getattr(client, "status", "running") != "running")
    )
    if lost:
        kept = "runs stored so far are kept, rerun to go on"
        return StoppedFromOutside(f"lost the connection to {where}; {kept}")
    return InternalError(f"Dask could not run a task: {e}")
