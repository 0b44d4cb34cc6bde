"""User mistakes around sweeps, the store and anova that were misreported or caught late: a
CSV header naming a column twice, a --csv folder that cannot be made, a store given as a link
to nothing, a FIFO or a truncated file as the store, a read-only store with nothing left to
run, --confidence nan, and the Python API's workers, max_runs, store and summarize arguments."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from conftest import REPO, cli
from conftest import tcplab as run_tcplab
from tcplab.errors import UserError
from tcplab.experiment.spec import SweepSpec
from test_hostile_input import QUICK, one_line_error

SPEC_TEXT = (
    'name = "tiny"\nbase = "quick.toml"\nreplications = 1\n[factors]\n"tcp.variant" = ["reno", "sack"]\n'
)


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "quick.toml").write_text(QUICK)
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC_TEXT)
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A spec and its store, every run stored (made once for the module)."""
    folder = tmp_path_factory.mktemp("stored")
    (folder / "quick.toml").write_text(QUICK)
    spec = folder / "tiny.toml"
    spec.write_text(SPEC_TEXT)
    store = folder / "s.sqlite"
    tcplab.sweep(spec, store=store, workers=1, quiet=True)
    return spec, store


def _copy(stored: tuple[Path, Path], into: Path) -> tuple[Path, Path]:
    """The spec and a copy of the store (its file alone: the sweep closed it, so it holds
    every run), in the folder ``into``."""
    spec, store = stored
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy(spec.parent / "quick.toml", into / "quick.toml")
    shutil.copy(spec, into / spec.name)
    shutil.copy(store, into / "s.sqlite")
    return into / spec.name, into / "s.sqlite"


# ---------------------------------------------------------------- anova: a name used twice


def test_anova_refuses_a_header_that_names_a_column_twice(tmp_path: Path) -> None:
    """pandas renamed the second 'y' to 'y.1', and the analysis used the first 'y' (the
    seeds, in the probe) without a word."""
    csv = tmp_path / "dup.csv"
    rows = [f"{f},{s},{y},{s * 1000}" for f in ("a", "b") for s, y in ((1, 10.0), (2, 12.0))]
    csv.write_text("f,y,s,y\n" + "\n".join(rows) + "\n")
    line = one_line_error(cli("anova", csv, "--response", "y", "--factors", "f"), "dup.csv")
    assert "column 'y' appears twice (columns 2 and 4)" in line, line
    csv.write_text("y,f,y,y\n1,a,2,3\n")
    from tcplab.analysis.anova import read_observations

    with pytest.raises(UserError, match=r"column 'y' appears 3 times \(columns 1, 3 and 4\)"):
        read_observations(csv)


def test_anova_still_reads_unnamed_columns_and_distinct_names(tmp_path: Path) -> None:
    csv = tmp_path / "ok.csv"
    csv.write_text(",f,y,\n0,a,1.0,x\n1,a,2.0,x\n2,b,3.0,x\n3,b,5.0,x\n")
    from tcplab.analysis.anova import read_observations

    assert list(read_observations(csv).columns)[1:3] == ["f", "y"]
    assert cli("anova", csv, "--response", "y", "--factors", "f").returncode == 0


@pytest.mark.parametrize("value", ["nan", "2", "0.4", "inf"])
def test_anova_confidence_out_of_range_or_nan_says_the_range(tmp_path: Path, value: str) -> None:
    csv = tmp_path / "ok.csv"
    csv.write_text("f,y\na,1\na,2\nb,3\nb,5\n")
    proc = cli("anova", csv, "--response", "y", "--factors", "f", "--confidence", value)
    assert proc.returncode == 2, proc.stderr
    assert "'--confidence': must be a number from 0.5 to 0.999" in proc.stderr, proc.stderr
    assert "less than or equal" not in proc.stderr, proc.stderr
    if value == "nan":  # as a shell sees it (main() makes click's usage error one line)
        one_line_error(
            run_tcplab("anova", str(csv), "--response", "y", "--factors", "f", "--confidence", value),
            "must be a number from 0.5 to 0.999, got nan",
        )


# ---------------------------------------------------------------- --csv: its folder


def test_csv_under_a_folder_name_too_long_is_refused_before_any_run(spec: Path, tmp_path: Path) -> None:
    """It ran every run, then said "file name too long", and left the folder 'o' behind."""
    store = tmp_path / "s.sqlite"
    target = tmp_path / "o" / ("a" * 300) / "x.csv"
    line = one_line_error(cli("sweep", spec, "-q", "--store", store, "--csv", target), "--csv", "too long")
    assert "runs are kept" not in line
    assert not store.exists() and not (tmp_path / "o").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc")
@pytest.mark.parametrize("target", ["/proc/tcplab-nope/x.csv", "/proc/tcplab-x.csv"])
def test_csv_where_nothing_can_be_made_is_refused_before_any_run(
    spec: Path, tmp_path: Path, target: str
) -> None:
    """root passes every permission check, and /proc takes no new file or folder."""
    store = tmp_path / "s.sqlite"
    one_line_error(cli("sweep", spec, "-q", "--store", store, "--csv", target), "--csv", target)
    assert not store.exists()


