"""The model sweep behind the study's defaults (TCP Boston, Bestavros and Kim, 1997).

Three things the paper does not state decide how a lone Reno source fares (Sec. 4.2): how a
source's link feeds the switch (``access``: payload, cell, packet; scenarios.py), how many
packets a source's own interface queue holds (``source_queue``; None: unbounded) and how the
destination's AAL finds frame boundaries (``reassembly``). Each combination (a *setting*) is
run at the reference point (9180-byte packets, 64 kB window) and scored against signatures the
paper gives in its own words, none of them the value claims of the lone source:

- ``loss_ratio``: Reno's packet loss over Boston's cell loss "ranges between 1.7 and 2.4"
  (Sec. 4.1, Fig. 7); checked with 16 sources at 64 and at 512 cells;
- ``near_total_loss``: "near 100% packet loss rate for Reno when the buffer size is smallest"
  (Sec. 4.1); checked as at least 80% with 16 sources at 64 cells;
- ``lone_window``: a lone source's average window of 3.02 segments (Boston) and 2.57 segments
  (Reno) (Sec. 4.2, footnote 17), each within the study's "about" tolerance (25%);
- ``half_cells``: "about one half of the cells in a packet are dropped" (Sec. 4.1): the lone
  Reno source's cell loss over its packet loss within 0.4-0.67 (what prints as a half).

A signature read at a point where no packet can cross the buffer (packet access at 64 cells:
a 192-cell packet reaches a 64-cell buffer at once) is degenerate: it is not matched (a dead
protocol's "near 100%" loss is no evidence) and adds nothing to the distances; the loss ratio
is then read at 512 cells alone.

**The rule (fixed before the claims were looked at):** the study's default is the setting that
matches the most signatures; a tie goes to the smaller total distance outside the signatures'
bands (log scale), then to the smaller total distance from their centres (1.7-2.4: 2.02,
"near 100%": 1.0, the two windows themselves), then to the order of ``SETTINGS``. The claims
never enter the choice; a diagnostic claim checks that the default is still the rule's choice.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab.experiment.spec import SweepSpec
from tcplab.report.claims import ABOUT_TOL
from tcplab.report.study import StudyData
from tcplab.studies.boston.metrics import star_metrics
from tcplab.studies.boston.scenarios import (
    ACCESS_MODELS,
    DEFAULT_ACCESS,
    DEFAULT_REASSEMBLY,
    DEFAULT_SOURCE_QUEUE,
    REASSEMBLY_MODES,
    StarConfig,
    cannot_fit,
    mss_of,
    star,
)

__all__ = [
    "DEFAULT",
    "SETTINGS",
    "SIGNATURES",
    "Setting",
    "average_window",
    "chosen",
    "measures",
    "score",
    "setting_of",
    "signature_rows",
    "signature_sweeps",
]

SIG_PROTOS = ("reno", "boston")
SIG_PACKET, SIG_WINDOW, SIG_LONE_BUFFER = 9180, 64000, 512
SIG_BUFFERS = (64, 512)
# Packets waiting behind the one being sent; None: unbounded (ns's default 50 exceeds any window here).
SOURCE_QUEUES: tuple[int | None, ...] = (1, 3, None)
LO, HI = 1.7, 2.4  # Sec. 4.1
NEAR_TOTAL = 0.8
WINDOWS_SEG = {"reno": 2.57, "boston": 3.02}  # Sec. 4.2, footnote 17
HALF = (1 / 2.5, 1 / 1.5)  # Sec. 4.1's "about one half", as printed_fraction reads it
SIGNATURES = ("loss_ratio", "near_total_loss", "lone_window", "half_cells")


@dataclass(frozen=True)
class Setting:
    access: str
    source_queue: int | None
    reassembly: str

    @property
    def name(self) -> str:
        q = "qinf" if self.source_queue is None else f"q{self.source_queue}"
        return f"{self.access}-{q}-{self.reassembly}"

    def label(self) -> str:
        q = "unbounded" if self.source_queue is None else f"{self.source_queue} pkt"
        return f"{self.access}, {q}, {self.reassembly}"


SETTINGS = tuple(
    Setting(a, q, r) for a, q, r in itertools.product(ACCESS_MODELS, SOURCE_QUEUES, REASSEMBLY_MODES)
)
# The study's default (scenarios.py), taken from the sweep by the rule above (docs/boston.md).
DEFAULT = Setting(DEFAULT_ACCESS, DEFAULT_SOURCE_QUEUE, DEFAULT_REASSEMBLY)


def setting_of(kind: str) -> Setting:
    """The setting of a signature sweep's kind ("sig_payload-qinf-aal5_16")."""
    name = kind.removeprefix("sig_").rsplit("_", 1)[0]
    for s in SETTINGS:
        if s.name == name:
            return s
    raise ValueError(f"boston: no signature setting named {name!r}")


