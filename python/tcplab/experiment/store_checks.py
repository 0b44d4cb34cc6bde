"""Checks around the result store's SQLite file, kept apart from store.py: what a path must be
before anything is made for a store there, what a file must be before tcplab connects to it
(and switches it to WAL mode, a change to the file), and damaged files reported as one line
instead of a traceback."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tcplab.errors import UserError
from tcplab.experiment.safe_files import link_refused, make_missing_folders, remove_made_folders

__all__ = [
    "busy",
    "check_before_open",
    "check_folder_writable",
    "check_store_argument",
    "check_store_path",
    "check_writable",
    "damaged",
    "disk_full",
    "in_use",
    "make_folders",
    "read_only_uri",
    "refuse_link_to_nothing",
    "remove_folders",
    "writable",
]

_SQLITE_MAGIC = b"SQLite format 3\0"
# SQLite's unix VFS takes a database's full path (links resolved) of up to 512 bytes, and needs
# room in it for the "-journal" it appends: a longer path is only "unable to open database file".
SQLITE_PATH_LIMIT = 512 - len("-journal")


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def writable(path: Path) -> bool:
    """Whether a store at ``path`` can be written: its folder (where SQLite keeps its journal)
    and the file itself if it exists. False on a read-only mount, for root too."""
    if not os.access(_folder(path), os.W_OK | os.X_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def read_only_uri(path: Path) -> str:
    """The SQLite URI that opens the store at ``path`` for reading only.

    In a folder that cannot be written, SQLite cannot make the shared-memory file a WAL-mode
    store needs even to read (mode=ro alone says "unable to open database file"), so the file
    is opened as immutable: safe there, since nobody can write it without the folder. Runs
    still in its journal (``-wal``, left by a killed sweep) would be skipped unseen by that: a
    store with one is refused instead."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if os.access(_folder(path), os.W_OK | os.X_OK):
        return uri
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise UserError(
            f"{path}: its journal {wal} holds runs not yet in the store file, and the folder is not "
            "writable, so they cannot be read; copy the store with its -wal file to a writable folder"
        )
    return uri + "&immutable=1"


def check_store_path(raw: str | os.PathLike[str], write: bool) -> Path:
    """Refuse, before anything is made, a path that cannot be a store's (a folder, one too long
    for SQLite) and, for a ``write``, one whose folder cannot be made (a file in its way), a
    file with other names (hard links: a sweep under another name would not be kept out by
    this name's lock), or another store's sweep lock file. Returns the path.

    A symbolic link to a store is followed (its lock, journal and traces are kept beside the
    file it leads to); one that leads nowhere is refused for reading, and a sweep refuses it
    too (``refuse_link_to_nothing``)."""
    text = _store_name(raw)
    if "\0" in text:
        raise UserError(f"{text!r}: the store's name contains a NUL character")
    path = Path(text)
    _refuse_folder(text, path)
    if not write:
        refuse_link_to_nothing(path, write)
    _refuse_special_file(path)
    _refuse_too_long(path, write)
    if write:
        _refuse_blocked_folder(path)
        _refuse_other_names(path)
        _refuse_lock_file(path)
    return path


def check_store_argument(store: object) -> None:
    """The ``store`` argument of ``tcplab.sweep`` and ``load_sweep``: a file name, not empty
    (``Path('')`` is the working folder, which ``check_store_path`` calls a directory)."""
    if _store_name(store) == "":
        raise UserError("store: the file name is empty (give a file, e.g. store='runs.sqlite')")


def _store_name(raw: object) -> str:
    """The store's name as text: a str or a path (os.PathLike)."""
    if not isinstance(raw, str | os.PathLike):
        raise UserError(
            f"store: expected a file name (a str or a pathlib.Path), got {type(raw).__name__} {raw!r}"[:300]
        )
    text = os.fspath(raw)
    if not isinstance(text, str):  # a bytes path
        raise UserError(f"store: expected a file name as text (a str or a pathlib.Path), got {text!r}"[:300])
    return text


