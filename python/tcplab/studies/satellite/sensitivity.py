"""How much the readings of what the paper leaves open move the WAN results (Goyal et al., 1998).

The paper does not say when the clients start, how the hosts' timers are phased, whether the
WWW connections open with a handshake, or what its offered load came to (``network.Reading``).
This runs a link type's factorial (4 flavours x 2 drop policies x 3 buffers) under each reading
below, at the study's replication seeds (replication i here is replication i of the study's
sweep), and tabulates per reading the mean efficiency and fairness over the configurations and at
each buffer, the realised offered load and its ratio to C, and how many cells of the paper's
Table 4 (WAN) or 7 (MEO) lie within their bands (the study's per-cell claims, ``claims.py``),
beside the paper's own table. It is a diagnostic, not part of the study's claims: the primary
reading (``network.PRIMARY``) was fixed by its rule before these runs.

``python -m tcplab.studies.satellite.sensitivity [--case wan] [--duration S] [--replications N]
[--readings 0,1,2] [--csv FILE.csv] [--out FILE.md]``
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from tcplab.experiment.expand import derive_seed
from tcplab.report.claims import HOLDS
from tcplab.report.markdown import markdown_table
from tcplab.report.study import Table
from tcplab.studies.satellite.backlog import BIN_S, backlogged_servers, summary
from tcplab.studies.satellite.budget import DIAGNOSTICS, budget, budget_summary
from tcplab.studies.satellite.can_fail import paper_tables
from tcplab.studies.satellite.claims import Z90, cell_tolerance, overall_means, table_cells
from tcplab.studies.satellite.metrics import max_tcp_throughput, satellite_metrics
from tcplab.studies.satellite.network import (
    CASES,
    PRIMARY,
    T3_BPS,
    Reading,
    SatelliteConfig,
    factorial,
    satellite_scenario,
)
from tcplab.studies.satellite.paper import ALLOCATION, TABLE_NUMBERS, results_table
from tcplab.studies.satellite.results import RESPONSES, Results, from_tables
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, DROP_NAMES, FLAVOUR_NAMES, SEED

__all__ = [
    "READINGS",
    "RECORDED",
    "both_tables",
    "cells_within",
    "offered_bps",
    "recorded",
    "recorded_tables",
    "sensitivity",
    "table",
]

# Each reading changes one thing from the primary one, except the first (the study's earlier
# default, random first-batch phases) and the load reading (the batch period that makes the
# nominal offered load 45.2 x 10 / 12 = 37.7 Mb/s, about C).
READINGS: dict[str, Reading] = {
    "primary: synchronized starts": PRIMARY,
    "random first-batch phases (earlier default)": replace(PRIMARY, client_start="random"),
    "aligned host ticks": replace(PRIMARY, tick_phase="aligned"),
    "client handshake": replace(PRIMARY, handshake="client"),
    "first RTO 3 s (RFC 1122)": replace(PRIMARY, initial_rto_s=3.0),
    "batches every 12 s (load about C)": replace(PRIMARY, batch_period_s=12.0),
    "per-packet reassembly": replace(PRIMARY, reassembly="per_packet"),
}


def offered_bps(report: dict) -> float:
    """The realised offered load of a run: bytes the servers were asked for over the run time."""
    return sum(float(p["scheduled_load_bps"]) for p in report["www"])


# The first batch period, when every client's first batch is in the network at once under the
# primary reading: the columns ``*_10s`` split each run there (task of issue 21: where the gap to
# the paper comes from).
FIRST_S = 10.0


def _fluid_bound(written: list[int], capacity_bps: float, bin_s: float) -> float:
    """Bytes a work-conserving link of rate C would have delivered by the end of the run, fed
    with the servers' writes as they happened: the most any TCP could deliver."""
    queue, sent = 0.0, 0.0
    per_bin = capacity_bps * bin_s / 8
    for w in written:
        queue += w
        out = min(queue, per_bin)
        queue -= out
        sent += out
    return sent


