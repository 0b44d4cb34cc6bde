"""`tcplab sweep --csv` is checked before any run and never destroys what tcplab did not write:
not the files beside the store (its journal, lock and traces: replacing the lock let a second
sweep run beside the first, replacing the `-wal` lost stored runs), not a special file (a FIFO
or device node was replaced by a regular file, `/dev/stdout` too as root), and a long name that
fits is written (the temporary name no longer adds 14 bytes to it). `--csv -` is standard
output."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from conftest import cli
from test_hostile_input import QUICK, one_line_error

STORE = "s.sqlite"


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "quick.toml").write_text(QUICK)
    path = tmp_path / "spec.toml"
    path.write_text('name = "csv"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno", "sack"]\n')
    return path


def sweep_csv(folder: Path, target: object) -> object:
    """``tcplab sweep spec.toml --store s.sqlite --csv TARGET`` run in ``folder``."""
    return cli("sweep", "spec.toml", "--store", STORE, "--workers", "1", "-q", "--csv", target, cwd=folder)


def refused_before_any_run(proc: object, *needles: str) -> str:
    line = one_line_error(proc, "--csv", *needles)
    assert proc.stdout == "", "refused before the sweep ran"  # type: ignore[attr-defined]
    return line


# ---------------------------------------------------------------- the store's side files


@pytest.mark.parametrize(
    ("name", "what"),
    [
        (STORE + "-wal", "write-ahead log"),
        (STORE + "-shm", "shared-memory index"),
        (STORE + "-journal", "rollback journal"),
        (STORE + ".lock", "sweep lock"),
        (STORE + ".traces/k1/trace-flow0.parquet", "the store's traces"),
        (STORE + ".traces/new.csv", "the store's traces"),
        (f"sub/../{STORE}-wal", "write-ahead log"),
        (f"linked/{STORE}.lock", "sweep lock"),
    ],
)
def test_csv_onto_a_file_beside_the_store_is_refused_before_any_run(
    tmp_path: Path, spec: Path, name: str, what: str
) -> None:
    side = {STORE + s: b"kept " + s.encode() for s in ("-wal", "-shm", "-journal")}
    side[STORE + ".lock"] = b""  # as a sweep leaves it (a lock holding more would be refused)
    for file, data in side.items():
        (tmp_path / file).write_bytes(data)
    trace = tmp_path / (STORE + ".traces") / "k1" / "trace-flow0.parquet"
    trace.parent.mkdir(parents=True)
    trace.write_bytes(b"PAR1 kept")
    (tmp_path / "sub").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path)
    refused_before_any_run(sweep_csv(tmp_path, name), name, what)
    assert {f: (tmp_path / f).read_bytes() for f in side} == side
    assert trace.read_bytes() == b"PAR1 kept"
    assert not (tmp_path / STORE).exists(), "no run was made"


@pytest.mark.parametrize("name", ["quick.toml", "sub/../quick.toml", "spec.toml"])
def test_csv_onto_the_sweeps_own_inputs_is_refused_before_any_run(
    tmp_path: Path, spec: Path, name: str
) -> None:
    """`--csv base.toml` replaced the sweep's base scenario with CSV text: the next sweep of
    the spec failed on it, and the scenario was gone."""
    (tmp_path / "sub").mkdir()
    base = (tmp_path / "quick.toml").read_bytes()
    refused_before_any_run(sweep_csv(tmp_path, name), name)
    assert (tmp_path / "quick.toml").read_bytes() == base and not (tmp_path / STORE).exists()


def test_a_hard_link_to_a_side_file_or_a_trace_is_refused(tmp_path: Path, spec: Path) -> None:
    """Another name of the same file (same device and inode) is the same file."""
    (tmp_path / (STORE + "-wal")).write_bytes(b"runs")
    os.link(tmp_path / (STORE + "-wal"), tmp_path / "other.csv")
    refused_before_any_run(sweep_csv(tmp_path, "other.csv"), "write-ahead log")
    trace = tmp_path / (STORE + ".traces") / "k1" / "trace-flow0.parquet"
    trace.parent.mkdir(parents=True)
    trace.write_bytes(b"PAR1")
    os.link(trace, tmp_path / "trace.csv")
    refused_before_any_run(sweep_csv(tmp_path, "trace.csv"), "the store's traces")
    assert (tmp_path / (STORE + "-wal")).read_bytes() == b"runs" and trace.read_bytes() == b"PAR1"


# ---------------------------------------------------------------- special files


@contextlib.contextmanager
def reading(fifo: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A child reading ``fifo`` to its end; killed if it is still waiting at the end."""
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        yield reader
    finally:
        if reader.poll() is None:
            reader.kill()
        reader.wait()


