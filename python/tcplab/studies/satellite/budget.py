"""Where a configuration's efficiency goes, from the sensitivity runs' per-run diagnostics
(``sensitivity._diagnostics``): a diagnostic beside Goyal et al. (1998)'s Tables 4 and 7, not a
claim.

Per configuration, in units of C (Sec. 7), means over replications:
- ``bound``: the efficiency of a work-conserving trunk fed with the servers' writes as they
  happened (the offered load, capped at C bin by bin): what no TCP could exceed;
- ``busy``: the trunk's utilisation (cells sent over cell slots, forward direction);
- ``idle, work waiting`` = bound - busy: trunk time lost while servers had data (timeouts,
  windows too small, the start);
- ``cells not goodput`` = busy - E: cells that carried retransmissions, frames cut by the switch,
  the padding of short segments, the request flows' ACKs;
- ``timeouts / server``, ``E 0-10 s`` and ``E 10 s-end`` (the first batch period against the
  rest), ``backlogged``: servers with data waiting, on average after the first 10 s.
"""

from __future__ import annotations

import pandas as pd

from tcplab.studies.satellite.paper import results_table

__all__ = ["DIAGNOSTICS", "budget", "budget_summary"]

# The columns a recorded file needs for a budget (files from before them have none).
DIAGNOSTICS = ("e_bound", "trunk_utilization", "timeouts", "e_10s", "e_after_10s", "backlogged_mean")
KEYS = ["drop_policy", "tcp", "buffer"]


def _means(df: pd.DataFrame) -> pd.DataFrame:
    cols = ["efficiency", *DIAGNOSTICS]
    m = df.groupby(KEYS, sort=False)[cols].mean().reset_index()
    m["timeouts"] = m["timeouts"] / 100  # per server: 100 pairs
    return m


def budget(df: pd.DataFrame, case: str) -> pd.DataFrame:
    """One reading's runs: one row per configuration (module docstring), beside the paper's
    efficiency where it has a table (Table 4, WAN; Table 7, MEO)."""
    m = _means(df)
    out = pd.DataFrame({k: m[k] for k in KEYS})
    paper = results_table(case)
    if paper is not None:
        theirs = paper.set_index(KEYS)["efficiency"].reindex(pd.MultiIndex.from_frame(m[KEYS])).to_numpy()
        out["E paper"] = theirs.round(4)
    out["E ours"] = m["efficiency"].round(3)
    if paper is not None:
        out["diff"] = (m["efficiency"] - theirs).round(3)
    out["bound"] = m["e_bound"].round(3)
    out["busy"] = m["trunk_utilization"].round(3)
    out["idle, work waiting"] = (m["e_bound"] - m["trunk_utilization"]).round(3)
    out["cells not goodput"] = (m["trunk_utilization"] - m["efficiency"]).round(3)
    out["timeouts / server"] = m["timeouts"].round(1)
    out["E 0-10 s"] = m["e_10s"].round(3)
    out["E 10 s-end"] = m["e_after_10s"].round(3)
    out["backlogged"] = m["backlogged_mean"].round(1)
    return out


def budget_summary(df: pd.DataFrame, case: str) -> pd.DataFrame:
    """Per reading: the budget's means over the 24 configurations, and per flavour."""
    rows = []
    for name, g in df.groupby("reading", sort=False):
        b = budget(g, case)
        for label, part in [("all", b), *b.groupby("tcp", sort=False)]:
            row = {"reading": name, "flavour": label}
            row |= {c: round(float(part[c].mean()), 3) for c in b.columns if c not in KEYS}
            rows.append(row)
    return pd.DataFrame(rows)
