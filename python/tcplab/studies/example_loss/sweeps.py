"""The example study's sweeps: four variants against five loss rates, and one traced run each."""

from __future__ import annotations

from tcplab.experiment.spec import SweepSpec
from tcplab.studies.example_loss.scenarios import ONE_DROP, THREE_DROPS, drop_scenario, scenario

VARIANTS = ["vanilla", "reno", "newreno", "sack"]
# the drop-list cases also run RFC 6675's SACK, as a reference for the PIPE algorithm's sends
DROP_VARIANTS = ["reno", "newreno", "sack", "sack_rfc6675"]
NAMES = {
    "vanilla": "Vanilla",
    "reno": "Reno",
    "newreno": "NewReno",
    "sack": "SACK",
    "sack_rfc6675": "SACK (RFC 6675, reference)",
}
LOSS = [0.0, 0.005, 0.01, 0.02, 0.05]
TRACE_LOSS = 0.02
LABELS = {"tcp.variant": "variant", "link.0.ab.loss.p": "loss"}


def sweeps(quick: bool) -> list[SweepSpec]:
    duration, reps = (20.0, 5) if quick else (100.0, 20)
    return _sweeps(duration, reps)


def tiny() -> list[SweepSpec]:
    """Two replications of 5 s runs: every figure, claim and table, in seconds (a test hook)."""
    return _sweeps(5.0, 2)


def _sweeps(duration: float, reps: int) -> list[SweepSpec]:
    return [
        SweepSpec(
            name="loss",
            base=scenario(duration),
            factors={"tcp.variant": VARIANTS, "link.0.ab.loss.p": LOSS},
            replications=reps,
            seed=1996,
            labels=LABELS,
        ),
        SweepSpec(
            name="one_drop",
            base=drop_scenario(ONE_DROP),
            factors={"tcp.variant": DROP_VARIANTS},
            replications=1,
            seed=1996,
            labels={"tcp.variant": "variant"},
        ),
        SweepSpec(
            name="three_drops",
            base=drop_scenario(THREE_DROPS),
            factors={"tcp.variant": DROP_VARIANTS},
            replications=1,
            seed=1996,
            labels={"tcp.variant": "variant"},
        ),
        SweepSpec(
            name="traces",
            base=scenario(10.0, trace=True),
            factors={"tcp.variant": VARIANTS, "link.0.ab.loss.p": [TRACE_LOSS]},
            replications=1,
            seed=1996,
            labels=LABELS,
        ),
    ]
