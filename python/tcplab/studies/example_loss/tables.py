"""The example study's table: mean goodput with confidence intervals."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tcplab.report.study import Table
from tcplab.studies.example_loss.results import Results
from tcplab.studies.example_loss.sweeps import LOSS, NAMES, VARIANTS


def tables(r: Results) -> list[Table]:
    g = r.goodput
    rows = []
    for p in LOSS:
        row: dict[str, Any] = {"loss (%)": p * 100}
        for v in VARIANTS:
            x = g[(g["variant"] == v) & (g["loss"] == p)].iloc[0]
            ci = "" if math.isnan(x["ci_low"]) else f" [{x['ci_low'] / 1e6:.3f}, {x['ci_high'] / 1e6:.3f}]"
            row[NAMES[v]] = f"{x['mean'] / 1e6:.3f}{ci}"
        rows.append(row)
    n = int(g["n"].min())
    return [
        Table(
            "Mean goodput (Mb/s) with 90% confidence intervals",
            pd.DataFrame(rows),
            f"{n} replications per point; intervals from Student's t.",
        )
    ]
