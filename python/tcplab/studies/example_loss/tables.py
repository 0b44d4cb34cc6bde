"""The example study's table: mean goodput with confidence intervals."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tcplab.report.measure import ratio
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
        ),
        _sack_vs_newreno(r, n),
        _drop_cases(r),
    ]


def _sack_vs_newreno(r: Results, n: int) -> Table:
    rows = []
    for p in (q for q in LOSS if q > 0):
        m = ratio(r.samples("sack", p), r.samples("newreno", p))
        rows.append(
            {
                "loss (%)": p * 100,
                "SACK Mb/s": round(r.mean("sack", p) / 1e6, 3),
                "NewReno Mb/s": round(r.mean("newreno", p) / 1e6, 3),
                "SACK / NewReno [90% interval]": f"{m.value:.3f} [{m.low:.3f}, {m.high:.3f}]",
                "SACK timeouts": round(r.mean("sack", p, "timeouts"), 2),
                "NewReno timeouts": round(r.mean("newreno", p, "timeouts"), 2),
            }
        )
    return Table(
        "SACK against NewReno under random loss",
        pd.DataFrame(rows),
        f"Ratio of mean goodputs with its bootstrap 90% interval over {n} replications per point. Random "
        "loss rarely puts two losses in one window at these window sizes, so Fall and Floyd (1996) give no "
        "reason to expect SACK ahead here; an interval that includes 1 is no difference.",
    )


def _drop_cases(r: Results) -> Table:
    one = r.one_drop.set_index("variant")
    rows = []
    for _, d in r.three_drops.iterrows():
        v = d["variant"]
        rows.append(
            {
                "variant": NAMES[v],
                "one drop: new segments in recovery": int(one.loc[v, "new_segments"]),
                "one drop: first new segment after (ms)": round(one.loc[v, "first_after_s"] * 1000, 1),
                "three drops: completion (s)": round(d["completion_s"], 4),
                "three drops: timeouts": int(d["timeouts"]),
            }
        )
    return Table(
        "Fall and Floyd's drop-list cases",
        pd.DataFrame(rows),
        "A 146 KB transfer (window about 11 segments at the loss) losing segment 40, or segments 40, 42 and "
        "44; deterministic. New segments: sent between the fast retransmission and the ACK that ends the "
        "recovery. RFC 6675's SACK is the reference for what the PIPE algorithm sends (the summary says "
        "what these cases found in an earlier core).",
    )
