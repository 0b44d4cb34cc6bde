"""The Python API: run() from a path, text or dict, RunResult helpers, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import tcplab
from conftest import SCENARIOS
from tcplab.experiment.scenario import dumbbell, read

SMALL = {
    "name": "small",
    "duration": "5s",
    "nodes": ["a", "b"],
    "link": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
    "flow": [{"src": "a", "dst": "b", "bytes": "200KB", "trace": True}],
}


def test_run_accepts_path_text_and_dict_alike() -> None:
    path = SCENARIOS / "lossy_link.toml"
    results = [
        tcplab.run(path),
        tcplab.run(str(path)),
        tcplab.run(path.read_text()),
        tcplab.run(read(path)),
    ]
    reports = [dict(r.report, wall_s=0) for r in results]
    assert all(r == reports[0] for r in reports)


def test_run_result_helpers(tmp_path: Path) -> None:
    result = tcplab.run(SMALL, seed=3, out_dir=tmp_path)
    assert result.seed == 3
    assert result.sim_time_s == pytest.approx(5.0)
    assert result.events > 0 and result.wall_s >= 0
    flows = result.flows_df()
    assert flows.loc[0, "bytes_delivered"] == 200_000
    links = result.links_df()
    assert list(links.index) == [0, 1]
    assert (links.loc[0, "from"], links.loc[0, "to"]) == ("a", "b")
    trace = result.trace(0)
    assert " ".join(trace.columns) == "time_s cwnd ssthresh snd_una snd_nxt rtt_sample_s srtt_s rto_s flight"
    assert trace["snd_una"].iloc[-1] == 200_000
    assert (tmp_path / "summary.json").exists()


def test_trace_without_out_dir_says_how_to_get_one() -> None:
    with pytest.raises(FileNotFoundError, match="out_dir"):
        tcplab.run(SMALL).trace(0)


def test_bad_dict_raises_scenario_error_naming_the_field() -> None:
    bad = dict(SMALL, flow=[{"src": "a", "dst": "z"}])
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(bad)
    assert info.value.args[0] == "flow[0].dst"


def test_validate_and_load_scenario(tmp_path: Path) -> None:
    tcplab.validate(SMALL)
    path = tmp_path / "s.toml"
    path.write_text("nodes = [\n")
    with pytest.raises(tcplab.ScenarioError, match="not valid TOML"):
        tcplab.load_scenario(path)
    with pytest.raises(FileNotFoundError):
        tcplab.load_scenario(tmp_path / "missing.toml")


def test_dumbbell_builder_makes_a_runnable_scenario() -> None:
    doc = dumbbell(3, duration="2s", stagger_s=0.3, tcp={"mss": 1000})
    assert [f["start"] for f in doc["flow"]] == [0.0, 0.1, 0.2]
    result = tcplab.run(doc)
    assert len(result.flows) == 3
    assert all(f["bytes_delivered"] > 0 for f in result.flows)
