"""The satellite study's claims: the conclusions of Goyal et al. (1998), Secs. 8 and 9, each
checked on our runs and built with the helpers of ``tcplab.report.claims``.

Thresholds the paper states only in words, and what this module uses:
- "close to the best efficiency" (WAN, Sec. 8.2.1): within 0.02 of efficiency, widened by the
  report's "about" tolerance (25%) to 0.025 (the paper's own gaps are 0.007 to 0.016);
- "around 2% or less" (MEO, Sec. 8.3.1): under 0.03, the next whole percent the paper would
  have printed (its own Table 7 has Reno/SD gaining 0.026, which it calls "around 2%");
- orderings the paper calls marked ("SACK hurts fairness", "fairness increases
  substantially"): at least the smallest difference the paper's own 90% intervals of the two
  effects allow (Table 6): NewReno - SACK fairness 0.0248 - (-0.0265) = 0.0513; 1 RTT - 0.5 RTT
  fairness 0.0117 - (-0.0769) = 0.0886;
- each cell of Tables 4 and 7: within 1.645 sqrt(se_paper^2 + se_ours^2 / n) of the paper's
  value, where se_paper is the error standard deviation of the paper's own analysis of its single
  runs (Tables 5 and 8), se_ours ours over our n replications per configuration (with one
  replication, our second-order interaction, the paper's construction): the 90% band of the
  difference of two noisy runs, fixed from the two replication spreads, not fitted;
- "not much difference" in fairness between SACK and NewReno at higher delay: within 0.02;
- a drop policy "without much effect": under 10% of the variation (the paper's own values are
  at most 6.02%).
"""

from __future__ import annotations

import math

from tcplab.report.claims import (
    ABOUT_TOL,
    Cell,
    about,
    diagnostic,
    ordering,
    paper_value,
    printed,
    trend,
    value,
)
from tcplab.report.measure import mean as measured_mean
from tcplab.report.study import Claim
from tcplab.studies.satellite.paper import ALLOCATION, EFFECTS, TABLE_NUMBERS, results_table
from tcplab.studies.satellite.results import RESPONSES, Results
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, CASE_NAMES

PAPER = "Goyal et al. 1998"
CLOSE = 0.02 * (1 + ABOUT_TOL)
AROUND_2_PERCENT = 0.03
Z90 = 1.645
# The smallest differences the paper's own 90% intervals allow (Table 6), for its marked orderings.
WAN_NEWRENO_OVER_SACK_FAIRNESS = 0.0248 - (-0.0265)
WAN_FAIRNESS_HALF_TO_ONE_RTT = 0.0117 - (-0.0769)
SIMILAR_FAIRNESS = 0.02
SMALL_SHARE = 10.0
MAIN = ("tcp", "buffer", "drop_policy")
FACTOR_NAMES = {"tcp": "TCP flavour", "buffer": "buffer size", "drop_policy": "drop policy"}


def claims(r: Results) -> list[Claim]:
    out = [
        *_overall_means(r),
        *_table_cells(r),
        *_largest_factor(r),
        *_sack(r),
        *_buffers(r),
        *_drops(r),
        *_fairness(r),
    ]
    out.append(_sane(r))
    return out


def _r4(x: float) -> float:
    return round(float(x), 4)


def _overall_means(r: Results) -> list[Claim]:
    out = []
    for case in r.cases:
        for i, resp in enumerate(("efficiency", "fairness")):
            paper = math.sqrt(ALLOCATION[case]["ss0"][i] / 24)  # SS0 = N Y^2, N = 24
            ours = r.anova[case][resp].mean
            out.append(
                value(
                    f"{case}_mean_{resp}",
                    f"{CASE_NAMES[case]}: the mean {resp} over the 24 configurations is about the paper's",
                    f"{PAPER}, Table {TABLE_NUMBERS[case][1]}: "
                    f"SS0 = {ALLOCATION[case]['ss0'][i]}, i.e. a mean of {paper:.4f}",
                    _r4(ours),
                    about(ours, paper),
                )
            )
    return out


