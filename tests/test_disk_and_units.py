"""Issue 27, item 5: a full disk is reported as a full disk (not as a damaged store), and the
size grammar the docs and `--help` show is the one every field and option accepts."""

from __future__ import annotations

import errno
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tcplab
from conftest import REPO
from conftest import tcplab as cli
from tcplab.errors import UserError
from tcplab.experiment.store import Store
from tcplab.units import duration_s, rate_bps, size_bytes
from test_hostile_input import QUICK, one_line_error
from test_sweep_run import small_spec

# ---------------------------------------------------------------- a full disk


def test_a_full_disk_in_the_middle_of_a_sweep_is_named_and_the_store_kept(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    tcplab.sweep(small_spec(replications=1), store=store, workers=1)
    with Store(store) as db:
        before = db.count()
        (pages,) = db._db.execute("PRAGMA page_count").fetchone()
        db._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own SQLITE_FULL
        record = _record(db)
        with pytest.raises(UserError, match="the disk is full") as e:
            db.put(record)
        assert "damaged" not in str(e.value) and "rollback" not in str(e.value)
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (before,)


def _record(db: Store):  # a stored row under a new key, with a report that grows the file
    from tcplab.experiment.store import RunRecord

    key = next(iter(db.keys()))
    report = db.report(key)
    report["padding"] = "x" * 200_000
    return RunRecord("f" * 64, "small", {}, 0, 1, "v", "scenario", report=report)


def test_a_full_disk_while_writing_traces_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_space(dir_fd: int, name: str, data: bytes, shown: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(shown))

    with Store(tmp_path / "s.sqlite") as db:
        record = _record_with_traces()
        # Trace files are written through safe_files.replace_file (a temporary file of its own).
        monkeypatch.setattr("tcplab.experiment.store.replace_file", no_space)
        with pytest.raises(UserError, match="the disk is full"):
            db.put(record)


def _record_with_traces():
    from tcplab.experiment.store import RunRecord

    return RunRecord(
        "e" * 64, "t", {}, 0, 1, "v", "scenario", report=None, error="x", traces={"a.parquet": b"1"}
    )


def _can_mount_a_tmpfs() -> bool:
    if not shutil.which("unshare") or not sys.platform.startswith("linux"):
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        timeout=20,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_a_tmpfs(), reason="needs unshare and a mount namespace for a small tmpfs")
def test_a_sweep_on_a_full_tmpfs_says_the_disk_is_full(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    (tmp_path / "quick.toml").write_text(QUICK)
    spec.write_text('name = "full"\nbase = "quick.toml"\nreplications = 300\n')
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=400k tmpfs {disk} && "
        f"{sys.executable} -m tcplab sweep {spec} --store {disk}/s.sqlite -q --workers 1; echo status=$?; "
        f"{sys.executable} -c \"import sqlite3; db = sqlite3.connect('{disk}/s.sqlite'); "
        "print('check', db.execute('PRAGMA integrity_check').fetchone()[0], "
        "db.execute('SELECT count(*) FROM runs').fetchone()[0])\""
    )
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    lines = proc.stderr.strip().splitlines()
    assert "status=2" in proc.stdout, (proc.stdout, proc.stderr)
    assert len(lines) == 1 and "the disk is full" in lines[0] and "damaged" not in lines[0], lines
    check = next(line for line in proc.stdout.splitlines() if line.startswith("check"))
    assert check.split()[1] == "ok" and int(check.split()[2]) > 0, check