def _traced(doc: dict[str, Any]) -> dict[str, Any]:
    doc["flow"][0]["trace"] = True
    return doc


def signature_sweeps(
    lone_s: float, star_s: float, reps: int, stack: str, seed: int, settings: Sequence[Setting] = SETTINGS
) -> list[SweepSpec]:
    """Per setting and protocol: the lone source at 512 cells (traced, for its window) and 16
    sources at 64 and 512 cells."""
    specs: list[SweepSpec] = []
    for s, p in itertools.product(settings, SIG_PROTOS):

        def cfg(n: int, duration: float, s: Setting = s, p: str = p) -> StarConfig:
            return StarConfig(
                sources=n,
                protocol=p,
                packet=SIG_PACKET,
                window=SIG_WINDOW,
                buffer=SIG_LONE_BUFFER,
                duration=duration,
                access=s.access,
                source_queue=s.source_queue,
                reassembly=s.reassembly,
                stack=stack,
            )

        lone = SweepSpec(
            name=f"sig_{s.name}_1_{p}", base=_traced(star(cfg(1, lone_s))), replications=reps, seed=seed
        )
        specs.append(lone)
        specs.append(
            SweepSpec(
                name=f"sig_{s.name}_16_{p}",
                base=star(cfg(16, star_s)),
                factors={"link.0.ab.queue": list(SIG_BUFFERS)},
                labels={"link.0.ab.queue": "buffer"},
                replications=reps,
                seed=seed,
            )
        )
    return specs


# ---------------------------------------------------------------- scoring


def _outside(x: float, lo: float, hi: float = math.inf) -> float:
    """How far x lies outside [lo, hi] on a log scale (0 inside; inf for x <= 0)."""
    if not (x > 0 and math.isfinite(x)):
        return math.inf
    return max(0.0, math.log(lo / x), math.log(x / hi) if math.isfinite(hi) else 0.0)


def _from(x: float, centre: float) -> float:
    return abs(math.log(x / centre)) if x > 0 and math.isfinite(x) else math.inf


def _signatures(m: Mapping[str, float], access: str = DEFAULT_ACCESS) -> dict[str, Any]:
    """One setting's measures -> each signature's (holds, distance outside, distance from centre);
    points where no packet fits the buffer are left out (degenerate)."""
    ratios = [
        m[f"reno_loss_{b}"] / m[f"boston_loss_{b}"] if m[f"boston_loss_{b}"] > 0 else math.inf
        for b in SIG_BUFFERS
    ]
    live = [not cannot_fit(SIG_PACKET, b, access) for b in SIG_BUFFERS]
    ratio_out = sum(_outside(r, LO, HI) for r, ok in zip(ratios, live, strict=True) if ok)
    ratio_from = sum(_from(r, math.sqrt(LO * HI)) for r, ok in zip(ratios, live, strict=True) if ok)
    near = m["reno_loss_64"]
    near_live = not cannot_fit(SIG_PACKET, 64, access)
    lost = m["reno_lone_packet_loss"]
    half = m["reno_lone_cell_loss"] / lost if lost > 0 else math.nan
    half_out = _outside(half, *HALF)
    wins = {p: m[f"{p}_window_seg"] for p in WINDOWS_SEG}
    win_out = sum(
        _outside(wins[p], WINDOWS_SEG[p] * (1 - ABOUT_TOL), WINDOWS_SEG[p] * (1 + ABOUT_TOL)) for p in wins
    )
    out = {
        "loss_ratio": (ratio_out == 0, ratio_out, ratio_from),
        "near_total_loss": (
            (near >= NEAR_TOTAL, _outside(near, NEAR_TOTAL), _from(near, 1.0))
            if near_live
            else (False, 0.0, 0.0)
        ),
        "lone_window": (win_out == 0, win_out, sum(_from(wins[p], WINDOWS_SEG[p]) for p in wins)),
        "half_cells": (half_out == 0, half_out, _from(half, 0.5)),
    }
    return {
        "half_share": half,
        "near_total_degenerate": not near_live,
        **{f"ratio_{b}": r for b, r in zip(SIG_BUFFERS, ratios, strict=True)},
        **{k: v[0] for k, v in out.items()},
        "matched": sum(v[0] for v in out.values()),
        "outside": sum(v[1] for v in out.values()),
        "from_centre": sum(v[2] for v in out.values()),
    }