def test_checking_a_csv_target_leaves_nothing_behind(tmp_path: Path) -> None:
    from tcplab.experiment.safe_files import check_output_file

    check_output_file(str(tmp_path / "new" / "deeper" / "x.csv"), "--csv")
    check_output_file(str(tmp_path / "x.csv"), "--csv")
    assert list(tmp_path.iterdir()) == []


def test_a_csv_that_fails_to_be_written_leaves_no_folder(tmp_path: Path) -> None:
    from tcplab.experiment.csv_out import write_sweep_csv

    target = tmp_path / "o" / "p" / ("b" * 300 + ".csv")  # not checked first: the write fails
    with pytest.raises(UserError, match=r"--csv: .*runs are kept in s\.sqlite"):
        write_sweep_csv(pd.DataFrame({"a": [1]}), str(target), Path("s.sqlite"))
    assert list(tmp_path.iterdir()) == []
    write_sweep_csv(pd.DataFrame({"a": [1]}), str(tmp_path / "o" / "p" / "x.csv"), Path("s.sqlite"))
    assert (tmp_path / "o" / "p" / "x.csv").read_text() == "a\n1\n"


# ---------------------------------------------------------------- the store: links, FIFOs, damage


def test_a_store_that_is_a_link_to_nothing_is_refused_and_nothing_is_made(spec: Path, tmp_path: Path) -> None:
    """It created the link's target (with its .lock and .traces) and ran the sweep."""
    link = tmp_path / "dangling.sqlite"
    link.symlink_to(tmp_path / "nonexist.sqlite")
    one_line_error(cli("sweep", spec, "-q", "--store", link), "dangling.sqlite is a symbolic link to nothing")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.sqlite", "quick.toml", "tiny.toml"]
    with pytest.raises(UserError, match="symbolic link to nothing"):
        tcplab.load_runs(link)
    with pytest.raises(UserError, match="symbolic link to nothing"):
        tcplab.sweep(spec, store=link, workers=1)


def test_a_link_to_an_existing_store_is_followed(stored: tuple[Path, Path], tmp_path: Path) -> None:
    spec, store = _copy(stored, tmp_path / "real")
    link = tmp_path / "alias.sqlite"
    link.symlink_to(store)
    result = tcplab.sweep(spec, store=link, workers=1, quiet=True)
    assert (result.ran, result.skipped) == (0, 2) and len(tcplab.load_runs(link)) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_reading_a_fifo_as_a_store_says_it_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match=r"fifo\.sqlite: not a regular file, so not a tcplab result store"):
        tcplab.load_runs(fifo)


def test_a_truncated_store_is_refused_and_gets_no_journal_files(
    stored: tuple[Path, Path], tmp_path: Path
) -> None:
    """SQLite made -shm and -wal beside the damaged file while tcplab looked at it."""
    from tcplab.experiment.store import Store

    _, store = stored
    bad = tmp_path / "trunc.sqlite"
    bad.write_bytes(store.read_bytes()[:8192])
    for create in (True, False):
        with pytest.raises(UserError, match="damaged"):
            Store(bad, create=create)
    assert [p.name for p in tmp_path.iterdir()] == ["trunc.sqlite"]


def test_a_store_with_its_journal_is_still_read_whole(stored: tuple[Path, Path], tmp_path: Path) -> None:
    """A store whose runs are still in its -wal (an open writer) is looked at with the -wal."""
    _, store = _copy(stored, tmp_path)
    db = sqlite3.connect(store)  # kept open: the -wal stays
    try:
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("UPDATE runs SET sweep = 'renamed'")
        db.commit()
        assert (tmp_path / "s.sqlite-wal").stat().st_size > 0
        assert set(tcplab.load_runs(store)["sweep"]) == {"renamed"}
    finally:
        db.close()


# ---------------------------------------------------------------- a store that cannot be written


