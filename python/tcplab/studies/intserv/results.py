"""The study's results, derived once from the sweeps: throughput and compliant throughput per
20 s window for every flow of every run, tokens lost, and C4's 5-second packet traces.

Throughput per window is the paper's (Sec. 3): the data received in the window over its length;
compliant throughput counts only marked segments. A run's throughput is the mean of its windows
after the first (the first holds slow start from an idle network). The traces' lost tokens are
replayed from the sender's segment log through the same token bucket the core uses (the log has
every data segment with its send time, which is when the marker acts), and checked against the
core's own count at the end of the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab.analysis.stats import ok_runs
from tcplab.experiment.store import Store
from tcplab.report.study import StudyData
from tcplab.studies.intserv.scenarios import C4, DEPTH, FIG1_CONNS, HEADER, MSS, WIRE
from tcplab.studies.intserv.sweeps import MAIN_VARIANT, TRACE_LEN_S, TRACE_START_S

DEPTH_S = float(DEPTH.removesuffix("ms")) / 1000
# A stall (Sec. 6: the sender "frozen" by its window, one packet per round trip, or waiting for a
# timeout) shows as gaps between sends of at least half C4's unloaded round trip on Fig. 11
# (205 ms), which is also one 100 ms tick of ns's timer: a stop-and-wait sender leaves gaps of
# most of a round trip, while an ACK-clocked one with two or more packets spread over the round
# trip sends at least twice in it; a gap this long (twice the bucket's 50 ms) fills the bucket
# whatever it held before.
STALL_GAP_S = 0.1
WINDOW_SWEEPS = ("fig1", "fig11", "fig1_rtt", "fig1_ered", "fig1_min", "fig11_min")
FACTORS = ("scheme", "recovery", "rtt_scale", "variant", "ered")


@dataclass(frozen=True)
class Trace:
    """C4's packet trace over the 5-second window, in packets: cumulative ACK (snd_una / MSS),
    cwnd, available window (cwnd - outstanding) and tokens lost since the window's start."""

    acks: pd.DataFrame  # time_s, ack_pkts, cwnd_pkts, avail_pkts
    tokens: pd.DataFrame  # time_s, lost_pkts (cumulative from the window's start)
    lost_in_window_pkts: float
    replay_lost_bytes: float  # over the whole run, replayed
    core_lost_bytes: float  # over the whole run, the core's count
    replay_marked: int
    core_marked: int
    ssthresh_at_awnd: float  # share of the window's trace rows with ssthresh at the advertised window


@dataclass(frozen=True)
class Stall:
    """C4's stalls in one run (Sec. 6: "TCP degenerates into a stop-and-wait protocol"), counted
    from the end of the first throughput window. A *cycle* runs from a send that ends a gap of at
    least ``STALL_GAP_S`` to the next such send; a stalled cycle is one the sender spends at
    least half idle in that gap (a burst, then a wait for the next ACK). ``lost_pkts``: tokens
    lost in the stalled cycles (packets of 1040 bytes, the replayed bucket); ``stall_s`` their
    length; ``sends`` the packets sent in them."""

    lost_pkts: float
    stall_s: float
    cycles: int
    sends: int
    observed_s: float  # the time the stalls were looked for in


