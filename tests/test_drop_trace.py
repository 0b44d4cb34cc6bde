"""Drop traces and the flow trace's RTT columns from Python: a run's --out folder has
drops-<channel>.csv, the API gives them as a DataFrame, and a sweep's store keeps them (and
says what it does not keep)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from conftest import cli
from tcplab.errors import NotKept
from tcplab.experiment.scenario import dumps
from tcplab.experiment.spec import SweepSpec
from tcplab.experiment.store import Store

# One traced flow over a RED queue that drops early, and a drop list on the same direction.
BASE = {
    "name": "drops",
    "duration": "5s",
    "nodes": ["a", "b"],
    "tcp": {"mss": 1000},
    "link": [
        {
            "a": "a",
            "b": "b",
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": 40,
            "trace_drops": True,
            "trace_queue": True,
            "qdisc": {"kind": "red", "min_th": 5, "max_th": 15},
            "ab": {"loss": {"model": "drop_list", "flow": 0, "by": "segment", "values": [3]}},
        }
    ],
    "flow": [{"src": "a", "dst": "b", "bytes": "2MB", "trace": True}],
}


def scenario(**link: object) -> dict:
    s = json.loads(json.dumps(BASE))
    s["link"][0].update(link)
    return s


def test_run_out_has_drop_traces_and_the_api_frame_matches_the_counters(tmp_path: Path) -> None:
    result = tcplab.run(scenario(), seed=4, out_dir=tmp_path / "out", plots=False)
    assert (tmp_path / "out" / "drops-0.csv").is_file() and (tmp_path / "out" / "drops-1.csv").is_file()
    drops = result.drops()
    head = "channel link direction time_s flow kind seq ack len bytes cause marked"
    assert " ".join(drops.columns) == head
    assert drops["time_s"].is_monotonic_increasing
    stats = result.links[0]  # the counters, flattened into the link
    data = drops[drops["channel"] == 0]
    by_cause = data["cause"].value_counts().to_dict()
    assert by_cause.get("loss") == stats["drops_loss"] == 1
    assert by_cause.get("early", 0) == stats["queue"]["drops_early"] > 0
    assert len(data) == stats["drops_loss"] + stats["drops_queue"]
    # The drop list's segment 3 (1-based): stream offset 2 * mss, named by its offset.
    lost = data[data["cause"] == "loss"].iloc[0]
    assert (lost["kind"], lost["seq"], lost["direction"]) == ("data", 2000, "ab")
    assert pd.isna(lost["ack"])
    trace = result.trace(0)
    assert trace["rtt_sample_s"].notna().sum() > 3 and trace["rtt_sample_s"].min() >= 0.02
    assert (trace["rto_s"] > 0).all() and (trace["flight"] >= 0).all()


def test_cli_run_out_writes_drops_csv(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(dumps(scenario()))
    r = cli("run", path, "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "out" / "drops-0.csv").read_text().splitlines()
    assert text[0] == "time_s,flow,kind,seq,ack,len,bytes,cause,marked"
    assert any(line.endswith(",loss,0") for line in text[1:])


def test_no_drop_trace_says_how_to_get_one(tmp_path: Path) -> None:
    result = tcplab.run(scenario(trace_drops=False), out_dir=tmp_path / "out", plots=False)
    with pytest.raises(FileNotFoundError, match="trace_drops"):
        result.drops()


def test_a_sweep_keeps_drop_and_queue_traces_and_warns_about_pcaps(tmp_path: Path) -> None:
    spec = SweepSpec(
        name="drops", base=scenario(pcap=True), factors={"tcp.variant": ["reno", "sack"]}, seed=9
    )
    with pytest.warns(NotKept, match=r"link\[0\]\.pcap"):
        result = tcplab.sweep(spec, store=tmp_path / "s.sqlite", workers=1, progress=False)
    assert result.failed == 0
    row = result.df.iloc[0]
    with Store(tmp_path / "s.sqlite") as store:
        drops = store.drops(row["key"])
        queue = store.queue(row["key"], 0)
        trace = store.trace(row["key"], 0)
    # The same run outside the sweep streams the same rows into its folder.
    same = scenario(pcap=True)
    same["tcp"]["variant"] = row["tcp.variant"]
    alone = tcplab.run(same, seed=int(row["seed"]), out_dir=tmp_path / "one", plots=False)
    assert len(drops) > 1
    pd.testing.assert_frame_equal(drops, alone.drops())
    assert len(queue) > 100 and list(queue.columns) == ["time_s", "packets", "bytes", "avg"]
    assert "rtt_sample_s" in trace.columns
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(FileNotFoundError):
        store.queue(row["key"], 5)
