"""tcplab: a fast, reproducible packet-level simulator for TCP performance studies.

import tcplab
result = tcplab.run("scenarios/dumbbell.toml", seed=7, out_dir="out/dumbbell")
result.flows_df()[["goodput_bps", "timeouts"]]
"""

from tcplab._core import InvariantError, ScenarioError, __version__
from tcplab.api import RunResult, load_scenario, run, scenario_text, validate

__all__ = [
    "InvariantError",
    "RunResult",
    "ScenarioError",
    "__version__",
    "load_scenario",
    "run",
    "scenario_text",
    "validate",
]
