"""The TCP Boston study's results, derived ONCE from the sweeps (``derive``) and passed to the
figures, claims and tables: one row per run with the paper's factors and metrics, their means,
the chain's wasted cell-hops, the per-second series and the lone source's average window.

``Results.judged_with("boston_bitmap")`` is the same results with the bitmap variant standing
in for IDA Boston (a diagnostic of how much the codec moves each claim); it is a new object,
nothing is changed in place.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from tcplab.analysis.stats import ok_runs
from tcplab.experiment.store import Store
from tcplab.report.study import StudyData
from tcplab.studies.boston.metrics import chain_waste, series, source_links, star_metrics
from tcplab.studies.boston.partial import PARTIAL_SWEEP, partial_rows
from tcplab.studies.boston.scenarios import CELL_BYTES, LINK_BPS, PROTOCOLS, cells_per_packet, mss_of
from tcplab.studies.boston.signatures import signature_rows
from tcplab.studies.boston.sweeps import (
    CHAIN_PROTOS,
    PROTOS,
    REF_BUFFER,
    REF_PACKET,
    REF_WINDOW,
    chain_config,
    nominal_window,
    timer_label,
)

__all__ = ["BASE_TIMER", "FACTORS", "Results", "derive", "loss_metric", "timers_run"]

FACTORS = ["protocol", "packet", "window", "buffer", "timer"]  # the index of every means table
# The timer label of runs that keep their stack preset's timer (ns1: ns-1's, 100 ms ticks, a fast
# retransmit doubling the backoff; bsd44: 500 ms tick clock); the timer sensitivity runs set
# theirs and are labelled by what they ran (sweeps.timer_label).
BASE_TIMER = "stack"
SeriesKey = tuple[int, str, int | None]  # (sources, protocol, flow or None for all)
Report = Mapping[str, Any]


@dataclass(frozen=True)
class Results:
    """``runs[kind]``: one row per run of the star sweeps of a kind ("star": the 16-source grid,
    "single": one source, "access_<model><n>": the sensitivity runs); ``means[kind]`` their means
    over replications indexed by ``FACTORS``; ``chain``: means by (m, protocol) of the chain's
    waste; ``series``: bytes per second of the first run of each series sweep; ``average_window``: the
    lone source's time-averaged window by protocol. The grid (packets, windows, buffers, access
    models, chain packet sizes) is the one the sweeps ran."""

    runs: dict[str, pd.DataFrame]
    means: dict[str, pd.DataFrame]
    chain: pd.DataFrame
    series: dict[SeriesKey, dict[str, list[int]]]
    average_window: dict[str, float]
    packets: tuple[int, ...]
    window_sizes: tuple[int, ...]
    buffers: tuple[int, ...]
    access: tuple[str, ...]
    chain_m: tuple[int, ...]
    duration_s: float  # of the star runs
    boston_as: str = "boston"  # the codec judged as TCP Boston (IDA, as in the paper)
    # One row per run of the model sweep (signatures.py); empty on a sensitivity stack.
    signatures: pd.DataFrame = field(default_factory=pd.DataFrame)
    # One row per run of Boston's partial-ACK readings (partial.py); empty on a sensitivity stack.
    partial: pd.DataFrame = field(default_factory=pd.DataFrame)
    # The lone source's first RTT sample by protocol (s): its first packet and ACK on the empty
    # network (from the series run's trace).
    first_rtt: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:
        n = sum(len(t) for t in self.runs.values())
        return f"Results(boston: {n} star runs, {len(self.chain)} chain points, judged as {self.boston_as})"

    def at(
        self,
        kind: str,
        protocol: str,
        metric: str,
        packet: int = REF_PACKET,
        window: int = REF_WINDOW,
        buffer: int = REF_BUFFER,
        timer: str = BASE_TIMER,
    ) -> float:
        """A metric's mean over replications at one point (the reference point by default)."""
        return float(self.means[kind].loc[(protocol, packet, window, buffer, timer), metric])

    def samples(
        self,
        kind: str,
        protocol: str,
        metric: str,
        packet: int = REF_PACKET,
        window: int = REF_WINDOW,
        buffer: int = REF_BUFFER,
        timer: str = BASE_TIMER,
    ) -> np.ndarray:
        """A metric's per-replication values at one point, in replication order (the points share
        seeds, so replication i of two points is a pair: tcplab.report.measure)."""
        t = self.runs[kind]
        sel = t[
            (t["protocol"] == protocol)
            & (t["packet"] == packet)
            & (t["window"] == window)
            & (t["buffer"] == buffer)
            & (t["timer"] == timer)
        ]
        return sel.sort_values("replication")[metric].to_numpy(dtype=float)

    @property
    def other(self) -> str:
        """The name of the Boston codec listed beside the judged one (not judged)."""
        return "bitmap variant" if self.boston_as == "boston" else "IDA Boston"

    def judged_with(self, codec: str) -> Results:
        """These results with ``codec`` judged as TCP Boston (its rows and Boston's swap names)."""
        if codec == self.boston_as:
            return self
        swap = {self.boston_as: codec, codec: self.boston_as}
        runs = {
            k: t.assign(protocol=t["protocol"].map(lambda p: swap.get(p, p))) for k, t in self.runs.items()
        }
        return replace(self, runs=runs, means={k: _means(t) for k, t in runs.items()}, boston_as=codec)


