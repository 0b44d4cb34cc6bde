"""Result tables written as CSV for spreadsheets: text cells that a spreadsheet would run as a
formula are defused, numbers stay numbers.

A cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return) is read by
Excel, LibreOffice and Google Sheets as a formula, which can run commands or send data away
(OWASP, "CSV Injection"). tcplab's tables hold text from the user's input (factor levels, level
labels, error messages quoting names), so such text cells are written with a leading single
quote, OWASP's advice: the spreadsheet then shows the text as text. Numeric columns, and text
that is a plain number (``-1.5``, which a spreadsheet reads as that number), are unchanged.

``tcplab sweep --csv`` is checked before any run (``check_csv_target``): a name that cannot be
written, or that is one of the files the sweep keeps (the store, what SQLite and the sweep lock
keep beside it, its traces, the spec), is refused at once, not after hours of runs. ``-`` is
standard output; a named pipe or character device is written into (``safe_files.writing_path``).
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from tcplab.errors import UserError, describe
from tcplab.experiment.safe_files import make_missing_folders, remove_made_folders

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMULA_STARTS",
    "STDOUT",
    "check_csv_target",
    "spreadsheet_safe",
    "write_csv",
    "write_csv_to",
    "write_sweep_csv",
]

STDOUT = "-"  # the usual name of standard output for an output file
OPTION = "--csv"
LINK_HINT = "for standard output give --csv -; else remove the link or give the file it leads to"

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not any(c.isalpha() for c in text)  # "-inf", "+nan" are text to a spreadsheet


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _is_number(value):
        return "'" + value
    return value


def spreadsheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with every formula-like text cell quoted (numeric columns untouched)."""
    from pandas.api.types import is_numeric_dtype

    out = df.copy()
    for column in out.columns:
        if not is_numeric_dtype(out[column]):
            out[column] = out[column].map(safe_cell)
    out.columns = [safe_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` (no index) as a spreadsheet-safe CSV at ``path``, replacing the file (never
    writing through a link there), or into the named pipe or character device there."""
    from tcplab.experiment.safe_files import writing_path

    with writing_path(path) as f:
        write_csv_to(df, f)


def write_csv_to(df: pd.DataFrame, out: BinaryIO) -> None:
    """Write ``df`` as ``write_csv`` does into the open binary stream ``out``, left open."""
    text = io.TextIOWrapper(out, encoding="utf-8", newline="")
    spreadsheet_safe(df).to_csv(text, index=False)
    text.flush()
    text.detach()  # closing the wrapper would close ``out`` (standard output, say)


def write_sweep_csv(df: pd.DataFrame, target: str, store: Path) -> None:
    """``sweep --csv``: ``df`` to ``target`` (``-``: standard output), its folders made; an
    error names the option, and says the runs are kept (they are, in the store)."""
    if target == STDOUT:
        sys.stdout.flush()  # the text layer's pending output first
        write_csv_to(df, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    made: list[Path] = []
    try:
        made = make_missing_folders(Path(target).parent)
        write_csv(df, target)
    except BaseException as e:
        remove_made_folders(made)  # a CSV refused (or interrupted) leaves no empty folder behind
        if isinstance(e, BrokenPipeError) or not isinstance(e, UserError | OSError):
            raise  # a closed pipe is a quiet exit, as for standard output
        raise UserError(
            f"{OPTION}: {_naming_target(describe(e), target)} (the runs are kept in {store})"
        ) from None


def _naming_target(message: str, target: str) -> str:
    return message if message.startswith(target) else f"{target}: {message}"


# ---------------------------------------------------------------- the target, before any run


def check_csv_target(
    target: str,
    store: str | os.PathLike[str],
    spec: str | os.PathLike[str],
    base: str | os.PathLike[str] | None = None,
) -> None:
    """Refuse, before the sweep runs, a ``--csv`` that cannot be written (see
    ``safe_files.check_output_file``) or that is a file the sweep keeps or reads (the spec, its
    ``base`` scenario file)."""
    from tcplab.experiment.safe_files import check_output_file

    if target == STDOUT:
        return
    check_output_file(target, OPTION, LINK_HINT)
    _refuse_kept_files(target, Path(store), Path(spec), Path(base) if base is not None else None)


def _kept_files(store: Path, spec: Path, base_scenario: Path | None) -> Iterator[tuple[str, Path]]:
    """The files a sweep keeps, by what they are: the store, the files beside it (named as
    SQLite, store_lock and store.py name them), the spec and its base scenario. Each under the
    store's given name and its real one: SQLite and the lock follow links to the store
    (``store_lock.lock_path`` is the real name's ``.lock``), and the store is named both ways."""
    yield "the sweep's result store", store
    for base in _spellings_of_store(store):
        yield "the store's write-ahead log (runs not yet in the store)", _beside(base, "-wal")
        yield "the store's shared-memory index", _beside(base, "-shm")
        yield "the store's rollback journal", _beside(base, "-journal")
        yield "the store's sweep lock", _beside(base, ".lock")
    yield "the sweep spec", spec
    if base_scenario is not None:
        yield "the sweep's base scenario", base_scenario


def _spellings_of_store(store: Path) -> tuple[Path, Path]:
    return store, Path(os.path.realpath(store))


def _beside(base: Path, suffix: str) -> Path:
    return base.with_name(base.name + suffix)


def _refuse_kept_files(target: str, store: Path, spec: Path, base_scenario: Path | None) -> None:
    spots = _where(target)
    ident = _identity(target)
    for what, path in _kept_files(store, spec, base_scenario):
        if spots & _where(path) or (ident is not None and ident == _identity(path)):
            raise UserError(f"{OPTION}: {target} is {what}; writing the CSV there would destroy it")
    for base in _spellings_of_store(store):
        traces = _beside(base, ".traces")
        if _in_folder(spots, traces) or _in_folder_by_identity(target, ident, traces):
            raise UserError(
                f"{OPTION}: {target} is in {traces}, the store's traces; "
                "writing the CSV there could destroy a trace"
            )


def _where(path: str | os.PathLike[str]) -> set[Path]:
    """Where a write to ``path`` lands (its folder's real path and its name), and where a link
    at ``path`` leads: two spellings of one file give the same."""
    name = os.path.basename(path)
    landing = Path(os.path.realpath(os.path.dirname(path) or "."), name)
    return {landing, Path(os.path.realpath(path))}


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The file's (device, inode), links followed; None if there is none to reach."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _in_folder(spots: set[Path], folder: Path) -> bool:
    real = Path(os.path.realpath(folder))
    return any(spot == real or spot.is_relative_to(real) for spot in spots)


def _in_folder_by_identity(target: str, ident: tuple[int, int] | None, folder: Path) -> bool:
    """Whether ``target`` is in ``folder`` by identity: a folder on its way is ``folder`` under
    another name (a bind mount), or ``target`` is a hard link to a file in ``folder``."""
    inside = _identity(folder)
    if inside is None:
        return False
    landing = Path(os.path.realpath(os.path.dirname(target) or "."))
    if any(_identity(up) == inside for up in (landing, *landing.parents)):
        return True
    return ident is not None and _has_hard_link(target) and ident in _identities_under(folder)


def _has_hard_link(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def _identities_under(folder: Path) -> set[tuple[int, int]]:
    """Every file's (device, inode) under ``folder``, links not followed (run only for a target
    with more than one name, so a store with many traces is not walked for every sweep)."""
    found: set[tuple[int, int]] = set()
    for top, _dirs, files in os.walk(folder, followlinks=False):
        for name in files:
            try:
                st = os.stat(os.path.join(top, name), follow_symlinks=False)
            except OSError:
                continue
            found.add((st.st_dev, st.st_ino))
    return found
