"""A sweep whose worker process dies: the user is told why in one line, and what was stored stays."""

from __future__ import annotations

import os
import signal

import pytest
from tcplab.errors import InternalError, StoppedFromOutside, UserError
from tcplab.experiment import executors
from tcplab.experiment.executors import Executor, ExecutorChoice, _why_broken
from tcplab.experiment.worker import Outcome, Task


def _die_like_an_allocation_failure(task: Task) -> Outcome:
    """What a worker does when the core cannot allocate (oom.rs): one line, then status 2."""
    if task.key == "big":
        os._exit(executors.EXIT_OUT_OF_MEMORY)
    return Outcome(key=task.key, report={})


def _run_on_two_workers(monkeypatch: pytest.MonkeyPatch, stand_in: object, first: str) -> None:
    """Four tasks, ``first`` and three more, on two pool workers running ``stand_in``."""
    if executors._context().get_start_method() != "fork":
        pytest.skip("the stand-in worker function reaches workers only by fork")
    monkeypatch.setattr(executors, "execute", stand_in)
    tasks = [Task(key=first, text="", seed=1)] + [Task(key=f"k{i}", text="", seed=1) for i in range(3)]
    with Executor(ExecutorChoice(workers=2)) as ex:
        list(ex.run(tasks))


def test_a_worker_out_of_memory_is_the_users_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="ran out of memory"):
        _run_on_two_workers(monkeypatch, _die_like_an_allocation_failure, "big")


def test_the_exit_statuses_name_the_cause() -> None:
    assert isinstance(_why_broken([executors.EXIT_OUT_OF_MEMORY, -signal.SIGTERM]), UserError)
    crashed = _why_broken([-signal.SIGSEGV, -signal.SIGTERM])
    assert isinstance(crashed, InternalError) and "killed by SIGSEGV" in str(crashed)
    assert "SIGTERM" not in str(crashed)  # the pool ended the others itself
    assert "status 3" in str(_why_broken([3, None]))
    assert "no status" in str(_why_broken([None]))


def test_a_worker_killed_from_outside_is_not_called_a_bug() -> None:
    # SIGKILL is most often the kernel's out-of-memory killer: not a bug in tcplab.
    killed = _why_broken([-signal.SIGKILL, -signal.SIGTERM])
    assert isinstance(killed, StoppedFromOutside)
    assert str(killed) == (
        "a worker process was killed from outside (SIGKILL; the system may have run out of memory); "
        "runs stored so far are kept, and a rerun goes on from them"
    )
    for sig in (signal.SIGHUP, signal.SIGINT):
        assert isinstance(_why_broken([-sig, None]), StoppedFromOutside), sig
    # Only SIGTERMs: the pool ends the other workers with it, so one of them came from outside.
    assert "killed from outside (SIGTERM)" in str(_why_broken([-signal.SIGTERM, -signal.SIGTERM]))
    # A crash on its own is a bug, even next to a kill.
    for sig in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGABRT):
        assert isinstance(_why_broken([-sig, -signal.SIGKILL]), InternalError), sig
    assert isinstance(_why_broken([1, -signal.SIGTERM]), InternalError)


def _killed_by_sigkill(task: Task) -> Outcome:
    if task.key == "victim":
        os.kill(os.getpid(), signal.SIGKILL)
    return Outcome(key=task.key, report={})


def test_a_worker_killed_mid_sweep_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(StoppedFromOutside, match="SIGKILL"):
        _run_on_two_workers(monkeypatch, _killed_by_sigkill, "victim")