def _summed(flows: list[dict], series: str, bins: int) -> list[int]:
    """One per-flow series summed over the flows, per bin (the core leaves off trailing bins)."""
    total = np.zeros(bins, dtype=np.int64)
    for f in flows:
        values = (f.get(series) or [])[:bins]
        total[: len(values)] += np.asarray(values, dtype=np.int64)
    return total.tolist()


def _diagnostics(report: dict, capacity_bps: float) -> dict:
    """Per-run counters behind efficiency (summed over the servers' response flows), from a
    run with ``series_bin`` = ``BIN_S``: timeouts and fast retransmits, the trunk's utilisation,
    the efficiency and load of the first batch period and of the rest, and the efficiency a
    work-conserving link would reach on the same writes (``e_bound``)."""
    flows = [report["flows"][p["response_flow"]] for p in report["www"]]
    duration = float(report["sim_time_s"])
    first = round(FIRST_S / BIN_S)
    bins = round(duration / BIN_S)
    delivered = _summed(flows, "delivered_series", bins)
    written = _summed(flows, "written_series", bins)

    def rate(byts: float, seconds: float) -> float:
        return byts * 8 / seconds / capacity_bps

    return {
        "duration_s": duration,
        "timeouts": sum(int(f["timeouts"]) for f in flows),
        "fast_retransmits": sum(int(f["fast_retransmits"]) for f in flows),
        "retransmits": sum(int(f["retransmits"]) for f in flows),
        "servers_timed_out": sum(int(f["timeouts"]) > 0 for f in flows),
        "trunk_utilization": float(report["links"][0]["utilization"]),
        "e_10s": rate(sum(delivered[:first]), FIRST_S),
        "e_after_10s": rate(sum(delivered[first:]), duration - FIRST_S),
        "load_c_10s": rate(sum(written[:first]), FIRST_S),
        "e_bound": rate(_fluid_bound(written, capacity_bps, BIN_S), duration),
        **summary(backlogged_servers(report, bins), first),
    }


def _one(job: tuple[int, SatelliteConfig]) -> dict:
    import tcplab

    replication, cfg = job
    # Series for the diagnostics; recording them changes no run (docs/satellite.md).
    report = tcplab.run(f"series_bin = {BIN_S}\n" + satellite_scenario(cfg)).report
    m = satellite_metrics(report, T3_BPS, CASES[cfg.case].mss)
    return {
        "replication": replication,
        "tcp": FLAVOUR_NAMES[cfg.flavour],
        "drop_policy": DROP_NAMES[cfg.drop],
        "buffer": BUFFER_NAMES[cfg.buffer],
        "efficiency": m.efficiency,
        "fairness": m.fairness,
        "load_c": offered_bps(report) / m.capacity_bps,
        "servers_silent": sum(x == 0 for x in m.throughputs_bps),
        **_diagnostics(report, m.capacity_bps),
    }


def sensitivity(
    duration_s: float,
    case: str = "wan",
    buffers: tuple[str, ...] = BUFFER_NAMES,
    workers: int = 2,
    csv: Path | None = None,
    replications: int = 1,
    readings: tuple[str, ...] = tuple(READINGS),
    flavours: tuple[str, ...] = tuple(FLAVOUR_NAMES),
    drops: tuple[str, ...] = tuple(DROP_NAMES),
) -> pd.DataFrame:
    """One row per reading, replication and run of ``case``'s factorial (at ``buffers``). Every
    row is written to ``csv`` as its run finishes, and runs already in ``csv`` (the same reading,
    replication, configuration and run time) are not run again: a killed run resumes."""
    done = pd.read_csv(csv) if csv is not None and csv.exists() else pd.DataFrame()
    rows: list[dict] = done.to_dict("records")
    have = {_key(r) for r in rows}
    for name in readings:
        jobs = [
            (i, c)
            for i in range(replications)
            for c in factorial(
                case, duration_s=duration_s, seed=derive_seed(SEED, {}, i), reading=READINGS[name]
            )
            if BUFFER_NAMES[c.buffer] in buffers and c.flavour in flavours and c.drop in drops
            if _job_key(name, i, c) not in have
        ]
        with ProcessPoolExecutor(workers) as pool:
            for row in pool.map(_one, jobs):
                rows.append({"reading": name, **row})
                if csv is not None:
                    pd.DataFrame(rows).to_csv(csv, index=False)
    return pd.DataFrame(rows)


