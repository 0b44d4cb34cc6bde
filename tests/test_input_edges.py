"""Input a hostile probe found mishandled: numbers past Python's integer digit limit, scenario
dicts holding what TOML cannot, a truthy non-bool ``plots``, and a flow plot written through a
link planted where its PNG goes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tcplab
from tcplab._core import ScenarioError
from tcplab.errors import UserError
from tcplab.experiment.input_files import parse_toml
from tcplab.experiment.scenario import loads
from tcplab.report.plot import plot_flow_trace

DIGITS = sys.get_int_max_str_digits() + 1
BASE = {
    "duration": "1s",
    "nodes": ["a", "b"],
    "link": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms"}],
    "flow": [{"src": "a", "dst": "b"}],
}


def test_an_integer_past_the_digit_limit_is_a_scenario_error_naming_its_line() -> None:
    text = 'name = "x"\n[tcp]\nmss = ' + "9" * DIGITS + "\n"
    with pytest.raises(ScenarioError, match=r"mss: number too large.*\(line 3\)"):
        loads(text)
    with pytest.raises(UserError, match=r"spec.toml: mss: number too large.*\(line 3\)"):
        parse_toml(text, "spec.toml")


def test_the_cli_refuses_it_with_status_2_and_no_traceback(tmp_path: Path) -> None:
    scenario = tmp_path / "big.toml"
    scenario.write_text("x = " + "1" * DIGITS + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "tcplab", "validate", str(scenario)], capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "x: number too large" in done.stderr


def test_a_trace_file_number_past_the_digit_limit_is_refused_by_its_line(tmp_path: Path) -> None:
    (tmp_path / "pk.txt").write_text("0 " + "1" * DIGITS + "\n")
    doc = {
        **BASE,
        "flow": [{"src": "a", "dst": "b", "protocol": "udp", "source": {"kind": "trace", "file": "pk.txt"}}],
    }
    from tcplab.experiment.trace_files import inline_trace_files

    with pytest.raises(ScenarioError, match=r"pk.txt line 1: size"):
        inline_trace_files(doc, tmp_path)


@pytest.mark.parametrize(
    ("value", "field", "message"),
    [
        (10**5000, "seed", "number too large"),
        (object(), "name", "cannot write object"),
        ({1, 2}, "name", "cannot write set"),
        ("a\udc80b", "scenario", "UTF-8 cannot encode"),
    ],
    ids=["huge-int", "object", "set", "lone-surrogate"],
)
def test_a_scenario_dict_that_toml_cannot_hold_is_a_scenario_error(value, field, message) -> None:
    key = "seed" if field == "seed" else "name"
    with pytest.raises(ScenarioError, match=message) as caught:
        tcplab.run({**BASE, key: value})
    assert caught.value.args[0] == field


def test_a_scenario_dict_that_contains_itself_is_a_scenario_error() -> None:
    doc: dict = dict(BASE)
    doc["x"] = doc
    with pytest.raises(ScenarioError, match="contains itself"):
        tcplab.run(doc)


def test_plots_must_be_a_bool(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="plots: must be True or False"):
        tcplab.run(BASE, out_dir=tmp_path / "out", plots="no")
    assert not (tmp_path / "out").exists()


def test_a_flow_plot_replaces_a_link_at_its_name_and_leaves_the_target_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("orig")
    png = tmp_path / "flow0.png"
    png.symlink_to(victim)
    t = np.arange(50) * 0.01
    trace = pd.DataFrame(
        {
            "time_s": t,
            "cwnd": 1000 + t,
            "ssthresh": np.full(50, np.nan),
            "snd_una": t * 1e3,
            "snd_nxt": t * 2e3,
        }
    )
    plot_flow_trace(trace, png, "flow 0")
    assert victim.read_text() == "orig"
    assert not png.is_symlink() and png.read_bytes().startswith(b"\x89PNG")


def test_a_scenario_file_starting_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    scenario = tmp_path / "bom.toml"
    scenario.write_bytes(
        b"\xef\xbb\xbf" + b'duration = "1s"\nnodes = ["a", "b"]\n[[link]]\na = "a"\nb = "b"\n'
        b'rate = "10Mbps"\ndelay = "1ms"\n[[flow]]\nsrc = "a"\ndst = "b"\n'
    )
    assert tcplab.run(str(scenario)).report["flows"][0]["id"] == 0


def test_an_empty_trace_file_name_is_called_empty(tmp_path: Path) -> None:
    from tcplab.experiment.trace_files import inline_trace_files

    doc = {
        **BASE,
        "flow": [{"src": "a", "dst": "b", "protocol": "udp", "source": {"kind": "trace", "file": ""}}],
    }
    with pytest.raises(ScenarioError, match="the file name is empty"):
        inline_trace_files(doc, tmp_path)