def measures(rows: pd.DataFrame) -> dict[Setting, dict[str, float]]:
    """Per setting, what the signatures read from its runs (``rows``: one per run, columns
    setting, sources, protocol, buffer, packet_loss_rate, cell_loss_rate, window_seg, ...)."""
    out: dict[Setting, dict[str, float]] = {}
    means = rows.groupby(["setting", "sources", "protocol", "buffer"], sort=False).mean(numeric_only=True)
    for s in dict.fromkeys(rows["setting"]):
        m: dict[str, float] = {}
        for b in SIG_BUFFERS:
            m[f"reno_loss_{b}"] = float(means.loc[(s, 16, "reno", b), "packet_loss_rate"])
            m[f"boston_loss_{b}"] = float(means.loc[(s, 16, "boston", b), "cell_loss_rate"])
        for p in SIG_PROTOS:
            lone = means.loc[(s, 1, p, SIG_LONE_BUFFER)]
            m[f"{p}_window_seg"] = float(lone["window_seg"])
            m[f"{p}_lone_packet_loss"] = float(lone["packet_loss_rate"])
            m[f"{p}_lone_cell_loss"] = float(lone["cell_loss_rate"])
            m[f"{p}_lone_effective"] = float(lone["effective_throughput"])
            m[f"{p}_lone_timeouts"] = float(lone["timeouts"])
            m[f"{p}_lone_fast_retransmits"] = float(lone["fast_retransmits"])
        out[s] = m
    return out