@dataclass(frozen=True)
class Results:
    windows: pd.DataFrame  # sweep, factors, replication, flow, window, throughput_bps, compliant_bps
    per_run: (
        pd.DataFrame
    )  # sweep, factors, replication, flow, throughput_bps, compliant_bps, tokens_lost_pkts_per_s
    traces_fig1: dict[str, Trace]  # by scheme
    traces_fig11: dict[str, Trace]  # by recovery
    window_s: float
    # sweep, factors, replication, arrivals_marked, drops_marked (over every router's ERED queue)
    routers: pd.DataFrame
    # Fig. 11's traced runs: recovery, replication, and a Stall's fields
    stalls_fig11: pd.DataFrame

    def __repr__(self) -> str:
        traces = len(self.traces_fig1) + len(self.traces_fig11)
        return f"Results(intserv: {len(self.per_run)} flow runs, {traces} traces)"

    def mean(self, sweep: str, flow: str, column: str = "throughput_bps", **levels: Any) -> float:
        """Mean over replications of a per-run quantity of one flow at one point."""
        d = self.per_run[(self.per_run["sweep"] == sweep) & (self.per_run["flow"] == flow)]
        for k, v in main_variant(sweep, levels).items():
            d = d[d[k] == v]
        if d.empty:
            raise KeyError(f"no runs for {sweep} {flow} {levels}")
        return float(d[column].mean())

    def be_mean(self, sweep: str, column: str = "throughput_bps", **levels: Any) -> float:
        """Mean over the three best-effort connections."""
        return float(np.mean([self.mean(sweep, f"BE{i}", column, **levels) for i in (1, 2, 3)]))

    def has(self, sweep: str) -> bool:
        """The sweep ran (a sensitivity stack runs the paper's sweeps only)."""
        return bool((self.per_run["sweep"] == sweep).any())

    def samples(self, sweep: str, flow: str, column: str = "throughput_bps", **levels: Any) -> np.ndarray:
        """A per-run quantity of one flow at one point, one value per replication in order."""
        d = self.per_run[(self.per_run["sweep"] == sweep) & (self.per_run["flow"] == flow)]
        for k, v in main_variant(sweep, levels).items():
            d = d[d[k] == v]
        if d.empty:
            raise KeyError(f"no runs for {sweep} {flow} {levels}")
        return d.sort_values("replication")[column].to_numpy(dtype=float)

    def be_samples(self, sweep: str, column: str = "throughput_bps", **levels: Any) -> np.ndarray:
        """The best-effort connections' mean, one value per replication."""
        return np.mean([self.samples(sweep, f"BE{i}", column, **levels) for i in (1, 2, 3)], axis=0)


def derive(data: StudyData) -> Results:
    rows: list[dict[str, Any]] = []
    routers: list[dict[str, Any]] = []
    window_s = float(data.specs["fig1"].base["series_bin"])
    with Store(data.store, create=False) as store:  # reads only
        for sweep in (s for s in WINDOW_SWEEPS if s in data.runs):
            runs = ok_runs(data[sweep])
            duration = float(data.specs[sweep].base["duration"])
            for _, run in runs.iterrows():
                report = store.report(run["key"])
                if report is None:
                    continue
                head = {"sweep": sweep, "replication": int(run["replication"])}
                head.update({f: run[f] for f in FACTORS if f in run.index})
                rows.extend(_window_rows(head, report, window_s, duration))
                routers.append({**head, **_marked_at_routers(report)})
        windows = pd.DataFrame(rows)
        per_run = _per_run(windows)
        traces_fig1, _ = _traces(data, store, "fig1_traces", "scheme", window_s)
        traces_fig11, stalls = _traces(data, store, "fig11_traces", "recovery", window_s)
    return Results(windows, per_run, traces_fig1, traces_fig11, window_s, pd.DataFrame(routers), stalls)


def _marked_at_routers(report: dict[str, Any]) -> dict[str, int]:
    """Marked packets that reached a router's ERED queue, and those it dropped (any cause)."""
    queues = [link["queue"] for link in report["links"] if link.get("queue")]
    return {
        "arrivals_marked": sum(int(q.get("arrivals_marked", 0)) for q in queues),
        "drops_marked": sum(int(q.get("drops_marked", 0)) for q in queues),
    }


