"""The study's sweeps: the sender schemes on Fig. 1's network (with an RTT sensitivity variant), the
multi-hop network of Fig. 11 with three ways to recover from losses, and traced runs for the
packet-trace figures (one per Fig. 1 scheme; on Fig. 11 as many as the sweeps' replications,
for Sec. 6's stall token-loss rate).

A scheme is the ``reservation`` table of the three reserved connections (C1, C2, C4), zipped
so the three vary together; "normal TCP" is the table of the defaults (standard window, ACK
clock), which is the same as no table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from tcplab.experiment.spec import SweepSpec
from tcplab.studies.intserv.scenarios import (
    ERED_LEVELS,
    FIG1_LINKS,
    PRIMARY_ERED,
    ROUTERS,
    SCHEMES,
    STACK,
    scenario,
    unloaded_bdp_packets,
)

SEED = 1997
FIG1_SCHEMES = ["normal", "window", "window_delayed", "window_timed", "timed"]
FIG11_SCHEMES = ["normal", "window", "window_timed"]
# Figs. 2-10 are captioned New-Reno (ns-2's, without Hoe's changes); Sec. 3's text says Reno, and
# the enhancements were "applied to both Reno and SACK": all three run.
FIG1_VARIANTS = ["newreno_ns2", "reno", "sack"]
MAIN_VARIANT = "newreno_ns2"
TRACE_SCHEMES_FIG1 = ["normal", "window", "window_delayed", "window_timed", "window_min"]
# The alternative reading of RWND (from the minimum RTT, not the paper's smoothed RTT) for the
# windowing schemes, on both networks with New-Reno (and Fig. 11's three recoveries), in sweeps
# of their own so the paper's sweeps and claims stay as they are.
MIN_RTT_SCHEMES = ["window_min", "window_timed_min"]
# Loss recovery on the multi-hop network (Sec. 6): the Reno variant (ns-2 New-Reno) as is, with
# MaxBurst 2, and SACK.
RECOVERY = {"newreno": ("newreno_ns2", 0), "newreno_mb2": ("newreno_ns2", 2), "sack": ("sack", 0)}
RECOVERY_NAMES = {"newreno": "New-Reno", "newreno_mb2": "New-Reno, MaxBurst 2", "sack": "SACK"}
RTT_SCALES = [0.5, 2.0]  # the sensitivity variant: every propagation delay halved, doubled
SENSITIVITY_SCHEMES = ["normal", "window", "window_timed"]
# ERED's sensitivity (Fig. 1, the paper's schemes of Fig. 10's extremes): every level but the
# primary, which is the main sweep's.
ERED_SWEEP_LEVELS = [k for k in ERED_LEVELS if k != PRIMARY_ERED]
# The router's output on Fig. 1 (the only ERED queue there).
FIG1_ROUTER_LINK = next(i for i, link in enumerate(FIG1_LINKS) if link[0] in ROUTERS)
TRACE_START_S = 40.0  # the 5-second packet traces show [40, 45) s
TRACE_LEN_S = 5.0


@dataclass(frozen=True)
class Plan:
    duration_s: float
    reps: int
    sensitivity_reps: int
    trace_duration_s: float


FULL = Plan(duration_s=200.0, reps=10, sensitivity_reps=5, trace_duration_s=TRACE_START_S + TRACE_LEN_S)
# Quick mode: five replications (three on the sensitivity stack), the most that keep it within
# about two minutes; the claims' intervals need several (with three, a t quantile of 2.92 on two
# degrees of freedom makes most of them too wide to decide).
QUICK = Plan(duration_s=100.0, reps=5, sensitivity_reps=3, trace_duration_s=TRACE_START_S + TRACE_LEN_S)
TINY = Plan(duration_s=40.0, reps=1, sensitivity_reps=1, trace_duration_s=TRACE_START_S + TRACE_LEN_S)


def sweeps(quick: bool, stack: str = STACK) -> list[SweepSpec]:
    """The study's sweeps on ``stack``: everything on the paper's ns (``STACK``); on the
    sensitivity stack only what the paper's claims read (New-Reno, the sensitivity
    replications)."""
    plan = QUICK if quick else FULL
    if stack == STACK:
        return _sweeps(plan, stack)
    return _sweeps(replace(plan, reps=plan.sensitivity_reps), stack, extras=False)


def tiny(stack: str = STACK) -> list[SweepSpec]:
    """One 40 s run per point (two 20 s windows): every figure, claim and table (a test hook)."""
    return _sweeps(TINY, stack, extras=stack == STACK)


def _scheme_zip(schemes: list[str]) -> dict[str, list[Any]]:
    tables = [SCHEMES[s] or {"window": "standard", "send": "ack"} for s in schemes]
    return {f"flow.{i}.reservation": tables for i in range(3)}


def _scheme_labels(schemes: list[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    labels = {
        "flow.0.reservation": "scheme",
        "flow.1.reservation": "scheme_c2",
        "flow.2.reservation": "scheme_c4",
    }
    return labels, {f"flow.{i}.reservation": list(schemes) for i in range(3)}


def _recovery_zip(base: dict[str, Any], names: list[str]) -> dict[str, list[Any]]:
    """The whole ``tcp`` table per way of recovering (levels must differ, and the variant repeats)."""
    return {"tcp": [{**base["tcp"], "variant": RECOVERY[n][0], "max_burst": RECOVERY[n][1]} for n in names]}


def _spec(
    name: str,
    base: dict[str, Any],
    schemes: list[str],
    reps: int,
    extra: list[dict[str, list[Any]]],
    extra_labels: dict[str, str],
    extra_level_labels: dict[str, list[str]],
    factors: dict[str, list[Any]] | None = None,
) -> SweepSpec:
    labels, level_labels = _scheme_labels(schemes)
    return SweepSpec(
        name=name,
        base=base,
        factors=factors or {},
        zips=[_scheme_zip(schemes), *extra],
        replications=reps,
        seed=SEED,
        labels={**labels, **extra_labels},
        level_labels={**level_labels, **extra_level_labels},
    )


def _sweeps(plan: Plan, stack: str, extras: bool = True) -> list[SweepSpec]:
    """The paper's sweeps (``fig1``, ``fig11``, the traces) and, with ``extras``, the tables'
    other variants and the sensitivity sweeps (RTT scale, ERED's parameters, the minimum-RTT
    alternative)."""
    rec = list(RECOVERY)
    rec_labels = {"tcp": "recovery"}
    rec_level_labels = {"tcp": rec}
    fig1 = scenario("fig1", "normal", plan.duration_s, stack=stack)
    fig11 = scenario("fig11", "normal", plan.duration_s, stack=stack)
    fig11_traces = scenario("fig11", "window_timed", plan.trace_duration_s, trace_c4=True, stack=stack)
    variants = FIG1_VARIANTS if extras else [MAIN_VARIANT]
    paper = [
        _spec(
            "fig1",
            fig1,
            FIG1_SCHEMES,
            plan.reps,
            [],
            {"tcp.variant": "variant"},
            {},
            factors={"tcp.variant": variants},
        ),
        _spec(
            "fig11",
            fig11,
            FIG11_SCHEMES,
            plan.reps,
            [_recovery_zip(fig11, rec)],
            rec_labels,
            rec_level_labels,
        ),
        _spec(
            "fig1_traces",
            scenario("fig1", "normal", plan.trace_duration_s, trace_c4=True, stack=stack),
            TRACE_SCHEMES_FIG1,
            1,
            [],
            {},
            {},
        ),
        # Every replication of Fig. 11's traced runs (not one, as Fig. 1's): Sec. 6's stall
        # token-loss rate is read from their segment logs; the figures draw replication 0.
        _spec(
            "fig11_traces",
            fig11_traces,
            ["window_timed"],
            plan.reps,
            [_recovery_zip(fig11_traces, rec)],
            rec_labels,
            rec_level_labels,
        ),
    ]
    if not extras:
        return paper
    ered = f"link.{FIG1_ROUTER_LINK}.ab.qdisc"
    return [
        *paper,
        _spec(
            "fig1_rtt",
            fig1,
            SENSITIVITY_SCHEMES,
            plan.sensitivity_reps,
            [_rtt_zip(RTT_SCALES)],
            {"tcp.rcv_buf": "rtt_scale", **{f"link.{i}.delay": f"delay_{i}" for i in range(len(FIG1_LINKS))}},
            {"tcp.rcv_buf": [f"{s:g}" for s in RTT_SCALES]},
        ),
        _spec(
            "fig1_ered",
            fig1,
            SENSITIVITY_SCHEMES,
            plan.sensitivity_reps,
            [],
            {ered: "ered"},
            {ered: ERED_SWEEP_LEVELS},
            factors={ered: [ERED_LEVELS[k] for k in ERED_SWEEP_LEVELS]},
        ),
        _spec("fig1_min", fig1, MIN_RTT_SCHEMES, plan.reps, [], {}, {}),
        _spec(
            "fig11_min",
            fig11,
            MIN_RTT_SCHEMES,
            plan.reps,
            [_recovery_zip(fig11, rec)],
            rec_labels,
            rec_level_labels,
        ),
    ]


def _rtt_zip(scales: list[float]) -> dict[str, list[Any]]:
    """Every link's delay and the advertised window (the unloaded delay-bandwidth product) at
    each scale, varying together."""
    z: dict[str, list[Any]] = {
        f"link.{i}.delay": [d * s for s in scales] for i, (_, _, _, d) in enumerate(FIG1_LINKS)
    }
    # rcv_buf is labelled as the scale: its level names are the scales.
    z["tcp.rcv_buf"] = [unloaded_bdp_packets("fig1", s) * 1000 for s in scales]
    return z
