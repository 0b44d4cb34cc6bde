#!/usr/bin/env python3
"""Speed of tcplab vs ns-3 on the bench dumbbell: packets forwarded per wall second.

Standard library only; run with any python3 after `bash bench/ns3_compare/setup.sh`.
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
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
QDISCS = ("drop-tail", "codel")


@dataclass(frozen=True)
class Codel:
    """The CoDel bottleneck of `--qdisc codel`, given to both simulators (RFC 8289's defaults,
    tcplab's `codel` defaults and ns-3's CoDelQueueDisc defaults alike)."""

    target_ms: float = 5.0
    interval_ms: float = 100.0

    def ns3_args(self) -> list[str]:
        return ["--qdisc", "codel", "--codel-target-ms", f"{self.target_ms:g}",
                "--codel-interval-ms", f"{self.interval_ms:g}"]

    def tcplab_qdisc(self) -> str:
        """tcplab's inline `qdisc` table (ECN off, as ns-3's UseEcn default)."""
        return (f'{{ kind = "codel", target = "{self.target_ms:g}ms", '
                f'interval = "{self.interval_ms:g}ms", ecn = false }}')


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


def jain(xs: list[float]) -> float:
    """Jain's fairness index: 1 when every flow gets the same goodput."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else 0.0


def sojourn_summary(samples_ms: list[float]) -> dict:
    """Mean, median and 90th percentile, computed as ns3_dumbbell.py computes ns-3's."""
    if len(samples_ms) < 2:
        return {"n": len(samples_ms)}
    deciles = statistics.quantiles(samples_ms, n=10, method="inclusive")
    return {"n": len(samples_ms), "mean_ms": round(statistics.fmean(samples_ms), 4),
            "p50_ms": round(deciles[4], 4), "p90_ms": round(deciles[8], 4)}


def ns3_command(flows: int, sim_time: float, sack: bool, cc: str, codel: Codel | None) -> list[str]:
    return ([str(NS3_PYTHON), str(HERE / "ns3_dumbbell.py"), "--flows", str(flows),
             "--sim-time", str(sim_time), "--cc", cc] + (["--sack"] if sack else [])
            + (codel.ns3_args() if codel else []))


def ns3_summary(r: dict) -> dict:
    out = {"wall_s": r["run_wall_s"], "packets_forwarded": r["packets_forwarded"],
           "sim_time_s": r["sim_time_s"], "goodput_bps": r["bottleneck_goodput_bps"],
           "jain": r["jain_index"], "drops": r["bottleneck_drops"],
           "recoveries": r["fast_recoveries"], "timeouts": r["timeout_sequences"],
           "queue_delay_ms": r["bottleneck_queue_delay_ms"], "raw": r}
    if r.get("qdisc") == "codel":
        out["drops_sojourn"] = r["qdisc_drops_sojourn"]
        out["drops_overflow"] = r["qdisc_drops_overflow"]
        out["sojourn"] = r["bottleneck_wait"]
    return out


def with_tcp_overrides(text: str, overrides: dict[str, str]) -> str:
    """The scenario text with extra lines in its [tcp] table (values are TOML literals)."""
    head = "[tcp]\n"
    if head not in text:
        raise ValueError("the scenario has no [tcp] table to add settings to")
    extra = "".join(f"{k} = {v}\n" for k, v in overrides.items())
    return text.replace(head, head + extra, 1)


BOTTLENECK_HEAD = "[[link]]\na = \"r1\"\nb = \"r2\"\n"


def with_bottleneck_line(text: str, line: str) -> str:
    """The scenario text with `line` added to its first link, the r1-r2 bottleneck."""
    if BOTTLENECK_HEAD not in text:
        raise ValueError("the scenario's first link is not the r1-r2 bottleneck")
    return text.replace(BOTTLENECK_HEAD, BOTTLENECK_HEAD + line + "\n", 1)


def with_bottleneck_trace(text: str) -> str:
    """The scenario text with `trace_queue` on its first link, the r1-r2 bottleneck."""
    return with_bottleneck_line(text, "trace_queue = true")


