"""--dask failures said in one line: a wrong or silent address, a lost scheduler, Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO, cli
from tcplab.errors import InternalError, StoppedFromOutside, cli_errors
from tcplab.experiment import executors
from tcplab.experiment.executors import Executor, ExecutorChoice
from tcplab.experiment.worker import Outcome, Task

pytest.importorskip("distributed")

HTTP_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\nConnection: close\r\n\r\nBad Request"


def _serve(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A TCP server on a free local port that hands every connection to ``answer``."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            answer(conn)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for conn in held:
            conn.close()


@pytest.fixture
def silent() -> Iterator[str]:
    """Accepts and never answers: a firewall, a port forward with nothing behind it."""
    yield from _serve(lambda conn: None)


@pytest.fixture
def http() -> Iterator[str]:
    """Answers HTTP 400 at once: a web server, the Dask dashboard's port."""

    def answer(conn: socket.socket) -> None:
        conn.settimeout(2)
        try:
            conn.recv(65536)
            conn.sendall(HTTP_400)
        except OSError:
            pass

    yield from _serve(answer)


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(f'base = "{REPO / "scenarios" / "lossy_link.toml"}"\n')
    return path


def _sweep(spec: Path, address: str) -> tuple[int, list[str]]:
    proc = cli("sweep", spec, "--store", spec.with_suffix(".sqlite"), "--dask", address)
    return proc.returncode, proc.stderr.strip().splitlines()


def test_a_server_that_never_answers_fails_within_the_timeout(
    spec: Path, silent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCPLAB_DASK_TIMEOUT", "1")
    started = time.monotonic()
    status, lines = _sweep(spec, silent)
    assert time.monotonic() - started < 4
    assert status == 2
    assert len(lines) == 1 and lines[0].startswith(f"error: --dask {silent}: ")
    assert "did not answer as a Dask scheduler within 1 s" in lines[0]


def test_a_server_that_is_not_dask_is_called_so(
    spec: Path, http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCPLAB_DASK_TIMEOUT", "2")
    status, lines = _sweep(spec, http)
    assert status == 2
    assert lines == [f"error: --dask: something answered at {http} but it is not a Dask scheduler"]


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "abc"])
def test_a_bad_timeout_names_the_variable_not_the_address(
    spec: Path, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCPLAB_DASK_TIMEOUT", value)
    status, lines = _sweep(spec, "tcp://127.0.0.1:9")
    assert status == 2
    assert lines == [f"error: TCPLAB_DASK_TIMEOUT: must be a positive number of seconds, got '{value}'"]


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:1", "inproc://x"])
def test_other_schemes_are_not_scheduler_addresses(spec: Path, address: str) -> None:
    status, lines = _sweep(spec, address)
    assert status == 2
    assert lines == [f"error: --dask {address}: not a scheduler address: use tcp://HOST:PORT or 'local'"]


def _echo(task: Task) -> Outcome:
    return Outcome(key=task.key, report={})


def test_an_in_process_clusters_address_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    from dask.distributed import LocalCluster

    monkeypatch.setattr(executors, "execute", _echo)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("inproc://")
        with Executor(ExecutorChoice(dask=cluster.scheduler_address)) as ex:
            assert [o.key for o in ex.run([Task(key="k", text="", seed=1)])] == ["k"]


def test_stopped_from_outside_exits_4_without_asking_for_a_bug_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import typer

    @cli_errors
    def command() -> None:
        raise StoppedFromOutside("lost the connection to the Dask scheduler at tcp://h:1; rerun to go on")

    with pytest.raises(typer.Exit) as stop:
        command()
    assert stop.value.exit_code == 4
    err = capsys.readouterr().err
    assert err == "error: lost the connection to the Dask scheduler at tcp://h:1; rerun to go on\n"


def test_what_a_dask_failure_means() -> None:
    from distributed.client import FutureCancelledError

    class Running:
        status = "running"

    where = "the Dask scheduler at tcp://h:1"
    lost = executors._dask_failure(
        FutureCancelledError("k", "scheduler-connection-lost", "a\nb"), Running(), where
    )
    assert isinstance(lost, StoppedFromOutside)
    assert str(lost) == f"lost the connection to {where}; runs stored so far are kept, rerun to go on"
    # A task that raised is a bug: as before.
    assert isinstance(executors._dask_failure(RuntimeError("boom"), Running(), where), InternalError)


def _slow(task: Task) -> Outcome:
    time.sleep(0.3)
    return Outcome(key=task.key, report={})


def test_a_scheduler_lost_mid_sweep_is_said_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from dask.distributed import LocalCluster

    monkeypatch.setenv("TCPLAB_DASK_TIMEOUT", "1")  # also how long the client tries to reconnect
    monkeypatch.setattr(executors, "execute", _slow)
    tasks = [Task(key=f"k{i}", text="", seed=1) for i in range(40)]
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    )
    try:
        address = cluster.scheduler_address
        with Executor(ExecutorChoice(dask=address)) as ex, pytest.raises(StoppedFromOutside) as stop:
            for done, _ in enumerate(ex.run(tasks)):
                if done == 1:
                    cluster.sync(cluster.scheduler.close)
    finally:
        # A cluster whose scheduler is gone takes 30 s to close politely.
        for worker in list(cluster.workers.values()):
            with contextlib.suppress(Exception):
                cluster.sync(worker.close, timeout=1)
        with contextlib.suppress(Exception):
            cluster.close(timeout=1)
    assert str(stop.value) == (
        f"lost the connection to the Dask scheduler at {address}; runs stored so far are kept, rerun to go on"
    )
    assert "distributed.client" not in capfd.readouterr().err


