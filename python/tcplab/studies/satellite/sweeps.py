"""The satellite study's sweeps: for each of WAN, MEO and GEO the paper's factorial of 4 TCP
flavours x 2 drop policies x 3 buffers (Table 3), run ``replications`` times.

The drop policy and the buffer apply to every switch output port at once (the trunk both ways
and each switch's port towards a host), so each is a zipped group of two paths: ``link.0.ab``
(the trunk from sw1) and ``link.*.ba`` (the trunk from sw2 and every switch-to-host port).
The hosts' own queues (``ab`` of the access links) keep no drop policy, as in
``network.satellite_scenario``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

from tcplab.experiment.spec import SweepSpec
from tcplab.studies.satellite.backlog import BIN_S
from tcplab.studies.satellite.network import CASES, DROPS, FLAVOURS, SatelliteConfig, satellite_scenario

__all__ = [
    "BUFFER_NAMES",
    "CASE_NAMES",
    "DROP_NAMES",
    "FLAVOUR_NAMES",
    "LABELS",
    "Grid",
    "FULL",
    "QUICK",
    "TINY",
    "sweeps",
    "tiny",
]

FLAVOUR_NAMES = {"vanilla": "Vanilla", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"}
DROP_NAMES = {"epd": "EPD", "sd": "SD"}
BUFFER_NAMES = ("0.5 RTT", "1 RTT", "2 RTT")
CASE_NAMES = {"wan": "WAN", "meo": "MEO", "geo": "GEO"}
LABELS = {"tcp.variant": "tcp", "link.0.ab.drop": "drop_policy", "link.0.ab.queue": "buffer"}
SEED = 1998


@dataclass(frozen=True)
class Grid:
    """What one mode runs: the link types, the run time, the replications and the pairs."""

    cases: tuple[str, ...]
    duration_s: float
    replications: int
    pairs: int = 100


# Full mode: the paper's 100 s runs and 100 pairs, three replications instead of its one.
FULL = Grid(("wan", "meo", "geo"), 100.0, 3)
# Quick mode: one replication of 50 s runs, every link type, all 24 configurations (a reduced
# grid in time, not in factors, so every table, figure and claim is still computed). 50 s holds
# five batches per client, enough for the offered load to come near its 45.2 Mb/s mean (about
# 1.2 C; the report gives the realised load): at 20 s the heavy-tailed response sizes left it
# below C.
QUICK = Grid(("wan", "meo", "geo"), 50.0, 1)
# The test hook: 10 pairs, 4 s runs, still 24 configurations per link type.
TINY = Grid(("wan", "meo", "geo"), 4.0, 1, pairs=10)


def _base(case: str, grid: Grid) -> dict[str, Any]:
    cfg = SatelliteConfig(case=case, pairs=grid.pairs, duration_s=grid.duration_s, seed=SEED)
    base = tomllib.loads(satellite_scenario(cfg))
    # Series for the backlog diagnostic (backlog.py); recording them changes no run's outcome.
    base["series_bin"] = BIN_S
    return base


def _drop_table(drop: str) -> dict[str, Any]:
    return tomllib.loads(f"d = {DROPS[drop]}")["d"]


def spec(case: str, grid: Grid) -> SweepSpec:
    """One link type's factorial as a sweep (its name is the link type)."""
    drops = [_drop_table(d) for d in DROPS]
    buffers = list(CASES[case].buffers)
    return SweepSpec(
        name=case,
        base=_base(case, grid),
        factors={"tcp.variant": list(FLAVOURS.values())},
        zips=[
            {"link.0.ab.drop": drops, "link.*.ba.drop": drops},
            {"link.0.ab.queue": buffers, "link.*.ba.queue": buffers},
        ],
        replications=grid.replications,
        seed=SEED,
        # Common random numbers: replication i of every configuration serves the same WWW
        # workload, so the factors' effects are compared on one workload, as the paper's single
        # ns run per configuration did; the replications vary the workload.
        seeds="common",
        labels=LABELS,
        level_labels={
            "tcp.variant": list(FLAVOUR_NAMES.values()),
            "link.0.ab.drop": list(DROP_NAMES.values()),
            "link.0.ab.queue": list(BUFFER_NAMES),
        },
    )


def sweeps(quick: bool) -> list[SweepSpec]:
    grid = QUICK if quick else FULL
    return [spec(case, grid) for case in grid.cases]


def tiny() -> list[SweepSpec]:
    """Every table, figure and claim from 4 s runs of 10 pairs (a test hook)."""
    return [spec(case, TINY) for case in TINY.cases]
