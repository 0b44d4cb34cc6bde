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

import pandas as pd

from tcplab.experiment.expand import derive_seed
from tcplab.report.claims import HOLDS
from tcplab.report.markdown import markdown_table
from tcplab.report.study import Table
from tcplab.studies.satellite.claims import table_cells
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
from tcplab.studies.satellite.paper import TABLE_NUMBERS, results_table
from tcplab.studies.satellite.results import from_tables
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, DROP_NAMES, FLAVOUR_NAMES, SEED

__all__ = ["READINGS", "RECORDED", "cells_within", "offered_bps", "recorded_tables", "sensitivity", "table"]

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
}


def offered_bps(report: dict) -> float:
    """The realised offered load of a run: bytes the servers were asked for over the run time."""
    return sum(float(p["scheduled_load_bps"]) for p in report["www"])


def _one(job: tuple[int, SatelliteConfig]) -> dict:
    import tcplab

    replication, cfg = job
    report = tcplab.run(satellite_scenario(cfg)).report
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
    }


def sensitivity(
    duration_s: float,
    case: str = "wan",
    buffers: tuple[str, ...] = BUFFER_NAMES,
    workers: int = 2,
    csv: Path | None = None,
    replications: int = 1,
    readings: tuple[str, ...] = tuple(READINGS),
) -> pd.DataFrame:
    """One row per reading, replication and run of ``case``'s factorial (at ``buffers``); each
    reading's rows are appended to ``csv`` as they finish."""
    rows: list[dict] = []
    for name in readings:
        jobs = [
            (i, c)
            for i in range(replications)
            for c in factorial(
                case, duration_s=duration_s, seed=derive_seed(SEED, {}, i), reading=READINGS[name]
            )
            if BUFFER_NAMES[c.buffer] in buffers
        ]
        with ProcessPoolExecutor(workers) as pool:
            rows += [{"reading": name, **r} for r in pool.map(_one, jobs)]
        if csv is not None:
            pd.DataFrame(rows).to_csv(csv, index=False)
    return pd.DataFrame(rows)


def cells_within(g: pd.DataFrame, case: str = "wan") -> dict[str, str]:
    """How many cells of the paper's Table 4 (WAN) or 7 (MEO) one reading's runs bring within
    their bands, per response: the study's per-cell claims on these runs alone."""
    if results_table(case) is None or g["buffer"].nunique() < len(BUFFER_NAMES):
        return {}
    runs = g[["tcp", "drop_policy", "buffer", "replication", "efficiency", "fairness"]]
    r = from_tables({case: runs}, replications=int(runs["replication"].nunique()))
    out = {}
    for claim in table_cells(r):
        if claim.id.startswith(f"{case}_table"):
            inside = sum(c.verdict == HOLDS for c in claim.cells)
            out[f"cells in band, {claim.id.rsplit('_', 1)[1]}"] = f"{inside}/{len(claim.cells)}"
    return out


def table(df: pd.DataFrame, case: str = "wan") -> pd.DataFrame:
    """Mean efficiency and fairness per buffer, with the load, one row per reading (and the
    paper's Table 4 row)."""
    out = []
    groups = [("paper", results_table(case))] if results_table(case) is not None else []
    groups += list(df.groupby("reading", sort=False))
    for name, g in groups:
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
# in the study's report: they take far longer than a reproduction. Each file's provenance (the
# command, the date, the machine's load) is in docs/satellite.md.
RECORDED = Path(__file__).parent / "sensitivity_runs"


def recorded_tables() -> list[Table]:
    """The recorded sensitivity runs, one table per link type, with each reading's mean over
    configurations, per buffer, and its count of Table 4/7 cells within their bands."""
    out = []
    for path in sorted(RECORDED.glob("*.csv")):
        case = path.stem
        df = pd.read_csv(path)
        reps = int(df["replication"].nunique())
        t = table(df, case)
        configs = len(df) // max(reps, 1) // max(df["reading"].nunique(), 1)
        note = (
            f"Every configuration of the factorial ({configs} per reading) under each reading of what "
            f"the paper leaves open, {reps} replication(s) of 50 s at the study's seeds, run by "
            "`python -m tcplab.studies.satellite.sensitivity` and recorded in "
            f"tcplab/studies/satellite/sensitivity_runs/{path.name} (docs/satellite.md says when and "
            "how). E and F: mean efficiency and fairness; 'silent servers': the most servers, in any "
            "run, whose clients received nothing; 'cells in band': the study's per-cell claims on that "
            "reading's runs alone. The primary reading was fixed by its rule before these runs."
        )
        title = f"{case.upper()}: the results under each reading of the start of a run (recorded runs)"
        out.append(Table(title, t.astype(object).fillna(""), note))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=50.0, help="run time, seconds")
    ap.add_argument("--out", type=Path, default=None, help="also write the table as Markdown here")
    ap.add_argument("--csv", type=Path, default=None, help="also write every run's row here")
    ap.add_argument("--buffers", default=",".join(BUFFER_NAMES), help="buffers to run, e.g. '0.5 RTT'")
    ap.add_argument("--case", default="wan", choices=sorted(CASES), help="link type")
    ap.add_argument("--replications", type=int, default=2, help="replications (the study's seeds)")
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
