#!/usr/bin/env python3
"""Speed of tcplab vs ns-3 on the bench dumbbell: packets forwarded per wall second.

Standard library only; run with any python3 after `bash bench/ns3_compare/setup.sh`.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NS3_PYTHON = HERE / ".venv-ns3" / "bin" / "python"
TCPLAB = REPO / ".venv" / "bin" / "tcplab"
TIMEOUT_S = 1800  # far above any expected run; only guards against a hang


def last_json(stdout: str) -> dict:
    """The last stdout line that is a JSON object (tools may print other lines first)."""
    for line in reversed(stdout.splitlines()):
        if line.lstrip().startswith("{"):
            return json.loads(line)
    # tcplab might pretty-print over several lines.
    return json.loads(stdout)


def run_json(cmd: list[str]) -> dict:
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return last_json(proc.stdout)


def best_of(cmd: list[str], repeat: int, wall_key: str) -> dict:
    # Fastest of `repeat` runs: noise on a shared machine only ever adds time.
    return min((run_json(cmd) for _ in range(repeat)), key=lambda r: r[wall_key])


def ns3_result(flows: int, sim_time: float, sack: bool, repeat: int) -> dict:
    cmd = [str(NS3_PYTHON), str(HERE / "ns3_dumbbell.py"),
           "--flows", str(flows), "--sim-time", str(sim_time)] + (["--sack"] if sack else [])
    r = best_of(cmd, repeat, "run_wall_s")
    return {"wall_s": r["run_wall_s"], "packets_forwarded": r["packets_forwarded"],
            "sim_time_s": r["sim_time_s"], "raw": r}


def tcplab_result(flows: int, repeat: int) -> dict | str:
    """tcplab's numbers, or a string saying why there are none."""
    scenario = REPO / "scenarios" / f"bench_dumbbell_{flows}.toml"
    if not TCPLAB.exists():
        return f"tcplab not installed ({TCPLAB} missing)"
    if not scenario.exists():
        return f"scenario {scenario.relative_to(REPO)} missing"
    try:
        r = best_of([str(TCPLAB), "run", str(scenario.relative_to(REPO)), "--json"],
                    repeat, "wall_s")
        return {"wall_s": r["wall_s"], "packets_forwarded": r["packets_forwarded"],
                "sim_time_s": r["sim_time_s"], "raw": r}
    except (RuntimeError, ValueError, KeyError) as e:
        # Still show ns-3's numbers when tcplab is broken mid-development.
        return f"tcplab run failed: {type(e).__name__}: {e}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--sim-time", type=float, default=60.0, help="ns-3 simulated seconds "
                    "(tcplab's comes from its scenario file)")
    ap.add_argument("--repeat", type=int, default=3, help="keep the fastest of R runs "
                    "(the shared machine adds up to ~1.5x noise)")
    ap.add_argument("--ns3-sack", action="store_true", help="run ns-3 with SACK on")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    if not NS3_PYTHON.exists():
        print(f"ns-3 venv missing: run `bash {HERE.relative_to(REPO)}/setup.sh` first",
              file=sys.stderr)
        return 2

    results: dict[str, dict] = {}
    for n in args.flows:
        row: dict = {"ns-3": ns3_result(n, args.sim_time, args.ns3_sack, args.repeat)}
        tcplab = tcplab_result(n, args.repeat)
        if isinstance(tcplab, str):
            row["tcplab_missing"] = tcplab
        else:
            row["tcplab"] = tcplab
        for sim in ("ns-3", "tcplab"):
            if sim in row:
                row[sim]["packets_per_wall_s"] = row[sim]["packets_forwarded"] / row[sim]["wall_s"]
        if "tcplab" in row:
            row["ratio_tcplab_over_ns3"] = (row["tcplab"]["packets_per_wall_s"]
                                            / row["ns-3"]["packets_per_wall_s"])
            # Same scenario => similar packet counts (ns-3 counts data, ACKs and
            # handshakes on every link). A big gap means the two count or model
            # different things, and the speed ratio is suspect.
            pkts = row["tcplab"]["packets_forwarded"] / row["ns-3"]["packets_forwarded"]
            if row["tcplab"]["sim_time_s"] != row["ns-3"]["sim_time_s"]:
                row["warning"] = "simulated times differ"
            elif not 0.8 <= pkts <= 1.25:
                row["warning"] = f"packet counts differ: tcplab/ns-3 = {pkts:.2f}"
        results[str(n)] = row

    if args.json:
        print(json.dumps({"flows": results}, indent=2))
        return 0

    print(f"{'flows':>5}  {'simulator':<9} {'sim_s':>6} {'wall_s':>8} "
          f"{'pkts_fwd':>10} {'pkts/wall_s':>12}")
    for n, row in results.items():
        for sim in ("ns-3", "tcplab"):
            if sim in row:
                r = row[sim]
                print(f"{n:>5}  {sim:<9} {r['sim_time_s']:>6g} {r['wall_s']:>8.3f} "
                      f"{r['packets_forwarded']:>10} {r['packets_per_wall_s']:>12,.0f}")
        if "tcplab" in row:
            print(f"{'':>5}  tcplab/ns-3 speed ratio: {row['ratio_tcplab_over_ns3']:.2f}x"
                  + (f"  (WARNING: {row['warning']})" if "warning" in row else ""))
        else:
            print(f"{'':>5}  tcplab: {row['tcplab_missing']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