def score(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per setting: its measures, each signature's verdict, and the rule's rank (1 = chosen)."""
    table = []
    for s, m in measures(rows).items():
        table.append({"setting": s.name, **m, **_signatures(m, s.access), "order": SETTINGS.index(s)})
    df = pd.DataFrame(table)
    if df.empty:
        return df
    df = df.sort_values(["matched", "outside", "from_centre", "order"], ascending=[False, True, True, True])
    df["rank"] = range(1, len(df) + 1)
    return df.sort_values("order").reset_index(drop=True)


def chosen(scored: pd.DataFrame) -> Setting | None:
    """The setting the rule picks (None without a sweep)."""
    if scored.empty:
        return None
    return setting_of("sig_" + str(scored.loc[scored["rank"] == 1, "setting"].iloc[0]) + "_1")


def average_window(trace: pd.DataFrame, end: float, cap: float = SIG_WINDOW) -> float:
    """Time-average of min(cwnd, receive window) over a flow's trace, in bytes (nan if empty)."""
    t = trace["time_s"].to_numpy(dtype=float)
    if t.size < 2:
        return math.nan
    w = np.minimum(trace["cwnd"].to_numpy(dtype=float), cap)
    dt = np.diff(np.append(t, end))
    return float(np.sum(w * dt) / np.sum(dt))


def signature_rows(
    data: StudyData, sweep: str, frame: pd.DataFrame, reports: Sequence[Mapping[str, Any]]
) -> pd.DataFrame:
    """One row per run of a signature sweep: its setting, size, protocol, buffer and metrics; the
    lone source's average window in segments from its trace."""
    kind, proto = sweep.rsplit("_", 1)
    setting, sources = setting_of(kind), int(kind.rsplit("_", 1)[1])
    base = data.specs[sweep].base
    rows = []
    for (_, run), rep in zip(frame.iterrows(), reports, strict=True):
        if not rep:
            continue
        buffer = run.get("buffer")
        row: dict[str, Any] = {
            "setting": setting,
            "sources": sources,
            "protocol": proto,
            "buffer": int(base["link"][0]["ab"]["queue"] if buffer is None or pd.isna(buffer) else buffer),
            **star_metrics(rep, SIG_PACKET, proto).to_dict(),
        }
        if sources == 1:
            try:
                trace = data.trace(run["key"], 0)
            except FileNotFoundError:
                trace = pd.DataFrame({"time_s": [], "cwnd": []})
            row["window_seg"] = average_window(trace, float(base["duration"])) / mss_of(SIG_PACKET)
        rows.append(row)
    return pd.DataFrame(rows)


def _mark(row: pd.Series, signature: str) -> str:
    if signature == "near_total_loss" and row["near_total_degenerate"]:
        return "degenerate"
    return "yes" if row[signature] else "no"


def table(scored: pd.DataFrame) -> pd.DataFrame:
    """The sweep as the report shows it: one row per setting, the rule's choice marked."""
    if scored.empty:
        return scored
    pick = chosen(scored)

    def r(x: float, d: int = 3) -> float:
        return round(float(x), d)

    rows = []
    for _, row in scored.iterrows():
        s = setting_of(f"sig_{row['setting']}_1")
        mark = " (chosen)" if s == pick else ""
        mark += " (default)" if s == DEFAULT else ""
        rows.append(
            {
                "setting": s.label() + mark,
                "lone Reno: packet loss": r(row["reno_lone_packet_loss"]),
                "lone Boston: cell loss": r(row["boston_lone_cell_loss"], 4),
                "lone Reno: eff. thr.": r(row["reno_lone_effective"]),
                "lone Reno: timeouts / fast rtx": f"{row['reno_lone_timeouts']:.0f} / "
                f"{row['reno_lone_fast_retransmits']:.0f}",
                "windows Reno / Boston (seg.)": f"{row['reno_window_seg']:.2f} / "
                f"{row['boston_window_seg']:.2f}",
                "loss ratio 64 / 512": f"{row['ratio_64']:.2f} / {row['ratio_512']:.2f}",
                "Reno loss at 64": r(row["reno_loss_64"]),
                "lone Reno: cells lost / cells of lost packets": r(row["half_share"]),
                "signatures": " ".join(f"{k}:{_mark(row, k)}" for k in SIGNATURES),
                "matched": int(row["matched"]),
                "rank": int(row["rank"]),
            }
        )
    return pd.DataFrame(rows)


NOTE = (
    "Lone source: 9180-byte packets, 64 kB window, 512 cells (Sec. 4.2); 16 sources: the same at 64 and "
    "512 cells. Signatures: loss_ratio, Reno's packet loss over Boston's cell loss within 1.7-2.4 at 64 and "
    "512 cells (Sec. 4.1); near_total_loss, Reno's packet loss at 64 cells at least 80% (Sec. 4.1, "
    "'near 100%'); lone_window, the lone source's average window within 25% of 2.57 (Reno) and 3.02 "
    "(Boston) segments (Sec. 4.2, footnote 17); half_cells, the lone Reno source's cell loss over its "
    "packet loss within 0.4-0.67 (Sec. 4.1, 'about one half of the cells'). Under packet access no "
    "9180-byte packet fits 64 cells: there near_total_loss is degenerate (not matched) and the loss ratio "
    "is read at 512 cells alone. Rule, fixed before the claims were read: most signatures "
    "matched, then the smallest distance outside their bands, then the smallest distance from their "
    "centres. None of the three knobs is in the paper: the access model (payload, cell, packet), the "
    "source's interface queue (packets of the protocol waiting behind the one being sent; ns's default "
    "limit of 50 is unbounded here) and "
    "the reassembly mode (aal5: a lost last cell also spoils the next frame; per_packet: each frame "
    "judged alone) are this reproduction's readings."
)