def refuse_link_to_nothing(path: Path, write: bool = True) -> None:
    """Refuse a store named by a symbolic link that leads nowhere: reading finds nothing there,
    and a sweep would create the store at wherever the link points, a place the user never
    named (the pattern of a planted link)."""
    if not path.is_symlink() or path.exists():
        return
    if not write:
        raise UserError(f"{path} is a symbolic link to nothing ({os.readlink(path)}): no result store there")
    raise UserError(
        f"{path} is a symbolic link to nothing ({os.readlink(path)}); tcplab does not create a "
        "result store through a link: give the store's own path, or remove the link"
    )


def _refuse_special_file(path: Path) -> None:
    """A FIFO, device or socket is not a store, whether it is to be read or written."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise UserError(f"{path}: not a regular file, so not a tcplab result store")


def _refuse_folder(text: str, path: Path) -> None:
    # Path drops a trailing '/', so the text is looked at: 'trail/' would otherwise be a file.
    if path.is_dir():
        raise UserError(f"{text}: the store must be a file, and this is a directory")
    if os.path.basename(text) in ("", ".", ".."):
        raise UserError(
            f"{text}: the store must be a file, and this names a folder (it ends in /); give a file "
            f"name, e.g. {os.path.join(text, 'runs.sqlite')}"
        )


def _refuse_too_long(path: Path, write: bool) -> None:
    size = len(os.fsencode(os.path.realpath(path)))
    if size > SQLITE_PATH_LIMIT:
        fix = "give the store a shorter path" if write else "move the store to a shorter path"
        raise UserError(
            f"{path}: the path is too long for SQLite ({size} bytes as a full path; SQLite opens at "
            f"most {SQLITE_PATH_LIMIT}): {fix}"
        )


def _refuse_blocked_folder(path: Path) -> None:
    """The first existing folder above the store must be a folder: mkdir would only say
    'file exists', naming neither the store nor the file in the way."""
    for folder in (path.parent, *path.parent.parents):
        if not os.path.lexists(folder):
            continue
        if not folder.is_dir():
            what = "a symbolic link to nothing" if folder.is_symlink() else "a file, not a folder"
            raise UserError(f"{path}: the store's folder cannot be made: {folder} is {what}")
        return


def _refuse_other_names(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        raise UserError(
            f"{path}: the store file has {info.st_nlink} names (hard links), and a sweep under one name "
            "would not keep out a sweep under another; write to a copy, or remove the other names"
        )


def _refuse_lock_file(path: Path) -> None:
    real = os.path.realpath(path)
    if not real.endswith(".lock"):
        return
    store = real.removesuffix(".lock")
    # Only a store's own file (no link) keeps its lock beside it (store_lock.lock_path).
    if os.path.isfile(store) and os.path.realpath(store) == store:
        raise UserError(
            f"{path}: this is the sweep lock file of the result store {store}; give this store another name"
        )


def make_folders(path: Path) -> list[Path]:
    """Make the missing folders above the store at ``path``; the ones made, outermost first
    (for ``remove_folders`` should the sweep be refused). Nothing is left made if it fails."""
    try:
        return make_missing_folders(path.parent)
    except FileExistsError:  # a file where a folder goes
        _refuse_blocked_folder(path)
        raise
    except OSError as e:
        reason = (e.strerror or str(e)).lower()
        raise UserError(f"{path}: cannot make the store's folder {e.filename} ({reason})") from None


remove_folders = remove_made_folders


def check_before_open(
    path: Path, columns: Iterable[str], version: int, write: bool = True, create: bool = True
) -> None:
    """Refuse, without changing anything, a file that is not a tcplab store (schema ``version``,
    a ``runs`` table with ``columns``), or, when ``write``, a folder where SQLite cannot write
    its journal. Unless ``create`` (a store opened to read), a file that is not yet a store (an
    empty file, an SQLite file without tables) is refused too: SQLite would make it one."""
    if write:
        check_folder_writable(path)
    if not path.exists():
        return
    if not path.is_file():
        raise UserError(f"{path}: not a regular file, so not a tcplab result store")
    if not os.access(path, os.R_OK | os.W_OK if write else os.R_OK):
        needs = "readable and writable" if write else "readable"
        raise UserError(f"{path}: permission denied (a result store must be {needs})")
    with path.open("rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if head == b"" and not create:
        raise UserError(f"{path}: not a tcplab result store: the file is empty; left unchanged")
    if head == b"":
        return  # an empty file holds nothing to lose: SQLite makes it a new store
    if head != _SQLITE_MAGIC:
        raise UserError(f"{path}: not a tcplab result store (not an SQLite file)")
    _check_schema(path, columns, version, create)


def check_folder_writable(path: Path) -> None:
    """Refuse a store whose folder SQLite cannot write its journal in."""
    folder = _folder(path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(
            f"{path}: the folder {folder} is not writable (a result store needs to write its "
            "journal beside it); copy the store to a writable folder"
        )


def check_writable(path: Path) -> None:
    """Refuse an existing store that cannot be written: its folder (``check_folder_writable``)
    or the file itself."""
    check_folder_writable(path)
    if not os.access(path, os.W_OK):
        raise UserError(f"{path}: permission denied (a result store must be readable and writable)")


def check_traces_folder(traces: Path) -> None:
    """Refuse what is at the store's traces folder if it cannot be one: a file, or a link
    (tcplab does not write through links), as writing a run's traces would, later."""
    if traces.is_symlink():
        raise link_refused(traces)
    if traces.exists() and not traces.is_dir():
        raise UserError(f"{traces} exists and is not a folder (the store keeps its runs' traces there)")