def _window_rows(
    head: dict[str, Any], report: dict[str, Any], window_s: float, duration: float
) -> list[dict[str, Any]]:
    out = []
    whole = int(round(duration / window_s))
    for flow in report["flows"]:
        delivered = flow.get("delivered_series") or []
        marking = flow.get("marking") or {}
        marked = marking.get("marked_delivered_series") or []
        # Tokens lost per window, so a run's rate covers the same windows as its throughput
        # (the bucket books a loss when it next refills: at a send, or at the run's end).
        lost = marking.get("tokens_lost_series") or []
        for w in range(whole):
            got = delivered[w] if w < len(delivered) else 0
            ok = marked[w] if w < len(marked) else 0
            out.append(
                {
                    **head,
                    "flow": flow["name"],
                    "window": w,
                    "throughput_bps": got * 8 / window_s,
                    "compliant_bps": ok * 8 / window_s,
                    "tokens_lost_pkts_per_s": (lost[w] if w < len(lost) else 0.0) / WIRE / window_s,
                }
            )
    return out


def _per_run(windows: pd.DataFrame) -> pd.DataFrame:
    """Each run's mean over its windows after the first (all of them if it has only one)."""
    keys = ["sweep", *[f for f in FACTORS if f in windows.columns], "replication", "flow"]
    steady = windows[windows["window"] > 0]
    if steady.empty:
        steady = windows
    return (
        steady.groupby(keys, dropna=False, sort=False)[
            ["throughput_bps", "compliant_bps", "tokens_lost_pkts_per_s"]
        ]
        .mean()
        .reset_index()
    )


def _traces(
    data: StudyData, store: Store, sweep: str, factor: str, window_s: float
) -> tuple[dict[str, Trace], pd.DataFrame]:
    """The figures' traces (replication 0 of each point) and every replication's stalls."""
    out = {}
    stalls = []
    runs = ok_runs(data[sweep])
    rate = FIG1_CONNS[C4].reservation_bps
    for _, run in runs.sort_values("replication").iterrows():
        key = run["key"]
        report = store.report(key) or {}
        segments = store.trace(key, C4, "segments")
        end = float(report.get("sim_time_s", data.specs[sweep].base["duration"]))
        stall = stall_token_loss(
            segments["time_s"].to_numpy(dtype=float),
            segments["len"].to_numpy(dtype=float) + HEADER,
            rate,
            window_s,
            end,
        )
        stalls.append({factor: str(run[factor]), "replication": int(run["replication"]), **stall.__dict__})
        if str(run[factor]) in out:
            continue
        marking = report["flows"][C4].get("marking", {})
        trace = store.trace(key, C4, "trace")
        awnd = float(data.specs[sweep].base["tcp"]["rcv_buf"])
        out[str(run[factor])] = build_trace(trace, segments, rate, end, marking, awnd)
    return out, pd.DataFrame(stalls, columns=[factor, "replication", *Stall.__dataclass_fields__])


def stall_token_loss(
    send_times: np.ndarray,
    sizes: np.ndarray,
    rate_bps: float,
    start_s: float,
    end_s: float,
    gap_s: float = STALL_GAP_S,
) -> Stall:
    """Tokens lost while stalled (Sec. 6, ``Stall``), from the sends (times, IP bytes ``sizes``,
    in send order) of a run that ends at ``end_s``, over the cycles whose gaps start at or after
    ``start_s``; the bucket is replayed over the whole run. Over a stalled cycle of length c with
    k packets sent the bucket (full after any gap over its 50 ms) loses c x rate - k packets: the
    paper's ReservedRate - SegmentSize / RoundTripTime when k is one and c a round trip."""
    times = np.concatenate([np.asarray(send_times, dtype=float), [end_s]])
    probe_sizes = np.concatenate([np.asarray(sizes, dtype=float), [0.0]])
    _, lost_at, _ = replay_bucket(times, probe_sizes, rate_bps, DEPTH_S, end_s)
    gaps = np.diff(times)
    # the index of each send (or of the run's end) that ends a long gap
    ends = np.flatnonzero((gaps >= gap_s) & (times[:-1] >= start_s)) + 1
    a, b = ends[:-1], ends[1:]
    stalled = gaps[b - 1] >= 0.5 * (times[b] - times[a])
    a, b = a[stalled], b[stalled]
    # the bucket books a gap's loss at the send that ends it: lost_at[b] - lost_at[a] is (t_a, t_b]
    return Stall(
        lost_pkts=float((lost_at[b] - lost_at[a]).sum()) / WIRE,
        stall_s=float((times[b] - times[a]).sum()),
        cycles=int(len(a)),
        sends=int((b - a).sum()),
        observed_s=max(0.0, end_s - start_s),
    )


