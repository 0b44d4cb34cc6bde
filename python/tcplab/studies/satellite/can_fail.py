"""How each of the satellite study's paper claims can fail (``tcplab.report.claims.CanFail``).

Every claim is judged on per-configuration tables (one per link type), the form the study
derives from its runs. The paper's own numbers are its Tables 4 (WAN) and 7 (MEO); the body of
Table 10 (GEO) is missing from the available text, so GEO's table is rebuilt from Tables 11 and
12 as the additive model they print (the overall mean sqrt(SS0 / 24) plus the three main
effects; no interactions). Every claim must hold there. Each refuting input is a copy of those
tables perturbed to contradict the claim's statement (two levels swapped, a response scaled or
made to depend on one factor only, one cell moved): the claim must miss there.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from tcplab.report.claims import CanFail, Claim
from tcplab.studies.satellite.claims import claims
from tcplab.studies.satellite.paper import ALLOCATION, EFFECTS, results_table
from tcplab.studies.satellite.results import FACTORS, RESPONSES, from_tables
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, DROP_NAMES, FLAVOUR_NAMES

Tables = dict[str, pd.DataFrame]


def paper_tables() -> Tables:
    """The paper's per-configuration results: Tables 4 and 7, and GEO rebuilt from Tables 11, 12."""
    out = {case: results_table(case) for case in ("wan", "meo")}
    rows = []
    for t in FLAVOUR_NAMES.values():
        for d in DROP_NAMES.values():
            for b in BUFFER_NAMES:
                row: dict = {"drop_policy": d, "tcp": t, "buffer": b}
                for i, resp in enumerate(RESPONSES):
                    mu = math.sqrt(ALLOCATION["geo"]["ss0"][i] / 24)
                    effects = [
                        EFFECTS["geo"][(f, lvl)][i][0] for f, lvl in zip(FACTORS, (t, b, d), strict=True)
                    ]
                    row[resp] = mu + sum(effects)
                rows.append(row)
    out["geo"] = pd.DataFrame(rows)
    return {c: df for c, df in out.items() if df is not None}


def judge(cid: str) -> Callable[..., Claim]:
    """The claim ``cid`` made from per-configuration ``tables``."""

    def make(tables: Tables, replications: int = 1) -> Claim:
        found = [c for c in claims(from_tables(tables, replications=replications)) if c.id == cid]
        if not found:
            raise KeyError(f"the satellite study makes no claim {cid!r} from these tables")
        return found[0]

    return make


# ---------------------------------------------------------------- perturbations of the paper's tables


def swap(case: str, factor: str, a: str, b: str) -> Callable[[Tables], Tables]:
    """Levels ``a`` and ``b`` of ``factor`` trade their results in ``case``."""

    def f(t: Tables) -> Tables:
        df = t[case].copy()
        df[factor] = df[factor].map(lambda x: b if x == a else a if x == b else x)
        return {**t, case: df}

    return f


def scale(case: str, resp: str, k: float) -> Callable[[Tables], Tables]:
    def f(t: Tables) -> Tables:
        df = t[case].copy()
        df[resp] = df[resp] * k
        return {**t, case: df}

    return f


def only(case: str, resp: str, factor: str) -> Callable[[Tables], Tables]:
    """``resp`` in ``case`` depends on ``factor`` alone (its levels 0.1 apart around the mean)."""

    def f(t: Tables) -> Tables:
        df = t[case].copy()
        levels = list(dict.fromkeys(df[factor]))
        df[resp] = df[resp].mean() + df[factor].map(
            lambda x: 0.1 * levels.index(x) - 0.05 * (len(levels) - 1)
        )
        return {**t, case: df}

    return f


def shift(case: str, resp: str, delta: float, **where: str) -> Callable[[Tables], Tables]:
    """``resp`` moved by ``delta`` in the rows of ``case`` matching ``where``."""

    def f(t: Tables) -> Tables:
        df = t[case].copy()
        rows = pd.Series(True, index=df.index)
        for factor, level in where.items():
            rows &= df[factor] == level
        df.loc[rows, resp] = df.loc[rows, resp] + delta
        return {**t, case: df}

    return f


def both(f: Callable[[Tables], Tables], g: Callable[[Tables], Tables]) -> Callable[[Tables], Tables]:
    return lambda t: g(f(t))


ONE_CELL = {"tcp": "NewReno", "drop_policy": "EPD", "buffer": "1 RTT"}

