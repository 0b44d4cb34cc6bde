"""bench/ns3_compare's tcplab side and its hand-over to the ns-3 side, without ns-3.

compare.py uses only the standard library, so it is imported here; ns3_dumbbell.py imports ns-3
(cppyy) and is only read as text. The ns-3 runs themselves stay out of the test suite.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import bench_scripts
import pytest

HERE = Path(__file__).resolve().parents[1] / "bench" / "ns3_compare"


cmp = bench_scripts.load("ns3_compare/compare.py", "ns3_compare")


def _scenario(codel: object) -> dict:
    return tomllib.loads(cmp.tcplab_scenario(10, None, "newreno", codel))


def test_codel_goes_on_the_bottleneck_data_direction_only() -> None:
    links = _scenario(cmp.Codel())["link"]
    bottleneck = links[0]
    assert (bottleneck["a"], bottleneck["b"]) == ("r1", "r2")
    assert bottleneck["ab"]["qdisc"] == {"kind": "codel", "target": "5ms",
                                         "interval": "100ms", "ecn": False}
    # r2 -> r1 carries the ACKs and stays drop-tail, as ns-3's device there; the 100-packet
    # limit stays CoDel's physical limit (ns-3: 99 in the queue disc + 1 in the device).
    assert "ba" not in bottleneck and "qdisc" not in bottleneck
    assert bottleneck["queue"] == 100
    assert all("ab" not in link and "qdisc" not in link for link in links[1:])


def test_drop_tail_stays_the_default() -> None:
    scenario = _scenario(None)
    assert all("ab" not in link and "qdisc" not in link for link in scenario["link"])
    assert scenario["tcp"]["header_bytes"] == 42 and scenario["tcp"]["handshake"] == "sender"


def _ns3_options() -> set[str]:
    """The command-line options ns3_dumbbell.py declares (read, not imported)."""
    tree = ast.parse((HERE / "ns3_dumbbell.py").read_text())
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
            and node.args and isinstance(node.args[0], ast.Constant)}


def _ns3_imports_from_compare() -> set[str]:
    tree = ast.parse((HERE / "ns3_dumbbell.py").read_text())
    return {alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "compare"
            for alias in node.names}


def test_the_same_codel_parameters_reach_both_simulators() -> None:
    codel = cmp.Codel(target_ms=4, interval_ms=80)
    assert _scenario(codel)["link"][0]["ab"]["qdisc"]["target"] == "4ms"
    assert _scenario(codel)["link"][0]["ab"]["qdisc"]["interval"] == "80ms"
    cmd = cmp.ns3_command(10, 60.0, False, "newreno", codel)
    tail = cmd[cmd.index("--qdisc"):]
    assert tail == ["--qdisc", "codel", "--codel-target-ms", "4", "--codel-interval-ms", "80"]
    # Every option compare.py passes exists in ns3_dumbbell.py, which takes its defaults and
    # its delay statistics from compare.py itself.
    assert {a for a in tail if a.startswith("--")} <= _ns3_options()
    assert {"Codel", "sojourn_summary"} <= _ns3_imports_from_compare()
    assert "--qdisc" not in cmp.ns3_command(10, 60.0, False, "newreno", None)


def test_sojourn_summary_is_mean_median_and_p90() -> None:
    s = cmp.sojourn_summary([float(i) for i in range(11)])
    assert s == {"n": 11, "mean_ms": 5.0, "p50_ms": 5.0, "p90_ms": 9.0}
    assert cmp.sojourn_summary([1.0]) == {"n": 1}


@pytest.mark.skipif(not cmp.TCPLAB.exists(), reason="needs `make build` (.venv/bin/tcplab)")
def test_tcplab_side_runs_codel_and_reads_its_sojourns(tmp_path: Path) -> None:
    # 20 of the scenario's 60 simulated seconds: CoDel is in its steady state within 5 s.
    text = cmp.tcplab_scenario(10, None, "newreno", cmp.Codel())
    assert 'duration = "60s"' in text
    text = text.replace('duration = "60s"', 'duration = "20s"')
    path = tmp_path / "codel.toml"
    path.write_text(text)
    run = cmp.run_json([str(cmp.TCPLAB), "run", str(path), "--json"])
    delay = cmp.tcplab_queue_delay(text, tmp_path, codel=True)
    got = cmp.tcplab_summary(run, delay)
    # CoDel acted (drops at dequeue), and a sojourn was read for every packet sent.
    assert got["drops_sojourn"] > 0
    assert got["drops"] == got["drops_sojourn"] + got["drops_overflow"]
    bottleneck = next(c for c in run["links"] if (c["from"], c["to"]) == ("r1", "r2"))
    # (one more departure than finished transmissions: the packet on the wire at the end)
    assert 0 <= got["sojourn"]["n"] - bottleneck["tx_packets"] <= 1
    # A 100-packet drop-tail queue at this load waits about 70 ms; CoDel keeps it far lower.
    assert 0 < got["sojourn"]["p50_ms"] < 30 and got["queue_delay_ms"] == got["sojourn"]["mean_ms"]
