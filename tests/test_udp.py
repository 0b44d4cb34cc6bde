"""UDP flows on the Python side: the CLI's UDP table, the notebook view, the per-flow fields a
sweep stores, and bad UDP input named by field with exit status 2. (The sources themselves
are checked against ns-2's rules in crates/tcplab-core/tests/udp_sources.rs and udp.rs.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tcplab
from conftest import cli
from tcplab.experiment.metrics import FLOW_FIELDS, UDP_FIELDS, flow_metrics

# A 10 Mb/s, 10 ms link, the TCP flow starting after the UDP one stopped: every packet arrives
# after 10 ms of propagation plus 1028 bytes (1000 of payload, 28 of headers) at 10 Mb/s,
# 0.8224 ms: 10.8224 ms each.
SCENARIO = """
name = "udp_cli"
duration = "2s"
nodes = ["a", "b"]

[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"

[[flow]]
name = "tcp"
src = "a"
dst = "b"
bytes = "20kB"
start = "1.2s"

[[flow]]
name = "voice"
src = "a"
dst = "b"
protocol = "udp"
source = { kind = "cbr", rate = "1Mbps", size = "1000B" }
stop = "1s"
"""


def _doc(**source: Any) -> dict[str, Any]:
    doc = tcplab.experiment.scenario.loads(SCENARIO)
    doc["flow"][1]["source"].update(source)
    return doc


def test_the_cli_prints_a_table_of_the_udp_flows(tmp_path: Path) -> None:
    path = tmp_path / "udp.toml"
    path.write_text(SCENARIO)
    out = cli("run", path)
    assert out.returncode == 0, out.stderr
    # The flow table (TCP counters shown as '-') and then the UDP table: 1 s at 1 Mb/s in
    # 1000-byte packets is 125 packets, all received, each 10.8224 ms on the way.
    lines = out.stdout.splitlines()
    flow_row, udp_row = (line.split() for line in lines if line.strip().startswith("1 voice"))
    assert flow_row[7:10] == ["-", "-", "-"], flow_row
    assert udp_row[2:] == ["cbr", "125", "125", "0", "0.0", "10.8", "10.8", "10.8"], udp_row
    assert "UDP flows" in out.stdout


def test_a_run_without_udp_flows_prints_no_udp_table(tmp_path: Path) -> None:
    doc = tcplab.experiment.scenario.loads(SCENARIO)
    del doc["flow"][1]
    path = tmp_path / "tcp.toml"
    path.write_text(tcplab.experiment.scenario.dumps(doc))
    out = cli("run", path)
    assert out.returncode == 0 and "UDP flows" not in out.stdout


def test_the_notebook_view_shows_the_udp_table() -> None:
    html = tcplab.run(_doc())._repr_html_()
    assert "<th>p99</th>" in html and "<td>125</td>" in html


def test_a_udp_flows_per_flow_fields_are_stored_and_a_tcp_flows_unchanged() -> None:
    report = tcplab.run(_doc()).report
    tcp, udp = flow_metrics(report)
    assert list(tcp) == list(FLOW_FIELDS)
    assert list(udp) == [*FLOW_FIELDS, *UDP_FIELDS]
    assert (udp["source"], udp["packets_sent"], udp["packets_lost"]) == ("cbr", 125, 0)
    assert abs(udp["delay_p50_s"] - 0.0108224) <= 0.0108224 / 128


def test_a_sweep_has_the_udp_columns_per_flow(tmp_path: Path) -> None:
    spec = tcplab.SweepSpec(
        name="udp_rate",
        base=_doc(),
        factors={"flow.1.source.rate": ["1Mbps", "2Mbps"]},
        replications=1,
        seed=1,
        labels={"flow.1.source.rate": "rate"},
    )
    result = tcplab.sweep(spec, store=tmp_path / "s.sqlite", workers=1, progress=False)
    flows = result.flows_df()
    udp = flows[flows["name"] == "voice"].set_index("rate")
    assert udp.loc["1Mbps", "packets_sent"] == 125 and udp.loc["2Mbps", "packets_sent"] == 250
    assert flows[flows["name"] == "tcp"]["packets_sent"].isna().all()


def test_bad_udp_input_names_the_field_and_exits_2(tmp_path: Path) -> None:
    cases = {
        'protocol = "sctp"': "flow[1].protocol",
        'source = { kind = "cbr", rate = "1Mbps" }': "flow[1].source",
        'source = { kind = "pareto", rate = "1Mbps", size = "100B", shape = 1.0 }': "flow[1].source.shape",
        'source = { kind = "trace", file = "x.txt" }': "flow[1].source.file",
        'stop = "0s"': "flow[1].stop",
    }
    for line, field in cases.items():
        # The last table is flow[1]: its line for the key replaced by the bad one.
        key = line.split(" =")[0]
        text = "\n".join(ln for ln in SCENARIO.splitlines() if not ln.startswith(f"{key} ="))
        text += f"\n{line}\n"
        path = tmp_path / "bad.toml"
        path.write_text(text)
        out = cli("run", path)
        assert out.returncode == 2, (line, out.stdout, out.stderr)
        assert field in out.stderr, (line, out.stderr)
        assert "Traceback" not in out.stderr


def test_the_json_report_has_the_udp_row(tmp_path: Path) -> None:
    path = tmp_path / "udp.toml"
    path.write_text(SCENARIO)
    out = cli("run", path, "--json")
    flow = json.loads(out.stdout)["flows"][1]
    assert flow["stop_s"] == 1.0 and flow["udp"]["packets_delivered"] == 125
    assert flow["completion_time_s"] is not None