def derive(data: StudyData) -> Results:
    kinds: dict[str, list[pd.DataFrame]] = {}
    chain_rows: list[dict[str, Any]] = []
    lines: dict[SeriesKey, dict[str, list[int]]] = {}
    sig_parts: list[pd.DataFrame] = []
    partial_parts: list[pd.DataFrame] = []
    with Store(data.store, create=False) as store:  # reads only
        for sweep, frame in data.runs.items():
            kind, proto = _split(sweep)
            df = ok_runs(frame).reset_index(drop=True)
            reports = [store.report(k) or {} for k in df["key"]]
            if sweep == PARTIAL_SWEEP:
                partial_parts.append(partial_rows(data, df, reports))
            elif kind.startswith("sig_"):
                sig_parts.append(signature_rows(data, sweep, df, reports))
            elif kind.startswith("chain"):
                chain_rows += _chain_rows(int(kind[len("chain") :]), proto, df, reports)
            elif kind.startswith("series"):
                lines.update(_series(int(kind[len("series") :]), proto, reports))
            else:
                group, reading = _group(kind)
                kinds.setdefault(group, []).append(
                    _star_rows(df, reports, proto, data.specs[sweep].base, reading)
                )
    runs = {k: pd.concat(parts, ignore_index=True) for k, parts in kinds.items()}
    star = runs["star"]
    chain = pd.DataFrame(chain_rows).groupby(["m", "protocol"], sort=True).mean(numeric_only=True)
    return Results(
        runs=runs,
        means={k: _means(t) for k, t in runs.items()},
        chain=chain,
        series=lines,
        average_window=_average_windows(data),
        first_rtt=_first_rtts(data),
        packets=tuple(sorted(int(x) for x in star["packet"].unique())),
        window_sizes=tuple(sorted(int(x) for x in star["window"].unique())),
        buffers=tuple(sorted(int(x) for x in star["buffer"].unique())),
        access=tuple(
            dict.fromkeys(m.group(1) for k in runs if (m := re.fullmatch(r"access_([a-z]+)\d+", k)))
        ),
        chain_m=tuple(sorted({int(m) for m, _ in chain.index})),
        duration_s=float(data.specs[f"star{REF_PACKET}_reno"].base["duration"]),
        signatures=pd.concat(sig_parts, ignore_index=True) if sig_parts else pd.DataFrame(),
        partial=pd.concat(partial_parts, ignore_index=True) if partial_parts else pd.DataFrame(),
    )


def _group(kind: str) -> tuple[str, str | None]:
    """The table a star-like sweep's rows join, and the fast-retransmit reading its runs ran (None:
    not an frt sweep): "star" for every packet size's grid; the ns-1 fast-retransmit runs
    ("frt_keep_cell16": "keep") join the access runs ("access_cell16")."""
    if re.fullmatch(r"star\d+", kind):
        return "star", None
    if m := re.fullmatch(r"frt_([a-z]+)_([a-z]+\d+)", kind):
        return f"access_{m.group(2)}", m.group(1)
    return kind, None


def _split(sweep: str) -> tuple[str, str]:
    """A sweep's kind and protocol: "star9180_reno_epd" -> ("star9180", "reno_epd")."""
    for p in sorted(PROTOS, key=len, reverse=True):
        if sweep.endswith(f"_{p}"):
            return sweep[: -len(p) - 1], p
    raise ValueError(f"boston: sweep {sweep!r} names no protocol")


def _means(t: pd.DataFrame) -> pd.DataFrame:
    return t.drop(columns=["key", "replication"]).groupby(FACTORS, sort=True).mean(numeric_only=True)


def _source_means(report: Report, packet: int, protocol: str) -> dict[str, float]:
    """Per source, averaged over the sources: bytes into the switch and effective throughput."""
    flows = report["flows"]
    cap = LINK_BPS * float(report["sim_time_s"]) / 8
    cpp = cells_per_packet(packet, protocol)
    access = source_links(report)
    return {
        "source_bytes": float(np.mean([ln["tx_bytes"] for ln in access])),
        "source_eff": float(
            np.mean([f["bytes_delivered"] / mss_of(packet) * cpp * CELL_BYTES / cap for f in flows])
        ),
    }


