"""tcplab: a fast, reproducible packet-level simulator for TCP performance studies.

import tcplab
result = tcplab.run("scenarios/dumbbell.toml", seed=7, out_dir="out/dumbbell")
result.flows_df()[["goodput_bps", "timeouts"]]

spec = tcplab.SweepSpec(base=doc, factors={"tcp.variant": ["reno", "sack"]}, replications=5)
df = tcplab.sweep(spec, store="out/runs.sqlite").df      # one row per run
tcplab.summarize(df, ["tcp.variant"], "total_goodput_bps")  # means, 90% CIs, percentiles

The experiment names (sweep, summarize, factorial_anova, ...) are imported on first use, so
``import tcplab`` stays light for the CLI and for worker processes.
"""

from __future__ import annotations

import importlib
from typing import Any

from tcplab._core import InvariantError, ScenarioError, __version__
from tcplab.errors import UserError
from tcplab.experiment.api import RunResult, load_scenario, run, scenario_text, validate

_LAZY: dict[str, tuple[str, str]] = {
    "AnovaResult": ("tcplab.analysis.anova", "AnovaResult"),
    "factorial_anova": ("tcplab.analysis.anova", "factorial_anova"),
    "jain_index": ("tcplab.analysis.fairness", "jain_index"),
    "max_min_shares": ("tcplab.analysis.fairness", "max_min_shares"),
    "SweepResult": ("tcplab.experiment.runner", "SweepResult"),
    "load_sweep": ("tcplab.experiment.runner", "load_sweep"),
    "sweep": ("tcplab.experiment.runner", "run_sweep"),
    "SweepSpec": ("tcplab.experiment.spec", "SweepSpec"),
    "load_spec": ("tcplab.experiment.spec", "load_spec"),
    "mean_ci": ("tcplab.analysis.stats", "mean_ci"),
    "summarize": ("tcplab.analysis.stats", "summarize"),
    "Store": ("tcplab.experiment.store", "Store"),
    "load_runs": ("tcplab.experiment.store", "load_runs"),
    "read_pcap": ("tcplab.analysis.pcap", "read_pcap"),
}

__all__ = [
    "InvariantError",
    "RunResult",
    "ScenarioError",
    "UserError",
    "__version__",
    "load_scenario",
    "run",
    "scenario_text",
    "validate",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
