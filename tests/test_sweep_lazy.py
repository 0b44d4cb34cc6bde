"""Sweeps expand lazily (issue 11, item 2): runs are made one at a time and run a batch at a
time, a sweep's size is the product of its axes, and the cap on runs is exact and can be raised.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import tcplab
from conftest import REPO
from tcplab.errors import UserError
from tcplab.experiment import runner
from tcplab.experiment.expand import iter_runs, run_key
from tcplab.experiment.spec import MAX_RUNS, SweepSpec, check_size, run_count
from tcplab.experiment.store import Store
from test_cli_memory import LIMIT_KIB, cli_peak
from test_sweep_run import BASE, small_spec

BASE_TOML = (
    'duration = "0.2s"\nnodes = ["a", "b"]\n[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\n'
    'delay = "5ms"\n[[flow]]\nsrc = "a"\ndst = "b"\nbytes = 10000\n'
)


def test_lazy_runs_have_the_documented_keys_in_factorial_order() -> None:
    spec = small_spec(zips=[{"link.0.delay": ["10ms", "20ms"], "link.0.rate": ["10Mbps", "20Mbps"]}])
    runs = list(iter_runs(spec))
    assert len(runs) == run_count(spec) == 2 * 2 * 2 * 2
    for run in runs:
        assert run.key == run_key(run.scenario, run.seed)  # the fast key is exactly run_key's
    assert len({r.key for r in runs}) == len(runs)
    assert [r.replication for r in runs[:4]] == [0, 1, 0, 1]  # replications inner
    assert runs[0].levels["tcp.variant"] == "reno" and runs[-1].levels["tcp.variant"] == "sack"


def test_paths_that_would_make_equal_points_are_refused_with_the_spec() -> None:
    # flow.0.bytes would override flow.*.bytes: two points, one scenario, which expansion
    # refused as the same runs; the spec now refuses the overlap itself.
    factors = {"flow.*.bytes": ["1KB", "2KB"], "flow.0.bytes": ["1KB"]}
    with pytest.raises(UserError, match="factors.flow.0.bytes: overlaps 'flow.\\*.bytes'"):
        SweepSpec(base=BASE, factors=factors, seeds="common")


def test_a_million_runs_start_expanding_at_once() -> None:
    spec = SweepSpec(base=BASE, replications=MAX_RUNS)
    started = time.perf_counter()
    runs = iter_runs(spec)
    first = [next(runs) for _ in range(3)]
    assert [r.replication for r in first] == [0, 1, 2]
    assert time.perf_counter() - started < 5


def test_the_run_cap_is_exact_and_can_be_raised() -> None:
    ok = SweepSpec(base=BASE, replications=MAX_RUNS)
    check_size(ok)
    over = SweepSpec(base=BASE, replications=MAX_RUNS + 1)
    with pytest.raises(UserError, match=r"replications: the sweep has 1,000,001 runs .*--max-runs"):
        check_size(over)
    check_size(over, MAX_RUNS + 1)
    with pytest.raises(UserError, match="replications"):
        tcplab.sweep(over)


def test_runs_go_a_batch_at_a_time_and_a_rerun_skips_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BATCH", 3)  # 8 runs: batches of 3, 3 and 2
    store = tmp_path / "s.sqlite"
    first = tcplab.sweep(small_spec(), store=store, workers=1)
    assert (first.total, first.ran, first.skipped) == (8, 8, 0)
    with Store(store) as db:
        keys = [r.key for r in iter_runs(small_spec())]
        assert db.keys_among(keys) == set(keys) == db.keys()
        assert db.keys_among(keys[:2] + ["0" * 64]) == set(keys[:2])
    with Store(store) as db:  # one run lost: the rerun runs it alone
        db._db.execute("DELETE FROM runs WHERE key = ?", (keys[4],))
        db._db.commit()
    again = tcplab.sweep(small_spec(), store=store, workers=1)
    assert (again.total, again.ran, again.skipped) == (8, 1, 7)
    assert [r.key for r in again.runs] == keys and list(again.df["key"]) == keys


@pytest.mark.parametrize(
    ("replications", "extra", "status"),
    [(MAX_RUNS, [], 0), (MAX_RUNS + 1, [], 2), (MAX_RUNS + 1, ["--max-runs", str(MAX_RUNS + 1)], 0)],
    ids=["at_cap", "over_cap", "raised_cap"],
)
def test_dry_run_of_a_million_runs_is_quick_and_small(
    tmp_path: Path, replications: int, extra: list[str], status: int
) -> None:
    (tmp_path / "base.toml").write_text(BASE_TOML)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'name = "big"\nbase = "base.toml"\nreplications = {replications}\n')
    started = time.perf_counter()
    code, lines, peak, _, out = cli_peak("sweep", spec, "--dry-run", *extra)
    assert time.perf_counter() - started < 20
    assert code == status, lines
    if status == 0:
        assert f"{replications:,} runs (1 point x {replications:,} replications)" in out
    else:
        assert len(lines) == 1 and f"replications: the sweep has {replications:,} runs" in lines[0], lines
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"
    assert not (REPO / "out" / "sweeps" / "big.sqlite").exists()  # a dry run opens no store
