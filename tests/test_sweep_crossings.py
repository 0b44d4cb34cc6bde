"""A sweep crosses into the core as little as it can (issue 19, item 6): the spec is expanded
once, each distinct point is checked once (its scenario, then its memory estimate), and each run
is one call that returns the report and, for a traced run, its traces in memory."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tcplab
from conftest import REPO
from tcplab import _core
from tcplab.experiment import expand
from tcplab.experiment.runner import plan_sweep
from tcplab.experiment.spec import load_spec
from test_sweep_run import BASE

EXAMPLE = REPO / "scenarios" / "sweeps" / "loss_variants.toml"  # 9 points x 5 replications
CORE = ("validate_scenario", "check_memory", "run_scenario", "run_scenario_traces")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts of the core's functions called, and of the scenarios the expansion made."""
    counts: Counter[str] = Counter()

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return call

    for name in CORE:
        monkeypatch.setattr(_core, name, counted(name, getattr(_core, name)))
    monkeypatch.setattr(expand, "_made", counted("made", expand._made))
    return counts


def _sweep(store: Path) -> tcplab.SweepResult:
    result = tcplab.sweep(EXAMPLE, store=store, workers=1)
    assert (result.total, result.failed) == (45, 0)
    result.df, result.flows_df(), result.errors()  # reading the results expands nothing again
    return result


def test_the_example_sweep_checks_each_point_once_and_runs_each_run_once(
    tmp_path: Path, calls: Counter[str]
) -> None:
    first = _sweep(tmp_path / "s.sqlite")
    assert first.ran == 45
    # lossy_link.toml traces its flow: every run returns its traces from the one call
    assert calls == {"made": 9, "validate_scenario": 9, "check_memory": 9, "run_scenario_traces": 45}
    calls.clear()
    again = _sweep(tmp_path / "s.sqlite")  # all stored: checked again, nothing run
    assert (again.ran, again.skipped) == (0, 45)
    assert calls == {"made": 9, "validate_scenario": 9, "check_memory": 9}
    assert [r.key for r in again.runs] == [r.key for r in first.runs]


def test_points_with_one_scenario_are_checked_for_memory_once(calls: Counter[str]) -> None:
    # one flow, and flow.0.bytes overrides flow.*.bytes: two points, one scenario (per-run
    # seeds tell their runs apart). A spec refuses those overlapping paths now, so they are set
    # behind its checks: the memory check's sharing is what is tested here.
    spec = tcplab.SweepSpec(base=BASE, factors={"flow.0.bytes": ["1KB"]})
    object.__setattr__(spec, "factors", {"flow.*.bytes": ["1KB", "2KB"], "flow.0.bytes": ["1KB"]})
    plan = plan_sweep(spec)
    assert plan.points == 2
    assert calls == {"made": 2, "validate_scenario": 2, "check_memory": 1}


def test_a_sweep_too_big_to_hold_makes_its_points_again_unchecked(
    tmp_path: Path, calls: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _sweep(tmp_path / "held.sqlite")
    calls.clear()
    monkeypatch.setattr(expand, "HOLD_BYTES", 0)
    remade = _sweep(tmp_path / "remade.sqlite")
    assert remade.checked.held is None and held.checked.held is not None
    assert calls["validate_scenario"] == calls["check_memory"] == 9 and calls["run_scenario_traces"] == 45
    assert calls["made"] > 9  # made again (unchecked) to count, to run and to read
    assert [r.key for r in remade.runs] == [r.key for r in held.runs]
    machine = ["wall_s", "finished_at"]
    assert remade.df.drop(columns=machine).equals(held.df.drop(columns=machine))


def test_a_checked_sweep_has_the_runs_of_the_lazy_expansion() -> None:
    spec = load_spec(EXAMPLE)
    assert list(expand.check_sweep(spec).iter_runs()) == list(expand.iter_runs(spec))
