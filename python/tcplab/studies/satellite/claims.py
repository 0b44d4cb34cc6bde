"""The satellite study's claims: the conclusions of Goyal et al. (1998), Secs. 8 and 9, each
checked on our runs and built with the helpers of ``tcplab.report.claims``.

Thresholds the paper states only in words, and what this module uses:
- "close to the best efficiency" / "around 2% or less": within 0.02 of efficiency, widened by
  the report's "about" tolerance (25%) to 0.025;
- "not much difference" in fairness between SACK and NewReno at higher delay: within 0.02;
- a drop policy "without much effect": under 10% of the variation (the paper's own values are
  at most 6.02%).
"""

from __future__ import annotations

import math

from tcplab.report.claims import ABOUT_TOL, about, diagnostic, ordering, trend, value
from tcplab.report.study import Claim
from tcplab.studies.satellite.paper import ALLOCATION, EFFECTS, TABLE_NUMBERS
from tcplab.studies.satellite.results import Results
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, CASE_NAMES

PAPER = "Goyal et al. 1998"
CLOSE = 0.02 * (1 + ABOUT_TOL)
SIMILAR_FAIRNESS = 0.02
SMALL_SHARE = 10.0
MAIN = ("tcp", "buffer", "drop_policy")
FACTOR_NAMES = {"tcp": "TCP flavour", "buffer": "buffer size", "drop_policy": "drop policy"}


def claims(r: Results) -> list[Claim]:
    out = [*_overall_means(r), *_largest_factor(r), *_sack(r), *_buffers(r), *_drops(r), *_fairness(r)]
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
            f"{PAPER}, Sec. 8.3.5 and Table 6/9/12 effects: SACK - NewReno = {paper_gap}",
            {c: _r4(g) for c, g in gap.items()},
            len(seq) == 3 and seq[0] < seq[1] < seq[2],
        )
    )
    for case in [c for c in ("meo", "geo") if c in r.cases]:
        eff = {
            lvl: _effect(r, case, "efficiency", "tcp", lvl) for lvl in ("Vanilla", "Reno", "NewReno", "SACK")
        }
        out.append(
            ordering(
                f"{case}_sack_best_efficiency",
                f"{CASE_NAMES[case]}: SACK has the highest efficiency of the four flavours",
                f"{PAPER}: SACK's main effect is the largest on {CASE_NAMES[case]}",
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
        out.append(
            ordering(
                "wan_newreno_fairer_than_sack",
                "WAN: SACK has a lower fairness than NewReno",
                f"{PAPER}, Sec. 9: SACK hurts fairness in lower delay (WAN) compared to NewReno "
                "(fairness effects NewReno +0.0573, SACK -0.0590)",
                {k: _r4(r.mean("wan", "fairness", tcp=k)) for k in ("NewReno", "SACK")},
                r.mean("wan", "fairness", tcp="SACK") < r.mean("wan", "fairness", tcp="NewReno"),
            )
        )
    return out


def _small_buffer_gain(
    cid: str, text: str, paper: str, r: Results, case: str, flavours: tuple[str, ...], low: str, high: str
) -> Claim:
    """An ordering claim that, for each of ``flavours`` with EPD and with SD, the efficiency at
    buffer ``high`` exceeds that at ``low`` by at most ``CLOSE``."""
    gains = {
        f"{t} {d}": r.mean(case, "efficiency", tcp=t, drop_policy=d, buffer=high)
        - r.mean(case, "efficiency", tcp=t, drop_policy=d, buffer=low)
        for t in flavours
        for d in ("EPD", "SD")
    }
    return ordering(
        cid, text, paper, {k: _r4(v) for k, v in gains.items()}, all(g <= CLOSE for g in gains.values())
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
                f"MEO: for Reno, NewReno and SACK, 2 RTT of buffer adds at most {CLOSE:g} efficiency over "
                "0.5 RTT",
                f"{PAPER}, Sec. 8.3.1: increase around 2% or less; 0.5 RTT is the optimal buffer for all "
                "non-Vanilla flavours",
                r,
                "meo",
                ("Reno", "NewReno", "SACK"),
                "0.5 RTT",
                "2 RTT",
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
                f"{PAPER}, Secs. 8.3.2 and 8.3.5: 0.5 RTT is sufficient for good fairness with any drop "
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
                "WAN: the mean fairness rises from 0.5 to 1 RTT of buffer",
                f"{PAPER}, Sec. 8.2.2: fairness increases substantially from 0.5 RTT to 1 RTT",
                [_r4(x) for x in f],
                f[0] < f[1],
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
