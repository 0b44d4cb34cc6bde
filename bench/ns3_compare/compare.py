#!/usr/bin/env python3
"""Speed of tcplab vs ns-3 on the bench dumbbell: packets forwarded per wall second.

Standard library only; run with any python3 after `bash bench/ns3_compare/setup.sh`.
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NS3_PYTHON = HERE / ".venv-ns3" / "bin" / "python"
TCPLAB = REPO / ".venv" / "bin" / "tcplab"
TIMEOUT_S = 1800  # far above any expected run; only guards against a hang
# Settings added to the bench scenario's [tcp] table so tcplab does ns-3's work:
# - ns-3's point-to-point links add a 2-byte PPP header to every packet; tcplab's wire size is
#   payload + header_bytes, so 42 makes both a 1042-byte data packet and a 42-byte ACK;
# - ns-3's BulkSend opens its connection with a three-way handshake; so does tcplab's sender.
TCPLAB_TCP_OVERRIDES = {"header_bytes": "42", "handshake": '"sender"'}
GOODPUT_GAP = 0.02  # a larger goodput difference needs an explanation (README)


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


def jain(xs: list[float]) -> float:
    """Jain's fairness index: 1 when every flow gets the same goodput."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else 0.0


def ns3_result(flows: int, sim_time: float, sack: bool, repeat: int, cc: str) -> dict:
    cmd = [str(NS3_PYTHON), str(HERE / "ns3_dumbbell.py"), "--flows", str(flows),
           "--sim-time", str(sim_time), "--cc", cc] + (["--sack"] if sack else [])
    r = best_of(cmd, repeat, "run_wall_s")
    return {"wall_s": r["run_wall_s"], "packets_forwarded": r["packets_forwarded"],
            "sim_time_s": r["sim_time_s"], "goodput_bps": r["bottleneck_goodput_bps"],
            "jain": r["jain_index"], "drops": r["bottleneck_drops"],
            "recoveries": r["fast_recoveries"], "timeouts": r["timeout_sequences"],
            "queue_delay_ms": r["bottleneck_queue_delay_ms"], "raw": r}


def with_tcp_overrides(text: str, overrides: dict[str, str]) -> str:
    """The scenario text with extra lines in its [tcp] table (values are TOML literals)."""
    head = "[tcp]\n"
    if head not in text:
        raise ValueError("the scenario has no [tcp] table to add settings to")
    extra = "".join(f"{k} = {v}\n" for k, v in overrides.items())
    return text.replace(head, head + extra, 1)


def with_bottleneck_trace(text: str) -> str:
    """The scenario text with `trace_queue` on its first link, the r1-r2 bottleneck."""
    head = "[[link]]\na = \"r1\"\nb = \"r2\"\n"
    if head not in text:
        raise ValueError("the scenario's first link is not the r1-r2 bottleneck")
    return text.replace(head, head + "trace_queue = true\n", 1)


def tcplab_queue_delay_ms(scenario_text: str, tmp: Path, limit: int = 100) -> float:
    """Mean wait of the packets the bottleneck (r1 -> r2, channel 0) accepted: the bytes each
    found waiting over the link's rate, as on the ns-3 side. One untimed run with the queue
    trace on; an arrival that found `limit` packets waiting was dropped."""
    path = tmp / "traced.toml"
    path.write_text(with_bottleneck_trace(scenario_text))
    out = tmp / "traced-out"
    r = run_json([str(TCPLAB), "run", str(path), "--json", "--out", str(out)])
    rate = next(c["rate_bps"] for c in r["links"] if (c["from"], c["to"]) == ("r1", "r2"))
    found = [int(row["bytes"]) for row in csv.DictReader((out / "queue-0.csv").open())
             if int(row["packets"]) < limit]
    return sum(found) / max(len(found), 1) * 8 / rate * 1000


