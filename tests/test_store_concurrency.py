"""One result store used by several processes at once: two writers of the same run's traces,
two processes creating one store, two sweeps on one store (one is refused; readers are not),
a sweep refused for its executor leaving nothing, and integer columns kept integer when a run
failed."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
import tcplab as tl
from conftest import SCENARIOS, cli
from tcplab.errors import UserError
from tcplab.experiment.spec import SweepSpec
from tcplab.experiment.store import RunRecord, Store

QUICK = (SCENARIOS / "lossy_link.toml").read_text().replace('duration = "120s"', 'duration = "2s"', 1)
KEY = "ab" * 32
TRACE = "trace-flow0.parquet"


def _record(data: bytes, sweep: str = "s") -> RunRecord:
    return RunRecord(
        key=KEY, sweep=sweep, levels={}, replication=0, seed=1, version="x", scenario="",
        error="e", traces={TRACE: data},
    )  # fmt: skip


def _spec(tmp_path: Path, name: str = "sw", replications: int = 2) -> Path:
    (tmp_path / "quick.toml").write_text(QUICK)
    spec = tmp_path / f"{name}.toml"
    spec.write_text(
        f'name = "{name}"\nbase = "quick.toml"\nreplications = {replications}\n'
        '[factors]\n"tcp.variant" = ["reno", "newreno"]\n[labels]\n"tcp.variant" = "variant"\n'
    )
    return spec


def _one_line(result: object, *needles: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)  # type: ignore[attr-defined]
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- trace files: one temporary file each


def test_a_put_leaves_another_writers_temporary_file_alone(tmp_path: Path) -> None:
    # Another process storing the same run is half way through its temporary file, at the name
    # the old code used for every writer: this put must neither write into it nor rename it away.
    store = tmp_path / "s.sqlite"
    folder = tmp_path / "s.sqlite.traces" / KEY
    folder.mkdir(parents=True)
    theirs = folder / f".{TRACE}.tmp"
    theirs.write_bytes(b"half written by another process")
    with Store(store) as db:
        db.put(_record(b"mine"))
    assert theirs.read_bytes() == b"half written by another process"
    assert (folder / TRACE).read_bytes() == b"mine"


def test_trace_files_are_never_written_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    folder = tmp_path / "s.sqlite.traces" / KEY
    folder.mkdir(parents=True)
    (folder / f".{TRACE}.tmp").symlink_to(victim)  # planted at the old fixed temporary name
    (folder / TRACE).symlink_to(victim)
    with Store(tmp_path / "s.sqlite") as db:
        db.put(_record(b"trace bytes"))
    assert victim.read_text() == "untouched"
    assert not (folder / TRACE).is_symlink() and (folder / TRACE).read_bytes() == b"trace bytes"
    # A link as the run's folder is refused, not followed.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = "cd" * 32
    (tmp_path / "s.sqlite.traces" / other).symlink_to(elsewhere)
    with Store(tmp_path / "s.sqlite") as db, pytest.raises(UserError, match="is a symbolic link"):
        db.put(RunRecord(**{**_record(b"x").__dict__, "key": other}))
    assert list(elsewhere.iterdir()) == []


def _put_many(store: str, tag: str, data: bytes, barrier: object, errors: object) -> None:
    with Store(store) as db:
        barrier.wait()  # type: ignore[attr-defined]
        for _ in range(10):
            try:
                db.put(_record(data, tag))
            except Exception as e:
                errors.put(f"{type(e).__name__}: {e}")  # type: ignore[attr-defined]
                return


def test_two_processes_storing_the_same_traced_run_both_succeed(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    store = str(tmp_path / "s.sqlite")
    Store(store).close()
    data = os.urandom(2 << 20)
    barrier, errors = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_put_many, args=(store, t, data, barrier, errors)) for t in "AB"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert errors.empty(), errors.get()
    folder = tmp_path / "s.sqlite.traces" / KEY
    assert (folder / TRACE).read_bytes() == data
    assert [p.name for p in folder.iterdir()] == [TRACE]  # no temporary file left


# ---------------------------------------------------------------- creating one store together


@pytest.fixture
def held(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A new, empty store file that another connection holds as a second sweep creating the
    same store does half way (SQLite then refuses the WAL switch at once, without waiting)."""
    db = sqlite3.connect(tmp_path / "new.sqlite", isolation_level=None, check_same_thread=False)
    db.execute("BEGIN IMMEDIATE")
    yield db
    if db.in_transaction:
        db.execute("ROLLBACK")
    db.close()


