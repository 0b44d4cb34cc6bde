"""The satellite study's tables: per link type, our Table 4/7/10 (efficiency and fairness per
configuration) beside the paper's, and Jain's analysis of OUR runs (allocation of variation,
main effects with 90% confidence intervals: Tables 5-6, 8-9, 11-12) beside the paper's."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tcplab.analysis.anova import AnovaResult
from tcplab.report.study import Table
from tcplab.studies.satellite.backlog import backlog_table
from tcplab.studies.satellite.claims import cell_tolerance
from tcplab.studies.satellite.paper import ALLOCATION, EFFECTS, TABLE_NUMBERS, results_table
from tcplab.studies.satellite.results import FACTORS, RESPONSES, Results
from tcplab.studies.satellite.sweeps import CASE_NAMES

COMPONENTS = ("tcp", "buffer", "drop_policy", "tcp x buffer", "tcp x drop_policy", "buffer x drop_policy")


def tables(r: Results) -> list[Table]:
    out: list[Table] = (
        [_load(r)] if "offered_bps" in next(iter(r.runs.values()), pd.DataFrame()).columns else []
    )
    for case in r.cases:
        out += [_results(r, case), _allocation(r, case), _effects(r, case)]
    if "backlogged_mean" in next(iter(r.runs.values()), pd.DataFrame()).columns:
        out.append(backlog_table(r.runs, CASE_NAMES))
    # here, not at the top: ``python -m tcplab.studies.satellite.sensitivity`` must not be imported
    # by its own package before it runs
    from tcplab.studies.satellite.sensitivity import recorded_tables

    return out + recorded_tables()


def _f(x: Any) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def _load(r: Results) -> Table:
    rows = []
    for case, df in r.runs.items():
        load, c = df["offered_bps"], float(df["capacity_bps"].iloc[0])
        rows.append(
            {
                "link": CASE_NAMES[case],
                "offered load, Mb/s (mean over runs)": f"{load.mean() / 1e6:.2f}",
                "min..max": f"{load.min() / 1e6:.2f}..{load.max() / 1e6:.2f}",
                "C, Mb/s": f"{c / 1e6:.2f}",
                "load / C": f"{load.mean() / c:.3f}",
            }
        )
    return Table(
        "Realised offered load per link type",
        pd.DataFrame(rows),
        f"The bytes the servers were asked for over the {r.duration_s:g} s run, summed over the {r.pairs} "
        "servers (the nominal mean: 4.85 requests of 116.6 KB per client every 10 s, 45.2 Mb/s for 100 "
        "pairs; the paper's footnote rounds to 48 Mb/s). One seed offers every configuration and link type "
        "the same requests; the load differs between link types only where a server answered fewer "
        "requests by the end of the run. Efficiency cannot exceed load / C.",
    )


def _results(r: Results, case: str) -> Table:
    means = r.means[case]
    paper = results_table(case)
    bands = cell_tolerance(r, case) if paper is not None else {}
    rows = []
    for _, m in means.iterrows():
        row: dict[str, Any] = {f: m[(f, "")] for f in ("drop_policy", "tcp", "buffer")}
        for resp in RESPONSES:
            row[f"{resp} (ours)"] = _f(m[(resp, "mean")])
            if r.replications > 1:
                row[f"{resp} sd"] = _f(m[(resp, "std")])
            if paper is not None:
                p = paper[(paper["drop_policy"] == row["drop_policy"]) & (paper["tcp"] == row["tcp"])]
                p = p[p["buffer"] == row["buffer"]]
                theirs = float(p[resp].iloc[0])
                row[f"{resp} (paper)"] = _f(theirs)
                diff = float(m[(resp, "mean")]) - theirs
                row[f"{resp} diff"] = f"{diff:+.4f}" + (" *" if abs(diff) > bands[resp] else "")
        rows.append(row)
    n = TABLE_NUMBERS[case][0]
    note = (
        f"Ours: the mean over {r.replications} replication(s) of {r.duration_s:g} s with {r.pairs} "
        "server-client pairs ('sd': standard deviation over replications). "
    )
    if paper is not None:
        half = ", ".join(f"{bands[x]:.4f} {x}" for x in bands)
        note += (
            "'diff': ours minus the paper's; '*' marks a cell outside its band (the per-cell claims: "
            f"1.645 x the paper's and our error standard deviations combined, +- {half}). "
        )
    note += (
        f"Paper: Goyal et al. (1998), Table {n}, one run each."
        if paper is not None
        else f"Paper: the body of Goyal et al.'s Table {n} is missing from the available text of the "
        "paper, so there is no per-configuration reference for GEO (Tables 11 and 12 are compared below)."
    )
    return Table(
        f"{CASE_NAMES[case]}: efficiency and fairness per configuration (the paper's Table {n})",
        pd.DataFrame(rows),
        note,
    )


def _allocation(r: Results, case: str) -> Table:
    ours = r.anova[case]
    paper = ALLOCATION[case]
    rows = []
    for name, attr in (
        ("individual values (SSY)", "ss_y"),
        ("overall mean (SS0)", "ss_0"),
        ("total (SST)", "ss_t"),
    ):
        key = {"ss_y": "ssy", "ss_0": "ss0", "ss_t": "sst"}[attr]
        row: dict[str, Any] = {"component": name}
        for i, resp in enumerate(RESPONSES):
            row[f"SS {resp} (ours)"] = _f(getattr(ours[resp], attr))
            row[f"SS {resp} (paper)"] = _f(paper[key][i])
        rows.append(row)
    for comp in COMPONENTS:
        row = {"component": comp}
        for i, resp in enumerate(RESPONSES):
            c = _component(ours[resp], comp)
            row[f"SS {resp} (ours)"] = _f(c.ss)
            row[f"SS {resp} (paper)"] = _f(paper[comp][i])
            row[f"% {resp} (ours)"] = f"{c.percent:.2f}"
            row[f"% {resp} (paper)"] = f"{paper[comp][2 + i]:.2f}"
        rows.append(row)
    n = TABLE_NUMBERS[case][1]
    a = ours["efficiency"]
    return Table(
        f"{CASE_NAMES[case]}: allocation of variation, our runs beside the paper's Table {n}",
        pd.DataFrame(rows).fillna(""),
        f"Ours: Jain's factorial analysis (tcplab.analysis.anova) of our {a.n} runs ({a.replications} "
        f"per configuration; error degrees of freedom {a.dof_e}). Paper: Goyal et al. (1998), Table {n} "
        "(one run per configuration; the error term is the second-order interaction, 6 degrees of freedom). "
        "SSY and SS0 grow with the number of observations, so with replications compare the percentages. "
        "The standard error se of each analysis is the last row of the main effects' table below.",
    )


def _component(a: AnovaResult, name: str) -> Any:
    return a.component(*name.split(" x "))


def _interval(effect: float, low: float | None, high: float | None) -> str:
    if low is None or high is None or math.isnan(low):
        return f"{effect:+.4f}"
    return f"{effect:+.4f} ({low:+.4f}, {high:+.4f})"


def _effects(r: Results, case: str) -> Table:
    ours = r.anova[case]
    rows = []
    for factor in FACTORS:
        for level in ours["efficiency"].levels[factor]:
            row: dict[str, Any] = {"factor": factor, "level": level}
            for i, resp in enumerate(RESPONSES):
                e = ours[resp].effect(factor, level)
                row[f"{resp} (ours)"] = _interval(e.effect, e.ci_low, e.ci_high)
                p = EFFECTS[case][(factor, level)][i]
                row[f"{resp} (paper)"] = _interval(*p)
            rows.append(row)
    # The standard error sets every interval above: its row sits under the responses it belongs to.
    paper = ALLOCATION[case]["se"]
    se_row: dict[str, Any] = {"factor": "standard error se", "level": ""}
    for i, resp in enumerate(RESPONSES):
        se_row[f"{resp} (ours)"] = _f(ours[resp].se)
        se_row[f"{resp} (paper)"] = _f(paper[i])
    rows.append(se_row)
    n = TABLE_NUMBERS[case][2]
    return Table(
        f"{CASE_NAMES[case]}: main effects with 90% confidence intervals, ours beside the paper's Table {n}",
        pd.DataFrame(rows),
        "An effect is significant when its interval excludes 0. Ours from our runs; paper: Goyal et al. "
        f"(1998), Table {n}; the paper's se is printed with Table {TABLE_NUMBERS[case][1]}.",
    )
