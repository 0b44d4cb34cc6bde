"""Issue 27, item 3 (Python side): Ctrl-C on a sweep stops its workers at once, even one whose
run would never end, keeps every run that finished, exits 130 in one line, and a rerun then
runs what is missing: nothing lost, nothing run twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, SCENARIOS, interruptible
from conftest import tcplab as run_cli
from tcplab.experiment.expand import iter_runs
from tcplab.experiment.spec import load_spec
from test_sweep_run import _group_alive

QUICK_LEVELS = [f'"{300 + i}s"' for i in range(14)]  # about 0.3 s of wall time each


def _spec(tmp_path: Path, hanging: bool) -> Path:
    # A 10^6 s run of the 10-flow dumbbell takes hours: a point that "never" ends. It comes
    # first, so a worker is inside it when the sweep is interrupted.
    levels = ['"1000000s"', *QUICK_LEVELS] if hanging else QUICK_LEVELS
    spec = tmp_path / ("hang.toml" if hanging else "rest.toml")
    spec.write_text(
        f'name = "hang"\nbase = "{SCENARIOS / "bench_dumbbell_10.toml"}"\n'
        f"[factors]\nduration = [{', '.join(levels)}]\n"
    )
    return spec


def _stored(store: Path) -> list[str]:
    try:
        with sqlite3.connect(store, timeout=5) as db:
            return [k for (k,) in db.execute("SELECT key FROM runs")]
    except sqlite3.OperationalError:
        return []  # not created yet


@pytest.mark.parametrize("to", ["parent", "group"], ids=["kill_parent", "ctrl_c_group"])
def test_ctrl_c_on_a_sweep_with_a_hanging_point_stops_at_once_and_resumes(tmp_path: Path, to: str) -> None:
    store = tmp_path / "s.sqlite"
    args = ["sweep", _spec(tmp_path, hanging=True), "--store", store, "--workers", "2", "-q"]
    proc = interruptible(sys.executable, "-m", "tcplab", *args, cwd=REPO, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(_stored(store)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        # A terminal's Ctrl-C reaches the whole process group; `kill -INT` only the parent.
        (os.killpg if to == "group" else os.kill)(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
        deadline = time.monotonic() + 5
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        leftover = _group_alive(proc.pid)
    finally:
        if proc.poll() is None or _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err.strip() == "error: interrupted", err
    assert took < 3.0, f"stopped {took:.1f} s after SIGINT"
    assert not leftover, "a worker outlived the sweep"
    stored = _stored(store)
    assert 3 <= len(stored) < len(QUICK_LEVELS)

    # Resume without the hanging point: every stored run is kept, the rest run once.
    rest = _spec(tmp_path, hanging=False)
    rerun = run_cli("sweep", rest, "--store", store, "--workers", "2", "-q")
    assert rerun.returncode == 0, rerun.stderr
    assert f"{len(QUICK_LEVELS) - len(stored)} ran, {len(stored)} already stored, 0 failed" in rerun.stdout
    keys = _stored(store)
    assert len(keys) == len(set(keys)) == len(QUICK_LEVELS)
    assert set(keys) == {r.key for r in iter_runs(load_spec(rest))}