def _not_writable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` and what is in it as a read-only disk looks to os.access (root is refused
    there too); os.access is what tcplab asks."""
    real = os.access

    def access(path: object, mode: int, **kw: object) -> bool:
        if mode & os.W_OK and Path(path).resolve().is_relative_to(folder.resolve()):  # type: ignore[arg-type]
            return False
        return real(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)


def test_a_sweep_with_nothing_to_run_reads_a_store_it_cannot_write(
    stored: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said "the folder ... is not writable": a --csv re-export from an archive failed."""
    spec, store = _copy(stored, tmp_path / "archive")
    before = sorted(p.name for p in store.parent.iterdir())
    _not_writable(monkeypatch, store.parent)
    out = tmp_path / "runs.csv"
    proc = cli("sweep", spec, "-q", "--store", store, "--csv", out)
    assert proc.returncode == 0, proc.stderr
    assert "0 ran, 2 already stored" in proc.stdout and len(pd.read_csv(out)) == 2
    assert sorted(p.name for p in store.parent.iterdir()) == before  # no lock, -wal or -shm
    spec.write_text(SPEC_TEXT.replace("replications = 1", "replications = 2"))
    one_line_error(cli("sweep", spec, "-q", "--store", store), "is not writable")
    assert sorted(p.name for p in store.parent.iterdir()) == before


@pytest.mark.skipif(os.geteuid() != 0 if hasattr(os, "geteuid") else True, reason="needs root")
def test_a_sweep_with_nothing_to_run_reads_a_store_on_a_read_only_mount(
    stored: tuple[Path, Path], tmp_path: Path
) -> None:
    import subprocess

    spec, store = _copy(stored, tmp_path / "archive")
    mount = tmp_path / "mnt"
    mount.mkdir()
    if subprocess.run(["mount", "--bind", "-o", "ro", store.parent, mount], capture_output=True).returncode:
        pytest.skip("cannot make a read-only bind mount here")
    try:
        result = tcplab.sweep(mount / spec.name, store=mount / "s.sqlite", workers=1, quiet=True)
        assert (result.ran, result.skipped) == (0, 2) and len(result.df) == 2
    finally:
        subprocess.run(["umount", mount], check=True)


# ---------------------------------------------------------------- reproduce --out


def test_reproduce_out_as_a_link_to_nothing_says_so(tmp_path: Path) -> None:
    link = tmp_path / "dangl"
    link.symlink_to(tmp_path / "nowhere")
    line = one_line_error(cli("reproduce", "example_loss", "--quick", "--out", link), "--out")
    assert "is a symbolic link to nothing" in line and "exists and is not a folder" not in line


# ---------------------------------------------------------------- the Python API's arguments


def _small() -> SweepSpec:
    from tcplab.experiment.scenario import loads

    return SweepSpec(name="api", base=loads(QUICK), factors={"tcp.variant": ["reno", "sack"]}, replications=1)


@pytest.mark.parametrize("workers", [1.5, "2", True, float("nan"), 0])
def test_sweep_refuses_a_bad_workers_before_making_anything(tmp_path: Path, workers: object) -> None:
    """1.5 and nan failed inside the pool (a TypeError) after the store and its lock were made,
    '2' with a TypeError, and True ran as 1."""
    with pytest.raises(UserError, match="^workers: must be"):
        tcplab.sweep(_small(), store=tmp_path / "new" / "s.sqlite", workers=workers)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_sweep_takes_a_numpy_integer_as_workers(tmp_path: Path) -> None:
    import numpy as np

    result = tcplab.sweep(_small(), store=tmp_path / "s.sqlite", workers=np.int64(1), quiet=True)
    assert result.ran == 2


@pytest.mark.parametrize(
    ("max_runs", "says"), [(0, "at least 1, got 0"), (-1, "at least 1, got -1"), (2.5, "whole")]
)
def test_sweep_refuses_a_max_runs_below_one(tmp_path: Path, max_runs: object, says: str) -> None:
    """It said the sweep had "more than the 0 one sweep may hold"."""
    from tcplab.experiment.runner import plan_sweep

    for call in (tcplab.sweep, plan_sweep):
        with pytest.raises(UserError, match=f"^max_runs: must be .*{says}"):
            call(_small(), max_runs=max_runs)  # type: ignore[operator]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("store", "says"),
    [("", "the file name is empty"), (5, "expected a file name"), (b"s", "expected a file name")],
)
def test_sweep_refuses_a_store_that_is_no_file_name(tmp_path: Path, store: object, says: str) -> None:
    """'' was "a directory" (Path('') is the working folder), 5 a raw TypeError."""
    from tcplab.experiment.runner import load_sweep

    for call in (lambda: tcplab.sweep(_small(), store=store, workers=1), lambda: load_sweep(_small(), store)):
        with pytest.raises(UserError, match=f"^store: {says}"):
            call()  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
    if store != "":  # Store('') and load_runs('') say the working folder is a directory
        with pytest.raises(UserError, match=f"^store: {says}"):
            tcplab.load_runs(store)  # type: ignore[arg-type]


def test_summarize_refuses_a_text_value_column_naming_it() -> None:
    """It raised numpy's "could not convert string to float: 'ok'"."""
    df = pd.DataFrame({"variant": ["reno", "sack"], "status": ["ok", "failed"], "goodput": [1.0, None]})
    with pytest.raises(UserError, match=r"column 'status' is not numeric \(row 0 holds 'ok'\)"):
        tcplab.summarize(df, ["variant"], "status")
    assert tcplab.summarize(df, ["variant"], "goodput")["n"].tolist() == [1, 0]


# ---------------------------------------------------------------- docs


def test_the_exit_status_table_does_not_promise_status_4_for_sigint_to_a_sweep_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sweep's workers ignore SIGINT (executors._start_worker): one sent to a worker alone
    does nothing, and the sweep ends with 0."""
    import signal

    from tcplab.experiment import executors

    monkeypatch.setattr(executors, "_die_with_parent", lambda: None)  # not for the test's process
    previous = signal.getsignal(signal.SIGINT)
    try:
        executors._start_worker()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    text = (REPO / "docs" / "cli.md").read_text()
    assert "SIGTERM, SIGHUP, SIGINT sent to it alone" not in text
    assert "which a sweep's workers ignore" in text
