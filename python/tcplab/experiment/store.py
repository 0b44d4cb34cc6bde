"""The result store: one SQLite file (WAL mode), one row per run, traces as Parquet beside it
(beside its real file, links to it resolved, as its sweep lock is: one store, one set of side
files, whatever name it is opened by).

A row is keyed by the run key (``tcplab.experiment.expand.run_key``: the expanded scenario, the seed and the
tcplab version, hashed), which is the table's primary key, so a run is stored at most once. Each
run is inserted in its own transaction when it finishes; a process killed half way leaves every
finished run stored and nothing half-written. Trace files are written before their row, so a
row's traces always exist (a file without a row is overwritten when the run is redone).
A sweep holds ``store_lock.sweep_lock`` (a flock on ``STORE.lock``) while it writes: one sweep
per store. A store file with several names (hard links) is not written to: each name would
have a lock of its own.

Schema (``runs``): key, sweep, status ('ok' or 'failed'), error, levels (JSON {column: level}, the
column being the factor's label or path, in the spec's order),
replication, seed, version, the METRICS columns (tcplab.experiment.metrics), flow_metrics (JSON list, one
object per flow), report (the run's whole JSON report), scenario (TOML text), traces (JSON list
of file names under ``<store>.traces/<key>/``), wall_s, finished_at (UTC, ISO 8601).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.errors import UserError
from tcplab.experiment.metrics import FLOW_FIELDS, METRICS, UDP_FIELDS, flow_metrics, summary_metrics
from tcplab.experiment.safe_files import open_dir, open_subdir, remove_abandoned_temps, replace_file
from tcplab.experiment.store_checks import (
    busy,
    check_before_open,
    check_folder_writable,
    check_store_path,
    check_traces_folder,
    damaged,
    disk_full,
    in_use,
    make_folders,
    read_only_uri,
    remove_folders,
    writable,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NoTrace", "RunRecord", "Store", "load_runs", "make_room", "traces_folder"]

SCHEMA_VERSION = 1
# How long opening or writing a store waits for another process's hold on it to end.
BUSY_TIMEOUT_S = 60.0

_COLUMNS: dict[str, str] = {
    "key": "TEXT PRIMARY KEY",
    "sweep": "TEXT NOT NULL",
    "status": "TEXT NOT NULL CHECK (status IN ('ok', 'failed'))",
    "error": "TEXT",
    "levels": "TEXT NOT NULL",
    "replication": "INTEGER NOT NULL",
    "seed": "INTEGER NOT NULL",
    "version": "TEXT NOT NULL",
    **METRICS,
    "flow_metrics": "TEXT",
    "report": "TEXT",
    "scenario": "TEXT NOT NULL",
    "traces": "TEXT NOT NULL DEFAULT '[]'",
    "wall_s": "REAL",
    "finished_at": "TEXT NOT NULL",
}
# Names a sweep's factor column may not take: they would collide with these in result tables.
RESERVED_COLUMNS = frozenset([*_COLUMNS, "traced"])
# The per-flow fields of flows_df() beside a run's key, levels, replication and seed: what
# flow_metrics puts in a flow's row. A factor column of one of these names would be lost.
FLOW_COLUMNS = frozenset([*FLOW_FIELDS, *UDP_FIELDS])
# Columns of runs_df(): everything but the bulky JSON and text columns.
_BULKY = ("flow_metrics", "report", "scenario", "traces")


class NoTrace(UserError, FileNotFoundError):
    """A stored run has no such trace (its flow was not traced). A UserError, as any mistake in
    what is asked; also a FileNotFoundError, which is what code written before it catches."""


@dataclass
class RunRecord:
    """One finished run, as the sweep's parent process stores it."""

    key: str
    sweep: str
    levels: dict[str, Any]
    replication: int
    seed: int
    version: str
    scenario: str
    report: dict[str, Any] | None = None
    error: str | None = None
    traces: dict[str, bytes] = field(default_factory=dict)  # file name -> Parquet bytes

    @property
    def status(self) -> str:
        return "ok" if self.error is None else "failed"


