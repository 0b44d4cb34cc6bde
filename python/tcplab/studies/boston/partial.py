"""When TCP Boston sends the fresh shards a partial ACK asks for (Bestavros and Kim, 1997).

The paper says it twice, differently. Sec. 2.1 (AIDA's principle): "to such an acknowledgment,
the sender would respond by sending a packet of (m - r) fresh cells". Sec. 2.3, which describes
"our implementation", the one the simulations ran: the sender "prepares m - r additional cells
from the desired segment in a single *new* packet that will be transmitted at the next
retransmission time". The core offers both (``tcp.boston_partial``): ``"wait"`` (Sec. 2.3, the
study's default, since it is the text about the simulated protocol) and ``"fresh"`` (Sec. 2.1).

With a one-packet window the partial ACK is the only duplicate ACK a loss produces, so under
``"wait"`` every damaged packet costs a timeout. This sweep runs both readings on 16 Boston
sources at 9180 bytes and 512 cells, with a one-packet window (the paper's 8 kB) and with 64 kB.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from tcplab.experiment.spec import SweepSpec
from tcplab.report.study import StudyData
from tcplab.studies.boston.metrics import star_metrics
from tcplab.studies.boston.scenarios import StarConfig, mss_of, star

__all__ = ["MODES", "NOTE", "PARTIAL_SWEEP", "partial_rows", "partial_sweeps", "table"]

MODES = ("wait", "fresh")
PACKET, BUFFER = 9180, 512
WINDOWS = (8000, 64000)
PARTIAL_SWEEP = "partial_boston"


def partial_sweeps(duration: float, reps: int, stack: str, seed: int) -> list[SweepSpec]:
    base = star(
        StarConfig(
            sources=16, protocol="boston", packet=PACKET, buffer=BUFFER, duration=duration, stack=stack
        )
    )
    return [
        SweepSpec(
            name=PARTIAL_SWEEP,
            base=base,
            factors={
                "tcp.boston_partial": list(MODES),
                "tcp.rcv_buf": [max(w, mss_of(PACKET)) for w in WINDOWS],
            },
            labels={"tcp.boston_partial": "partial", "tcp.rcv_buf": "window"},
            replications=reps,
            seed=seed,
        )
    ]


def partial_rows(data: StudyData, frame: pd.DataFrame, reports: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for (_, run), rep in zip(frame.iterrows(), reports, strict=True):
        if not rep:
            continue
        m = star_metrics(rep, PACKET, "boston")
        window = int(run["window"])
        rows.append(
            {
                "partial": str(run["partial"]),
                "window": "1 packet" if window <= mss_of(PACKET) else f"{window // 1000} kB",
                "duration_s": float(rep["sim_time_s"]),
                "timeouts": m.timeouts,
                "fast_retransmits": m.fast_retransmits,
                "partial_segments": m.partial_segments,
                "effective_throughput": m.effective_throughput,
                "cell_loss_rate": m.cell_loss_rate,
                "response_time_ms_per_byte": m.response_time_ms_per_byte,
            }
        )
    return pd.DataFrame(rows)


def table(rows: pd.DataFrame) -> pd.DataFrame:
    if rows.empty:
        return rows
    t = rows.groupby(["window", "partial"], sort=False).mean(numeric_only=True).reset_index()
    t["partial"] = t["partial"].map(lambda p: f"{p} (default)" if p == MODES[0] else p)
    return t.round(
        {
            "timeouts": 1,
            "fast_retransmits": 1,
            "partial_segments": 1,
            "effective_throughput": 3,
            "cell_loss_rate": 4,
            "response_time_ms_per_byte": 4,
        }
    )


NOTE = (
    "16 Boston sources, 9180-byte packets, 512 cells; counts summed over the sources, means over "
    "replications. 'wait' (the study's default): the m - r fresh shards leave at the next "
    "retransmission, as Sec. 2.3 describes the implementation the paper simulated; 'fresh': they leave "
    "when the partial ACK arrives, as Sec. 2.1 states the principle. With a one-packet window the partial "
    "ACK is the only duplicate ACK, so 'wait' turns every damaged packet into a timeout."
)
