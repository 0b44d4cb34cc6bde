"""The 8 KB socket buffer on ns, read two ways (Cohen and Ramanathan, 1998).

On ns the window is counted in packets (``window_``), so the paper's "8 kb" socket buffer has to
become a whole number of 1460-byte packets. The paper converts bytes to packets once, rounding
("10 kb (seven packets)", Sec. V.B): 8192 / 1460 = 5.6 gives 6 packets, the primary reading
(``scenarios.window_packets``). The other reading truncates to what fits whole in 8192 bytes,
5 packets (what a 4.4BSD sender with silly-window avoidance keeps in flight). Figs. 4-7, 12 and
13 use the 8 KB buffer; their sweeps are run again with 5 packets (sweeps named ``w5_*``) and
the report shows both readings side by side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tcplab.units import KB

TRUNCATED_PACKETS = 5  # 8192 // 1460
PREFIX = "w5_"
# The sweeps run again with the truncated window, and the configurations their "tcp" factor uses.
SWEEPS = ("fig4", "fig6", "fig12_ftp", "fig12_http", "fig13")
FIG4_LOSS = (0.0, 0.01, 0.03, 0.05, 0.1)
FIG6_LOSS = (0.0, 0.03, 0.05)
FIG6_SIZES = (30 * KB, 300 * KB, 3_000_000)
FIG12_SIZES = (30 * KB, 100 * KB, 300 * KB)
FIG13_LOSS = (0.0, 0.1, 0.2, 0.3)


def truncated(tcp: Mapping[str, Any], mss: int) -> dict[str, Any]:
    """A whole ``[tcp]`` table with the 8 KB window truncated to whole packets."""
    win = TRUNCATED_PACKETS * mss
    out = {**tcp, "rcv_buf": win}
    if "snd_buf" in out:
        out["snd_buf"] = win
    return out


def table(tp: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Key numbers of Figs. 4-7, 12 and 13 under both readings (6 and 5 packets)."""
    rows: list[dict[str, Any]] = []

    def add(
        fig: str, point: str, stat: str, main: pd.DataFrame, alt: pd.DataFrame, col: str = "mbps"
    ) -> None:
        agg = "median" if stat == "median Mb/s" else "mean"
        a, b = getattr(main[col], agg)(), getattr(alt[col], agg)()
        rows.append({"figure": fig, "point": point, "statistic": stat, "6 packets": a, "5 packets": b})

    f4, f4a = tp["fig4"], tp[PREFIX + "fig4"]
    f4 = f4[f4["sock_buf"] == 8192]
    for p in FIG4_LOSS:
        m, a = f4[f4["data_loss"].round(6) == p], f4a[f4a["data_loss"].round(6) == p]
        add("Fig. 4", f"3 MB, {p:.0%} data loss", "mean Mb/s", m, a)
        if p in (0.01, 0.03):
            add("Fig. 5", f"3 MB, {p:.0%} data loss", "mean timeouts", m, a, "timeouts")
    f6, f6a = tp["fig6"], tp[PREFIX + "fig6"]
    for s in FIG6_SIZES:
        for p in FIG6_LOSS:
            sel = (f6["size"] == s) & (f6["data_loss"].round(6) == p)
            sela = (f6a["size"] == s) & (f6a["data_loss"].round(6) == p)
            add("Figs. 6-7", f"{s // 1000} KB, {p:.0%} data loss", "median Mb/s", f6[sel], f6a[sela])
    for pattern, header in (("ftp", 0), ("http", 1)):
        name = f"fig12_{pattern}"
        f12, f12a = tp[name], tp[PREFIX + name]
        for cfg in ("tcp", "nodelack", "iw2"):
            for s in FIG12_SIZES:
                sel = (f12["config"] == cfg) & (f12["size"] == s)
                sela = (f12a["config"] == cfg) & (f12a["size"] == s)
                what = f"{pattern.upper()} {s // 1000} KB{' body' if header else ''}, {cfg}"
                add("Fig. 12", what, "mean Mb/s", f12[sel], f12a[sela])
    f13, f13a = tp["fig13"], tp[PREFIX + "fig13"]
    for cfg in ("tcp", "nodelack"):
        for p in FIG13_LOSS:
            sel = (f13["config"] == cfg) & (f13["ack_loss"].round(6) == p)
            sela = (f13a["config"] == cfg) & (f13a["ack_loss"].round(6) == p)
            add("Fig. 13", f"3 MB, {p:.0%} ACK loss, {cfg}", "mean Mb/s", f13[sel], f13a[sela])
    out = pd.DataFrame(rows)
    out["5 vs 6"] = out["5 packets"] / out["6 packets"] - 1
    return out.round({"6 packets": 3, "5 packets": 3, "5 vs 6": 3})