def cell_tolerance(r: Results, case: str) -> dict[str, float]:
    """Half-width of a Table 4/7 cell's band, per response (module docstring)."""
    i = {resp: k for k, resp in enumerate(RESPONSES)}
    out = {}
    for resp in RESPONSES:
        ours = r.anova[case][resp].se or 0.0
        out[resp] = Z90 * math.sqrt(ALLOCATION[case]["se"][i[resp]] ** 2 + ours**2 / max(r.replications, 1))
    return out


def _cells(r: Results, case: str, resp: str, buffers: tuple[str, ...] = BUFFER_NAMES) -> list[Cell]:
    paper = results_table(case)
    assert paper is not None
    tol = cell_tolerance(r, case)[resp]
    df = r.runs[case]
    out = []
    for _, p in paper[paper["buffer"].isin(buffers)].iterrows():
        at = df[
            (df["tcp"] == p["tcp"]) & (df["drop_policy"] == p["drop_policy"]) & (df["buffer"] == p["buffer"])
        ]
        theirs = printed(f"{p[resp]:.4f}", runs=1)
        band = (theirs.value - tol, theirs.value + tol)
        how = (
            f"Table {TABLE_NUMBERS[case][0]}'s {theirs.text} +- {tol:.4f} (1.645 x both replication spreads)"
        )
        label = f"{resp} {p['drop_policy']} {p['tcp']} {p['buffer']}"
        out.append(Cell(label, theirs, measured_mean(at[resp].to_numpy()), band, how))
    return out


def _count(cells: list[Cell]) -> dict[str, object]:
    inside = [c for c in cells if c.verdict == "holds"]
    worst = max(cells, key=lambda c: abs(c.difference) if not math.isnan(c.difference) else -1)
    return {
        "cells_within_band": len(inside),
        "cells": len(cells),
        "largest_difference": {worst.label: _r4(worst.difference)},
    }


def _table_cells(r: Results) -> list[Claim]:
    out = []
    for case in [c for c in ("wan", "meo") if c in r.cases]:
        n = TABLE_NUMBERS[case][0]
        for resp in RESPONSES:
            cells = _cells(r, case, resp)
            out.append(
                paper_value(
                    f"{case}_table{n}_{resp}",
                    f"{CASE_NAMES[case]}: the {resp} of each of the 24 configurations is the paper's "
                    f"Table {n} value, within the cell's band",
                    cells,
                    _count(cells),
                )
            )
    if "wan" in r.cases:
        cells = [c for resp in RESPONSES for c in _cells(r, "wan", resp, ("0.5 RTT",))]
        out.append(
            paper_value(
                "wan_half_rtt_cells",
                "WAN with 0.5 RTT of buffer: the efficiency and fairness of each flavour and drop policy are "
                "the paper's (Table 4: Vanilla/EPD 0.4245 and 0.5993, the small-buffer collapse)",
                cells,
                _count(cells),
            )
        )
    return out


def _top(r: Results, case: str, resp: str) -> str:
    a = r.anova[case][resp]
    return max(MAIN, key=lambda f: a.component(f).percent)


def _largest_factor(r: Results) -> list[Claim]:
    checks = [(c, "efficiency") for c in r.cases] + ([("wan", "fairness")] if "wan" in r.cases else [])
    out = []
    for case, resp in checks:
        paper_top = max(MAIN, key=lambda f: ALLOCATION[case][f][2 + (resp == "fairness")])
        top = _top(r, case, resp)
        shares = {FACTOR_NAMES[f]: round(r.anova[case][resp].component(f).percent, 2) for f in MAIN}
        out.append(
            ordering(
                f"{case}_{resp}_largest_factor",
                f"{CASE_NAMES[case]}: of the three factors, {FACTOR_NAMES[paper_top]} explains the most "
                f"variation in {resp}",
                f"{PAPER}: {FACTOR_NAMES[paper_top]}, "
                f"{ALLOCATION[case][paper_top][2 + (resp == 'fairness')]:.2f}% of the variation",
                {"largest": FACTOR_NAMES[top], "percent": shares},
                top == paper_top,
            )
        )
    return out


def _effect(r: Results, case: str, resp: str, factor: str, level: str) -> float:
    return r.anova[case][resp].effect(factor, level).effect