class Store:
    """A result store file. Use as a context manager.

    ``Store(path)`` opens it for writing, creating it if needed: what a sweep does. To read a
    store, pass ``create=False`` (as ``load_runs``, ``load_sweep`` and ``SweepResult`` do):
    a missing file is then refused naming the path (a typo does not give an empty store), and a
    store in a folder that cannot be written (a read-only mount, an archive) is opened
    read-only, where ``put`` is refused. A store opened to read is not changed: a file that is
    not yet a store (an empty file) is refused, not made one."""

    def __init__(self, path: str | os.PathLike[str], create: bool = True) -> None:
        # Before the traces' name is made from the file's: '.' and '/' have no name to add to.
        self.path = check_store_path(path, write=create)
        self.traces_dir = traces_folder(self.path)
        self._for_reading = not create
        if not create and not self.path.is_file():
            raise UserError(f"{self.path}: no result store here (looked for {self.path.resolve()})")
        if create:
            make_room(self.path)
        # Reading needs no write access: only a store opened for reading may be read-only.
        self.read_only = not create and not writable(self.path)
        # Before connecting: an unrelated SQLite file must not be switched to WAL mode, and a
        # read-only folder is not "not a store".
        check_before_open(self.path, _COLUMNS, SCHEMA_VERSION, write=not self.read_only, create=create)
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as e:
            if (full := disk_full(self.path, e)) is not None:
                raise full from None
            if busy(e):  # another process holds it: that says nothing about what the file is
                raise in_use(self.path, e) from None
            raise UserError(f"{self.path}: not a tcplab result store ({e})") from None

    def _connect(self) -> sqlite3.Connection:
        """The connection: read-only as ``read_only`` says; else, for a store opened to read,
        as the file is (setting its journal mode or schema version would write to it, every
        time it is read); else in WAL mode with the table made if the store is new (closed
        again if that fails)."""
        if self.read_only:
            uri = read_only_uri(self.path)
            db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fails here if unreadable
            return db
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        if self._for_reading:
            return db
        try:
            _when_free(db, "PRAGMA journal_mode=WAL", BUSY_TIMEOUT_S)
            db.execute("PRAGMA synchronous=NORMAL")
            self._db = db
            self._create()
        except BaseException:
            db.close()
            raise
        return db

    def _create(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:
            # Made already (the version is set with the table): no write transaction, which
            # every opening would otherwise take, contending with the store's other readers.
            return
        if version != 0:
            raise UserError(f"{self.path}: store schema {version}, this tcplab reads {SCHEMA_VERSION}")
        columns = ",\n  ".join(f"{name} {kind}" for name, kind in _COLUMNS.items())
        with self._transaction():
            self._db.execute(f"CREATE TABLE IF NOT EXISTS runs (\n  {columns}\n)")
            self._db.execute("CREATE INDEX IF NOT EXISTS runs_sweep ON runs (sweep)")
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction. SQLite rolls back by itself on some errors (a full disk at
        COMMIT): a second ROLLBACK would fail ("no transaction is active") and hide the cause."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing

    def put(self, record: RunRecord, sole_writer: bool = False) -> None:
        """Store one run in its own transaction, replacing an earlier row with the same key.
        ``sole_writer``: the caller holds the store's sweep lock, so a temporary trace file in
        the run's folder was left by a killed process and is removed (``_write_traces``)."""
        if self.read_only:
            raise UserError(
                f"{self.path}: opened read-only (its folder is not writable); runs cannot be stored "
                "in it: copy the store to a writable folder"
            )
        with damaged(self.path):  # a full disk while writing traces is named as such
            names = self._write_traces(record, sole_writer)
        report = record.report
        metrics = summary_metrics(report) if report is not None else dict.fromkeys(METRICS)
        row = {
            "key": record.key,
            "sweep": record.sweep,
            "status": record.status,
            "error": record.error,
            "levels": json.dumps(record.levels),
            "replication": record.replication,
            "seed": record.seed,
            "version": record.version,
            **metrics,
            "flow_metrics": json.dumps(flow_metrics(report)) if report is not None else None,
            "report": json.dumps(report) if report is not None else None,
            "scenario": record.scenario,
            "traces": json.dumps(names),
            "wall_s": report.get("wall_s") if report is not None else None,
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        sql = f"INSERT OR REPLACE INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
        with damaged(self.path), self._transaction():
            self._db.execute(sql, list(row.values()))

    def _write_traces(self, record: RunRecord, sole_writer: bool) -> list[str]:
        """Write a run's trace files into ``<store>.traces/<key>/``, never through a link.

        The store's folder is opened as named (links in its path followed); the traces folder,
        the run's folder and the files are reached through its handle, refusing a link there.
        Each file is written to a temporary file of its own (a random name, created exclusively)
        and renamed over its name, so two processes storing the same run never write into one
        temporary file, and a reader sees the old file or the whole new one. For the store's
        sole writer (a sweep, holding its lock) a temporary file in the run's folder was left by
        a killed sweep (which wrote no row, so the run is redone here), and is removed first."""
        if not record.traces:
            return []
        folder = self.traces_dir / record.key
        for name in record.traces:
            if name in ("", ".", "..") or "/" in name or "\0" in name:
                raise UserError(f"{folder}: refusing a trace file named {name!r}"[:300])
        with ExitStack() as fds:
            top = open_dir(self.traces_dir.parent, str(self.path), create=False)
            fds.callback(os.close, top)
            traces = open_subdir(top, self.traces_dir.name, self.traces_dir)
            fds.callback(os.close, traces)
            run = open_subdir(traces, record.key, folder)
            fds.callback(os.close, run)
            if sole_writer:
                remove_abandoned_temps(run)
            for name, data in record.traces.items():
                replace_file(run, name, data, folder / name)
        return sorted(record.traces)

    # ------------------------------------------------------------ reading

    def keys(self, status: str | None = "ok") -> set[str]:
        """Keys of the stored runs (only the successful ones by default; None for all)."""
        with damaged(self.path):
            return self._keys(status)

    def _keys(self, status: str | None) -> set[str]:
        if status is None:
            return {k for (k,) in self._db.execute("SELECT key FROM runs")}
        return {k for (k,) in self._db.execute("SELECT key FROM runs WHERE status = ?", (status,))}

    def keys_among(self, keys: Sequence[str], status: str = "ok") -> set[str]:
        """Those of ``keys`` stored with ``status``: a sweep asks one batch of runs at a time
        instead of holding every key of the store."""
        found: set[str] = set()
        with damaged(self.path):
            for i in range(0, len(keys), 500):  # SQLite allows 999 parameters per statement
                chunk = keys[i : i + 500]
                sql = f"SELECT key FROM runs WHERE status = ? AND key IN ({', '.join('?' * len(chunk))})"
                found.update(k for (k,) in self._db.execute(sql, (status, *chunk)))
        return found

    def count(self) -> int:
        with damaged(self.path):
            (n,) = self._db.execute("SELECT count(*) FROM runs").fetchone()
        return int(n)

    def _select(self, columns: Iterable[str], keys: Iterable[str] | None, sweep: str | None) -> list[Any]:
        with damaged(self.path):
            return self._select_rows(columns, keys, sweep)

    def _select_rows(
        self, columns: Iterable[str], keys: Iterable[str] | None, sweep: str | None
    ) -> list[Any]:
        sql = f"SELECT {', '.join(columns)} FROM runs"
        if sweep is not None:
            rows = self._db.execute(sql + " WHERE sweep = ? ORDER BY rowid", (sweep,)).fetchall()
        else:
            rows = self._db.execute(sql + " ORDER BY rowid").fetchall()
        if keys is None:
            return rows
        wanted = set(keys)
        return [r for r in rows if r[0] in wanted]

    def runs_df(
        self, keys: Iterable[str] | None = None, sweep: str | None = None, levels: bool = True
    ) -> pd.DataFrame:
        """One row per run: key, sweep, status, error, one column per factor (as the sweep that
        ran it named it; ``levels=False`` leaves them out), replication, seed, version, the
        metrics, wall_s, finished_at, and ``traced`` (whether the run stored traces, readable
        with ``trace``). Missing metrics (a failed run's) are NaN, or <NA> in the integer
        columns (nullable Int64, so that they stay integers)."""
        import pandas as pd

        columns = [c for c in _COLUMNS if c not in _BULKY]
        rows = self._select([*columns, "traces"], keys, sweep)
        df = pd.DataFrame(rows, columns=[*columns, "traces"])
        df["traced"] = df.pop("traces").map(lambda s: isinstance(s, str) and s not in ("", "[]")).astype(bool)
        for name, kind in METRICS.items():
            if kind in ("REAL", "INTEGER"):
                df[name] = pd.to_numeric(df[name], errors="coerce")
            if kind == "INTEGER":
                df[name] = _integers(df[name])
        stored = df.pop("levels")
        if not levels:
            return df
        cells = zip(df["key"], stored, strict=True)
        factors = pd.DataFrame(
            [_scalars(_json_cell(self.path, k, "levels", s, dict)) for k, s in cells], index=df.index
        )
        at = columns.index("replication") - 1  # after key, sweep, status, error
        return pd.concat([df.iloc[:, :at], factors, df.iloc[:, at:]], axis=1)

    def flows_df(
        self, keys: Iterable[str] | None = None, sweep: str | None = None, levels: bool = True
    ) -> pd.DataFrame:
        """One row per flow of each successful run: key, the factor columns (unless
        ``levels=False``), replication, seed, and the per-flow fields (id, name, goodput_bps,
        bytes_delivered, retransmits, timeouts, fast_retransmits, completion_time_s)."""
        import pandas as pd

        rows = self._select(["key", "levels", "replication", "seed", "flow_metrics"], keys, sweep)
        out = []
        for key, stored, replication, seed, flows in rows:
            if flows is None:
                continue
            factors = _scalars(_json_cell(self.path, key, "levels", stored, dict)) if levels else {}
            head = {"key": key, **factors, "replication": replication, "seed": seed}
            out.extend({**head, **f} for f in _json_cell(self.path, key, "flow_metrics", flows, list))
        from tcplab.experiment.frames import records_frame

        return records_frame(out) if out else pd.DataFrame()

    def report(self, key: str) -> dict[str, Any] | None:
        """The whole JSON report of a run, or None if it failed or is not stored."""
        with damaged(self.path):
            row = self._db.execute("SELECT report FROM runs WHERE key = ?", (key,)).fetchone()
        return _json_cell(self.path, key, "report", row[0], dict) if row and row[0] else None

    def trace_path(self, key: str, flow_id: int, kind: str = "trace") -> Path:
        """The Parquet file of a flow's trace (kind 'trace': cwnd/ssthresh/snd_una/snd_nxt over
        time; 'segments': every data segment sent). The arguments are checked (a run key is 64
        hex digits), so the path is always inside the store's traces folder."""
        _check_trace_args(key, flow_id, kind)
        return self.traces_dir / key / f"{kind}-flow{flow_id}.parquet"

    def trace(self, key: str, flow_id: int = 0, kind: str = "trace") -> pd.DataFrame:
        """A traced flow's time series (Parquet), by run key (a ``key`` of ``runs_df``); only a
        file the store lists for that run is read. A flow without that trace raises ``NoTrace``
        (a UserError naming the run and the flow, and a FileNotFoundError)."""
        import pandas as pd

        path = self.trace_path(key, flow_id, kind)
        with damaged(self.path):
            row = self._db.execute("SELECT traces FROM runs WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise UserError(f"trace: no run with key {key[:12]}... in {self.path}")
        listed = _json_cell(self.path, key, "traces", row[0], list)
        if path.name not in listed:
            raise NoTrace(
                f"trace: run {key[:12]}... in {self.path} has no {kind} of flow {flow_id}{_traced(listed)}"
            )
        if not path.is_file():
            raise NoTrace(
                f"trace: run {key[:12]}... in {self.path}: the file of its {kind} of flow {flow_id} "
                f"is missing ({path})"
            )
        from tcplab.experiment.frames import tidy_trace

        return tidy_trace(pd.read_parquet(path))

    def drops(self, key: str) -> pd.DataFrame:
        """Every packet a stored run's links dropped (links with ``trace_drops = true``), as
        ``RunResult.drops`` gives it: channel, link, direction, time_s, flow, kind, seq, ack,
        len, bytes, cause, marked."""
        import pandas as pd
        from tcplab.experiment.frames import drops_frame

        named = (re.fullmatch(r"drops-(\d+)\.parquet", n) for n in self._listed(key, "drops"))
        files = {int(m[1]): m[0] for m in named if m}
        if not files:
            raise FileNotFoundError(
                f"no drop trace stored for run {key[:12]}: set trace_drops = true on a link"
            )
        return drops_frame({c: pd.read_parquet(self.traces_dir / key / n) for c, n in files.items()})

    def queue(self, key: str, channel: int = 0) -> pd.DataFrame:
        """A stored run's queue trace of one channel (``trace_queue = true``): time_s, packets,
        bytes, avg (RED's average; NaN without RED)."""
        import pandas as pd

        if isinstance(channel, bool) or not isinstance(channel, int) or channel < 0:
            raise UserError(f"queue: channel must be a channel id (an integer from 0), got {channel!r}"[:300])
        name = f"queue-{channel}.parquet"
        if name not in self._listed(key, "queue"):
            raise FileNotFoundError(f"no queue trace of channel {channel} stored for run {key[:12]}")
        return pd.read_parquet(self.traces_dir / key / name)

    def _listed(self, key: str, what: str) -> list[str]:
        """The trace files the store lists for run ``key`` (checked), existing ones only."""
        _check_trace_args(key, 0, "trace")
        with damaged(self.path):
            row = self._db.execute("SELECT traces FROM runs WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise UserError(f"{what}: no run with key {key[:12]}... in {self.path}")
        listed = _json_cell(self.path, key, "traces", row[0], list)
        folder = self.traces_dir / key
        return [n for n in listed if isinstance(n, str) and "/" not in n and (folder / n).is_file()]


def _traced(listed: list[Any]) -> str:
    """Which flows of a run have traces, for the message about one that has none."""
    flows = sorted({int(m[1]) for n in listed if isinstance(n, str) and (m := _FLOW_TRACE.fullmatch(n))})
    if not flows:
        return " (none of its flows was traced: set trace = true on a flow)"
    return f" (traced: {'flow' if len(flows) == 1 else 'flows'} {', '.join(map(str, flows))})"


_FLOW_TRACE = re.compile(r"(?:trace|segments)-flow(\d+)\.parquet")


def _integers(values: pd.Series) -> pd.Series:
    """An INTEGER column as pandas' nullable Int64, so that a failed run's empty cell does not
    turn the column into floats (``--csv`` would write 241124080.0); left as floats if a cell
    is not a whole number (a row not written by tcplab)."""
    whole = values.dropna()
    if not (whole == whole.round()).all():
        return values
    return values.astype("Int64")


def _when_free(db: sqlite3.Connection, sql: str, timeout: float) -> Any:
    """Run ``sql``, retrying while another connection holds the file, for up to ``timeout`` s.

    SQLite answers SQLITE_BUSY at once, without waiting out the connection's busy timeout, where
    waiting could deadlock; switching a new file to WAL mode while another process is switching
    or creating it (two sweeps creating one store together) is such a case."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            return db.execute(sql).fetchone()
        except sqlite3.OperationalError as e:
            left = deadline - time.monotonic()
            if not busy(e) or left <= 0:
                raise
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.25)


_RUN_KEY = re.compile(r"[0-9a-f]{64}")
TRACE_KINDS = ("trace", "segments")


def _check_trace_args(key: Any, flow_id: Any, kind: Any) -> None:
    if not isinstance(key, str) or not _RUN_KEY.fullmatch(key):
        raise UserError(
            f"trace: the run key must be a key from load_runs()/runs_df() (column 'key', 64 hex "
            f"digits), got {key!r}"[:300]
        )
    if isinstance(flow_id, bool) or not isinstance(flow_id, int) or flow_id < 0:
        raise UserError(f"trace: flow_id must be a flow's id (an integer from 0), got {flow_id!r}"[:300])
    if kind not in TRACE_KINDS:
        raise UserError(f"trace: kind must be one of {', '.join(TRACE_KINDS)}, got {kind!r}"[:300])


def _json_cell(path: Path, key: Any, column: str, text: Any, kind: type) -> Any:
    """A JSON column of one row, decoded and of the expected ``kind`` (dict or list); a damaged
    cell is one UserError naming the store, the run and the column."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as e:
        value, reason = None, str(e)
    else:
        reason = f"a JSON {type(value).__name__}, not a {kind.__name__}"
    flows = column == "flow_metrics" and isinstance(value, list)
    rows_ok = not flows or all(isinstance(v, dict) for v in value)
    if not isinstance(value, kind) or not rows_ok:
        raise UserError(
            f"{path}: run {str(key)[:12]}: column {column} is damaged ({reason}); the row was not "
            "written by tcplab: delete it (a rerun of its sweep stores it again) or move the store away"
        )
    return value


def _scalars(levels: Mapping[str, Any]) -> dict[str, Any]:
    """Levels as table cells: tables and lists become compact JSON text."""
    return {
        k: json.dumps(v, sort_keys=True, separators=(",", ":")) if isinstance(v, dict | list) else v
        for k, v in levels.items()
    }


def traces_folder(path: str | os.PathLike[str]) -> Path:
    """The traces folder of the store at ``path``: beside its real file (links to it resolved),
    as its sweep lock is (``store_lock.lock_path``), so that every name of one store finds the
    traces stored under any other."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + ".traces")


def make_room(path: str | os.PathLike[str]) -> list[Path]:
    """Check ``path`` as the place of a store to write (``check_store_path``, its traces folder,
    its folder's write access) and make its missing folders: the folders made, outermost first,
    for ``remove_folders`` should the sweep be refused. A refused path is left as it was."""
    path = check_store_path(path, write=True)
    made = make_folders(path)
    try:
        # Checked now, not at the first run with traces, minutes of runs later.
        check_traces_folder(traces_folder(path))
        check_folder_writable(path)
    except BaseException:
        remove_folders(made)
        raise
    return made


def load_runs(path: str | os.PathLike[str], sweep: str | None = None) -> pd.DataFrame:
    """Every run of a store file (or of one sweep in it) as a DataFrame: one call."""
    with Store(path, create=False) as store:
        return store.runs_df(sweep=sweep)