def _long_spec(tmp_path: Path) -> Path:
    """Runs of the dumbbell that last long enough to be interrupted (without its pcap, which a
    sweep would warn about)."""
    text = (REPO / "scenarios" / "dumbbell.toml").read_text().replace("pcap = true", "pcap = false")
    # A 1 Gb/s bottleneck: the bulk flows then run for the whole duration, seconds of CPU a run,
    # so the sweep is still running when it is interrupted, however loaded the machine.
    text = text.replace('rate = "10Mbps"', 'rate = "1Gbps"', 1)
    base = tmp_path / "dumbbell.toml"
    base.write_text(text)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'name = "long"\nbase = "{base}"\nreplications = 4\n[factors]\n"tcp.variant" = ["reno", "sack"]\n'
        'duration = ["600s"]\n'
    )
    return spec


def _ignores_sigint(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


LINUX = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


def _dask_local_sweep(tmp_path: Path, workers: int) -> subprocess.Popen[str]:
    """A long `tcplab sweep --dask local` in a session of its own, as from a terminal."""
    spec = _long_spec(tmp_path)
    args = [sys.executable, "-m", "tcplab", "sweep", spec, "--store", tmp_path / "s.sqlite", "--quiet"]
    return subprocess.Popen(
        [*map(str, args), "--dask", "local", "--workers", str(workers)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@LINUX
@pytest.mark.parametrize("when", ["starting", "running"])
def test_ctrl_c_on_a_dask_local_sweep_prints_one_line(tmp_path: Path, when: str) -> None:
    proc = _dask_local_sweep(tmp_path, workers=2)
    try:
        deadline = time.monotonic() + 30
        # "starting": as soon as a Dask worker process exists (it is still importing);
        # "running": once both run a task.
        # tracker + 2 workers, and the sweep listens to Ctrl-C again: it ignores it for the few
        # milliseconds it takes to fork the workers, so that they inherit the ignoring.
        while (len(_children(proc.pid)) < 3 or _ignores_sigint(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.02)
        if when == "running":
            time.sleep(4)
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, err.strip()) == (130, "error: interrupted")


@LINUX
def test_a_killed_dask_local_sweep_leaves_no_stray_warning(tmp_path: Path) -> None:
    proc = _dask_local_sweep(tmp_path, workers=1)
    try:
        deadline = time.monotonic() + 30
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(3)
        proc.kill()  # no clean-up at all in the sweep (SIGTERM may get one)
        # The pipe closes when its last writer (the orphaned resource tracker among them) exits.
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert "leaked" not in err


def test_a_local_cluster_left_without_workers_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers killed while they started were not restarted, and the sweep waited for a worker
    forever: with none for NO_WORKER_GRACE_S it ends as stopped from outside (exit 4)."""
    from tcplab.errors import StoppedFromOutside
    from tcplab.experiment import executors

    clock, workers = [1000.0], [1]
    monkeypatch.setattr(executors.time, "monotonic", lambda: clock[0])
    watch = executors._WorkerWatch(lambda: workers[0])
    for clock[0], workers[0] in [(1002.0, 1), (1004.0, 0), (1011.0, 0), (1014.0, 2)]:
        watch.check()  # a worker seen within the grace: waiting goes on
    workers[0] = 0
    clock[0] = 1014.0 + executors.NO_WORKER_GRACE_S - 0.5
    watch.check()
    clock[0] = 1014.0 + executors.NO_WORKER_GRACE_S + 1.0
    with pytest.raises(StoppedFromOutside, match="no worker for 10 s"):
        watch.check()