def _sack(r: Results) -> list[Claim]:
    out = []
    gap = {
        c: _effect(r, c, "efficiency", "tcp", "SACK") - _effect(r, c, "efficiency", "tcp", "NewReno")
        for c in r.cases
    }
    paper_gap = {
        c: _r4(EFFECTS[c][("tcp", "SACK")][0][0] - EFFECTS[c][("tcp", "NewReno")][0][0]) for c in EFFECTS
    }
    seq = [gap[c] for c in ("wan", "meo", "geo") if c in gap]
    out.append(
        trend(
            "sack_advantage_grows_with_delay",
            "SACK's efficiency advantage over NewReno grows with delay (WAN < MEO < GEO)",
            f"{PAPER}, Sec. 9 and Tables 6, 9, 12 (main effects): SACK - NewReno = {paper_gap}",
            {c: _r4(g) for c, g in gap.items()},
            len(seq) == 3 and seq[0] < seq[1] < seq[2],
        )
    )
    for case in [c for c in ("meo", "geo") if c in r.cases]:
        eff = {
            lvl: _effect(r, case, "efficiency", "tcp", lvl) for lvl in ("Vanilla", "Reno", "NewReno", "SACK")
        }
        if case == "meo":
            out.append(
                ordering(
                    "meo_sack_best_efficiency",
                    "MEO: the flavours' efficiency is ordered SACK > NewReno > Reno > Vanilla",
                    f"{PAPER}, Table 9: main effects SACK +0.0219, NewReno +0.0038, Reno -0.0005, "
                    "Vanilla -0.0251 (90% intervals disjoint)",
                    {k: _r4(v) for k, v in eff.items()},
                    eff["SACK"] > eff["NewReno"] > eff["Reno"] > eff["Vanilla"],
                )
            )
            continue
        out.append(
            ordering(
                f"{case}_sack_best_efficiency",
                f"{CASE_NAMES[case]}: SACK has the highest efficiency of the four flavours",
                f"{PAPER}, Table 12: SACK's main effect is the largest on {CASE_NAMES[case]}",
                {k: _r4(v) for k, v in eff.items()},
                max(eff, key=lambda k: eff[k]) == "SACK",
            )
        )
    if "wan" in r.cases:
        m = {lvl: r.mean("wan", "efficiency", tcp=lvl) for lvl in ("Vanilla", "Reno", "NewReno", "SACK")}
        out.append(
            ordering(
                "wan_newreno_sack_beat_vanilla_reno",
                "WAN: NewReno and SACK both have a higher efficiency than Vanilla and Reno",
                f"{PAPER}, Sec. 8.2.1: NewReno and SACK better than Vanilla and Reno",
                {k: _r4(v) for k, v in m.items()},
                min(m["NewReno"], m["SACK"]) > max(m["Vanilla"], m["Reno"]),
            )
        )
        gap = r.mean("wan", "fairness", tcp="NewReno") - r.mean("wan", "fairness", tcp="SACK")
        out.append(
            ordering(
                "wan_newreno_fairer_than_sack",
                "WAN: NewReno's mean fairness exceeds SACK's by at least "
                f"{WAN_NEWRENO_OVER_SACK_FAIRNESS:.4f}",
                f"{PAPER}, Sec. 9: SACK hurts fairness in lower delay (WAN) compared to NewReno "
                "(Table 6 fairness effects NewReno +0.0573 (0.0248, 0.0898), "
                "SACK -0.0590 (-0.0914, -0.0265))",
                {
                    **{k: _r4(r.mean("wan", "fairness", tcp=k)) for k in ("NewReno", "SACK")},
                    "NewReno - SACK": _r4(gap),
                },
                gap >= WAN_NEWRENO_OVER_SACK_FAIRNESS,
            )
        )
    return out


