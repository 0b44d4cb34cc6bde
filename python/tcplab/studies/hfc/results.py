"""The HFC study's measured results: tables computed once from the sweeps, for figures and claims.

``derive(data)`` returns a ``Results``, computed once by the framework (``Study.derive``).
Throughputs are Mb/s per transfer (below); tables hold the mean over
replications (``mean``), the number of runs (``count``) and the half-width of a normal 90%
interval (``ci``), or percentiles.

Throughput is per transfer, as the paper's: the transfer's bytes (for HTTP, the body, not the
response header) times 8 over the time from the connection's start (the first SYN) to the moment
the PC holds the last byte. A transfer still unfinished at the end of the run is counted with
the run's whole duration (a bound from above) and reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tcplab.analysis.stats import ok_runs
from tcplab.experiment.store import Store
from tcplab.report.study import StudyData
from tcplab.studies.hfc import mss as mss_tradeoffs
from tcplab.studies.hfc import put, readings
from tcplab.studies.hfc import sweeps as sw
from tcplab.studies.hfc.buffer import MODES
from tcplab.studies.hfc.scenarios import CH_CM, HTTP_HEADER, MSS


@dataclass
class Results:
    fig3: pd.DataFrame
    fig4: pd.DataFrame
    fig4_runs: pd.DataFrame
    fig5: dict[float, dict[str, Any]]
    fig6: pd.DataFrame
    fig6_runs: pd.DataFrame
    fig7: pd.DataFrame
    fig8: pd.DataFrame
    fig8_runs: pd.DataFrame
    fig9: dict[int, dict[str, Any]]
    fig10: pd.DataFrame
    fig11: pd.DataFrame
    fig11_examples: dict[tuple[str, str], dict[str, Any]]
    fig12: pd.DataFrame
    fig13: pd.DataFrame
    fig14: pd.DataFrame
    fig15a: pd.DataFrame
    fig15b: pd.DataFrame
    fig16: pd.DataFrame
    fig16_example: dict[int, dict[str, Any]]
    fig17: pd.DataFrame
    fig18: pd.DataFrame
    tahoe: pd.DataFrame
    sec7: pd.DataFrame
    reflected: pd.DataFrame
    bufcheck: pd.DataFrame
    timeout_waits: list[float]
    fig8_every_ack: pd.DataFrame
    fig7_share: tuple[int, int]
    fig10_every_ack: pd.DataFrame
    unfinished: dict[str, int] = field(default_factory=dict)
    readings: pd.DataFrame | None = None
    fig6_ack: pd.DataFrame | None = None
    # FTP put (Sec. VI.A): mean Mb/s by config and size; the first ACK's wait per traced run
    put: pd.DataFrame | None = None
    put_first_ack: pd.DataFrame | None = None
    # the trade-offs of a smaller MSS (Sec. VI.B)
    mss: mss_tradeoffs.MssTradeoffs | None = None
    # one row per run of every sweep (configurations named), for the claims' intervals
    runs: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __repr__(self) -> str:
        tables = len(self.__dataclass_fields__)
        return f"Results(hfc: {tables} tables, {len(self.timeout_waits)} timeouts traced)"


def derive(data: StudyData) -> Results:
    """Every table the figures, claims and tables use, computed once by the framework."""
    tp = {name: throughput(data, name) for name in data.runs if not name.startswith(("fig16", "bufcheck"))}
    tp["fig12_http"] = throughput(data, "fig12_http", header=HTTP_HEADER)
    if readings.PREFIX + "fig12_http" in data.runs:
        tp[readings.PREFIX + "fig12_http"] = throughput(
            data, readings.PREFIX + "fig12_http", header=HTTP_HEADER
        )
    tp["fig11_http"] = throughput(data, "fig11_http", header=HTTP_HEADER)
    unfinished = {k: int(v["unfinished"].sum()) for k, v in tp.items() if int(v["unfinished"].sum())}

    fig6 = tp["fig6"]
    fig7 = (
        fig6.groupby(["size", "data_loss"])["mbps"]
        .agg(
            p25=lambda x: np.percentile(x, 25),
            median="median",
            p75=lambda x: np.percentile(x, 75),
            mean="mean",
            count="count",
        )
        .reset_index()
    )
    anyloss = fig6.assign(lossy=fig6["retransmits"] > 0).groupby(["size", "data_loss"])["lossy"].mean()
    fig7["lossy"] = [anyloss[(s, p)] for s, p in zip(fig7["size"], fig7["data_loss"], strict=True)]

    fig8, fig8_runs = _fig8(data, tp, "fig8")
    fig8_every, _ = _fig8(data, tp, "fig8" + sw.EVERY_ACK_SUFFIX)
    fig10 = _per_connection(data, "fig10")
    fig10_every = _per_connection(data, "fig10" + sw.EVERY_ACK_SUFFIX)

    fig11 = pd.concat(
        [_first_ack(data, "fig11_ftp", "ftp"), _first_ack(data, "fig11_http", "http")], ignore_index=True
    )
    examples = {}
    for (pattern, config), g in fig11.groupby(["pattern", "config"]):
        row = g.sort_values("first_ack_s").iloc[len(g) // 2]
        examples[(pattern, config)] = {
            "key": row["key"],
            "trace": data.trace(row["key"]),
            "first_ack_s": row["first_ack_s"],
        }

    fig12 = pd.concat(
        [
            mean_by(tp["fig12_ftp"], ["config", "size"]).assign(pattern="ftp"),
            mean_by(tp["fig12_http"], ["config", "size"]).assign(pattern="http"),
        ],
        ignore_index=True,
    )

    fig16 = ok_runs(data["fig16"])
    fig16["first"] = [int(json_first(v)) for v in fig16["drops"]]
    fig16_example = {}
    for _, row in ok_runs(data["fig16_example"]).iterrows():
        seg16 = data.trace(row["key"], kind="segments")
        tr16 = data.trace(row["key"])
        sent = seg16[seg16["offset"] == (sw.FIG16_EXAMPLE - 1) * MSS]["time_s"].iloc[0]
        fig16_example[int(row["dupack_threshold"])] = {
            "cwnd_at_loss": float(tr16[tr16["time_s"] <= sent]["cwnd"].iloc[-1]) / MSS,
            "key": row["key"],
            "timeouts": int(row["timeouts"]),
            "fast_retransmits": int(row["fast_retransmits"]),
            "segments": data.trace(row["key"], kind="segments"),
            "trace": data.trace(row["key"]),
            "time_s": float(row["mean_completion_time_s"]),
        }

    fig5, waits = _fig5(data, tp["fig5"])
    fig9 = {}
    for _, row in tp["fig9"].iterrows():
        fig9[sw.nominal_buffer(int(row["sock_buf"]))] = {
            "key": row["key"],
            "timeouts": int(row["timeouts"]),
            "fast_retransmits": int(row["fast_retransmits"]),
            "segments": data.trace(row["key"], kind="segments"),
            "trace": data.trace(row["key"]),
        }

    runs = {**tp, "fig8": fig8_runs, "fig10": _per_run(data, "fig10")}
    runs["fig10" + sw.EVERY_ACK_SUFFIX] = _per_run(data, "fig10" + sw.EVERY_ACK_SUFFIX)
    runs["fig8" + sw.EVERY_ACK_SUFFIX] = _fig8(data, tp, "fig8" + sw.EVERY_ACK_SUFFIX)[1]
    runs["fig11"] = fig11
    return Results(
        runs=runs,
        fig3=_mean_with(tp["fig3"], ["sock_buf", "ack_loss"]),
        fig4=_mean_with(tp["fig4"], ["sock_buf", "data_loss"]),
        fig4_runs=tp["fig4"],
        fig5=fig5,
        fig6=_mean_with(fig6, ["size", "data_loss"]),
        fig6_runs=fig6,
        fig6_ack=_mean_with(tp["fig6_ack"], ["size", "ack_loss"]) if "fig6_ack" in tp else None,
        fig7=fig7,
        fig8=fig8,
        fig8_runs=fig8_runs,
        fig9=fig9,
        fig10=fig10,
        fig8_every_ack=fig8_every,
        fig7_share=(int((tp["fig7_share"]["retransmits"] > 0).sum()), len(tp["fig7_share"])),
        fig10_every_ack=fig10_every,
        fig11=fig11,
        fig11_examples=examples,
        fig12=fig12,
        fig13=_mean_with(tp["fig13"], ["config", "ack_loss"]),
        fig14=_mean_with(tp["fig14"], ["mss", "ack_loss"]),
        fig15a=_mean_with(tp["fig15a"], ["timer", "data_loss"]),
        fig15b=_mean_with(tp["fig15b"], ["timer", "ack_loss"]),
        fig16=fig16,
        fig16_example=fig16_example,
        fig17=_mean_with(tp["fig17"], ["config", "data_loss"]),
        fig18=_mean_with(tp["fig18"], ["config", "data_loss", "size"]),
        tahoe=_mean_with(tp["tahoe_rx"], ["config", "data_loss"]),
        sec7=_mean_with(tp["sec7_ack"], ["config", "ack_loss"]),
        reflected=_mean_with(tp["sec7_reflected"], ["data_loss", "ack_loss"]),
        bufcheck=_bufcheck(data),
        timeout_waits=waits,
        unfinished=unfinished,
        readings=_readings(tp),
        put=mean_by(tp[put.SWEEP], ["config", "size"]) if put.SWEEP in tp else None,
        put_first_ack=_put_first_ack(data) if put.FIRST_ACK_SWEEP in tp else None,
        mss=_mss(data, tp) if all(n in tp for n in mss_tradeoffs.SWEEPS) else None,
    )


def samples(runs: pd.DataFrame, value: str = "mbps", **where: Any) -> np.ndarray:
    """One ``value`` per run at the point ``where``, in replication order (the studies' points
    share seeds replication by replication, so two points' arrays pair up)."""
    m = np.ones(len(runs), dtype=bool)
    for k, v in where.items():
        col = runs[k]
        m &= np.isclose(col.astype(float), v) if isinstance(v, float) else (col == v).to_numpy()
    rows = runs[m]
    if "replication" in rows.columns:
        rows = rows.sort_values("replication", kind="stable")
    return rows[value].to_numpy(dtype=float)


def _per_run(data: StudyData, sweep: str) -> pd.DataFrame:
    """Fig. 10 per run: the mean throughput of its connections (each from its own start)."""
    df = ok_runs(data[sweep])
    size = int(data.specs[sweep].base["flow"][0]["bytes"])
    duration = float(data.specs[sweep].base["duration"])
    reports = _reports(data, list(df["key"]))
    rows = []
    for key, buf, rep in zip(df["key"], df["sock_buf"], df["replication"], strict=True):
        flows = reports[key]["flows"]
        times = [f["completion_time_s"] if f["completion_time_s"] is not None else duration for f in flows]
        mbps = float(np.mean([size * 8 / t / 1e6 for t in times]))
        rows.append(
            {"sock_buf": sw.nominal_buffer(int(buf)), "replication": int(rep), "key": key, "mbps": mbps}
        )
    return pd.DataFrame(rows)


def _put_first_ack(data: StudyData) -> pd.DataFrame:
    df = ok_runs(data[put.FIRST_ACK_SWEEP])
    waits = [put.first_ack_wait(data.trace(k), data.trace(k, kind="segments")) for k in df["key"]]
    return pd.DataFrame(
        {
            "config": df["config"].to_numpy(),
            "replication": df["replication"].to_numpy(),
            "key": df["key"].to_numpy(),
            "first_ack_s": waits,
        }
    )


def _mss(data: StudyData, tp: dict[str, pd.DataFrame]) -> mss_tradeoffs.MssTradeoffs:
    return mss_tradeoffs.derive(
        {n: tp[n] for n in mss_tradeoffs.SWEEPS},
        lambda keys: _reports(data, keys),
        data.trace,
    )


def _fig8(data: StudyData, tp: dict[str, pd.DataFrame], sweep: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 8's means by socket buffer and size, with timeouts, fast retransmits and CM drops."""
    runs = tp[sweep].merge(_cm_drops(data, sweep), on="key")
    out = mean_by(runs, ["sock_buf", "size"])
    for col in ("timeouts", "fast_retransmits", "cm_drops"):
        out[col] = runs.groupby(["sock_buf", "size"])[col].mean().to_numpy()
    return out, runs


def _readings(tp: dict[str, pd.DataFrame]) -> pd.DataFrame | None:
    """Both readings of the 8 KB window on ns, when the truncated sweeps ran (not on BSD)."""
    if not all(readings.PREFIX + n in tp for n in readings.SWEEPS):
        return None
    return readings.table(tp)


def json_first(cell: Any) -> int:
    import json

    values = json.loads(cell) if isinstance(cell, str) else cell
    return int(values[0])


def _mean_with(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    out = mean_by(df, by)
    g = df.groupby(by, sort=True)
    for col in ("timeouts", "fast_retransmits", "time_s"):
        out[col] = g[col].mean().to_numpy()
    out["median"] = g["mbps"].median().to_numpy()
    return out


def _reports(data: StudyData, keys: list[str]) -> dict[str, dict[str, Any]]:
    with Store(data.store, create=False) as store:  # reads only
        return {k: store.report(k) or {} for k in keys}


def _cm_drops(data: StudyData, sweep: str) -> pd.DataFrame:
    df = ok_runs(data[sweep])
    reports = _reports(data, list(df["key"]))
    return pd.DataFrame(
        {"key": df["key"], "cm_drops": [reports[k]["links"][CH_CM]["drops_queue"] for k in df["key"]]}
    )


def _per_connection(data: StudyData, sweep: str) -> pd.DataFrame:
    """Fig. 10: per-connection throughput (each transfer from its own start), CM drops, timeouts."""
    df = ok_runs(data[sweep])
    size = int(data.specs[sweep].base["flow"][0]["bytes"])
    duration = float(data.specs[sweep].base["duration"])
    reports = _reports(data, list(df["key"]))
    rows = []
    for key, buf in zip(df["key"], df["sock_buf"], strict=True):
        rep = reports[key]
        for f in rep["flows"]:
            t = f["completion_time_s"] if f["completion_time_s"] is not None else duration
            rows.append(
                {
                    "sock_buf": sw.nominal_buffer(int(buf)),
                    "key": key,
                    "mbps": size * 8 / t / 1e6,
                    "timeouts": f["timeouts"],
                    "cm_drops": rep["links"][CH_CM]["drops_queue"],
                }
            )
    flows = pd.DataFrame(rows)
    out = mean_by(flows, ["sock_buf"])
    runs = flows.groupby(["sock_buf", "key"]).agg(
        timeouts=("timeouts", "sum"), cm_drops=("cm_drops", "first")
    )
    per_buf = runs.groupby("sock_buf").mean()
    out["timeouts"] = per_buf["timeouts"].to_numpy()
    out["cm_drops"] = per_buf["cm_drops"].to_numpy()
    return out


def _first_ack(data: StudyData, sweep: str, pattern: str) -> pd.DataFrame:
    """Time from the first data segment to the first ACK that covers data (Fig. 11)."""
    df = throughput(data, sweep)
    rows = []
    for _, row in df.iterrows():
        seg = data.trace(row["key"], kind="segments")
        tr = data.trace(row["key"])
        first_send = float(seg["time_s"].iloc[0])
        acked = tr[tr["snd_una"] > 0]
        first_ack = float(acked["time_s"].iloc[0]) - first_send if len(acked) else np.nan
        rows.append(
            {
                "pattern": pattern,
                "config": row["config"],
                "replication": int(row["replication"]),
                "key": row["key"],
                "first_ack_s": first_ack,
                "mbps": row["mbps"],
            }
        )
    return pd.DataFrame(rows)


def timeouts_in_trace(trace: pd.DataFrame, segments: pd.DataFrame) -> list[tuple[float, float]]:
    """(time of the timeout, how long the timed-out segment had waited since it was last sent).

    A retransmission timeout is a trace row with cwnd back at one segment and snd_nxt pulled
    back to snd_una (go-back-N); only the first row (the handshake's) also looks like that."""
    out = []
    rows = trace.iloc[1:]
    hits = rows[(rows["cwnd"] == MSS) & (rows["snd_nxt"] == rows["snd_una"])]
    for t, una in zip(hits["time_s"], hits["snd_una"], strict=True):
        sent = segments[(segments["offset"] == una) & (segments["time_s"] < t)]
        if len(sent):
            out.append((float(t), float(t - sent["time_s"].iloc[-1])))
    return out


def _fig5(data: StudyData, df: pd.DataFrame) -> tuple[dict[float, dict[str, Any]], list[float]]:
    out: dict[float, dict[str, Any]] = {}
    waits: list[float] = []
    for p, g in df.groupby("data_loss"):
        for key in g["key"]:
            tr = data.trace(key)
            seg = data.trace(key, kind="segments")
            waits += [w for _, w in timeouts_in_trace(tr, seg)]
        row = g.sort_values("time_s").iloc[len(g) // 2]
        out[float(p)] = {
            "key": row["key"],
            "segments": data.trace(row["key"], kind="segments"),
            "trace": data.trace(row["key"]),
            "timeouts": int(row["timeouts"]),
            "time_s": float(row["time_s"]),
            "runs": len(g),
        }
    return out, waits


def _bufcheck(data: StudyData) -> pd.DataFrame:
    rows = []
    for mode in MODES:
        for n in (1, 3):
            name = f"bufcheck_{mode}_n{n}"
            df = ok_runs(data[name])
            reports = _reports(data, list(df["key"]))
            for key, buf in zip(df["key"], df["sock_buf"], strict=True):
                rep = reports[key]
                rows.append(
                    {
                        "mode": mode,
                        "connections": n,
                        "sock_buf": int(buf),
                        "cm_drops": rep["links"][CH_CM]["drops_queue"],
                        "timeouts": sum(f["timeouts"] for f in rep["flows"]),
                    }
                )
    return pd.DataFrame(rows).groupby(["mode", "connections", "sock_buf"]).mean().reset_index()


def onsets(bufcheck: pd.DataFrame) -> dict[tuple[str, int], dict[str, int | None]]:
    """Per (mode, connections): the smallest socket buffer with a CM drop, and with two or more."""
    out: dict[tuple[str, int], dict[str, int | None]] = {}
    for (mode, n), g in bufcheck.groupby(["mode", "connections"]):
        g = g.sort_values("sock_buf")
        first = g[g["cm_drops"] > 0]["sock_buf"]
        multi = g[g["cm_drops"] >= 2]["sock_buf"]
        out[(str(mode), int(n))] = {
            "first_drop": int(first.iloc[0]) if len(first) else None,
            "multiple_drops": int(multi.iloc[0]) if len(multi) else None,
        }
    return out


# ---------------------------------------------------------------- per-transfer tables


def throughput(data: StudyData, sweep: str, size: int | None = None, header: int = 0) -> pd.DataFrame:
    """The sweep's runs with ``size`` (bytes of the transfer, header left out) and ``mbps``."""
    df = ok_runs(data[sweep])
    spec = data.specs[sweep]
    if "bytes" in df.columns:
        df["size"] = df["bytes"].astype(int) - header
    else:
        df["size"] = size if size is not None else int(spec.base["flow"][0]["bytes"]) - header
    duration = float(spec.base["duration"])
    ct = df["mean_completion_time_s"].astype(float)
    df["unfinished"] = df["completed"].astype(int) < df["flows"].astype(int)
    df["time_s"] = ct.where(~df["unfinished"], duration)
    df["mbps"] = df["size"] * 8 / df["time_s"] / 1e6
    for col in ("sock_buf", "mss"):
        if col in df.columns:
            df[col] = df[col].astype(int)
    # Under ns the levels are windows in packets; tables keep the paper's nominal buffers and
    # timer granularities so figures and claims read the same on every stack.
    if "sock_buf" in df.columns:
        df["sock_buf"] = [sw.nominal_buffer(int(b)) for b in df["sock_buf"]]
    if "timer" in df.columns:
        df["timer"] = [str(t).removeprefix("ns2:") for t in df["timer"]]
    return df


def mean_by(df: pd.DataFrame, by: Sequence[str], value: str = "mbps") -> pd.DataFrame:
    g = df.groupby(list(by), sort=True)[value]
    out = g.agg(["mean", "count", "std"]).reset_index()
    out["ci"] = 1.645 * out["std"] / np.sqrt(out["count"])
    return out


def lookup(table: pd.DataFrame, value: str = "mean", **where: Any) -> float:
    m = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        col = table[k]
        m &= np.isclose(col, v) if isinstance(v, float) else (col == v).to_numpy()
    rows = table[m]
    if len(rows) != 1:
        raise KeyError(f"{len(rows)} rows match {where}")
    return float(rows[value].iloc[0])