def _star_rows(
    df: pd.DataFrame, reports: list[Report], proto: str, base: Mapping[str, Any], reading: str | None = None
) -> pd.DataFrame:
    """One row per run: the factors as the paper names them and every metric. ``reading``: the
    fast-retransmit reading of an frt sweep (its "clock" runs leave the knob to the stack)."""
    defaults = {
        "mss": base["tcp"]["mss"],
        "window": base["tcp"]["rcv_buf"],
        "buffer": base["link"][0]["ab"]["queue"],
        "timer": base["tcp"].get("timer", BASE_TIMER),
        "fr_timer": reading,
    }
    rows = []
    for (_, run), rep in zip(df.iterrows(), reports, strict=True):
        if not rep:
            continue

        def level(col: str, run: pd.Series = run) -> Any:
            v = run.get(col)
            return defaults[col] if v is None or (isinstance(v, float) and math.isnan(v)) else v

        packet = int(level("mss")) + 40
        row: dict[str, Any] = {
            "key": run["key"],
            "protocol": proto,
            "packet": packet,
            "window": nominal_window(int(level("window")), packet),
            "buffer": int(level("buffer")),
            "timer": _timer(str(level("timer")), level("fr_timer")),
            "replication": int(run["replication"]),
        }
        row.update(star_metrics(rep, packet, proto).to_dict())
        row.update(_source_means(rep, packet, proto))
        rows.append(row)
    return pd.DataFrame(rows)


def timers_run(means: pd.DataFrame) -> list[str]:
    """The timer levels of a sensitivity run's means (reset index), in the order they ran (the
    stack's own left out)."""
    return [t for t in dict.fromkeys(means["timer"]) if t != BASE_TIMER]


def _timer(timer: str, fast_retransmit: Any) -> str:
    """The run's timer label: the stack's own, or what a sensitivity level ran (sweeps.timer_label)."""
    if timer == BASE_TIMER and fast_retransmit is None:
        return BASE_TIMER
    return timer_label(timer, fast_retransmit)


def _chain_rows(m: int, proto: str, df: pd.DataFrame, reports: list[Report]) -> list[dict[str, Any]]:
    if proto not in CHAIN_PROTOS:
        raise ValueError(f"boston: no chain runs for {proto}")
    rows = []
    for (_, run), rep in zip(df.iterrows(), reports, strict=True):
        w = chain_waste(rep, chain_config(m, proto))
        rows.append(
            {
                "m": m,
                "protocol": proto,
                "replication": int(run["replication"]),
                "p": w.p,
                "packets": w.packets,
                "wasted_per_packet": w.wasted_per_packet,
                "formula_own_p": w.formula_per_packet(),
                "delta": w.delta,
                "hops": w.hops,
                "cells": w.m,
            }
        )
    return rows


def _series(sources: int, proto: str, reports: list[Report]) -> dict[SeriesKey, dict[str, list[int]]]:
    """The first run's series, for all sources and for source 0 alone."""
    if not reports:
        return {}
    return {(sources, proto, flow): series(reports[0], flow) for flow in (None, 0)}


def _average_windows(data: StudyData) -> dict[str, float]:
    """Time-average of min(cwnd, receive window) of the lone source (trace of the series run)."""
    out: dict[str, float] = {}
    for proto in PROTOS:
        sweep = f"series1_{proto}"
        if sweep not in data.runs:
            continue
        df = ok_runs(data[sweep])
        if df.empty:
            continue
        try:
            tr = data.trace(df["key"].iloc[0], 0)
        except FileNotFoundError:
            continue
        t = tr["time_s"].to_numpy(dtype=float)
        w = np.minimum(tr["cwnd"].to_numpy(dtype=float), REF_WINDOW)
        if t.size < 2:
            continue
        end = float(data.specs[sweep].base["duration"])
        dt = np.diff(np.append(t, end))
        out[proto] = float(np.sum(w * dt) / np.sum(dt))
    return out


def _first_rtts(data: StudyData) -> dict[str, float]:
    """The first RTT sample of data in the lone source's traced run, by protocol (on a stack with
    a handshake the SYN's sample comes first and is left out: it carries no packet's cells)."""
    out: dict[str, float] = {}
    for proto in PROTOS:
        sweep = f"series1_{proto}"
        if sweep not in data.runs or (df := ok_runs(data[sweep])).empty:
            continue
        try:
            tr = data.trace(df["key"].iloc[0], 0)
            samples = tr.loc[tr["snd_una"] > 1, "rtt_sample_s"].dropna()  # data, not a SYN
        except (FileNotFoundError, KeyError):
            continue
        if not samples.empty:
            out[proto] = float(samples.iloc[0])
    return out


def loss_metric(protocol: str) -> str:
    """The paper's loss rate of a protocol: cells for Boston, packets for Reno (with or without EPD)."""
    return "cell_loss_rate" if PROTOCOLS[protocol].codec != "plain" else "packet_loss_rate"