def _small_buffer_gain(
    cid: str,
    text: str,
    paper: str,
    r: Results,
    case: str,
    flavours: tuple[str, ...],
    low: str,
    high: str,
    bound: float = CLOSE,
) -> Claim:
    """An ordering claim that, for each of ``flavours`` with EPD and with SD, the efficiency at
    buffer ``high`` exceeds that at ``low`` by at most ``bound``."""
    gains = {
        f"{t} {d}": r.mean(case, "efficiency", tcp=t, drop_policy=d, buffer=high)
        - r.mean(case, "efficiency", tcp=t, drop_policy=d, buffer=low)
        for t in flavours
        for d in ("EPD", "SD")
    }
    return ordering(
        cid, text, paper, {k: _r4(v) for k, v in gains.items()}, all(g <= bound for g in gains.values())
    )


def _buffers(r: Results) -> list[Claim]:
    out = []
    rises = {c: [r.mean(c, "efficiency", buffer=b) for b in BUFFER_NAMES] for c in r.cases}
    out.append(
        trend(
            "efficiency_rises_with_buffer",
            "In every link type the mean efficiency rises at each step up in buffer (0.5, 1, 2 RTT)",
            f"{PAPER}, Sec. 9: increasing buffer size increases performance",
            {c: [_r4(x) for x in xs] for c, xs in rises.items()},
            all(a < b for xs in rises.values() for a, b in zip(xs, xs[1:], strict=False)),
        )
    )
    spread = {c: xs[-1] - xs[0] for c, xs in rises.items()}
    if {"wan", "meo", "geo"} <= set(spread):
        out.append(
            trend(
                "buffer_matters_most_at_low_delay",
                "The efficiency gained from 0.5 to 2 RTT of buffer is larger on WAN than on MEO and GEO",
                f"{PAPER}, Sec. 9: the effect of buffer size is much more significant for lower delay "
                "(2 RTT - 0.5 RTT effects: WAN 0.1837, MEO 0.0253, GEO 0.0375)",
                {c: _r4(v) for c, v in spread.items()},
                spread["wan"] > max(spread["meo"], spread["geo"]),
            )
        )
    if "wan" in r.cases:
        out.append(
            _small_buffer_gain(
                "wan_one_rtt_enough_for_newreno_sack",
                f"WAN: for NewReno and SACK a 1 RTT buffer gets within {CLOSE:g} of the 2 RTT efficiency, "
                "with EPD or SD",
                f"{PAPER}, Sec. 8.2.1: 1 RTT is sufficient for close to best efficiency (paper's gaps "
                "0.007 to 0.016)",
                r,
                "wan",
                ("NewReno", "SACK"),
                "1 RTT",
                "2 RTT",
            )
        )
    if "meo" in r.cases:
        out.append(
            _small_buffer_gain(
                "meo_half_rtt_enough_for_non_vanilla",
                "MEO: for Reno, NewReno and SACK, 2 RTT of buffer adds under "
                f"{AROUND_2_PERCENT:g} efficiency over 0.5 RTT",
                f"{PAPER}, Sec. 8.3.1: increase around 2% or less; 0.5 RTT is the optimal buffer for all "
                "non-Vanilla flavours",
                r,
                "meo",
                ("Reno", "NewReno", "SACK"),
                "0.5 RTT",
                "2 RTT",
                AROUND_2_PERCENT,
            )
        )
    if "geo" in r.cases:
        at_half = {
            t: r.mean("geo", "efficiency", tcp=t, buffer="0.5 RTT")
            for t in ("Vanilla", "Reno", "NewReno", "SACK")
        }
        out.append(
            ordering(
                "geo_sack_half_rtt",
                "GEO: with 0.5 RTT of buffer SACK has a higher efficiency than every other flavour",
                f"{PAPER}, Sec. 8.3.4: SACK with a 0.5 RTT buffer is the optimal choice for GEO",
                {k: _r4(v) for k, v in at_half.items()},
                max(at_half, key=lambda k: at_half[k]) == "SACK",
            )
        )
    return out


