"""What a researcher gets back: tidy frames (NaN, bools, long-format series), loading without
side effects, one-line reprs, the ANOVA as DataFrames, the one unit grammar, and CLI help."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tcplab
from conftest import SCENARIOS
from tcplab.errors import UserError
from tcplab.experiment.scenario import dumbbell
from tcplab.experiment.spec import SweepSpec
from tcplab.experiment.store import Store
from tcplab.units import duration_s, kb, kib, rate_bps, size_bytes
from typer.testing import CliRunner

TINY = {
    "name": "tiny",
    "duration": "3s",
    "nodes": ["a", "b"],
    "link": [
        {
            "a": "a",
            "b": "b",
            "rate": "10Mbps",
            "delay": "10ms",
            "ab": {"loss": {"model": "bernoulli", "p": 0.02}},
        }
    ],
    "flow": [{"src": "a", "dst": "b", "bytes": "300KB", "trace": True}],
}


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_load_sweep_on_a_missing_store_raises_and_creates_nothing(tmp_path: Path) -> None:
    spec = SweepSpec(name="missing", base=TINY, factors={"tcp.variant": ["reno"]})
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(UserError, match="no result store here") as err:
            tcplab.load_sweep(spec)
        assert str(tmp_path / "out" / "sweeps" / "missing.sqlite") in str(err.value)
        with pytest.raises(UserError, match="no result store"):
            tcplab.load_sweep(spec, store=tmp_path / "elsewhere" / "runs.sqlite")
        with pytest.raises(UserError, match="no result store"):
            tcplab.load_runs(tmp_path / "nothing.sqlite")
    finally:
        os.chdir(cwd)
    assert _files(tmp_path) == []


def test_stored_runs_show_traces_and_tidy_dtypes(tmp_path: Path) -> None:
    spec = SweepSpec(name="t", base=TINY, factors={"tcp.variant": ["reno", "sack"]})
    result = tcplab.sweep(spec, store=tmp_path / "t.sqlite", workers=1)
    assert "\n" not in repr(result) and "SweepResult(sweep='t'" in repr(result)
    runs = tcplab.load_runs(tmp_path / "t.sqlite")
    assert runs["traced"].dtype == bool and runs["traced"].all()
    assert runs["timeouts"].dtype.kind in "iuf" and runs["total_goodput_bps"].dtype == float
    flows = result.flows_df()  # a method, as on RunResult
    assert len(flows) == 2 and object not in set(flows.dtypes)
    key = runs["key"].iloc[0]
    with Store(tmp_path / "t.sqlite") as store:
        with pytest.raises(UserError, match="run key"):
            store.trace(None)  # type: ignore[arg-type]
        trace = store.trace(key)
        segments = store.trace(key, kind="segments")
    assert trace["ssthresh"].dtype == float and trace["ssthresh"].isna().any()  # unset, not 4294967295
    assert trace["ssthresh"].max() < 2**31
    assert segments["retransmit"].dtype == bool and segments["retransmit"].any()


def test_run_result_frames_and_repr(tmp_path: Path) -> None:
    doc = dumbbell(2, duration="3s")
    doc["series_bin"] = "500ms"
    result = tcplab.run(doc, seed=1, out_dir=tmp_path)
    assert "\n" not in repr(result) and len(repr(result)) < 200
    flows = result.flows_df()
    assert not any(isinstance(v, list) for v in flows.to_numpy().ravel())
    assert flows["final_ssthresh"].dtype == float and (flows["final_ssthresh"].dropna() < 2**31).all()
    series = result.series_df()
    assert list(series.columns) == ["bin", "time_s", "source", "id", "flow", "series", "value"]
    delivered = series[(series["source"] == "flow") & (series["series"] == "delivered_series")]
    assert set(delivered["id"]) == {0, 1}
    assert np.allclose(sorted(set(delivered["time_s"])), [0.5 * i for i in range(6)])
    by_flow = delivered.groupby("id")["value"].sum()
    assert (by_flow == flows["bytes_delivered"].astype(float)).all()
    assert not result.links_df().map(lambda v: isinstance(v, list)).any().any()


def test_anova_result_is_a_dataframe_and_one_line() -> None:
    rng = np.random.default_rng(1)
    rows = [
        {"a": a, "b": b, "y": 10 * (a == "x") + 2 * (b == "p") + rng.normal()}
        for a in ("x", "y")
        for b in ("p", "q")
        for _ in range(3)
    ]
    result = tcplab.factorial_anova(pd.DataFrame(rows), "y", ["a", "b"])
    frame = result.to_frame()
    assert list(frame.columns) == ["ss", "percent", "dof"] and "error" in frame.index
    assert frame["percent"].sum() == pytest.approx(100.0)
    assert frame.loc["a", "percent"] > 80
    effects = result.effects_frame()
    assert {"factor", "level", "effect", "ci_low", "ci_high", "significant"} <= set(effects.columns)
    assert "\n" not in repr(result) and "largest='a'" in repr(result)


def test_units_use_the_core_parser() -> None:
    assert size_bytes("2GB") == 2_000_000_000 and size_bytes("10KiB") == 10240 and size_bytes(1500) == 1500
    assert rate_bps("1.5Gb/s") == 1.5e9 and rate_bps(10e6) == 10e6
    assert duration_s("20ms") == pytest.approx(0.02)
    assert kib(8) == 8192 and kb(30) == 30_000
    with pytest.raises(UserError, match="^--size: unknown size unit 'furlongs'"):
        size_bytes("3 furlongs", "--size")
    with pytest.raises(UserError, match="^rate: rate must be positive"):
        rate_bps("0Mbps")


def test_cli_help_reads_well() -> None:
    from tcplab.cli import STUDIES, app
    from tcplab.experiment.bench import SCENARIOS as BENCH

    runner = CliRunner()
    env = {"COLUMNS": "80"}
    helps = {c: runner.invoke(app, [c, "--help"], env=env).output for c in ("run", "bench", "reproduce")}
    helps["root"] = runner.invoke(app, ["--help"], env=env).output
    for name, text in helps.items():
        assert "<bool>" not in text and "<list" not in text, name
        body = text.replace("[ARGS]...", "")
        assert "..." not in body, name  # no short help cut mid-sentence
    assert all(s in helps["reproduce"] for s in STUDIES)
    assert all(b in helps["bench"] for b in BENCH)


def test_run_out_lists_every_file_written(tmp_path: Path) -> None:
    from tcplab.cli import app

    scenario = SCENARIOS / "lossy_link.toml"
    result = CliRunner().invoke(app, ["run", str(scenario), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("wrote to"))
    for p in tmp_path.iterdir():
        assert p.name in line or p.name == ".tcplab-out"  # the marker that tcplab wrote the folder
    assert "summary.json" in line and "trace-flow0.csv" in line


def test_table_valued_levels_carry_labels(tmp_path: Path) -> None:
    tables = [{"variant": "reno"}, {"variant": "sack", "initial_cwnd": 2}]
    spec = SweepSpec(
        name="labelled",
        base=TINY,
        factors={"tcp": tables},
        labels={"tcp": "config"},
        level_labels={"tcp": ["Reno", "SACK, IW 2"]},
    )
    result = tcplab.sweep(spec, store=tmp_path / "l.sqlite", workers=1)
    assert list(result.df["config"]) == ["Reno", "SACK, IW 2"]
    assert set(tcplab.load_runs(tmp_path / "l.sqlite")["config"]) == {"Reno", "SACK, IW 2"}
    with pytest.raises(UserError, match=r"level_labels.tcp: 1 names for 2 levels"):
        SweepSpec(base=TINY, factors={"tcp": tables}, level_labels={"tcp": ["Reno"]})
    with pytest.raises(UserError, match=r"level_labels.nope: unknown factor"):
        SweepSpec(base=TINY, factors={"tcp": tables}, level_labels={"nope": ["a", "b"]})