@pytest.mark.skipif(not _can_mount_a_tmpfs(), reason="needs unshare and a mount namespace for a small tmpfs")
def test_run_out_on_a_full_tmpfs_names_the_folder_and_leaves_nothing(tmp_path: Path) -> None:
    scenario = tmp_path / "series.toml"
    # No trace or pcap (their size is checked against the free space first): the series in
    # summary.json fill the disk.
    doc = QUICK.replace('duration = "2s"', 'duration = "30s"\nseries_bin = "1ms"')
    doc = doc.replace("trace = true", "trace = false")
    scenario.write_text(doc)

    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=64k tmpfs {disk} && "
        f"{sys.executable} -m tcplab run {scenario} --out {disk}/o; echo status=$?; ls -A {disk}"
    )
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert proc.stderr.strip() == f"error: {disk}/o: no space left on device", proc.stderr
    assert proc.stdout.split() == ["status=2"], "no folder, no partial file left"


def test_the_cores_io_errors_name_the_output_folder(tmp_path: Path) -> None:
    from tcplab.experiment.out_dir import OutFolder

    with OutFolder(tmp_path / "o", cli=False) as out:
        e = out.translate(OSError(f"{out.work}/x.pcap: No space left on device (os error 28)"))
    assert isinstance(e, OSError) and e.errno == errno.ENOSPC and e.filename == str(tmp_path / "o")


# ---------------------------------------------------------------- one size grammar

# What a size, rate or duration looks like in the docs: a number and a unit of the grammar's
# shape (decimal or binary prefix, then B, bps or b/s; or s, ms, us, ns).
QUANTITY = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)? ?((?:[kKMGT]i?)?(?:B|bps|b/s)|[mun]?s)$")


def _kind(unit: str) -> str:
    return (
        "duration"
        if unit.endswith("s") and not unit.endswith(("bps", "b/s"))
        else ("size" if unit.endswith("B") else "rate")
    )


def _doc_examples() -> set[str]:
    """Sizes, rates and durations in code spans and quoted strings of the docs."""
    found = set()
    for name in ("cli.md", "scenario.md"):
        text = (REPO / "docs" / name).read_text(encoding="utf-8")
        for candidate in re.findall(r"`([^`\n]+)`", text) + re.findall(r'"([^"\n]{1,40})"', text):
            if QUANTITY.match(candidate.strip()):
                found.add(candidate.strip())
    return found


def _help_examples() -> set[str]:
    """Sizes, rates and durations in the help text of every command and option."""
    from tcplab.cli import app
    from typer.main import get_command

    texts = []

    def walk(command: Any) -> None:
        texts.extend([command.help or "", command.short_help or ""])
        texts.extend(getattr(p, "help", None) or "" for p in command.params)
        if hasattr(command, "list_commands"):  # a group: the CLI, or a study's commands
            context = type(command).context_class(command)
            for name in command.list_commands(context):
                walk(command.get_command(context, name))

    walk(get_command(app))
    tokens = (t.strip(".,;:()") for text in texts for t in text.split())
    return {t for t in tokens if QUANTITY.match(t)}


def test_every_size_rate_and_duration_in_the_docs_and_help_parses() -> None:
    docs, helps = _doc_examples(), _help_examples()
    assert {"4GiB", "8KiB", "10Mbps", "1.5 Mb/s", "20ms"} <= docs, docs
    assert "2GiB" in helps, helps
    parse = {"size": size_bytes, "rate": rate_bps, "duration": duration_s}
    for example in sorted(docs | helps):
        unit = QUANTITY.match(example).group(1)  # type: ignore[union-attr]
        assert parse[_kind(unit)](example) >= 0, example


@pytest.mark.parametrize(
    ("text", "expected"),
    [("4GiB", 4 << 30), ("1 TiB", 1 << 40), ("1024MiB", 1 << 30), ("2TB", 2 * 10**12), ("64 KiB", 65536)],
)
def test_the_binary_sizes_parse(text: str, expected: int) -> None:
    assert size_bytes(text) == expected


def test_max_memory_takes_the_documented_form(tmp_path: Path) -> None:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    assert cli("run", path, "--max-memory", "4GiB").returncode == 0
    assert tcplab.run(QUICK, max_memory="512MiB").events > 0
    one_line_error(cli("run", path, "--max-memory", "4 parsecs"), "--max-memory: ", "unknown size unit")