def _drops(r: Results) -> list[Claim]:
    out = []
    if "wan" in r.cases:
        diffs = {
            f"{t} {b}": r.mean("wan", "efficiency", tcp=t, buffer=b, drop_policy="SD")
            - r.mean("wan", "efficiency", tcp=t, buffer=b, drop_policy="EPD")
            for t in ("Vanilla", "Reno")
            for b in BUFFER_NAMES
        }
        out.append(
            ordering(
                "wan_sd_beats_epd_vanilla_reno",
                "WAN: for Vanilla and Reno, SD gives a higher efficiency than EPD at every buffer size",
                f"{PAPER}, Sec. 8.2.1 item 4 and Sec. 9: for lower delays SD improves performance over EPD",
                {k: _r4(v) for k, v in diffs.items()},
                all(d > 0 for d in diffs.values()),
            )
        )
    long = [c for c in ("meo", "geo") if c in r.cases]
    if long:
        shares = {
            f"{c} {resp}": round(r.anova[c][resp].component("drop_policy").percent, 2)
            for c in long
            for resp in ("efficiency", "fairness")
        }
        out.append(
            ordering(
                "drop_policy_small_on_long_delay",
                f"MEO and GEO: the drop policy explains under {SMALL_SHARE:g}% of the variation in "
                "efficiency and in fairness",
                f"{PAPER}, Sec. 9: drop policies do not have much effect on long delay networks "
                "(MEO 0.80%/6.02%, GEO 0.25%/2.31%)",
                shares,
                all(s < SMALL_SHARE for s in shares.values()),
            )
        )
    return out


def _fairness(r: Results) -> list[Claim]:
    out = []
    long = [c for c in ("meo", "geo") if c in r.cases]
    if long:
        lowest = {c: float(r.means[c][("fairness", "mean")].min()) for c in long}
        out.append(
            ordering(
                "long_delay_fairness_above_0_9",
                "MEO and GEO: every configuration's fairness is above 0.9",
                f"{PAPER}, Sec. 8.3.2 and Sec. 9: 0.5 RTT is sufficient for good fairness with any drop "
                "policy and flavour (Table 7: all between 0.94 and 0.97)",
                {c: _r4(v) for c, v in lowest.items()},
                all(v > 0.9 for v in lowest.values()),
            )
        )
        gap = {c: abs(r.mean(c, "fairness", tcp="SACK") - r.mean(c, "fairness", tcp="NewReno")) for c in long}
        out.append(
            ordering(
                "sack_newreno_similar_fairness_long_delay",
                f"MEO and GEO: SACK's and NewReno's mean fairness differ by under {SIMILAR_FAIRNESS:g}",
                f"{PAPER}, Sec. 9: SACK and NewReno have similar fairness for higher delay",
                {c: _r4(v) for c, v in gap.items()},
                all(v < SIMILAR_FAIRNESS for v in gap.values()),
            )
        )
    if "wan" in r.cases:
        f = [r.mean("wan", "fairness", buffer=b) for b in BUFFER_NAMES]
        out.append(
            trend(
                "wan_fairness_rises_with_buffer",
                "WAN: the mean fairness rises by at least "
                f"{WAN_FAIRNESS_HALF_TO_ONE_RTT:.4f} from 0.5 to 1 RTT of buffer",
                f"{PAPER}, Sec. 8.2.2: fairness increases substantially from 0.5 RTT to 1 RTT (Table 6 "
                "effects -0.1034 (-0.1299, -0.0769) and +0.0382 (0.0117, 0.0647))",
                {"by buffer": [_r4(x) for x in f], "1 RTT - 0.5 RTT": _r4(f[1] - f[0])},
                f[1] - f[0] >= WAN_FAIRNESS_HALF_TO_ONE_RTT,
            )
        )
    return out


def _sane(r: Results) -> Claim:
    eff = {c: _r4(df["efficiency"].max()) for c, df in r.runs.items()}
    n = {c: len(df) for c, df in r.runs.items()}
    return diagnostic(
        "efficiency_within_capacity",
        "Every run's efficiency lies in (0, 1]: the servers never deliver more than C, the most TCP "
        "payload the T3 carries (Sec. 7)",
        "first principles: C = 37.80 Mb/s (MSS 1024) or 40.39 Mb/s (MSS 9180)",
        {"max_efficiency": eff, "runs": n},
        all(0 < df["efficiency"].min() and df["efficiency"].max() <= 1 for df in r.runs.values()),
    )
