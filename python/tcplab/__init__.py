"""tcplab: a fast, reproducible packet-level simulator for TCP performance studies.

import tcplab
result = tcplab.run("dumbbell", seed=7, out_dir="out/dumbbell")   # an example's name, or a file
result.flows_df()[["goodput_bps", "timeouts"]]

spec = tcplab.SweepSpec(base=doc, factors={"tcp.variant": ["reno", "sack"]}, replications=5)
df = tcplab.sweep(spec, store="out/runs.sqlite").df      # one row per run
tcplab.summarize(df, ["tcp.variant"], "total_goodput_bps")  # means, 90% CIs, percentiles

Every name is imported on first use, so ``import tcplab`` imports nothing heavy: worker
processes load only what they use, and the command's entry point (``tcplab._launch``) has its
signal handlers in place before the core and the CLI load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see for the names imported on first use (re-exports)
    from tcplab import plot as plot
    from tcplab._core import InvariantError as InvariantError
    from tcplab._core import ScenarioError as ScenarioError
    from tcplab._core import __version__ as __version__
    from tcplab.analysis.anova import AnovaResult as AnovaResult
    from tcplab.analysis.anova import factorial_anova as factorial_anova
    from tcplab.analysis.fairness import jain_index as jain_index
    from tcplab.analysis.fairness import max_min_shares as max_min_shares
    from tcplab.analysis.pcap import read_pcap as read_pcap
    from tcplab.analysis.stats import mean_ci as mean_ci
    from tcplab.analysis.stats import summarize as summarize
    from tcplab.errors import UserError as UserError
    from tcplab.experiment.api import RunResult as RunResult
    from tcplab.experiment.api import load_scenario as load_scenario
    from tcplab.experiment.api import run as run
    from tcplab.experiment.api import scenario_text as scenario_text
    from tcplab.experiment.api import validate as validate
    from tcplab.experiment.runner import SweepResult as SweepResult
    from tcplab.experiment.runner import load_sweep as load_sweep
    from tcplab.experiment.runner import run_sweep as sweep  # noqa: F401 (tcplab.sweep)
    from tcplab.experiment.spec import SweepSpec as SweepSpec
    from tcplab.experiment.spec import load_spec as load_spec
    from tcplab.experiment.store import Store as Store
    from tcplab.experiment.store import load_runs as load_runs

# name -> (module, attribute); an attribute of None is the module itself.
_LAZY: dict[str, tuple[str, str | None]] = {
    "InvariantError": ("tcplab._core", "InvariantError"),
    "ScenarioError": ("tcplab._core", "ScenarioError"),
    "__version__": ("tcplab._core", "__version__"),
    "UserError": ("tcplab.errors", "UserError"),
    "RunResult": ("tcplab.experiment.api", "RunResult"),
    "load_scenario": ("tcplab.experiment.api", "load_scenario"),
    "run": ("tcplab.experiment.api", "run"),
    "scenario_text": ("tcplab.experiment.api", "scenario_text"),
    "validate": ("tcplab.experiment.api", "validate"),
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
    "plot": ("tcplab.plot", None),
}

__all__ = [*_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
    module, attr = _LAZY[name]
    imported = importlib.import_module(module)
    value = imported if attr is None else getattr(imported, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