def tcplab_result(flows: int, repeat: int, stack: str | None, cc: str) -> dict | str:
    """tcplab's numbers, or a string saying why there are none."""
    scenario = REPO / "scenarios" / f"bench_dumbbell_{flows}.toml"
    if not TCPLAB.exists():
        return f"tcplab not installed ({TCPLAB} missing)"
    if not scenario.exists():
        return f"scenario {scenario.relative_to(REPO)} missing"
    overrides = dict(TCPLAB_TCP_OVERRIDES)
    if stack is not None:
        overrides["stack"] = json.dumps(stack)  # a JSON string is a valid TOML string
    if cc != "newreno":
        overrides["cc"] = json.dumps(cc)  # the scenario's variant (newreno) recovers losses
    try:
        with tempfile.TemporaryDirectory(prefix="ns3cmp-") as tmp:
            path = Path(tmp) / scenario.name
            text = with_tcp_overrides(scenario.read_text(), overrides)
            path.write_text(text)
            r = best_of([str(TCPLAB), "run", str(path), "--json"], repeat, "wall_s")
            queue_delay_ms = tcplab_queue_delay_ms(text, Path(tmp))
    except (RuntimeError, ValueError, KeyError) as e:
        # Still show ns-3's numbers when tcplab is broken mid-development.
        return f"tcplab run failed: {type(e).__name__}: {e}"
    # Same definitions as the ns-3 side: bytes the receivers' applications got over the
    # whole run; drops at the bottleneck queue (R1 -> R2), the only queue that overflows.
    flow_goodput = [f["bytes_delivered"] * 8 / r["sim_time_s"] for f in r["flows"]]
    drops = sum(c["drops_queue"] for c in r["links"] if (c["from"], c["to"]) == ("r1", "r2"))
    return {"wall_s": r["wall_s"], "packets_forwarded": r["packets_forwarded"],
            "sim_time_s": r["sim_time_s"], "goodput_bps": sum(flow_goodput),
            "jain": jain(flow_goodput), "drops": drops,
            "recoveries": sum(f["fast_retransmits"] for f in r["flows"]),
            "timeouts": sum(f["timeouts"] for f in r["flows"]),
            "queue_delay_ms": queue_delay_ms, "raw": r}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--sim-time", type=float, default=60.0, help="ns-3 simulated seconds "
                    "(tcplab's comes from its scenario file)")
    ap.add_argument("--repeat", type=int, default=3, help="keep the fastest of R runs "
                    "(the shared machine adds up to ~1.5x noise)")
    ap.add_argument("--ns3-sack", action="store_true", help="run ns-3 with SACK on")
    ap.add_argument("--stack", default=None, help="tcplab TCP stack preset, passed as "
                    "[tcp] stack (only for a tcplab that has stack presets)")
    ap.add_argument("--cc", choices=["newreno", "cubic"], default="newreno",
                    help="congestion control on both sides: ns-3's TcpNewReno or TcpCubic, "
                    "tcplab's [tcp] cc")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    if not NS3_PYTHON.exists():
        print(f"ns-3 venv missing: run `bash {HERE.relative_to(REPO)}/setup.sh` first",
              file=sys.stderr)
        return 2

    results: dict[str, dict] = {}
    for n in args.flows:
        row: dict = {"ns-3": ns3_result(n, args.sim_time, args.ns3_sack, args.repeat, args.cc)}
        tcplab = tcplab_result(n, args.repeat, args.stack, args.cc)
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
            row["goodput_ratio_tcplab_over_ns3"] = (row["tcplab"]["goodput_bps"]
                                                    / row["ns-3"]["goodput_bps"])
            if row["tcplab"]["sim_time_s"] != row["ns-3"]["sim_time_s"]:
                row["warning"] = "simulated times differ"
            elif not 0.8 <= pkts <= 1.25:
                row["warning"] = f"packet counts differ: tcplab/ns-3 = {pkts:.2f}"
        results[str(n)] = row

    if args.json:
        print(json.dumps({"flows": results}, indent=2))
        return 0

    print(f"{'flows':>5}  {'simulator':<9} {'sim_s':>6} {'wall_s':>8} {'pkts_fwd':>10} "
          f"{'pkts/wall_s':>12} {'goodput_Mb/s':>12} {'jain':>6} {'drops':>6} {'recov':>6} {'RTOs':>5} "
          f"{'qdelay_ms':>9}")
    for n, row in results.items():
        for sim in ("ns-3", "tcplab"):
            if sim in row:
                r = row[sim]
                print(f"{n:>5}  {sim:<9} {r['sim_time_s']:>6g} {r['wall_s']:>8.3f} "
                      f"{r['packets_forwarded']:>10} {r['packets_per_wall_s']:>12,.0f} "
                      f"{r['goodput_bps'] / 1e6:>12.3f} {r['jain']:>6.3f} {r['drops']:>6} "
                      f"{r['recoveries']:>6} {r['timeouts']:>5} {r['queue_delay_ms']:>9.2f}")
        if "tcplab" in row:
            gap = row["goodput_ratio_tcplab_over_ns3"] - 1
            print(f"{'':>5}  tcplab/ns-3 speed ratio: {row['ratio_tcplab_over_ns3']:.2f}x, "
                  f"goodput {gap:+.1%}"
                  + (" (above 2%: see README)" if abs(gap) > GOODPUT_GAP else "")
                  + (f"  (WARNING: {row['warning']})" if "warning" in row else ""))
        else:
            print(f"{'':>5}  tcplab: {row['tcplab_missing']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
