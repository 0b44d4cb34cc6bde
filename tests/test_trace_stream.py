"""Traces streamed to the output folder as the run produces them (issue 11, item 2).

With ``--out`` (or the API's ``out_dir``) the core writes every trace row through a fixed
buffer into its file: the files hold the bytes the in-memory path makes, memory stays bounded
however long the trace, and a stopped run leaves no half-written trace.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import REPO, SCENARIOS, cli, interruptible

MB = 1 << 20

# A 1 Gb/s bulk flow, traced: about 5.9 MB of trace CSV per simulated second.
BULK = (
    'duration = "{duration}"\nnodes = ["a", "b"]\n[tcp]\nrcv_buf = "16MiB"\nwindow_scaling = true\n'
    '[[link]]\na = "a"\nb = "b"\nrate = "1Gbps"\ndelay = "5ms"\nqueue = 1000\n'
    '[[flow]]\nsrc = "a"\ndst = "b"\ntrace = true\n'
)

# Goes through the Python API without its plots (which import pandas and matplotlib, ~215 MB,
# as the CLI does), and reports its own peak (VmHWM: see test_budget.py for why not ru_maxrss).
CHILD = textwrap.dedent(
    """
    import json, sys
    from tcplab.experiment.api import run
    run(open(sys.argv[1]).read(), out_dir=sys.argv[2] or None, plots=False)
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
    print(json.dumps({"hwm_kib": int(hwm[0].split()[1])}))
    """
)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _peak_bytes(scenario: Path, out: Path | None) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(scenario), str(out) if out else ""],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hwm_kib"] * 1024


def test_streamed_files_equal_the_in_memory_traces(tmp_path: Path) -> None:
    from tcplab import _core

    scenario = SCENARIOS / "dumbbell.toml"
    out = tmp_path / "out"
    r = cli("run", scenario, "--out", out, "--json")
    assert r.returncode == 0, r.stderr
    report, in_memory = _core.run_scenario_traces(scenario.read_text())
    assert sorted(in_memory) == [
        "segments-flow0.csv",
        "segments-flow1.csv",
        "trace-flow0.csv",
        "trace-flow1.csv",
    ]
    for name, text in in_memory.items():
        assert text.count("\n") > 1000, name  # a real trace, not a header
        assert (out / name).read_text() == text, name
    assert json.loads(report)["events"] == json.loads(r.stdout)["events"]
    assert not list(out.glob("*.partial"))


def test_memory_stays_bounded_while_a_long_trace_is_written(tmp_path: Path) -> None:
    scenario = tmp_path / "bulk.toml"
    scenario.write_text(BULK.format(duration="35s"))
    out = tmp_path / "out"
    cpu_before = _children_cpu_s()
    streamed = _peak_bytes(scenario, out)
    written = sum(p.stat().st_size for p in out.glob("*-flow0.csv"))
    assert written > 200 * MB, written
    assert streamed < 100 * MB, f"peak {streamed / MB:.0f} MB while writing {written / MB:.0f} MB"
    # Without a folder the rows stay in memory: the same run peaks above what streaming wrote
    # (which is what makes the bound above a real one).
    kept = _peak_bytes(scenario, None)
    assert kept > streamed + 100 * MB, (kept, streamed)
    # The test's cost budget, in CPU seconds of the two runs: wall time on a shared machine
    # measures the other users as much as this test.
    assert _children_cpu_s() - cpu_before < 30


def test_ctrl_c_leaves_no_partial_trace(tmp_path: Path) -> None:
    scenario = tmp_path / "long.toml"
    # About 30 s of wall time if not stopped; its trace files (about 2.6 GB) fit the disk.
    scenario.write_text(BULK.format(duration="300s"))
    out = tmp_path / "out"
    proc = interruptible(
        sys.executable, "-m", "tcplab", "run", scenario, "--out", out, "--max-memory", "1GB", cwd=REPO
    )
    # Wait until rows are being streamed (the partial file in the run's work folder grows),
    # then interrupt.
    deadline = time.monotonic() + 30

    def partial() -> Path | None:
        return next(out.glob(".tcplab-stage-*/trace-flow0.csv.partial"), None) if out.exists() else None

    while not ((p := partial()) and p.stat().st_size > MB) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    assert partial() is not None
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert not out.exists() or sorted(p.name for p in out.iterdir()) == [], "nothing half-written"


def test_a_trace_too_big_for_the_disk_is_refused_in_one_line(tmp_path: Path) -> None:
    # 10^9 simulated seconds at 1 Gb/s: about 6 PB of CSV, more than any disk has free.
    scenario = tmp_path / "bomb.toml"
    scenario.write_text(BULK.format(duration="1000000000s"))
    r = cli("run", scenario, "--out", tmp_path / "out", "--max-memory", "1GB")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "flow[0].trace" in lines[0], r.stderr
    assert "of trace and capture files" in lines[0]
    assert "free" in lines[0]
    # Without a folder the same run is refused on memory instead.
    r = cli("run", scenario, "--max-memory", "1GB")
    assert r.returncode == 2 and "of trace rows" in r.stderr, r.stderr


def test_traces_beyond_the_open_file_limit_are_written_at_the_end(tmp_path: Path) -> None:
    """Under a 24-file limit a run streams 12 trace files at most (6 of the 12 traced flows, all
    26 would not fit); the other traces stay in memory and are written when the run ends: the
    same bytes."""
    from tcplab import _core

    flow = '[[flow]]\nsrc = "a"\ndst = "b"\nstart = "{}s"\ntrace = true\n'
    flows = "".join(flow.format(i / 10) for i in range(12))
    text = (
        'duration = "5s"\nnodes = ["a", "b"]\n[tcp]\nmin_rto = "200ms"\n'
        '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "10ms"\nqueue = 30\n'
        "trace_queue = true\n" + flows
    )
    scenario = tmp_path / "many.toml"
    scenario.write_text(text)
    child = (
        "import resource, sys\n"
        "limit, hard = int(sys.argv[3]), resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
        "if limit:\n"
        "    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))\n"
        "from tcplab.experiment.api import run\n"
        "run(open(sys.argv[1]).read(), out_dir=sys.argv[2], plots=False)\n"
    )
    files = {}
    for limit in (0, 24):
        out = tmp_path / f"out{limit}"
        proc = subprocess.run(
            [sys.executable, "-c", child, str(scenario), str(out), str(limit)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        files[limit] = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "summary.json"}
    assert len(files[0]) == 12 * 2 + 2  # both directions' queues
    assert all(b.count(b"\n") > 10 for b in files[0].values())
    assert files[24] == files[0]
    _, in_memory = _core.run_scenario_traces(text)
    # The sweeps' in-memory path returns every trace, queues' too, with the files' bytes.
    assert {n: t.encode() for n, t in in_memory.items()} == files[0]


def test_clearing_a_work_folder_survives_files_removed_or_added_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ctrl-C flake ("trace-flow0.csv.partial: no such file or directory", not exit 130):
    the interrupted run's core dropped its partial file between the listing of the work folder
    and its removal by the output folder's clean-up. Forced here: the listing is taken, then
    the file goes and another appears, before the clean-up removes them."""
    import os

    from tcplab.experiment import safe_files

    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "trace-flow0.csv.partial").write_text("x")
    (stage / "queue-0.csv.partial").write_text("y")
    real = os.scandir
    raced = []

    def listing_then_race(fd: int):  # type: ignore[no-untyped-def]
        entries = list(real(fd))
        if not raced:
            raced.append(True)
            (stage / "trace-flow0.csv.partial").unlink()  # the core's drop, after the listing
            (stage / "late.csv.partial").write_text("z")  # a file the listing missed
        return iter(entries)

    monkeypatch.setattr(safe_files.os, "scandir", listing_then_race)
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        safe_files.remove_tree(fd, "stage")
    finally:
        os.close(fd)
    assert raced and not stage.exists()