def _check_schema(path: Path, columns: Iterable[str], version: int, create: bool = True) -> None:
    """An SQLite file is a store if it has a ``runs`` table with the store's columns and schema
    ``version`` (or 0, not yet set), or, when ``create``, no tables yet; read through a
    read-only connection, so that a foreign file is refused before it is switched to WAL mode
    or given a table."""
    try:
        db = sqlite3.connect(_inspection_uri(path), uri=True)
        try:
            names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            (found,) = db.execute("PRAGMA user_version").fetchone()
            have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        raise UserError(f"{path}: not a tcplab result store, or a damaged one ({e})") from None
    if not names and not create:
        raise UserError(f"{path}: not a tcplab result store (an SQLite file without tables); left unchanged")
    if names and "runs" not in names:
        shown = ", ".join(sorted(names)[:5])
        raise UserError(
            f"{path}: not a tcplab result store (an SQLite file with tables {shown}); left unchanged"
        )
    if found not in (0, version):
        raise UserError(f"{path}: store schema {found}, this tcplab reads {version}; left unchanged")
    missing = [c for c in columns if c not in have]
    if names and missing:
        raise UserError(
            f"{path}: not a tcplab result store (its runs table has no column {', '.join(missing[:3])}); "
            "left unchanged"
        )


def _inspection_uri(path: Path) -> str:
    """The URI ``_check_schema`` reads ``path`` through, for a moment, changing nothing.

    Even read-only, SQLite makes the shared-memory and journal files (``-shm``, ``-wal``) of a
    WAL-mode file beside it, and leaves them: a damaged or foreign file that is refused would
    not be left unchanged. With no journal beside it, all the file holds is in the file itself
    and nobody is writing it (a writer keeps one there), so it is read as immutable, which
    makes nothing; with one, as ``read_only_uri`` says."""
    beside = [path.with_name(path.name + suffix) for suffix in ("-wal", "-journal")]
    if any(os.path.lexists(f) for f in beside):
        return read_only_uri(path)
    return f"{path.resolve().as_uri()}?mode=ro&immutable=1"


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


def busy(e: BaseException) -> bool:
    """Whether ``e`` is SQLite saying another connection holds the file (SQLITE_BUSY or
    SQLITE_LOCKED, extended codes included): the store is in use, not damaged."""
    if not isinstance(e, sqlite3.Error):
        return False
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "database is locked" in str(e) or "database is busy" in str(e)


def in_use(path: Path, e: BaseException) -> UserError:
    """The one-line error for a store another process held for longer than tcplab waits."""
    return UserError(f"{path}: in use by another process ({e}); try again once it is done")


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
        if busy(e):
            raise in_use(path, e) from None
        if isinstance(e, sqlite3.ProgrammingError) and "closed" in str(e):
            # The store is fine: the Store object was used after close() (or its with block).
            raise UserError(
                f"{path}: this Store is closed (used after close() or after its with block); "
                "open it again to read it"
            ) from None
        raise UserError(
            f"{path}: the result store is damaged or unreadable ({e}); move it away and rerun"
        ) from None