def _key(row: dict) -> tuple:
    # Runs recorded before the column existed were 50 s runs.
    duration = float(row.get("duration_s", 50.0))
    return (row["reading"], int(row["replication"]), row["tcp"], row["drop_policy"], row["buffer"], duration)


def _job_key(reading: str, replication: int, cfg: SatelliteConfig) -> tuple:
    return (
        reading,
        replication,
        FLAVOUR_NAMES[cfg.flavour],
        DROP_NAMES[cfg.drop],
        BUFFER_NAMES[cfg.buffer],
        float(cfg.duration_s),
    )


def _results(g: pd.DataFrame, case: str) -> Results:
    runs = g[["tcp", "drop_policy", "buffer", "replication", "efficiency", "fairness"]]
    return from_tables({case: runs}, replications=int(runs["replication"].nunique()))


def cells_within(g: pd.DataFrame, case: str = "wan") -> dict[str, str]:
    """How many cells of the paper's Table 4 (WAN) or 7 (MEO) one reading's runs bring within
    their bands, per response: the study's per-cell claims on these runs alone. GEO has no
    per-configuration table (Table 10's body is missing): whether its overall means are within
    theirs (the study's GEO value claims, Table 11)."""
    if g.groupby("replication").size().min() < len(factorial(case)):
        return {}  # not the whole factorial (a subset run with --buffers, --flavours or --drops)
    r = _results(g, case)
    if results_table(case) is None:
        return {
            f"mean in band, {claim.id.rsplit('_', 1)[1]}": "yes" if claim.verdict == HOLDS else "no"
            for claim in overall_means(r)
        }
    out = {}
    for claim in table_cells(r):
        if claim.id.startswith(f"{case}_table"):
            inside = sum(c.verdict == HOLDS for c in claim.cells)
            out[f"cells in band, {claim.id.rsplit('_', 1)[1]}"] = f"{inside}/{len(claim.cells)}"
    return out


def _inside(g: pd.DataFrame, case: str, resp: str, paper_se_only: bool) -> int:
    """Cells of Table 4/7 whose mean over ``g``'s replications is within its band: the study's
    band, or 1.645 x the paper's own se alone (one band for every reading)."""
    paper = results_table(case)
    assert paper is not None
    if paper_se_only:
        tol = Z90 * ALLOCATION[case]["se"][RESPONSES.index(resp)]
    else:
        tol = cell_tolerance(_results(g, case), case)[resp]
    ours = g.groupby(["tcp", "drop_policy", "buffer"])[resp].mean()
    theirs = paper.set_index(["tcp", "drop_policy", "buffer"])[resp]
    return int(((ours.reindex(theirs.index) - theirs).abs() <= tol).sum())


def both_tables(wan: pd.DataFrame, meo: pd.DataFrame) -> pd.DataFrame:
    """Per reading run on both WAN and MEO: the cells of Tables 4 and 7 within their bands, each
    and together (of 96); and the same with every band 1.645 x the paper's se alone, the same
    width for every reading (so a reading's own spread cannot widen its bands)."""
    out = []
    for name in [n for n in wan["reading"].unique() if n in set(meo["reading"])]:
        w, m = wan[wan["reading"] == name], meo[meo["reading"] == name]
        row: dict = {"reading": name}
        total = total_paper = 0
        for case, g in (("wan", w), ("meo", m)):
            for resp in RESPONSES:
                k = _inside(g, case, resp, paper_se_only=False)
                row[f"{case.upper()} {resp[0].upper()}"] = k
                total += k
                total_paper += _inside(g, case, resp, paper_se_only=True)
        row["both tables (of 96)"] = total
        row["both, paper's se alone (of 96)"] = total_paper
        out.append(row)
    return pd.DataFrame(out)


