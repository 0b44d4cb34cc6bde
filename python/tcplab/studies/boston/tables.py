"""The TCP Boston study's tables: every metric at the reference point, the sensitivity runs, the
chain's wasted cell-hops, and the claims that change when the bitmap variant stands in for IDA
Boston (a diagnostic)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from tcplab.report.study import Table
from tcplab.studies.boston import partial, signatures
from tcplab.studies.boston.claims import claims, epd_sensitivity
from tcplab.studies.boston.results import BASE_TIMER, Results, loss_metric, timers_run
from tcplab.studies.boston.scenarios import DEFAULT_ACCESS
from tcplab.studies.boston.sweeps import NAMES, PROTOS, REF_BUFFER, REF_PACKET, REF_WINDOW

__all__ = ["tables"]

_REF_INDEX = (REF_PACKET, REF_WINDOW, REF_BUFFER, BASE_TIMER)  # packet, window, buffer, timer
ALT_COLUMNS = ["id", "verdict (IDA Boston)", "verdict (bitmap as Boston)", "measured (bitmap as Boston)"]


def tables(r: Results) -> list[Table]:
    own: list[Table] = []
    if not r.signatures.empty:
        model = signatures.table(signatures.score(r.signatures))
        own.append(
            Table(
                "The model sweep behind the defaults (access, source queue, reassembly)",
                model,
                signatures.NOTE,
            )
        )
    if not r.partial.empty:
        own.append(
            Table(
                "Boston's partial ACK: fresh shards at the next retransmission or at once",
                partial.table(r.partial),
                partial.NOTE,
            )
        )
    epd = epd_sensitivity(r)
    if epd:
        own.append(
            Table(
                "EPD's threshold: effective throughput of Reno with EPD at three thresholds against Boston "
                "(9180 B, 64 kB window)",
                pd.DataFrame(epd).rename_axis("buffer (cells)").reset_index(),
                "The paper gives no EPD threshold; the study's is 0.8 of the buffer (as the satellite "
                "study's switches). boston_above_reno_epd is judged at 0.8; this table shows how much "
                "the threshold moves EPD against Boston.",
            )
        )
    return [
        *own,
        Table(
            "Claims that change when the bitmap variant stands in for IDA Boston (diagnostic)",
            _codec_changes(r),
            "Without redundancy both codecs send the same number of useful cells, except that 4352- and "
            "9180-byte IDA packets need N = 8m > 256 shards, so they use GF(2^16) with 2-byte ids: 94 and "
            "199 shards of 46 bytes against the bitmap variant's 92 and 195 blocks of 47. These rows are "
            "not judged; they show how much the choice of codec moves each claim (see the claim "
            "ida_equals_bitmap).",
        ),
        Table(
            "Reference point (9180-byte packets, 64 kB window, 512-cell buffer): every metric",
            _reference(r),
            "Means over replications. 'partial' counts Boston packets that arrived incomplete.",
        ),
        Table(
            "Sensitivity: effective throughput by access-link model and timer (reference point)",
            _sensitivity(r),
            "payload: access links carry 48-byte payloads at 1.5 Mb/s; cell: 53-byte cells at 1.5 Mb/s; "
            f"packet: packet links, cells cut at the switch (the study's default, the model sweep's choice, "
            f"is {DEFAULT_ACCESS}; source queue and reassembly at their defaults). Timers "
            "(each row says what it ran) on the ns1 stack: ns-1's timer in 100 ms ticks (min RTO 200 ms) "
            "with a fast retransmit doubling the backoff (ns-1's reset_rtx_timer: the study's reading) or "
            "keeping it (ns-2.1b's reading); ns-2's timer in 100 ms ticks (min RTO 200 ms) or 500 ms ticks "
            "(min RTO 1 s). The two ns-1 rows run on the seeds of the grid's point (so under the default "
            "access the 'FR doubles backoff' row is the grid's run); the ns-2 rows have seeds of their own.",
        ),
        Table(
            "Wasted cell-hops of the tagged connection on a 3-switch chain (Sec. 4.3)",
            _chain(r),
            "Per packet delivered; p is the tagged cells' survival at the congested switch; "
            "'formula_own_p' is eqs. 1-3 at that p with delta = 2, h = 4.",
        ),
    ]


def _codec_changes(r: Results) -> pd.DataFrame:
    judged = {c.id: c for c in claims(r)}
    alt = [
        {
            "id": c.id,
            "verdict (IDA Boston)": judged[c.id].verdict,
            "verdict (bitmap as Boston)": c.verdict,
            "measured (bitmap as Boston)": json.dumps(c.to_dict()["measured"])[:160],
        }
        for c in claims(r.judged_with("boston_bitmap"))
        if c.verdict != judged[c.id].verdict
    ]
    return pd.DataFrame(alt, columns=ALT_COLUMNS)


def _reference(r: Results) -> pd.DataFrame:
    rows = []
    for kind, n in (("single", 1), ("star", 16)):
        for proto in PROTOS:
            m = r.means[kind].loc[(proto, *_REF_INDEX)]
            rows.append(
                {
                    "sources": n,
                    "protocol": NAMES[proto],
                    "effective thr.": round(m["effective_throughput"], 3),
                    "goodput / 1.5 Mb/s": round(m["goodput_fraction"], 3),
                    "utilisation": round(m["utilization"], 3),
                    "cell loss": round(m["cell_loss_rate"], 4),
                    "packet loss": round(m["packet_loss_rate"], 4),
                    "retx rate": round(m["retransmission_rate"], 4),
                    "resp. ms/byte": round(m["response_time_ms_per_byte"], 4),
                    "into switch / capacity": round(m["offered_fraction"], 3),
                    "Jain": round(m["jain_fairness"], 3),
                    "timeouts": int(round(m["timeouts"])),
                    "partial": int(round(m["partial_segments"])),
                    "lost in AAL": int(round(m["frames_lost_reassembly"])),
                }
            )
    return pd.DataFrame(rows)


def _sensitivity(r: Results) -> pd.DataFrame:
    rows = []
    for n in (1, 16):
        for access in r.access:
            mm = r.means[f"access_{access}{n}"].reset_index()
            for buffer in (64, REF_BUFFER):
                for timer in timers_run(mm):
                    rows.append(_sensitivity_row(mm, n, access, buffer, timer))
    return pd.DataFrame(rows)


def _sensitivity_row(mm: pd.DataFrame, n: int, access: str, buffer: int, timer: str) -> dict[str, Any]:
    row: dict[str, Any] = {"sources": n, "access": access, "buffer": buffer, "timer": timer}
    for proto in PROTOS:
        sel = mm[(mm["protocol"] == proto) & (mm["timer"] == timer) & (mm["buffer"] == buffer)]
        ok = len(sel) > 0
        row[NAMES[proto]] = round(float(sel["effective_throughput"].iloc[0]), 3) if ok else None
        if proto in ("reno", "boston"):
            col = "packet loss" if proto == "reno" else "cell loss"
            row[f"{NAMES[proto]} {col}"] = round(float(sel[loss_metric(proto)].iloc[0]), 4) if ok else None
    return row


def _chain(r: Results) -> pd.DataFrame:
    ct = r.chain.reset_index()
    ct = ct[["m", "protocol", "p", "packets", "wasted_per_packet", "formula_own_p"]].round(
        {"p": 4, "packets": 0, "wasted_per_packet": 3, "formula_own_p": 3}
    )
    ct["protocol"] = ct["protocol"].map(NAMES)
    return ct