def test_creating_a_store_another_process_is_creating_waits_for_it(
    tmp_path: Path, held: sqlite3.Connection
) -> None:
    release = threading.Timer(0.3, lambda: held.execute("COMMIT"))
    release.start()
    try:
        with Store(tmp_path / "new.sqlite") as db:
            assert db.count() == 0
    finally:
        release.join()


def test_a_store_held_too_long_is_in_use_not_foreign(
    tmp_path: Path, held: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tcplab.experiment.store as store_module

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.3, raising=False)
    with pytest.raises(UserError) as caught:
        Store(tmp_path / "new.sqlite")
    message = str(caught.value)
    assert "in use by another process" in message and "database is locked" in message
    assert "not a tcplab result store" not in message


# ---------------------------------------------------------------- one sweep per store at a time

_HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
os.ftruncate(fd, 0)
os.write(fd, f"{os.getpid()}\\n".encode())
print("locked", flush=True)
time.sleep(120)
"""


@contextmanager
def holding(lock: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the sweep lock file ``lock``, as a running sweep does."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_second_sweep_on_a_store_is_refused_at_once_and_readers_are_not(tmp_path: Path) -> None:
    store, csv = tmp_path / "s.sqlite", tmp_path / "s.csv"
    assert (
        cli("sweep", _spec(tmp_path), "--store", store, "--csv", csv, "-q", "--workers", "1").returncode == 0
    )
    more = _spec(tmp_path, "more", replications=3)
    with holding(tmp_path / "s.sqlite.lock") as other:
        refused = cli("sweep", more, "--store", store, "-q", "--workers", "1")
        line = _one_line(refused, "s.sqlite", "another sweep", str(other.pid), "writing to this store")
        assert "nothing was run" in line
        with pytest.raises(UserError, match="another sweep"):
            tl.sweep(more, store=store, workers=1, progress=False)
        assert len(tl.load_runs(store)) == 4  # nothing of the 2 new runs was run; reading works
        # A sweep with nothing left to run only reads the store: it is not refused.
        again = cli("sweep", _spec(tmp_path), "--store", store, "-q", "--workers", "1")
        assert again.returncode == 0 and "0 ran, 4 already stored" in again.stdout, again.stderr
        assert len(tl.load_sweep(_spec(tmp_path), store=store)) == 4
        anova = cli("anova", csv, "--response", "total_goodput_bps", "--factors", "variant")
        assert anova.returncode == 0, anova.stderr
    result = tl.sweep(more, store=store, workers=1, progress=False)  # the other sweep is gone
    assert (result.ran, result.skipped) == (2, 4)


def test_a_sweep_killed_by_sigkill_leaves_no_lock_behind(tmp_path: Path) -> None:
    lock = tmp_path / "s.sqlite.lock"
    with holding(lock) as other:
        os.kill(other.pid, signal.SIGKILL)
        other.wait()
    assert lock.read_text().strip() == str(other.pid)  # the file stays, but is no lock
    done = cli("sweep", _spec(tmp_path), "--store", tmp_path / "s.sqlite", "-q", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert lock.read_text() == ""  # released (and its holder forgotten) when the sweep ended


_FORKS = """
import multiprocessing, sys, time
from tcplab.experiment.store_lock import sweep_lock
with sweep_lock(sys.argv[1]):
    worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(120,))
    worker.start()  # as a local pool forks its workers while the sweep holds the lock
    print(worker.pid, flush=True)
    time.sleep(120)
