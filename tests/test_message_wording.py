"""Wording of messages made in Python (a probe of the messages, round 57): counts in the
singular for one, the flow cap's estimate distinguishable from the cap, and a missing scenario
name pointing to ``tcplab examples``."""

from __future__ import annotations

import pytest
from conftest import cli
from tcplab import _core
from tcplab.errors import UserError, counted
from tcplab.experiment.expand import PathError, set_path
from tcplab.experiment.input_limits import MAX_FLOWS, check_scenario_text
from tcplab.experiment.spec import SweepSpec, check_size

BASE = {"duration": "1s", "nodes": ["a", "b"], "link": [{"a": "a", "b": "b", "rate": "1Mbps"}]}


def test_counts_are_singular_for_one() -> None:
    assert counted(1, "point") == "1 point"
    assert counted(0, "point") == "0 points"
    assert counted(1_000_000, "replication") == "1,000,000 replications"


def test_the_run_cap_message_says_1_point() -> None:
    spec = SweepSpec(base=BASE, name="big", replications=1_000_001)
    with pytest.raises(UserError) as e:
        check_size(spec)
    assert "(1,000,001 replications of 1 point)" in str(e.value), e.value
    spec = SweepSpec(base=BASE, name="big", factors={"duration": ["1s", "2s"]}, replications=1)
    with pytest.raises(UserError) as e:
        check_size(spec, max_runs=1)
    assert "(1 replication of 2 points)" in str(e.value), e.value


def test_an_index_past_a_one_element_list_says_element() -> None:
    with pytest.raises(PathError) as e:
        set_path({"link": [{}]}, "link.3.rate", 1)
    assert str(e.value) == "'link.3': index 3 is out of range (the list has 1 element)"


def test_the_flow_cap_tells_the_estimate_from_the_cap() -> None:
    with pytest.raises(_core.ScenarioError) as e:
        check_scenario_text("[[flow]]\n" * (MAX_FLOWS + 1))
    field, message = e.value.args
    assert field == "flow"
    assert message == (
        "250,001 flows, more than the 250,000 a scenario may have: at about 3,700 bytes a flow "
        "before the run starts, they would take about 925,003,700 bytes (the cap allows 925,000,000)"
    )


def test_a_name_that_is_no_file_and_no_example_points_to_the_list() -> None:
    for command in ("run", "validate", "sweep"):
        proc = cli(command, "nosuchexample")
        assert proc.returncode == 2, command
        assert proc.stderr == (
            "error: nosuchexample: no such file or directory, and no shipped example has that name "
            "(`tcplab examples` lists them)\n"
        ), command
