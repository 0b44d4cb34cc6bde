"""A study's figure rebuilt from its result store, without running anything again.

``tcplab reproduce example_loss --quick`` (run here first if its store is missing) keeps every
run in ``OUT/example_loss/runs.sqlite``: each run's summary metrics, its whole report, and the
traced flows' congestion windows as Parquet. This script reads that store back and draws the
study's goodput figure (Vanilla, Reno, NewReno and SACK against random loss, 90% intervals)
beside the congestion window of one traced run per variant.

    python study_from_store.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import tcplab

parser = argparse.ArgumentParser(description="A study's figure rebuilt from its store.")
parser.add_argument("--quick", action="store_true", help="the study's smallest runs (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="reproduce into this folder")
args = parser.parse_args()

store = args.out / "example_loss" / "runs.sqlite"
if not store.exists():
    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    study = discover()["example_loss"]
    specs = study.tiny() if args.quick else None  # tiny: 5 s runs, 2 replications
    reproduce_study(study, args.out, quick=True, specs=specs)

runs = tcplab.load_runs(store)  # every run of every sweep in the store, one row each
print(runs.groupby("sweep").size().to_string())
loss = runs[(runs["sweep"] == "loss") & (runs["status"] == "ok")]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
tcplab.plot.response(loss, "loss", "total_goodput_bps", by="variant", ax=left)
left.set_yscale("log")
left.set_xlabel("random loss rate of data packets")
left.set_title("Goodput against random loss (from the store)")

traced = runs[(runs["sweep"] == "traces") & runs["traced"]].set_index("variant")
with tcplab.Store(store) as db:  # the same variant order, so the same colours, as on the left
    windows = {v: db.trace(traced.loc[v, "key"], flow_id=0) for v in loss["variant"].unique()}
tcplab.plot.cwnd(windows, ssthresh=False, ax=right)
right.set_title("Congestion window at 2% loss, one run per variant")
fig.savefig(args.out / "study_from_store.png", dpi=80)
print(f"figure: {args.out / 'study_from_store.png'}")