def _paper(case: str) -> tuple[str, pd.DataFrame]:
    """The paper's row: Table 4 or 7; for GEO, Tables 11 and 12's additive model (its overall
    mean plus the main effects), whose mean at each buffer is the paper's."""
    if (t := results_table(case)) is not None:
        return f"paper (Table {TABLE_NUMBERS[case][0]})", t
    return f"paper (Tables {TABLE_NUMBERS[case][1]}-{TABLE_NUMBERS[case][2]})", paper_tables()[case]


def table(df: pd.DataFrame, case: str = "wan") -> pd.DataFrame:
    """Mean efficiency and fairness per buffer, with the load, one row per reading (and the
    paper's row)."""
    out = []
    for name, g in [_paper(case), *df.groupby("reading", sort=False)]:
        row: dict = {"reading": name}
        row["E mean"] = round(float(g["efficiency"].mean()), 3)
        row["F mean"] = round(float(g["fairness"].mean()), 3)
        for b in BUFFER_NAMES:
            at = g[g["buffer"] == b]
            if len(at):
                row[f"E {b}"] = round(float(at["efficiency"].mean()), 3)
                row[f"F {b}"] = round(float(at["fairness"].mean()), 3)
        if "load_c" in g:
            row["load/C"] = round(float(g["load_c"].mean()), 3)
            row["silent servers (max)"] = int(g["servers_silent"].max())
            row |= cells_within(g, case)
        out.append(row)
    return pd.DataFrame(out)


# Runs of this module recorded with the study (one row per run, as ``--csv`` writes them), shown
# in the study's report: they take far longer than a reproduction. A file is named by its link
# type (``wan.csv``, ``meo_100s.csv``); each file's provenance (the command, the date, the
# machine's load) is in docs/satellite.md.
RECORDED = Path(__file__).parent / "sensitivity_runs"


def recorded() -> list[tuple[str, float, pd.DataFrame]]:
    """The recorded runs: (link type, run time, one row per run), per file."""
    out = []
    for path in sorted(RECORDED.glob("*.csv")):
        df = pd.read_csv(path)
        # Runs recorded before the column existed were 50 s runs.
        df["duration_s"] = df["duration_s"].fillna(50.0) if "duration_s" in df else 50.0
        duration = float(df["duration_s"].max())
        out.append((path.stem.split("_")[0], duration, df.assign(source=path.name)))
    return out


def recorded_tables() -> list[Table]:
    """The recorded sensitivity runs, one table per file, with each reading's mean over
    configurations, per buffer, and its count of Table 4/7 cells within their bands; the two
    tables' counts together, from each link type's longest runs; and where the efficiency goes."""
    out = []
    runs = recorded()
    for case, duration, df in runs:
        reps = int(df["replication"].nunique())
        t = table(df, case)
        note = (
            f"Every configuration of the factorial (24 per reading) under each reading of what the paper "
            f"leaves open, {reps} replication(s) of {duration:g} s at the study's seeds, run by "
            "`python -m tcplab.studies.satellite.sensitivity` and recorded in "
            f"tcplab/studies/satellite/sensitivity_runs/{df['source'].iloc[0]} (docs/satellite.md says "
            "when and how). E and F: mean efficiency and fairness; 'silent servers': the most servers, "
            "in any run, whose clients received nothing; 'cells in band': the study's per-cell claims on "
            "that reading's runs alone (GEO: whether the overall means are within the GEO value claims' "
            "bands). The primary reading was fixed by its rule before these runs."
        )
        title = f"{case.upper()}, {duration:g} s runs: the results under each reading of the start of a run"
        out.append(Table(title, t.astype(object).fillna(""), note))
    # Each link type's longest recorded runs (then the most replications).
    longest = {}
    for case, duration, df in sorted(runs, key=lambda r: (r[1], r[2]["replication"].nunique())):
        longest[case] = (duration, df)
    if "wan" in longest and "meo" in longest and len(b := both_tables(longest["wan"][1], longest["meo"][1])):
        (dw, wan), (dm, meo) = longest["wan"], longest["meo"]
        note = (
            "Cells of the paper's Tables 4 (WAN) and 7 (MEO) within their bands per reading run on both, "
            "from "
            f"the longest recorded runs of each ({wan['source'].iloc[0]}: {dw:g} s; {meo['source'].iloc[0]}: "
            f"{dm:g} s): the study's bands (from the paper's se and the reading's own spread), and, as a "
            "check, bands of 1.645 x the paper's se alone, the same for every reading."
        )
        title = f"Tables 4 and 7 together (WAN {dw:g} s runs, MEO {dm:g} s runs): cells within their bands"
        out.append(Table(title, b, note))
    return out + [t for case, duration, df in runs for t in _budget_tables(case, duration, df)]


