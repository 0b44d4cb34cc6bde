"""Numpy scalars in a scenario dict (a sweep's levels from np.linspace, say) are written as the
plain TOML numbers and booleans they stand for, not as their repr (``np.float64(0.01)``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tcplab
from tcplab.experiment.expand import expand
from tcplab.experiment.scenario import dumps, loads


def _tiny(loss: object, mss: object, delayed_ack: object) -> dict[str, object]:
    return {
        "name": "numpy",
        "duration": "5s",
        "seed": np.int64(1),
        "nodes": ["a", "b"],
        "tcp": {"variant": "reno", "mss": mss, "delayed_ack": delayed_ack},
        "link": [
            {
                "a": "a",
                "b": "b",
                "rate": "10Mbps",
                "delay": "5ms",
                "ab": {"loss": {"model": "bernoulli", "p": loss}},
            }
        ],
        "flow": [{"src": "a", "dst": "b", "bytes": "100KB"}],
    }


def test_numpy_scalars_round_trip_through_dumps() -> None:
    doc = _tiny(np.float64(0.01), np.int64(1460), np.bool_(True))
    doc["levels"] = [np.float32(0.5), np.int32(3), np.bool_(False)]
    doc["grid"] = np.linspace(0.01, 0.03, 3)
    back = loads(dumps(doc))
    assert back["tcp"] == {"variant": "reno", "mss": 1460, "delayed_ack": True}
    assert back["link"][0]["ab"]["loss"]["p"] == 0.01 and back["seed"] == 1
    assert back["levels"] == [0.5, 3, False]
    assert back["grid"] == pytest.approx([0.01, 0.02, 0.03])
    for value in (back["tcp"]["mss"], back["tcp"]["delayed_ack"], back["link"][0]["ab"]["loss"]["p"]):
        assert type(value) in (int, bool, float)


def test_a_scenario_with_numpy_values_runs_like_its_plain_twin() -> None:
    plain = tcplab.run(_tiny(0.01, 1460, True))
    numpy = tcplab.run(_tiny(np.float64(0.01), np.int64(1460), np.bool_(True)))
    assert numpy.report["scenario"] == plain.report["scenario"]
    assert numpy.flows == plain.flows and numpy.events == plain.events


def test_a_sweep_over_numpy_levels_runs_as_over_plain_ones(tmp_path: Path) -> None:
    base = {**_tiny(0.01, 1460, True), "seed": np.int64(1)}
    numpy_levels = {
        "link.0.ab.loss.p": list(np.array([0.01, 0.02, 0.03])),
        "tcp.mss": np.array([536, 1460]),
        "tcp.delayed_ack": [np.bool_(True), np.bool_(False)],
    }
    plain_levels = {
        "link.0.ab.loss.p": [0.01, 0.02, 0.03],
        "tcp.mss": [536, 1460],
        "tcp.delayed_ack": [True, False],
    }
    spec = tcplab.SweepSpec(base=base, factors=numpy_levels)
    twin = tcplab.SweepSpec(base={**base, "seed": 1}, factors=plain_levels)
    assert [r.key for r in expand(spec)] == [r.key for r in expand(twin)]
    df = tcplab.sweep(spec, workers=1, store=tmp_path / "s.sqlite").df
    assert len(df) == 12 and (df["status"] == "ok").all()
    assert {type(v) for v in df["tcp.mss"]} <= {int, np.int64}


def test_other_numpy_values_are_still_refused_naming_the_field() -> None:
    with pytest.raises(TypeError, match="when"):
        dumps({"when": np.datetime64("2024-01-01")})