def with_bottleneck_codel(text: str, codel: Codel) -> str:
    """The scenario text with CoDel on the bottleneck's r1 -> r2 direction only (`ab`), where
    ns-3 has its CoDelQueueDisc; r2 -> r1 carries the ACKs and stays drop-tail on both sides.
    The link's `queue` (100 packets waiting) stays CoDel's physical limit."""
    return with_bottleneck_line(text, f"ab = {{ qdisc = {codel.tcplab_qdisc()} }}")


def tcplab_scenario(flows: int, stack: str | None, cc: str, codel: Codel | None) -> str:
    """The text of the tcplab scenario compare.py runs for `flows` flows."""
    scenario = REPO / "scenarios" / f"bench_dumbbell_{flows}.toml"
    overrides = dict(TCPLAB_TCP_OVERRIDES)
    if stack is not None:
        overrides["stack"] = json.dumps(stack)  # a JSON string is a valid TOML string
    if cc != "newreno":
        overrides["cc"] = json.dumps(cc)  # the scenario's variant (newreno) recovers losses
    text = with_tcp_overrides(scenario.read_text(), overrides)
    return with_bottleneck_codel(text, codel) if codel else text


def tcplab_queue_delay(scenario_text: str, tmp: Path, codel: bool, limit: int = 100) -> dict:
    """The bottleneck's (r1 -> r2, channel 0) queueing delay, from one untimed run with the
    queue trace on, measured as on the ns-3 side:
    - drop-tail: the mean wait of the packets the queue accepted, the bytes each found waiting
      over the link's rate (an arrival that found `limit` packets waiting was dropped);
    - CoDel: every departure's sojourn from `sojourn-0.csv` (arrival to the start of its
      transmission, 0 for a packet that found the link idle): mean, median, 90th percentile."""
    path = tmp / "traced.toml"
    path.write_text(with_bottleneck_trace(scenario_text))
    out = tmp / "traced-out"
    r = run_json([str(TCPLAB), "run", str(path), "--json", "--out", str(out)])
    if codel:
        rows = csv.DictReader((out / "sojourn-0.csv").open())
        summary = sojourn_summary([float(row["sojourn_s"]) * 1000 for row in rows])
        return {"queue_delay_ms": summary.get("mean_ms", 0.0), "sojourn": summary}
    rate = next(c["rate_bps"] for c in r["links"] if (c["from"], c["to"]) == ("r1", "r2"))
    found = [int(row["bytes"]) for row in csv.DictReader((out / "queue-0.csv").open())
             if int(row["packets"]) < limit]
    return {"queue_delay_ms": sum(found) / max(len(found), 1) * 8 / rate * 1000}


def tcplab_summary(r: dict, queue_delay: dict) -> dict:
    """tcplab's figures with the ns-3 side's definitions: bytes the receivers' applications
    got over the whole run; drops at the bottleneck queue (r1 -> r2), the only one that drops."""
    flow_goodput = [f["bytes_delivered"] * 8 / r["sim_time_s"] for f in r["flows"]]
    bottleneck = next(c for c in r["links"] if (c["from"], c["to"]) == ("r1", "r2"))
    out = {"wall_s": r["wall_s"], "packets_forwarded": r["packets_forwarded"],
           "sim_time_s": r["sim_time_s"], "goodput_bps": sum(flow_goodput),
           "jain": jain(flow_goodput), "drops": bottleneck["drops_queue"],
           "recoveries": sum(f["fast_retransmits"] for f in r["flows"]),
           "timeouts": sum(f["timeouts"] for f in r["flows"]), **queue_delay, "raw": r}
    if "sojourn" in queue_delay:
        causes = bottleneck["queue"]  # a named discipline's drops by cause
        out["drops_sojourn"] = causes["drops_sojourn"]
        out["drops_overflow"] = causes["drops_overflow"]
    return out


def tcplab_missing(flows: int) -> str | None:
    """Why tcplab cannot run here, or None."""
    scenario = REPO / "scenarios" / f"bench_dumbbell_{flows}.toml"
    if not TCPLAB.exists():
        return f"tcplab not installed ({TCPLAB} missing)"
    if not scenario.exists():
        return f"scenario {scenario.relative_to(REPO)} missing"
    return None


