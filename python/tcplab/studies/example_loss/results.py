"""The example study's results, derived once from the sweeps: goodput and timeout tables, traces."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tcplab.analysis.stats import ok_runs, summarize
from tcplab.report.study import StudyData
from tcplab.studies.example_loss.sweeps import VARIANTS


@dataclass(frozen=True)
class Results:
    goodput: pd.DataFrame  # summarize() of total_goodput_bps by variant and loss
    timeouts: pd.DataFrame  # summarize() of timeouts by variant and loss
    traces: dict[str, pd.DataFrame]  # variant -> the traced flow's time series
    duration_s: float  # of the runs of the loss sweep

    def __repr__(self) -> str:
        return f"Results(example_loss: {len(self.goodput)} points, {len(self.traces)} traces)"

    def mean(self, variant: str, loss: float, table: str = "goodput") -> float:
        t = getattr(self, table)
        row = t[(t["variant"] == variant) & (t["loss"] == loss)]
        return float(row["mean"].iloc[0])


def derive(data: StudyData) -> Results:
    runs = ok_runs(data["loss"])
    traced = ok_runs(data["traces"])
    traces = {}
    for variant in VARIANTS:
        key = traced.loc[traced["variant"] == variant, "key"].iloc[0]
        traces[variant] = data.trace(key)
    return Results(
        goodput=summarize(runs, ["variant", "loss"], "total_goodput_bps", confidence=0.90),
        timeouts=summarize(runs, ["variant", "loss"], "timeouts", confidence=0.90),
        traces=traces,
        duration_s=float(data.specs["loss"].base["duration"]),
    )


def mbps(x: float) -> float:
    return round(x / 1e6, 3)