"""


def test_a_worker_outliving_a_killed_sweep_does_not_keep_the_lock(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    sweep = subprocess.Popen([sys.executable, "-c", _FORKS, str(store)], stdout=subprocess.PIPE, text=True)
    assert sweep.stdout is not None
    worker = int(sweep.stdout.readline())
    try:
        sweep.kill()
        sweep.wait()
        os.kill(worker, 0)  # still running: an orphan holding a copy of the sweep's descriptors
        done = cli("sweep", _spec(tmp_path), "--store", store, "-q", "--workers", "1")
        assert done.returncode == 0, done.stderr
    finally:
        os.kill(worker, signal.SIGKILL)


def test_sweeps_one_after_another_in_one_process_share_a_store(tmp_path: Path) -> None:
    # As tcplab reproduce does: each sweep releases the lock for the next.
    store = tmp_path / "s.sqlite"
    first = tl.sweep(_spec(tmp_path, "a"), store=store, workers=2, progress=False)
    second = tl.sweep(_spec(tmp_path, "b", replications=3), store=store, workers=2, progress=False)
    assert (first.ran, second.ran, second.skipped) == (4, 2, 4)


def test_a_link_at_the_lock_file_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (tmp_path / "s.sqlite.lock").symlink_to(victim)
    refused = cli("sweep", _spec(tmp_path), "--store", tmp_path / "s.sqlite", "-q", "--workers", "1")
    _one_line(refused, "s.sqlite.lock is a symbolic link")
    assert victim.read_text() == "untouched"


# ---------------------------------------------------------------- a refused executor leaves nothing


def test_a_sweep_refused_for_its_dask_address_leaves_no_store(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    spec = _spec(tmp_path)
    _one_line(cli("sweep", spec.name, "--dask", "nonsense", cwd=tmp_path), "--dask nonsense")
    assert not (tmp_path / "out").exists()
    _one_line(cli("sweep", spec.name, "--dask", "nonsense", "--store", "s.sqlite", cwd=tmp_path), "--dask")
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("s.sqlite")]


# ---------------------------------------------------------------- integers stay integers


def test_integer_columns_stay_integers_when_a_run_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.experiment.csv_out import write_csv
    from tcplab.experiment.metrics import METRICS

    monkeypatch.setenv("TCPLAB_TEST_HOOKS", "1")
    base = tomllib.loads(QUICK)
    base["_test_corrupt"] = ""
    spec = SweepSpec(
        base=base,
        name="hooked",
        replications=2,
        factors={"tcp.variant": ["reno", "newreno"], "_test_corrupt": ["", "conservation"]},
        labels={"tcp.variant": "variant", "_test_corrupt": "corrupt"},
    )
    result = tl.sweep(spec, store=tmp_path / "s.sqlite", workers=1, progress=False)
    assert (result.ran, result.failed) == (8, 4)
    integers = [name for name, kind in METRICS.items() if kind == "INTEGER"]
    for df in (result.df, tl.load_runs(tmp_path / "s.sqlite")):
        assert all(str(df[c].dtype) == "Int64" for c in integers), df.dtypes
        assert df.loc[df["status"] == "failed", integers].isna().all().all()
    write_csv(result.df, tmp_path / "s.csv")
    text = pd.read_csv(tmp_path / "s.csv", dtype=str, keep_default_na=False)
    ok, failed = text[text["status"] == "ok"], text[text["status"] == "failed"]
    for column in integers:
        assert ok[column].str.fullmatch(r"\d+").all(), ok[column].tolist()  # 241124080, not 241124080.0
        assert (failed[column] == "").all()
    # Analysis gets numbers it can use, from the frame and from the CSV.
    fit = tl.factorial_anova(result.df[result.df["status"] == "ok"], "bytes_delivered", "variant")
    assert fit.percent_error >= 0
    ok_csv = tmp_path / "ok.csv"
    write_csv(result.df[result.df["status"] == "ok"], ok_csv)
    anova = cli("anova", ok_csv, "--response", "bytes_delivered", "--factors", "variant")
    assert anova.returncode == 0, anova.stderr
