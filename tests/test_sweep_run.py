"""Running sweeps: the store, skipping and resuming, failures, Dask, a SIGKILL half way."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from conftest import REPO, cli
from conftest import tcplab as run_cli
from tcplab.errors import NotKept
from tcplab.experiment import worker
from tcplab.experiment.expand import expand
from tcplab.experiment.spec import SweepSpec, load_spec
from tcplab.experiment.store import Store

BASE = {
    "name": "two-hosts",
    "duration": "5s",
    "nodes": ["a", "b"],
    "tcp": {"rcv_buf": "64KiB"},
    "link": [
        {
            "a": "a",
            "b": "b",
            "rate": "10Mbps",
            "delay": "10ms",
            "ab": {"loss": {"model": "bernoulli", "p": 0}},
        }
    ],
    "flow": [{"src": "a", "dst": "b", "bytes": "500KB"}],
}
# Columns that differ between two identical runs: wall-clock time and when the row was written.
VOLATILE = ["wall_s", "finished_at"]


def small_spec(**kw: object) -> SweepSpec:
    fields: dict = {
        "name": "small",
        "base": BASE,
        "factors": {"tcp.variant": ["reno", "sack"], "link.0.ab.loss.p": [0.0, 0.02]},
        "replications": 2,
        "seed": 5,
        "labels": {"link.0.ab.loss.p": "loss"},
    }
    fields.update(kw)
    return SweepSpec(**fields)  # type: ignore[arg-type]


def test_sweep_stores_every_run_then_skips_them(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    first = tcplab.sweep(small_spec(), store=store, workers=2)
    assert (first.total, first.ran, first.skipped, first.failed) == (8, 8, 0, 0)
    df = first.df
    assert len(df) == 8 and list(df.columns[:6]) == ["key", "sweep", "status", "error", "tcp.variant", "loss"]
    assert (df["status"] == "ok").all() and df["key"].is_unique
    assert (df["bytes_delivered"] == 500_000).all()
    lossy = df[df["loss"] > 0]
    assert (lossy["retransmits"] > 0).all() and (df.loc[df["loss"] == 0, "retransmits"] == 0).all()
    assert df["total_goodput_bps"].between(1e5, 10e6).all()
    assert set(df.columns) >= {
        "replication",
        "seed",
        "timeouts",
        "completed",
        "max_completion_time_s",
        "jain_fairness",
    }

    again = tcplab.sweep(small_spec(), store=store, workers=2)
    assert (again.ran, again.skipped) == (0, 8)
    pd.testing.assert_frame_equal(again.df, df)
    # A bigger sweep in the same store runs only the new points.
    bigger = tcplab.sweep(small_spec(replications=3), store=store, workers=1)
    assert (bigger.total, bigger.ran, bigger.skipped) == (12, 4, 8)
    raw = tcplab.load_runs(store)  # loading a whole store is one call
    assert raw.shape[0] == 12 and {"tcp.variant", "loss"} <= set(raw.columns)
    assert len(tcplab.load_sweep(small_spec(), store=store)) == 8


def test_per_flow_results_reports_and_traces_are_stored(tmp_path: Path) -> None:
    base = json.loads(json.dumps(BASE))
    base["flow"][0]["trace"] = True
    base["flow"].append({"src": "a", "dst": "b", "bytes": "100KB"})
    spec = SweepSpec(name="traced", base=base, factors={"tcp.variant": ["reno", "newreno"]})
    result = tcplab.sweep(spec, store=tmp_path / "t.sqlite", workers=1)
    flows = result.flows_df()
    assert len(flows) == 4 and set(flows["id"]) == {0, 1}
    assert list(flows.loc[flows["id"] == 1, "bytes_delivered"]) == [100_000, 100_000]
    key = result.df["key"].iloc[0]
    with Store(tmp_path / "t.sqlite") as store:
        report = store.report(key)
        assert report is not None and len(report["links"]) == 2
        trace = store.trace(key, 0)
        segments = store.trace(key, 0, kind="segments")
        columns = "time_s cwnd ssthresh snd_una snd_nxt rtt_sample_s srtt_s rto_s flight"
        assert " ".join(trace.columns) == columns
        assert segments["len"].sum() >= 500_000
        with pytest.raises(FileNotFoundError):
            store.trace(key, 1)  # flow 1 is not traced
    assert (tmp_path / "t.sqlite.traces" / key / "trace-flow0.parquet").is_file()


def test_failed_runs_are_recorded_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = worker._core.run_scenario

    def flaky(text: str, seed: int | None = None, out: str | None = None, limit: int | None = None) -> str:
        if 'variant = "sack"' in text:
            raise tcplab.InvariantError("packet conservation: injected 3 != delivered 2")
        return real(text, seed, out, limit)

    monkeypatch.setattr(worker._core, "run_scenario", flaky)
    store = tmp_path / "f.sqlite"
    for workers in (1, 2):  # in this process, and in forked workers (which inherit the patch)
        result = tcplab.sweep(small_spec(), store=store, workers=workers)
        assert (result.ran, result.failed) == (8 if workers == 1 else 4, 4)
        df = result.df
        failed = df[df["status"] == "failed"]
        assert set(failed["tcp.variant"]) == {"sack"} and len(failed) == 4
        assert failed["error"].str.contains("InvariantError: packet conservation").all()
        assert failed["total_goodput_bps"].isna().all()
        assert (df.loc[df["status"] == "ok", "tcp.variant"] == "reno").all()
        assert len(result.errors()) == 4
    monkeypatch.setattr(worker._core, "run_scenario", real)
    retried = tcplab.sweep(small_spec(), store=store, workers=1)  # a rerun retries failed runs
    assert (retried.ran, retried.skipped, retried.failed) == (4, 4, 0)
    assert (retried.df["status"] == "ok").all() and len(retried.df) == 8


def test_cli_sweep_reports_failures_and_exits_0(tmp_path: Path) -> None:
    from tcplab.cli import app
    from typer.testing import CliRunner

    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'base = "{REPO / "scenarios" / "lossy_link.toml"}"\nreplications = 2\n'
        '[factors]\n"tcp.variant" = ["reno", "sack"]\n'
    )
    runner = CliRunner()
    real = worker._core.run_scenario_traces  # lossy_link.toml traces its flow

    def boom(text: str, *args: object) -> tuple[str, dict[str, str]]:
        if "sack" in text:
            raise RuntimeError("boom")
        return real(text, *args)

    try:
        worker._core.run_scenario_traces = boom
        result = runner.invoke(
            app, ["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), "--workers", "1"]
        )
    finally:
        worker._core.run_scenario_traces = real
    assert result.exit_code == 0, result.output
    assert "4 runs (2 points x 2 replications): 4 ran, 0 already stored, 2 failed" in result.output
    assert "warning: 2 runs failed" in result.output and "RuntimeError: boom" in result.output
    assert f"store: {tmp_path / 's.sqlite'}" in result.output


def test_local_workers_and_dask_local_cluster_give_identical_results(tmp_path: Path) -> None:
    spec = small_spec(replications=1)
    local = tcplab.sweep(spec, store=tmp_path / "local.sqlite", workers=2)
    dask = tcplab.sweep(spec, store=tmp_path / "dask.sqlite", dask="local", workers=2)
    assert (dask.ran, dask.failed) == (4, 0)
    a = local.df.drop(columns=VOLATILE)
    b = dask.df.drop(columns=VOLATILE)
    pd.testing.assert_frame_equal(a, b)
    with Store(tmp_path / "local.sqlite") as sa, Store(tmp_path / "dask.sqlite") as sb:
        for key in a["key"]:
            ra, rb = sa.report(key), sb.report(key)
            assert ra is not None and rb is not None
            ra.pop("wall_s"), rb.pop("wall_s")
            assert ra == rb  # the whole report, bit for bit


def test_sweep_on_an_existing_dask_scheduler(tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    spec = small_spec(replications=1, factors={"tcp.variant": ["reno", "sack"]}, labels={})
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        remote = tcplab.sweep(spec, store=tmp_path / "remote.sqlite", dask=cluster.scheduler_address)
    local = tcplab.sweep(spec, store=tmp_path / "local.sqlite", workers=1)
    assert (remote.ran, remote.failed) == (2, 0)
    pd.testing.assert_frame_equal(remote.df.drop(columns=VOLATILE), local.df.drop(columns=VOLATILE))


def test_unreachable_dask_scheduler_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(f'base = "{REPO / "scenarios" / "lossy_link.toml"}"\n')
    monkeypatch.setenv("TCPLAB_DASK_TIMEOUT", "1")
    proc = cli("sweep", spec, "--store", tmp_path / "s.sqlite", "--dask", "tcp://127.0.0.1:9")
    assert proc.returncode == 2
    assert "--dask tcp://127.0.0.1:9: cannot reach a Dask scheduler" in proc.stderr


KILL_SPEC = f"""
name = "kill"
base = "{REPO / "scenarios" / "dumbbell.toml"}"
replications = 8
[factors]
"tcp.variant" = ["reno", "newreno", "sack"]
"link.0.loss" = [{{model = "none"}}, {{model = "bernoulli", p = 0.001}}]
duration = ["40s"]
"""


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return db.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # the table is being created


def test_sweep_killed_half_way_then_rerun_stores_every_run_once(tmp_path: Path) -> None:
    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC)
    store = tmp_path / "kill.sqlite"
    total = len(expand(load_spec(spec_path)))
    args = [sys.executable, "-m", "tcplab", "sweep", str(spec_path), "--store", str(store), "--quiet"]
    proc = subprocess.Popen([*args, "--workers", "2"], cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while _stored(store) < 6 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be killed; make it longer"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stderr.close()  # type: ignore[union-attr]
    stored = _stored(store)
    assert proc.returncode == -signal.SIGKILL
    assert 0 < stored < total, (stored, total)
    print(f"killed with {stored} of {total} runs stored")

    rerun = run_cli("sweep", spec_path, "--store", store, "--workers", "2", "--quiet")
    assert rerun.returncode == 0, rerun.stderr
    assert f"{total - stored} ran, {stored} already stored, 0 failed" in rerun.stdout
    with sqlite3.connect(store) as db:
        keys = [k for (k,) in db.execute("SELECT key FROM runs")]
        statuses = {s for (s,) in db.execute("SELECT DISTINCT status FROM runs")}
    assert len(keys) == total and len(set(keys)) == total and statuses == {"ok"}
    assert set(keys) == {r.key for r in expand(load_spec(spec_path))}
    # The killed sweep's workers died with it (Linux: a parent-death signal), none is left over.
    deadline = time.monotonic() + 5
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    leftover = _group_alive(proc.pid)
    if leftover:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not leftover


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stderr_on_a_terminal(args: list[str]) -> str:
    """Run the CLI with stderr on a pseudo-terminal; returns what it drew there."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "tcplab", *args], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=slave, env=env)  # fmt: skip
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the process is done
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def test_progress_bar_on_a_terminal_only_and_not_with_quiet(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(KILL_SPEC.replace("replications = 8", "replications = 2").replace('"40s"', '"5s"'))
    drawn = _stderr_on_a_terminal(
        ["sweep", str(spec), "--store", str(tmp_path / "a.sqlite"), "--workers", "2"]
    )
    assert "12/12" in drawn and "runs/s" in drawn and "left" in drawn
    quiet = ["sweep", str(spec), "--store", str(tmp_path / "b.sqlite"), "--workers", "2", "--quiet"]
    # The dumbbell captures a pcap, which a sweep does not keep: one warning line, never a bar.
    warning = "warning: link[0].pcap: a sweep does not keep pcap captures"
    quiet_err = _stderr_on_a_terminal(quiet)
    assert quiet_err.startswith(warning) and len(quiet_err.splitlines()) == 1
    with pytest.warns(NotKept):  # in this process, the warning is Python's (main() prints it)
        piped = cli("sweep", spec, "--store", tmp_path / "c.sqlite", "--workers", "2")
    assert piped.returncode == 0 and piped.stderr == ""  # not a terminal: no bar
