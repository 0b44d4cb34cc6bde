"""Checks around the result store's SQLite file, kept apart from store.py: what a file must be
before tcplab connects to it (and switches it to WAL mode, a change to the file), and damaged
files reported as one line instead of a traceback."""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tcplab.errors import UserError

__all__ = ["check_before_open", "damaged", "disk_full"]

_SQLITE_MAGIC = b"SQLite format 3\0"


def check_before_open(path: Path) -> None:
    """Refuse, without changing anything, a file that is not a tcplab store, or a folder where
    SQLite cannot write its journal."""
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(
            f"{path}: the folder {folder} is not writable (a result store needs to write its "
            "journal beside it); copy the store to a writable folder"
        )
    if not path.exists():
        return
    if path.exists() and not path.is_file():
        raise UserError(f"{path}: not a regular file, so not a tcplab result store")
    if not os.access(path, os.R_OK | os.W_OK):
        raise UserError(f"{path}: permission denied (a result store must be readable and writable)")
    with path.open("rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if head == b"":
        return  # an empty file: SQLite makes it a new store
    if head != _SQLITE_MAGIC:
        raise UserError(f"{path}: not a tcplab result store (not an SQLite file)")
    _check_tables(path)


def _check_tables(path: Path) -> None:
    """An SQLite file is a store if it has no tables yet or a ``runs`` table; opened read-only."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        raise UserError(f"{path}: not a tcplab result store, or a damaged one ({e})") from None
    if names and "runs" not in names:
        shown = ", ".join(sorted(names)[:5])
        raise UserError(
            f"{path}: not a tcplab result store (an SQLite file with tables {shown}); left unchanged"
        )


def disk_full(path: Path, e: BaseException) -> UserError | None:
    """The one-line error for a store write that failed because its disk is full (SQLite's
    SQLITE_FULL, or ENOSPC / EDQUOT from a trace file), else None."""
    full = (
        isinstance(e, sqlite3.Error)
        and (getattr(e, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(e))
    ) or (isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT))
    if not full:
        return None
    return UserError(
        f"{path}: the disk is full (no space left where the result store is written); the store is "
        "intact and keeps every run stored so far: free some space and rerun to run the rest"
    )


@contextmanager
def damaged(path: Path) -> Iterator[None]:
    """SQLite errors while reading or writing an open store become one UserError line: a full
    disk as a full disk, anything else as a damaged store."""
    try:
        yield
    except (sqlite3.DatabaseError, OSError) as e:
        if (full := disk_full(path, e)) is not None:
            raise full from None
        if isinstance(e, OSError):
            raise
        raise UserError(
            f"{path}: the result store is damaged or unreadable ({e}); move it away and rerun"
        ) from None
