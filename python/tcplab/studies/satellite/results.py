"""The satellite study's results, derived once: efficiency and fairness per run (Sec. 7, from
each run's stored report), their means per configuration, and Jain's factorial analysis of our
runs per link type (``tcplab.analysis.anova``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from tcplab.analysis.anova import AnovaResult, factorial_anova
from tcplab.analysis.stats import ok_runs
from tcplab.experiment.store import Store
from tcplab.report.study import StudyData
from tcplab.studies.satellite.backlog import BIN_S, backlogged_servers, summary
from tcplab.studies.satellite.metrics import satellite_metrics
from tcplab.studies.satellite.network import CASES, T3_BPS

__all__ = ["FACTORS", "RESPONSES", "Results", "derive", "from_tables"]

FACTORS = ["tcp", "buffer", "drop_policy"]
RESPONSES = ("efficiency", "fairness")


@dataclass(frozen=True)
class Results:
    runs: dict[str, pd.DataFrame]  # case -> one row per run: factors, replication, efficiency, fairness
    means: dict[str, pd.DataFrame]  # case -> one row per configuration: mean and std of both
    anova: dict[str, dict[str, AnovaResult]]  # case -> response -> analysis of our runs
    duration_s: float
    pairs: int
    replications: int
    events: int
    wall_s: float  # summed over runs, as the core reported
    # Diagnostic: backlogged servers per bin of each run (case, factors, replication, time_s,
    # backlogged); the per-run summaries are columns of ``runs`` (backlog.py).
    backlog: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __repr__(self) -> str:
        return f"Results(satellite: {', '.join(self.runs)}; {self.replications} replications)"

    @property
    def cases(self) -> list[str]:
        return list(self.runs)

    def mean(self, case: str, response: str, **where: str) -> float:
        """The mean of ``response`` over every run of ``case`` matching ``where`` (factor=level)."""
        df = self.runs[case]
        for factor, level in where.items():
            df = df[df[factor] == level]
        return float(df[response].mean())


# The first batch period (10 s), while the run's first batches fill the network, is left out of the
# backlog summaries.
WARMUP_S = 10.0


def _metrics(store: Store, df: pd.DataFrame, case: str, series: list[pd.DataFrame]) -> pd.DataFrame:
    rows = []
    for key in df["key"]:
        report = store.report(key) or {}
        m = satellite_metrics(report, T3_BPS, CASES[case].mss)
        bins = round(float(report["sim_time_s"]) / BIN_S)
        counts = backlogged_servers(report, bins)
        rows.append(
            {
                "key": key,
                "efficiency": m.efficiency,
                "fairness": m.fairness,
                # The realised offered load: bytes the servers were asked for over the run time.
                "offered_bps": sum(float(p["scheduled_load_bps"]) for p in report["www"]),
                "capacity_bps": m.capacity_bps,
                **summary(counts, round(WARMUP_S / BIN_S)),
            }
        )
        series.append(
            pd.DataFrame({"key": key, "time_s": (pd.RangeIndex(bins) + 1) * BIN_S, "backlogged": counts})
        )
    return df.merge(pd.DataFrame(rows), on="key")


def _replication(df: pd.DataFrame) -> pd.Series:
    return df.groupby(FACTORS, sort=False).cumcount()


def derive(data: StudyData) -> Results:
    runs: dict[str, pd.DataFrame] = {}
    backlog: list[pd.DataFrame] = []
    with Store(data.store, create=False) as store:  # reads only
        for case in CASES:
            if case not in data.runs:
                continue
            df = ok_runs(data[case])
            series: list[pd.DataFrame] = []
            df = _metrics(store, df[["key", *FACTORS, "events", "wall_s"]], case, series)
            df["replication"] = _replication(df)
            runs[case] = df
            if series:
                heads = df[["key", *FACTORS, "replication"]].assign(case=case)
                backlog.append(pd.concat(series).merge(heads, on="key"))
    first = next(iter(data.specs.values()))
    return from_tables(
        runs,
        duration_s=float(first.base["duration"]),
        pairs=len(first.base["www"]["pair"]),
        replications=first.replications,
        backlog=pd.concat(backlog, ignore_index=True) if backlog else pd.DataFrame(),
    )


def from_tables(
    runs: dict[str, pd.DataFrame],
    duration_s: float = 100.0,
    pairs: int = 100,
    replications: int = 1,
    backlog: pd.DataFrame | None = None,
) -> Results:
    """Results from per-run tables (case -> one row per run: the factors, efficiency, fairness;
    optionally ``events``, ``wall_s``, ``offered_bps``): what the study derives from its store,
    and what the claims' can-fail fixtures build from the paper's own tables."""
    runs = {case: df.copy() for case, df in runs.items()}
    for df in runs.values():
        if "replication" not in df:
            df["replication"] = _replication(df)
    means = {
        case: df.groupby(FACTORS, sort=False)[list(RESPONSES)].agg(["mean", "std"]).reset_index()
        for case, df in runs.items()
    }
    anova = {
        case: {r: factorial_anova(df.dropna(subset=[r]), r, FACTORS) for r in RESPONSES}
        for case, df in runs.items()
    }
    total = lambda col: sum(df[col].sum() for df in runs.values() if col in df)  # noqa: E731
    return Results(
        runs=runs,
        means=means,
        anova=anova,
        duration_s=duration_s,
        pairs=pairs,
        replications=replications,
        events=int(total("events")),
        wall_s=float(total("wall_s")),
        backlog=backlog if backlog is not None else pd.DataFrame(),
    )