def test_a_fifo_is_written_into_not_replaced(tmp_path: Path, spec: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with reading(fifo) as reader:
        proc = sweep_csv(tmp_path, fifo)
        assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
        try:
            out, _ = reader.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            out = b""
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert out.decode().startswith("key,sweep,status"), out[:200]


def _node(path: Path, mode: int, device: int) -> None:
    try:
        os.mknod(path, mode | 0o666, device)
    except PermissionError:
        pytest.skip("making device nodes needs CAP_MKNOD")


def test_a_character_device_is_written_into_not_replaced(tmp_path: Path, spec: Path) -> None:
    null = tmp_path / "null"
    _node(null, stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    proc = sweep_csv(tmp_path, null)
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def test_a_block_device_or_socket_is_refused_before_any_run(tmp_path: Path, spec: Path) -> None:
    disk = tmp_path / "disk"
    _node(disk, stat.S_IFBLK, os.makedev(7, 200))
    refused_before_any_run(sweep_csv(tmp_path, "disk"), "disk is a block device")
    assert stat.S_ISBLK(os.lstat(disk).st_mode)
    with contextlib.chdir(tmp_path), socket.socket(socket.AF_UNIX) as sock:
        sock.bind("sock")  # relative: a socket's path is limited to 108 bytes
        refused_before_any_run(sweep_csv(tmp_path, "sock"), "sock is a socket")
        assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)


@pytest.mark.parametrize("leads_to", ["fifo", "file.csv", "missing.csv"])
def test_a_link_is_refused_neither_followed_nor_replaced(tmp_path: Path, spec: Path, leads_to: str) -> None:
    """`--csv /dev/stdout` is a link (to /proc/self/fd/1): as root it was replaced by a file."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file.csv").write_text("theirs")
    link = tmp_path / "stdout"
    link.symlink_to(tmp_path / leads_to)
    refused_before_any_run(sweep_csv(tmp_path, "stdout"), "stdout is a symbolic link", "--csv -")
    assert link.is_symlink() and os.readlink(link) == str(tmp_path / leads_to)
    assert (tmp_path / "file.csv").read_text() == "theirs"


def test_dash_is_standard_output_and_dot_slash_dash_a_file(tmp_path: Path, spec: Path) -> None:
    proc = sweep_csv(tmp_path, "-")
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert not (tmp_path / "-").exists()
    df = pd.read_csv(io.StringIO(proc.stdout))  # type: ignore[attr-defined]
    assert list(df["tcp.variant"]) == ["reno", "sack"], "stdout holds the CSV alone"
    assert "2 runs" in proc.stderr  # type: ignore[attr-defined]
    proc = sweep_csv(tmp_path, "./-")
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert (tmp_path / "-").read_text().startswith("key,")


def test_an_output_need_not_be_readable(tmp_path: Path, spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As nobody, `--csv /dev/stdout` said "path is not readable": click's check of a Path."""
    target = tmp_path / "write-only.csv"
    target.write_text("old")
    real_access = os.access

    def no_reading(path: object, mode: int, **kw: object) -> bool:
        if mode & os.R_OK and os.fspath(path) == str(target):  # type: ignore[arg-type]
            return False
        return real_access(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", no_reading)
    proc = sweep_csv(tmp_path, target)
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert target.read_text().startswith("key,")


# ---------------------------------------------------------------- the folder, before any run


def test_a_folder_that_is_a_file_is_refused_before_any_run(tmp_path: Path, spec: Path) -> None:
    (tmp_path / "afile").write_text("x")
    refused_before_any_run(sweep_csv(tmp_path, "afile/x.csv"), "afile/x.csv", "afile is not a folder")
    refused_before_any_run(sweep_csv(tmp_path, "afile/sub/x.csv"), "afile is not a folder")


def test_missing_folders_are_made(tmp_path: Path, spec: Path) -> None:
    proc = sweep_csv(tmp_path, "new/deeper/x.csv")
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert (tmp_path / "new" / "deeper" / "x.csv").read_text().startswith("key,")


def test_a_write_failing_after_the_sweep_names_the_option(
    tmp_path: Path, spec: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder checked before the sweep became a file while it ran."""
    from tcplab.experiment import runner

    real_sweep = runner.run_sweep

    def then_a_file(*args: object, **kw: object) -> object:
        result = real_sweep(*args, **kw)  # type: ignore[arg-type]
        (tmp_path / "CV").rmdir()
        (tmp_path / "CV").write_text("x")
        return result

    (tmp_path / "CV").mkdir()
    monkeypatch.setattr(runner, "run_sweep", then_a_file)
    proc = sweep_csv(tmp_path, "CV/x.csv")
    one_line_error(proc, "--csv: ", "CV", "the runs are kept in s.sqlite")


NOBODY = 65534


def as_nobody(folder: Path, *args: object) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run as nobody")
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*drop, sys.executable, "-m", "tcplab", *map(str, args)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder nobody can reach (pytest's tmp_path is under a folder only root may enter)."""
    top = Path(tempfile.mkdtemp(prefix="tcplab-csv-", dir="/tmp"))
    try:
        top.chmod(0o755)
        work = top / "work"
        work.mkdir(mode=0o777)
        work.chmod(0o777)
        (work / "quick.toml").write_text(QUICK)
        (work / "spec.toml").write_text(
            'name = "csv"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno"]\n'
        )
        yield work
    finally:
        shutil.rmtree(top)


def test_an_unwritable_folder_is_refused_before_any_run_as_nobody(open_folder: Path) -> None:
    (open_folder.parent / "ro").mkdir(mode=0o755)
    for target, needle in (("../ro/x.csv", "cannot write in the folder ../ro"), ("../ro/a/x.csv", "../ro")):
        proc = as_nobody(
            open_folder, "sweep", "spec.toml", "--store", STORE, "-q", "--workers", "1", "--csv", target
        )
        refused_before_any_run(proc, target, needle, "permission denied")
    assert not (open_folder / STORE).exists()


def test_an_unreadable_file_is_replaced_as_nobody(open_folder: Path) -> None:
    target = open_folder / "w.csv"
    target.write_text("old")
    target.chmod(0o222)
    proc = as_nobody(
        open_folder, "sweep", "spec.toml", "--store", STORE, "-q", "--workers", "1", "--csv", "w.csv"
    )
    assert proc.returncode == 0, proc.stderr
    assert target.read_text().startswith("key,")


# ---------------------------------------------------------------- long names


def test_the_longest_name_is_written_and_a_longer_one_refused_before_any_run(
    tmp_path: Path, spec: Path
) -> None:
    longest = "a" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 4) + ".csv"
    proc = sweep_csv(tmp_path, longest)
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert (tmp_path / longest).read_text().startswith("key,")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")], "no temporary file left"
    (tmp_path / STORE).unlink()
    refused_before_any_run(sweep_csv(tmp_path, "b" + longest), "file name too long")
    assert not (tmp_path / STORE).exists()


def test_the_temporary_name_fits_hidden_and_unique(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name of the folder's greatest length, cut mid-character for the temporary name."""
    from tcplab.experiment import safe_files

    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    name = "é" * ((name_max - 1) // 2) + "x" * (1 + (name_max - 1) % 2)
    assert len(os.fsencode(name)) == name_max
    temps: list[str] = []
    real_replace = os.replace

    def noting(src: str, dst: str, **kw: object) -> None:
        temps.append(src)
        real_replace(src, dst, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(safe_files.os, "replace", noting)
    fd = safe_files.open_dir(tmp_path, "test")
    try:
        safe_files.replace_file(fd, name, "one", tmp_path / name)
        safe_files.replace_file(fd, name, "two", tmp_path / name)
    finally:
        os.close(fd)
    assert (tmp_path / name).read_text() == "two" and [p.name for p in tmp_path.iterdir()] == [name]
    assert len(set(temps)) == 2 and all(t.startswith(".") and len(os.fsencode(t)) <= name_max for t in temps)
