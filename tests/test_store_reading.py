"""Opening an existing store writes nothing: every study reads its reports and traces through
the store while other processes (a second test worker, a second reader) read it too, and a write
transaction on each opening contended with them (SQLite's "disk I/O error" on the tests' shared
store, now and then, under two workers)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tcplab.experiment.store import Store


def _data_version(db: sqlite3.Connection) -> int:
    (version,) = db.execute("PRAGMA data_version").fetchone()
    return int(version)


def test_opening_an_existing_store_commits_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    Store(path).close()  # made: table and schema version written once
    watcher = sqlite3.connect(path)  # data_version moves when another connection commits
    try:
        before = _data_version(watcher)
        for create in (True, False):
            with Store(path, create=create):
                pass
        assert _data_version(watcher) == before
    finally:
        watcher.close()
