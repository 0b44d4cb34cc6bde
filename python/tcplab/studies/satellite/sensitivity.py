"""How much the readings of what the paper leaves open move the WAN results (Goyal et al., 1998).

The paper does not say when the clients start, how the hosts' timers are phased, whether the
WWW connections open with a handshake, or what its offered load came to (``network.Reading``).
This runs the WAN factorial (4 flavours x 2 drop policies x 3 buffers) under each reading below,
at one seed, and tabulates the mean efficiency and fairness at each buffer, the realised offered
load and its ratio to C, beside the paper's Table 4. It is a diagnostic, not part of the study's
claims: the primary reading (``network.PRIMARY``) was fixed by its rule before these runs.

``python -m tcplab.studies.satellite.sensitivity [--duration S] [--out FILE.md]``
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pandas as pd

from tcplab.report.markdown import markdown_table
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
from tcplab.studies.satellite.paper import results_table
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, DROP_NAMES, FLAVOUR_NAMES, SEED

__all__ = ["READINGS", "offered_bps", "sensitivity", "table"]

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


def _one(cfg: SatelliteConfig) -> dict:
    import tcplab

    report = tcplab.run(satellite_scenario(cfg)).report
    m = satellite_metrics(report, T3_BPS, CASES[cfg.case].mss)
    return {
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
) -> pd.DataFrame:
    """One row per reading and run of ``case``'s factorial (at ``buffers``); each reading's rows
    are appended to ``csv`` as they finish."""
    rows: list[dict] = []
    for name, reading in READINGS.items():
        cfgs = [
            c
            for c in factorial(case, duration_s=duration_s, seed=SEED, reading=reading)
            if BUFFER_NAMES[c.buffer] in buffers
        ]
        with ProcessPoolExecutor(workers) as pool:
            rows += [{"reading": name, **r} for r in pool.map(_one, cfgs)]
        if csv is not None:
            pd.DataFrame(rows).to_csv(csv, index=False)
    return pd.DataFrame(rows)


def table(df: pd.DataFrame, case: str = "wan") -> pd.DataFrame:
    """Mean efficiency and fairness per buffer, with the load, one row per reading (and the
    paper's Table 4 row)."""
    out = []
    groups = [("paper", results_table(case))] if results_table(case) is not None else []
    groups += list(df.groupby("reading", sort=False))
    for name, g in groups:
        row: dict = {"reading": name}
        for b in BUFFER_NAMES:
            at = g[g["buffer"] == b]
            if len(at):
                row[f"E {b}"] = round(float(at["efficiency"].mean()), 3)
                row[f"F {b}"] = round(float(at["fairness"].mean()), 3)
        if "load_c" in g:
            row["load/C"] = round(float(g["load_c"].mean()), 3)
            row["silent servers (max)"] = int(g["servers_silent"].max())
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=50.0, help="run time, seconds")
    ap.add_argument("--out", type=Path, default=None, help="also write the table as Markdown here")
    ap.add_argument("--csv", type=Path, default=None, help="also write every run's row here")
    ap.add_argument("--buffers", default=",".join(BUFFER_NAMES), help="buffers to run, e.g. '0.5 RTT'")
    args = ap.parse_args()
    buffers = tuple(b.strip() for b in args.buffers.split(","))
    df = sensitivity(args.duration, buffers=buffers, csv=args.csv)
    t = table(df[df["buffer"].isin(buffers)] if len(df) else df)
    if len(buffers) < len(BUFFER_NAMES):
        t = t[[c for c in t.columns if not any(b in c for b in BUFFER_NAMES if b not in buffers)]]
    c = max_tcp_throughput(T3_BPS, CASES["wan"].mss) / 1e6
    rows = "\n".join(markdown_table(list(t.columns), t.values.tolist()))
    text = f"WAN, {args.duration:g} s runs, seed {SEED}, buffers {', '.join(buffers)}; C = {c:.2f} Mb/s\n\n"
    text += rows
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.csv:
        df.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