def _budget_tables(case: str, duration: float, df: pd.DataFrame) -> list[Table]:
    """Where the efficiency goes (``budget``), for files recorded with the diagnostics: per
    reading and flavour, and per configuration under the primary reading."""
    if not set(DIAGNOSTICS) <= set(df.columns):
        return []
    df = df.dropna(subset=list(DIAGNOSTICS))  # readings recorded before the diagnostics have none
    where = f"{case.upper()}, {duration:g} s runs"
    note = (
        f"{where} ({df['source'].iloc[0]}), in units of C, means over replications: 'bound', what a "
        "trunk busy whenever a server had data would have delivered; 'busy', the trunk's utilisation; "
        "'idle, work waiting' = bound - busy; 'cells not goodput' = busy - E (retransmissions, frames cut "
        "by the switch, short segments' padding, ACKs of the requests); timeouts per server over the run; "
        "E in the first batch period and after; 'backlogged', servers with data waiting after 10 s "
        "(tcplab/studies/satellite/budget.py)."
    )
    out = [Table(f"{where}: where the efficiency goes, per reading", budget_summary(df, case), note)]
    primary = df[df["reading"] == next(n for n, r in READINGS.items() if r == PRIMARY)]
    if len(primary):
        title = f"{where}, primary reading: where the efficiency goes, per configuration"
        out.append(Table(title, budget(primary, case), note))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=50.0, help="run time, seconds")
    ap.add_argument("--out", type=Path, default=None, help="also write the table as Markdown here")
    ap.add_argument("--csv", type=Path, default=None, help="also write every run's row here")
    ap.add_argument("--buffers", default=",".join(BUFFER_NAMES), help="buffers to run, e.g. '0.5 RTT'")
    ap.add_argument("--case", default="wan", choices=sorted(CASES), help="link type")
    ap.add_argument("--flavours", default=",".join(FLAVOUR_NAMES), help="flavours to run, e.g. 'sack'")
    ap.add_argument("--drops", default=",".join(DROP_NAMES), help="drop policies to run: epd, sd")
    ap.add_argument("--replications", type=int, default=2, help="replications (the study's seeds)")
    ap.add_argument("--workers", type=int, default=2, help="runs at once")
    names = list(READINGS)
    ap.add_argument(
        "--readings",
        default=",".join(str(i) for i in range(len(names))),
        help="readings to run, by index: " + "; ".join(f"{i} {n}" for i, n in enumerate(names)),
    )
    args = ap.parse_args()
    buffers = tuple(b.strip() for b in args.buffers.split(","))
    readings = tuple(names[int(i)] for i in args.readings.split(","))
    df = sensitivity(
        args.duration,
        case=args.case,
        buffers=buffers,
        csv=args.csv,
        replications=args.replications,
        readings=readings,
        workers=args.workers,
        flavours=tuple(args.flavours.split(",")),
        drops=tuple(args.drops.split(",")),
    )
    t = table(df[df["buffer"].isin(buffers)] if len(df) else df, args.case)
    if len(buffers) < len(BUFFER_NAMES):
        t = t[[c for c in t.columns if not any(b in c for b in BUFFER_NAMES if b not in buffers)]]
    c = max_tcp_throughput(T3_BPS, CASES[args.case].mss) / 1e6
    rows = "\n".join(markdown_table(list(t.columns), t.values.tolist()))
    text = (
        f"{args.case.upper()}, {args.duration:g} s runs, {args.replications} replication(s) "
        f"(the study's seeds from {SEED}), buffers {', '.join(buffers)}; C = {c:.2f} Mb/s; paper: Table "
        f"{TABLE_NUMBERS[args.case][0]}\n\n"
    )
    text += rows
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.csv:
        df.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