def replay_bucket(
    times: np.ndarray, sizes: np.ndarray, rate_bps: float, depth_s: float, end_s: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """The marker's token bucket (full at 0, tokens at ``rate_bps`` up to ``depth_s`` worth):
    whether each packet (IP bytes ``sizes``, sent at ``times``) is marked, the bytes of tokens
    lost up to each send, and the bytes lost by ``end_s``."""
    depth = rate_bps * depth_s / 8
    tokens, last, lost = depth, 0.0, 0.0
    marked = np.zeros(len(times), dtype=bool)
    lost_at = np.zeros(len(times))
    for i, (t, size) in enumerate(zip(times, sizes, strict=True)):
        tokens += (t - last) * rate_bps / 8
        last = t
        if tokens > depth:
            lost += tokens - depth
            tokens = depth
        if tokens >= size:
            tokens -= size
            marked[i] = True
        lost_at[i] = lost
    tokens += (end_s - last) * rate_bps / 8
    lost += max(0.0, tokens - depth)
    return marked, lost_at, lost


def build_trace(
    trace: pd.DataFrame,
    segments: pd.DataFrame,
    rate_bps: float,
    end_s: float,
    marking: dict[str, Any],
    awnd: float = float("inf"),
) -> Trace:
    t0, t1 = TRACE_START_S, TRACE_START_S + TRACE_LEN_S
    # Two empty probes at the window's edges read the bucket's loss count there (an empty
    # packet takes no tokens).
    times = np.concatenate([segments["time_s"].to_numpy(dtype=float), [t0, t1]])
    sizes = np.concatenate([segments["len"].to_numpy(dtype=float) + HEADER, [0.0, 0.0]])
    order = np.argsort(times, kind="stable")
    times, sizes = times[order], sizes[order]
    marked, lost_at, lost_end = replay_bucket(times, sizes, rate_bps, DEPTH_S, end_s)
    probe = sizes == 0
    base = float(lost_at[probe & (times == t0)][0])
    top = float(lost_at[probe & (times == t1)][0])
    inside = (times >= t0) & (times <= t1)
    tokens = pd.DataFrame({"time_s": times[inside], "lost_pkts": (lost_at[inside] - base) / WIRE})
    tr = trace[(trace["time_s"] >= t0) & (trace["time_s"] < t1)]
    acks = pd.DataFrame(
        {
            "time_s": tr["time_s"].to_numpy(dtype=float),
            "ack_pkts": tr["snd_una"].to_numpy(dtype=float) / MSS,
            "cwnd_pkts": tr["cwnd"].to_numpy(dtype=float) / MSS,
            "avail_pkts": (tr["cwnd"] - (tr["snd_nxt"] - tr["snd_una"])).to_numpy(dtype=float) / MSS,
        }
    )
    return Trace(
        acks=acks,
        tokens=tokens,
        lost_in_window_pkts=(top - base) / WIRE,
        replay_lost_bytes=lost_end,
        core_lost_bytes=float(marking.get("tokens_lost_bytes", float("nan"))),
        replay_marked=int((marked & ~probe).sum()),
        core_marked=int(marking.get("marked_packets", -1)),
        ssthresh_at_awnd=float((tr["ssthresh"] >= awnd).mean()) if len(tr) else float("nan"),
    )


def main_variant(sweep: str, levels: dict[str, Any]) -> dict[str, Any]:
    """Fig. 1's sweep runs three variants; unless asked, a figure or claim reads New-Reno's."""
    if sweep == "fig1" and "variant" not in levels:
        return {**levels, "variant": MAIN_VARIANT}
    return levels


def mbps(x: float) -> float:
    return round(x / 1e6, 3)