# claim -> (the perturbation that refutes it, why it does)
REFUTE: dict[str, tuple[Callable[[Tables], Tables], str]] = {
    **{f"geo_mean_{r}": (scale("geo", r, 0.6), f"every GEO {r} 40% lower") for r in RESPONSES},
    "wan_table4_efficiency": (shift("wan", "efficiency", 0.2, **ONE_CELL), "one cell 0.2 higher"),
    "wan_table4_fairness": (shift("wan", "fairness", -0.4, **ONE_CELL), "one cell 0.4 lower"),
    "meo_table7_efficiency": (shift("meo", "efficiency", 0.05, **ONE_CELL), "one cell 0.05 higher"),
    "meo_table7_fairness": (shift("meo", "fairness", -0.08, **ONE_CELL), "one cell 0.08 lower"),
    "wan_half_rtt_cells": (
        shift("wan", "efficiency", 0.3, tcp="Vanilla", buffer="0.5 RTT"),
        "Vanilla at 0.5 RTT 0.3 more efficient (our earlier WAN runs' shape)",
    ),
    "wan_efficiency_largest_factor": (
        only("wan", "efficiency", "buffer"),
        "efficiency set by the buffer alone",
    ),
    "meo_efficiency_largest_factor": (
        only("meo", "efficiency", "buffer"),
        "efficiency set by the buffer alone",
    ),
    "geo_efficiency_largest_factor": (
        only("geo", "efficiency", "buffer"),
        "efficiency set by the buffer alone",
    ),
    "wan_fairness_largest_factor": (only("wan", "fairness", "tcp"), "fairness set by the flavour alone"),
    "sack_advantage_grows_with_delay": (
        swap("geo", "tcp", "SACK", "NewReno"),
        "GEO's SACK and NewReno swapped",
    ),
    "meo_sack_best_efficiency": (swap("meo", "tcp", "Reno", "NewReno"), "MEO's Reno and NewReno swapped"),
    "geo_sack_best_efficiency": (swap("geo", "tcp", "SACK", "Vanilla"), "GEO's SACK and Vanilla swapped"),
    "wan_newreno_sack_beat_vanilla_reno": (swap("wan", "tcp", "SACK", "Reno"), "WAN's SACK and Reno swapped"),
    "wan_newreno_fairer_than_sack": (
        shift("wan", "fairness", 0.15, tcp="SACK"),
        "SACK's fairness 0.15 higher: 0.034 above NewReno's",
    ),
    "efficiency_rises_with_buffer": (swap("meo", "buffer", "1 RTT", "2 RTT"), "MEO's 1 and 2 RTT swapped"),
    "buffer_matters_most_at_low_delay": (
        only("wan", "efficiency", "tcp"),
        "WAN efficiency set by the flavour alone",
    ),
    "wan_one_rtt_enough_for_newreno_sack": (
        both(swap("wan", "tcp", "Vanilla", "NewReno"), swap("wan", "tcp", "Reno", "SACK")),
        "WAN's Vanilla/Reno and NewReno/SACK swapped: the latter gain the most from 1 to 2 RTT",
    ),
    "meo_half_rtt_enough_for_non_vanilla": (
        swap("meo", "tcp", "Reno", "Vanilla"),
        "MEO's Reno and Vanilla swapped",
    ),
    "geo_sack_half_rtt": (swap("geo", "tcp", "SACK", "Vanilla"), "GEO's SACK and Vanilla swapped"),
    "wan_sd_beats_epd_vanilla_reno": (swap("wan", "drop_policy", "EPD", "SD"), "WAN's EPD and SD swapped"),
    "drop_policy_small_on_long_delay": (
        only("meo", "fairness", "drop_policy"),
        "MEO fairness set by the drop policy",
    ),
    "long_delay_fairness_above_0_9": (scale("meo", "fairness", 0.9), "MEO fairness 10% lower"),
    "sack_newreno_similar_fairness_long_delay": (
        shift("meo", "fairness", -0.05, tcp="SACK"),
        "MEO SACK's fairness 0.05 lower",
    ),
    "wan_fairness_rises_with_buffer": (
        shift("wan", "fairness", 0.12, buffer="0.5 RTT"),
        "WAN 0.5 RTT fairness 0.12 higher: a rise of 0.02, far under the paper's smallest (0.089)",
    ),
}


# A value claim holds when our value, with its own error, lies within the paper's with its error
# (``claims._agree``). On the paper's tables as one replication our error is the paper's, which
# leaves no room: a single run of each cannot show the two agree. So its paper input is a model
# that reproduces the tables exactly in each of this many replications.
VALUE_REPLICATIONS = 4
VALUE_CLAIMS = ("geo_mean_efficiency", "geo_mean_fairness", "wan_table4_efficiency", "wan_table4_fairness")
VALUE_CLAIMS += ("meo_table7_efficiency", "meo_table7_fairness", "wan_half_rtt_cells")


def replicated(t: Tables, k: int) -> Tables:
    """``k`` identical replications of every configuration."""
    return {case: pd.concat([df] * k, ignore_index=True) for case, df in t.items()}


def _paper_input(cid: str, paper: Tables) -> dict:
    if cid in VALUE_CLAIMS:
        return {"tables": replicated(paper, VALUE_REPLICATIONS), "replications": VALUE_REPLICATIONS}
    return {"tables": paper}


def can_fail() -> list[CanFail]:
    paper = paper_tables()
    return [
        CanFail(
            cid,
            judge(cid),
            paper=_paper_input(cid, paper),
            refuting={"tables": perturb(paper)},
            source=f"Goyal et al. (1998), Tables 4 and 7 (GEO: Tables 11 and 12); refuting: {why}",
        )
        for cid, (perturb, why) in REFUTE.items()
    ]
