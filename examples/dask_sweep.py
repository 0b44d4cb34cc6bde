"""A sweep on a Dask cluster: here a LocalCluster in this process, the same code for a real one.

``tcplab.sweep(spec, dask=ADDRESS)`` sends every run to the cluster's workers and stores each in
the result store as it comes back; the results are the same, bit for bit, as on local worker
processes. A LocalCluster with ``processes=False`` runs its workers as threads of this process
(the simulator releases the GIL while it runs), and ``dashboard_address=None`` opens no web
port. For a cluster of machines, pass its scheduler's address instead (``tcp://host:8786``);
every worker needs the same tcplab installed. Needs ``pip install 'tcplab[dask]'``.

    python dask_sweep.py [--quick] [--out DIR]
"""

import argparse
from pathlib import Path

import tcplab
from tcplab.experiment.scenario import dumbbell


def main() -> None:
    parser = argparse.ArgumentParser(description="A sweep on a Dask cluster.")
    parser.add_argument("--quick", action="store_true", help="5 s runs, 2 replications (for tests)")
    parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="where the store and figure go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from dask.distributed import LocalCluster

    base = dumbbell(8, duration="5s" if args.quick else "20s", stagger_s=0.1)
    base["link"][0]["loss"] = {"model": "bernoulli", "p": 0.001}  # what makes replications differ
    spec = tcplab.SweepSpec(
        name="dask_flows",
        base=base,
        factors={"tcp.variant": ["reno", "sack"], "link.0.rate": ["2Mbps", "10Mbps", "50Mbps"]},
        replications=2 if args.quick else 5,
        labels={"tcp.variant": "variant", "link.0.rate": "bottleneck"},
    )
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        result = tcplab.sweep(spec, store=args.out / "dask_flows.sqlite", dask=cluster.scheduler_address)
    print(result.summary())

    ax = tcplab.plot.response(result.df, "bottleneck", "jain_fairness", by="variant")
    ax.set_xlabel("bottleneck rate")
    ax.set_title("Eight flows: Jain's fairness index against the bottleneck rate")
    ax.figure.savefig(args.out / "dask_sweep.png", dpi=80)
    print(f"figure: {args.out / 'dask_sweep.png'}")


if __name__ == "__main__":  # a Dask cluster that spawns processes imports this file again
    main()