def run_pair(flows: int, args: argparse.Namespace, codel: Codel | None) -> dict:
    """ns-3 and tcplab on `flows` flows, alternating run by run (so a change in the machine's
    load falls on both), each keeping its fastest of `--repeat` runs: noise on a shared
    machine only ever adds time. tcplab's queue delay comes from one more, untimed run."""
    ns3_cmd = ns3_command(flows, args.sim_time, args.ns3_sack, args.cc, codel)
    missing = tcplab_missing(flows)
    with tempfile.TemporaryDirectory(prefix="ns3cmp-") as tmp:
        text = ""
        if missing is None:
            try:
                text = tcplab_scenario(flows, args.stack, args.cc, codel)
            except ValueError as e:
                missing = f"tcplab scenario: {e}"
        path = Path(tmp) / f"bench_dumbbell_{flows}.toml"
        path.write_text(text)
        ns3_runs, tcplab_runs = [], []
        for _ in range(args.repeat):
            ns3_runs.append(run_json(ns3_cmd))
            if missing is None:
                try:
                    tcplab_runs.append(run_json([str(TCPLAB), "run", str(path), "--json"]))
                except (RuntimeError, KeyError) as e:
                    # Still show ns-3's numbers when tcplab is broken mid-development.
                    missing = f"tcplab run failed: {type(e).__name__}: {e}"
        row: dict = {"ns-3": ns3_summary(min(ns3_runs, key=lambda r: r["run_wall_s"]))}
        if missing is None:
            try:
                delay = tcplab_queue_delay(text, Path(tmp), codel is not None)
                row["tcplab"] = tcplab_summary(min(tcplab_runs, key=lambda r: r["wall_s"]), delay)
            except (RuntimeError, KeyError, StopIteration) as e:
                missing = f"tcplab run failed: {type(e).__name__}: {e}"
        if missing is not None:
            row["tcplab_missing"] = missing
    return row


def codel_columns(r: dict) -> str:
    """Under CoDel: the sojourn's median and 90th percentile, and the drops by cause."""
    if "sojourn" not in r:
        return ""
    q = r["sojourn"]
    return (f" {q.get('p50_ms', float('nan')):>7.2f} {q.get('p90_ms', float('nan')):>7.2f} "
            f"{r['drops_sojourn']:>6} {r['drops_overflow']:>6}")


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
    ap.add_argument("--qdisc", choices=QDISCS, default="drop-tail",
                    help="the bottleneck's queue on both sides: drop-tail (100 packets) or "
                    "CoDel (RFC 8289: ns-3's CoDelQueueDisc, tcplab's qdisc kind codel)")
    ap.add_argument("--codel-target-ms", type=float, default=Codel.target_ms)
    ap.add_argument("--codel-interval-ms", type=float, default=Codel.interval_ms)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    codel = (Codel(args.codel_target_ms, args.codel_interval_ms)
             if args.qdisc == "codel" else None)

    if not NS3_PYTHON.exists():
        print(f"ns-3 venv missing: run `bash {HERE.relative_to(REPO)}/setup.sh` first",
              file=sys.stderr)
        return 2

    results: dict[str, dict] = {}
    for n in args.flows:
        row = run_pair(n, args, codel)
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
          f"{'qdelay_ms':>9}" + (f" {'p50_ms':>7} {'p90_ms':>7} {'codel':>6} {'overfl':>6}"
                                 if codel else ""))
    for n, row in results.items():
        for sim in ("ns-3", "tcplab"):
            if sim in row:
                r = row[sim]
                print(f"{n:>5}  {sim:<9} {r['sim_time_s']:>6g} {r['wall_s']:>8.3f} "
                      f"{r['packets_forwarded']:>10} {r['packets_per_wall_s']:>12,.0f} "
                      f"{r['goodput_bps'] / 1e6:>12.3f} {r['jain']:>6.3f} {r['drops']:>6} "
                      f"{r['recoveries']:>6} {r['timeouts']:>5} {r['queue_delay_ms']:>9.2f}"
                      + codel_columns(r))
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
