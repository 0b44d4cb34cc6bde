"""A diagnostic not in the paper: how the servers stalled by the synchronised start come back,
under EPD and under Selective Drop (Goyal et al., 1998, Sec. 4).

Under the primary reading every client sends its first batch at t = 0; on WAN with small
buffers most servers lose their first response segment, and with no RTT sample yet each waits
ns-2.1b3's 6 s first timeout, so they all retransmit within one timer tick of t = 6 s. This
runs one configuration under both drop policies with 10 ms series and reports, per policy: how
many servers' clients have received nothing at a few times (``stalled``), and the trunk's cells
per 10 ms around the 6 s retransmissions, with the stalled servers' own cells over the trunk
then (a frame of a full segment is 23 cells on WAN; a frame of which only the last cell crosses
was cut by a full buffer, partial packet discard keeping its end).

``python -m tcplab.studies.satellite.restart [--flavour newreno] [--buffer 0] [--replication 0]``
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

import numpy as np

from tcplab.experiment.expand import derive_seed
from tcplab.studies.satellite.network import DROPS, FLAVOURS, SatelliteConfig, satellite_scenario
from tcplab.studies.satellite.sweeps import SEED

__all__ = ["Restart", "restart"]

BIN_S = 0.01
TIMES_S = (1.0, 5.5, 6.5, 12.0)
# The retransmissions of the first timeout leave within one 100 ms tick after 6 s.
WINDOW_S = (5.95, 6.25)


@dataclass(frozen=True)
class Restart:
    drop: str
    stalled: dict[float, int]  # time -> servers whose client has received nothing by then
    trunk_cells: list[int]  # cells over the trunk per 10 ms in WINDOW_S
    stalled_cells: list[int]  # per server stalled at 5.5 s: its cells over the trunk in WINDOW_S
    partial_frames: int  # response frames lost in reassembly (some cells arrived, not all)
    # Servers stalled at 5.5 s whose 6 s frame crossed the trunk whole (23 cells or more in the
    # window), and of them those whose client then received data (by 6.5 s).
    whole: int
    whole_delivered: int
    # Of the ``whole`` servers, those with no response frame lost in reassembly by 5.99 s and
    # two by the end: the whole frame was joined at the client to the cells of the first frame
    # that had crossed without its last cell, and both failed AAL5's check.
    whole_merged: int


def _series(values: list[int] | None, n: int) -> np.ndarray:
    a = np.zeros(n)
    v = (values or [])[:n]
    a[: len(v)] = v
    return a


def restart(
    flavour: str = "newreno",
    buffer: int = 0,
    replication: int = 0,
    case: str = "wan",
    duration_s: float = 12.0,
) -> list[Restart]:
    """One configuration of the primary reading, at the study's seed of ``replication``, under
    each drop policy."""
    import tcplab

    n = round(duration_s / BIN_S)
    lo, hi = (round(t / BIN_S) for t in WINDOW_S)
    out = []
    for drop in DROPS:
        cfg = SatelliteConfig(
            case=case, flavour=flavour, drop=drop, buffer=buffer, duration_s=duration_s,
            seed=derive_seed(SEED, {}, replication),
        )  # fmt: skip
        text = satellite_scenario(cfg).replace("atm = true\n", "atm = true\nper_flow_series = true\n", 1)
        report = tcplab.run(f"series_bin = {BIN_S}\n" + text).report
        per_flow = report["links"][0]["per_flow_tx_bytes_series"]
        flows = [p["response_flow"] for p in report["www"]]
        got = np.array([np.cumsum(_series(report["flows"][f].get("delivered_series"), n)) for f in flows])
        cells = np.array([_series(per_flow[f] if f < len(per_flow) else None, n) / 53 for f in flows])
        stalled = got[:, round(5.5 / BIN_S) - 1] == 0
        whole = stalled & (cells[:, lo:hi].sum(axis=1) >= 23)
        lost = np.array([int(report["flows"][f]["frames_lost_reassembly"]) for f in flows])
        before = tcplab.run(satellite_scenario(replace(cfg, duration_s=5.99))).report
        lost_before = np.array([int(before["flows"][f]["frames_lost_reassembly"]) for f in flows])
        silent = {t: int((got[:, round(t / BIN_S) - 1] == 0).sum()) for t in TIMES_S if t <= duration_s}
        out.append(
            Restart(
                drop=drop,
                stalled=silent,
                trunk_cells=[int(x) for x in cells[:, lo:hi].sum(axis=0)],
                stalled_cells=[int(x) for x in cells[stalled, lo:hi].sum(axis=1)],
                partial_frames=int(lost.sum()),
                whole=int(whole.sum()),
                whole_delivered=int((whole & (got[:, round(6.5 / BIN_S) - 1] > 0)).sum()),
                whole_merged=int((whole & (lost_before == 0) & (lost >= 2)).sum()),
            )
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flavour", default="newreno", choices=sorted(FLAVOURS))
    ap.add_argument("--buffer", type=int, default=0, help="0, 1 or 2: 0.5, 1 or 2 RTT (Table 2)")
    ap.add_argument("--replication", type=int, default=0)
    args = ap.parse_args()
    for r in restart(args.flavour, args.buffer, args.replication):
        quartiles = np.percentile(r.stalled_cells, [25, 50, 75]).tolist() if r.stalled_cells else []
        print(f"{r.drop.upper()}: clients with nothing received, by time: {r.stalled}")
        print(f"  trunk cells per 10 ms, {WINDOW_S[0]}-{WINDOW_S[1]} s: {r.trunk_cells}")
        print(
            f"  servers stalled at 5.5 s: {len(r.stalled_cells)}; their cells over the trunk then, "
            f"quartiles {quartiles}; response frames lost in reassembly (whole run): {r.partial_frames}"
        )
        print(
            f"  of them, frames crossing whole at 6 s: {r.whole}; their clients receiving data by 6.5 s: "
            f"{r.whole_delivered}; lost at the client joined to an unterminated first frame: {r.whole_merged}"
        )


if __name__ == "__main__":
    main()
