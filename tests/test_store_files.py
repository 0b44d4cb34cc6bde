"""The files around a result store: its sweep lock file (never emptied unless tcplab made it),
a store opened to read (never written), the names of one store (a symbolic link shares its
traces, hard links are not written to), store paths that cannot be one (a folder's name, a
file in the way of its folder, a path too long for SQLite), and a sweep refused at the lock
(it leaves nothing)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import tcplab as tl
from conftest import cli
from tcplab.errors import UserError
from tcplab.experiment.store import RunRecord, Store, load_runs
from test_hostile_input import one_line_error
from test_store_concurrency import _spec as two_variants
from test_store_concurrency import holding

KEY = "cd" * 32
# SQLite's 512-byte limit on a database's path, less the "-journal" it appends.
SQLITE_PATH_LIMIT = 504


def _spec(tmp_path: Path, name: str = "sw", replications: int = 1) -> Path:
    return two_variants(tmp_path, name, replications)


def _sweep(tmp_path: Path, store: Path | str, replications: int = 1) -> object:
    return cli("sweep", _spec(tmp_path, replications=replications), "--store", store, "-q", "--workers", "1")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    store = tmp_path / "s.sqlite"
    assert _sweep(tmp_path, store).returncode == 0  # type: ignore[attr-defined]
    return store


# ---------------------------------------------------------------- the sweep lock file


def test_a_hard_link_at_the_lock_file_is_refused_and_its_file_kept(tmp_path: Path) -> None:
    precious = tmp_path / "p.txt"
    precious.write_text("precious\n")
    os.link(precious, tmp_path / "s.sqlite.lock")
    one_line_error(_sweep(tmp_path, tmp_path / "s.sqlite"), "s.sqlite.lock", "hard links", "remove this name")
    assert precious.read_text() == "precious\n"
    assert not (tmp_path / "s.sqlite").exists()


def test_a_hard_link_to_the_store_at_its_lock_file_leaves_the_store_intact(stored: Path) -> None:
    lock = stored.with_name("s.sqlite.lock")
    lock.unlink()
    os.link(stored, lock)
    before = _digest(stored)
    one_line_error(_sweep(stored.parent, stored, replications=2), "hard links")
    assert _digest(stored) == before and len(load_runs(stored)) == 2


def test_a_store_named_as_another_stores_lock_file_is_not_emptied(tmp_path: Path) -> None:
    first = tmp_path / "s.sqlite.lock"
    assert _sweep(tmp_path, first).returncode == 0  # type: ignore[attr-defined]
    before = _digest(first)
    one_line_error(_sweep(tmp_path, tmp_path / "s.sqlite"), "s.sqlite.lock", "did not write", "move it away")
    assert _digest(first) == before and len(load_runs(first)) == 2
    assert not (tmp_path / "s.sqlite").exists()


def test_a_stores_lock_file_is_not_taken_for_a_store(stored: Path) -> None:
    lock = stored.with_name("s.sqlite.lock")
    one_line_error(_sweep(stored.parent, lock), "s.sqlite.lock", "sweep lock file of the result store")
    assert lock.read_bytes() == b""


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_lock_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    lock = tmp_path / "s.sqlite.lock"
    if kind == "folder":
        lock.mkdir()
    else:
        os.mkfifo(lock)
    one_line_error(_sweep(tmp_path, tmp_path / "s.sqlite"), "s.sqlite.lock", "not a regular file")


def test_a_genuine_lock_file_still_records_its_holder(tmp_path: Path) -> None:
    lock = tmp_path / "s.sqlite.lock"
    lock.write_text("12345\n")  # left by a sweep that was killed
    assert _sweep(tmp_path, tmp_path / "s.sqlite").returncode == 0  # type: ignore[attr-defined]
    assert lock.read_text() == ""


# ---------------------------------------------------------------- a reader never writes


def test_reading_an_empty_file_refuses_it_and_leaves_it_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.touch()
    for read in (lambda: load_runs(empty), lambda: Store(empty, create=False)):
        with pytest.raises(UserError, match="not a tcplab result store: the file is empty"):
            read()
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt"]


def test_reading_an_sqlite_file_without_tables_leaves_it_unchanged(tmp_path: Path) -> None:
    blank = tmp_path / "blank.sqlite"
    db = sqlite3.connect(blank)
    db.executescript("CREATE TABLE t (a); DROP TABLE t;")  # an SQLite file, and no table in it
    db.close()
    before = _digest(blank)
    with pytest.raises(UserError, match="without tables"):
        load_runs(blank)
    assert _digest(blank) == before


def test_reading_a_store_does_not_write_to_it(stored: Path) -> None:
    before = _digest(stored)
    assert len(load_runs(stored)) == 2
    assert _digest(stored) == before


def test_a_sweep_makes_an_empty_file_it_is_given_its_store(tmp_path: Path) -> None:
    # The choice made: an empty file holds nothing to lose, so a sweep may make it a store.
    store = tmp_path / "given.sqlite"
    store.touch()
    assert _sweep(tmp_path, store).returncode == 0  # type: ignore[attr-defined]
    assert len(load_runs(store)) == 2


# ---------------------------------------------------------------- one store, two names


def _traced(sweep: str = "s") -> RunRecord:
    frame = pd.DataFrame({"time_s": [0.0, 0.5], "packets": [1, 2], "bytes": [1500, 3000]})
    return RunRecord(
        key=KEY, sweep=sweep, levels={}, replication=0, seed=1, version="x", scenario="",
        error="e", traces={"queue-0.parquet": frame.to_parquet()},
    )  # fmt: skip


def test_a_store_reached_through_a_link_keeps_its_traces_beside_its_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "s.sqlite"
    real.parent.mkdir()
    link = tmp_path / "s.sqlite"
    link.symlink_to(real)
    with Store(link) as db:
        db.put(_traced())
    assert (tmp_path / "data" / "s.sqlite.traces" / KEY / "queue-0.parquet").is_file()
    assert not (tmp_path / "s.sqlite.traces").exists()
    for name in (real, link):
        with Store(name, create=False) as db:
            assert bool(db.runs_df()["traced"].iloc[0])
            assert list(db.queue(KEY, 0)["packets"]) == [1, 2]


def test_a_store_file_with_two_names_is_read_but_not_written(stored: Path) -> None:
    other = stored.with_name("other.sqlite")
    os.link(stored, other)
    before = _digest(stored)
    one_line_error(_sweep(stored.parent, other, replications=2), "other.sqlite", "2 names (hard links)")
    with pytest.raises(UserError, match="hard links"):
        Store(stored)
    assert _digest(stored) == before
    assert len(load_runs(other)) == 2 and not other.with_name("other.sqlite.lock").exists()


# ---------------------------------------------------------------- paths that cannot be a store


def test_a_store_name_ending_in_a_slash_is_refused_as_a_folder(tmp_path: Path) -> None:
    trail = f"{tmp_path / 'trail'}/"
    with pytest.raises(UserError, match=r"trail/: the store must be a file, and this names a folder"):
        tl.sweep(_spec(tmp_path), store=trail, workers=1, progress=False)
    for open_it in (lambda: Store(trail), lambda: load_runs(trail)):
        with pytest.raises(UserError, match="names a folder"):
            open_it()
    one_line_error(_sweep(tmp_path, trail), "trail/: the store must be a file, and this names a folder")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("trail")]


def test_a_file_in_the_way_of_the_stores_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    for store in ("afile/s.sqlite", "afile/deeper/s.sqlite"):
        one_line_error(
            cli("sweep", _spec(tmp_path), "--store", store, "-q", cwd=tmp_path),
            f"{store}: the store's folder cannot be made: afile is a file",
        )
    assert (tmp_path / "afile").read_text() == "x"


def test_a_path_too_long_for_sqlite_says_so_and_makes_no_folder(tmp_path: Path) -> None:
    top = tmp_path / ("d" * 100)
    store = top.joinpath(*["e" * 100] * 4, "s.sqlite")
    assert len(os.fsencode(store)) > SQLITE_PATH_LIMIT
    line = one_line_error(_sweep(tmp_path, store), "the path is too long for SQLite", str(SQLITE_PATH_LIMIT))
    assert "not a tcplab result store" not in line and "shorter path" in line
    assert not top.exists()


# ---------------------------------------------------------------- a sweep refused at the lock


def test_a_sweep_refused_at_the_lock_leaves_no_store_behind(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    with holding(tmp_path / "s.sqlite.lock") as other:
        one_line_error(_sweep(tmp_path, tmp_path / "s.sqlite"), "another sweep", str(other.pid))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["quick.toml", spec.name, "s.sqlite.lock"])


# ---------------------------------------------------------------- what a killed sweep leaves


def test_a_run_redone_after_a_killed_sweep_removes_the_temporary_file_it_left(tmp_path: Path) -> None:
    # A sweep SIGKILLed while writing a run's traces leaves the file's hidden temporary copy (no
    # clean-up runs) and no row, so resuming redoes the run, which clears it; files that only look
    # alike stay.
    store = tmp_path / "s.sqlite"
    folder = tmp_path / "s.sqlite.traces" / KEY
    folder.mkdir(parents=True)
    left = folder / ".queue-0.parquet.0a1b2c3d.tmp"
    left.write_bytes(b"half a parquet file")
    kept = [folder / n for n in ("notes.tmp", ".queue-0.parquet.tmp", ".queue-0.parquet.0A1B2C3D.tmp")]
    for f in kept:
        f.write_bytes(b"not ours")
    with Store(store) as db:
        db.put(_traced())  # not the sole writer: another process may be storing this run
        assert left.exists()
        db.put(_traced(), sole_writer=True)  # a sweep, holding the store's lock
    assert not left.exists() and all(f.exists() for f in kept)
    assert (folder / "queue-0.parquet").is_file()