def test_ctrl_c_in_the_api_waits_for_the_core_to_drop_its_files(tmp_path: Path) -> None:
    """An interrupt raises KeyboardInterrupt, and the output folder is left as it was (here: not
    made), every time: the core stops and drops its partial files before the clean-up runs."""
    import _thread
    import threading

    import tcplab as tl

    for delay in (0.3, 0.45, 0.6):
        out = tmp_path / f"out{delay}"
        timer = threading.Timer(delay, _thread.interrupt_main)
        with ctrl_c_as_interactive():
            timer.start()
            try:
                with pytest.raises(KeyboardInterrupt):
                    tl.run(BULK.format(duration="300s"), out_dir=out, plots=False)
            finally:
                # A run refused at once (a full disk) must not leave the timer to interrupt
                # whatever test this worker runs next.
                timer.cancel()
                timer.join()
        assert not out.exists(), sorted(p.name for p in out.rglob("*"))


@contextmanager
def ctrl_c_as_interactive() -> Iterator[None]:
    """SIGINT raising KeyboardInterrupt, as in an interactive Python, for the block. Tests
    started in the background by a non-interactive shell (`make test &`) inherit SIGINT
    ignored, and Python then installs no handler: `interrupt_main` did nothing there, and the
    run went on to its end ("DID NOT RAISE"), whatever the API does."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
