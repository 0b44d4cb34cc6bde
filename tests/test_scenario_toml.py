"""The TOML writer: what it writes, tomllib (and the core) read back unchanged."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest
from conftest import SCENARIOS
from hypothesis import given, settings
from hypothesis import strategies as st
from tcplab import _core
from tcplab.experiment.bench import scale_scenario
from tcplab.experiment.scenario import dumps, read


def test_example_scenarios_round_trip() -> None:
    for path in sorted(SCENARIOS.glob("*.toml")):
        doc = read(path)
        text = dumps(doc)
        assert tomllib.loads(text) == doc, path.name
        _core.validate_scenario(text)


def test_nested_tables_and_arrays_of_tables() -> None:
    doc = {
        "name": 'quote " backslash \\ tab \t newline \n unicode é \x7f',
        "duration": 1.5,
        "nodes": ["a", "b"],
        "tcp": {"mss": 1000, "delayed_ack": True},
        "link": [
            {
                "a": "a",
                "b": "b",
                "rate": 1e7,
                "ab": {"loss": {"model": "bernoulli", "p": 0.01}},
                "ba": {"rate": "3Mbps"},
            },
            {
                "a": "b",
                "b": "a",
                "rate": "1Mbps",
                "loss": {"model": "drop_list", "flow": 0, "by": "segment", "values": [1, 2]},
            },
        ],
        "flow": [{"src": "a", "dst": "b", "tcp": {"mss": 500}}, {"src": "b", "dst": "a"}],
        "empty": [],
        "weird key": {"x.y": -math.inf},
    }
    assert tomllib.loads(dumps(doc)) == doc


def test_none_values_are_left_out() -> None:
    assert tomllib.loads(dumps({"a": 1, "b": None, "t": {"c": None}})) == {"a": 1, "t": {}}


def test_unsupported_values_raise_type_error() -> None:
    with pytest.raises(TypeError, match="x"):
        dumps({"x": object()})


scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(),
)
keys = st.text(min_size=1, max_size=8)


def tables(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    values = st.one_of(scalars, st.lists(scalars, max_size=3))
    if depth > 0:
        values = st.one_of(values, tables(depth - 1), st.lists(tables(depth - 1), min_size=1, max_size=2))
    return st.dictionaries(keys, values, max_size=4)


@settings(max_examples=150, deadline=None)
@given(tables(2))
def test_any_supported_dict_round_trips(doc: dict[str, Any]) -> None:
    assert tomllib.loads(dumps(doc)) == doc


def test_scale_scenario_is_valid() -> None:
    doc = scale_scenario(quick=True, flows=200)
    assert len(doc["flow"]) == 200 and len(doc["nodes"]) == 402
    assert doc["flow"][-1]["start"] < 0.5
    _core.validate_scenario(dumps(doc))


def test_a_key_ending_in_a_newline_is_quoted() -> None:
    # `$` in a regex also matches before a final newline: such a key must not pass as bare.
    doc = {"0\n": False}
    assert tomllib.loads(dumps(doc)) == doc
