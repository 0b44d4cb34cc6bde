"""The HFC study's tables: the claims that do not hold and why, the Sec. V.B bound against the
simulated overruns, and the numbers behind Fig. 4."""

from __future__ import annotations

from typing import Any

import pandas as pd

from tcplab.report.study import Table
from tcplab.studies.hfc.buffer import MODES, socket_buffer_bound
from tcplab.studies.hfc.claims import REASONS, REASONS_BSD, bound_str, claims
from tcplab.studies.hfc.results import Results, onsets
from tcplab.studies.hfc.scenarios import CM_BUFFER


def tables(r: Results) -> list[Table]:
    out = []
    missed = [c for c in claims(r) if not c.holds]
    out.append(
        Table(
            "Claims that do not hold, and why",
            pd.DataFrame(
                [
                    {
                        "claim": c.id,
                        "paper": c.paper,
                        "measured": c.measured,
                        "why on ns-1 (as far as established)": REASONS.get(c.id, "not established"),
                        "on 4.4BSD-Lite, where different": REASONS_BSD.get(c.id, ""),
                    }
                    for c in missed
                ]
            ),
            "Claims the ns-1 runs do not support. Mechanisms were checked on traces of single runs, the "
            "bufcheck sweep and the per-stack claims table; 'not established' marks what the study did "
            "not trace.",
        )
    )
    on = onsets(r.bufcheck)
    rows = []
    for n in (1, 3):
        b = socket_buffer_bound(CM_BUFFER, n)
        row: dict[str, Any] = {
            "connections": n,
            "bound, at most one drop": bound_str(b),
            "bound, no drop (bytes)": f"{b.strict_bytes:,.0f}",
        }
        for mode in MODES:
            o = on[(mode, n)]
            row[f"{mode}: first drop / two drops (KB)"] = f"{_k(o['first_drop'])} / {_k(o['multiple_drops'])}"
        rows.append(row)
    out.append(
        Table(
            "Sec. V.B bound for the 10 KB CM against simulated overruns",
            pd.DataFrame(rows),
            "Bound: C >= (B n - 1) P (25 - 10)/25 with C = 10240/1460 segments. Simulation: lossless "
            "transfers, socket buffers in 1 KB steps; modes as in bufcheck.png.",
        )
    )
    f4 = r.fig4.pivot_table(index="data_loss", columns="sock_buf", values="mean")
    f4.columns = [f"{c // 1024} KB" for c in f4.columns]
    f4.index = [f"{p:.1%}" for p in f4.index]
    f4.index.name = "downstream loss"
    out.append(Table("Fig. 4 data: mean throughput (Mb/s) of a 3 MB transfer", f4.round(3)))
    tt = r.fig4.pivot_table(index="data_loss", columns="sock_buf", values="timeouts")
    tt.columns = [f"{c // 1024} KB" for c in tt.columns]
    tt.index = [f"{p:.1%}" for p in tt.index]
    tt.index.name = "downstream loss"
    out.append(Table("Fig. 4 data: mean retransmission timeouts per 3 MB transfer", tt.round(2)))
    if r.readings is not None:
        out.append(
            Table(
                "The 8 KB socket buffer on ns, read two ways: 6 packets (rounded, the primary run) "
                "and 5 packets (truncated)",
                r.readings,
                "The paper rounds bytes to packets once ('10 kb (seven packets)', Sec. V.B), which gives "
                "6 packets of 1460 bytes for 8192 bytes; truncation gives 5 (what fits whole, and what a "
                "4.4BSD sender keeps in flight). Same seeds for both readings. '5 vs 6': relative change.",
            )
        )
    if r.unfinished:
        out.append(
            Table(
                "Transfers unfinished at the end of the run (counted with the run's duration)",
                pd.DataFrame([{"sweep": k, "runs": v} for k, v in r.unfinished.items()]),
            )
        )
    return out


def _k(b: int | None) -> str:
    return "none" if b is None else f"{b / 1024:g}"
