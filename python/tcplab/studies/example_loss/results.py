"""The example study's results, derived once from the sweeps: goodput and timeout tables, traces,
and the two drop-list cases (one drop, three drops in one window)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.analysis.stats import ok_runs, summarize
from tcplab.report.study import StudyData
from tcplab.studies.example_loss.scenarios import MSS, ONE_DROP
from tcplab.studies.example_loss.sweeps import DROP_VARIANTS, VARIANTS


@dataclass(frozen=True)
class Results:
    goodput: pd.DataFrame  # summarize() of total_goodput_bps by variant and loss
    timeouts: pd.DataFrame  # summarize() of timeouts by variant and loss
    traces: dict[str, pd.DataFrame]  # variant -> the traced flow's time series
    duration_s: float  # of the runs of the loss sweep
    runs: pd.DataFrame  # the loss sweep, one row per run (variant, loss, replication, goodput, timeouts)
    one_drop: pd.DataFrame  # per variant: new segments sent in the fast recovery of one drop
    three_drops: pd.DataFrame  # per variant: completion time, timeouts, retransmits with three drops

    def __repr__(self) -> str:
        return f"Results(example_loss: {len(self.goodput)} points, {len(self.traces)} traces)"

    def mean(self, variant: str, loss: float, table: str = "goodput") -> float:
        t = getattr(self, table)
        row = t[(t["variant"] == variant) & (t["loss"] == loss)]
        return float(row["mean"].iloc[0])

    def samples(self, variant: str, loss: float, value: str = "total_goodput_bps") -> np.ndarray:
        """One value per replication at a point, in replication order (the seeds are per run)."""
        r = self.runs
        rows = r[(r["variant"] == variant) & np.isclose(r["loss"].astype(float), loss)]
        return rows.sort_values("replication")[value].to_numpy(dtype=float)


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
        runs=runs[["variant", "loss", "replication", "total_goodput_bps", "timeouts"]],
        one_drop=_one_drop(data),
        three_drops=_three_drops(data),
    )


def recovery_sends(trace: pd.DataFrame, segments: pd.DataFrame, lost: int) -> dict[str, float]:
    """New segments sent between the fast retransmission of segment ``lost`` (1-based) and the
    ACK that ends the recovery (the first that acknowledges it), and the duplicate ACKs (trace
    rows) that came before the first of them."""
    offset = (lost - 1) * MSS
    resend = segments[(segments["offset"] == offset) & segments["retransmit"].astype(bool)]
    if resend.empty:
        return {"new_segments": float("nan"), "first_after_s": float("nan")}
    start = float(resend["time_s"].iloc[0])
    end = float(trace[trace["snd_una"] > offset]["time_s"].iloc[0])
    sent = segments[
        (segments["time_s"] > start) & (segments["time_s"] < end) & ~segments["retransmit"].astype(bool)
    ]
    first = float(sent["time_s"].iloc[0]) - start if len(sent) else float("nan")
    return {"new_segments": float(len(sent)), "first_after_s": first}


def _one_drop(data: StudyData) -> pd.DataFrame:
    rows = []
    for _, run in ok_runs(data["one_drop"]).iterrows():
        tr, seg = data.trace(run["key"]), data.trace(run["key"], kind="segments")
        rows.append({"variant": run["variant"], **recovery_sends(tr, seg, ONE_DROP[0])})
    return _ordered(pd.DataFrame(rows))


def _three_drops(data: StudyData) -> pd.DataFrame:
    df = ok_runs(data["three_drops"])
    out = df[["variant", "mean_completion_time_s", "timeouts", "retransmits"]].rename(
        columns={"mean_completion_time_s": "completion_s"}
    )
    return _ordered(out)


def _ordered(df: pd.DataFrame) -> pd.DataFrame:
    order = {v: i for i, v in enumerate(DROP_VARIANTS)}
    return df.sort_values("variant", key=lambda s: s.map(order)).reset_index(drop=True)


def mbps(x: float) -> float:
    return round(x / 1e6, 3)
