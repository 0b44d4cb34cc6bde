"""The example study's claims, from the derived results (``results.Results``).

Every claim is a function of per-run samples (or of the deterministic drop-list runs), judged by
the rule of ``tcplab.report.claims``; ``can_fail.py`` runs each on inputs that must make it hold
and inputs that must make it miss.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tcplab.report.claims import (
    Claim,
    Printed,
    above,
    at_least,
    below,
    cell,
    diagnostic,
    paper_ordering,
    paper_trend,
    paper_value,
)
from tcplab.report.measure import Samples, exact, measure, ratio
from tcplab.studies.example_loss.results import Results, mbps
from tcplab.studies.example_loss.scenarios import PAYLOAD_RATE_BPS
from tcplab.studies.example_loss.sweeps import LOSS, NAMES, VARIANTS

FALL_FLOYD = "Fall & Floyd 1996"
MATHIS = "Mathis et al. 1997"
MATHIS_LOSS = (0.005, 0.01, 0.02)  # light to moderate loss, where the model applies
# goodput per loss rate of one variant: {loss: samples}
ByLoss = Mapping[float, Samples]


def claims(r: Results) -> list[Claim]:
    by_variant = {v: {p: r.samples(v, p) for p in LOSS} for v in VARIANTS}
    drops = r.three_drops.set_index("variant")
    one = r.one_drop.set_index("variant")
    return [
        lossless_link_rate(lossless={v: by_variant[v][0.0] for v in VARIANTS}),
        goodput_falls_with_loss(goodput=by_variant),
        vanilla_slowest(goodput=by_variant),
        recovery_beats_reno_2pct(**{v: by_variant[v][0.02] for v in ("reno", "newreno", "sack")}),
        sack_beats_newreno_three_drops(
            completion_s={v: float(drops.loc[v, "completion_s"]) for v in drops.index}
        ),
        sack_one_drop_recovery(new_segments={v: float(one.loc[v, "new_segments"]) for v in one.index}),
        mathis_sqrt_scaling(goodput={p: by_variant["newreno"][p] for p in MATHIS_LOSS}),
    ]


def lossless_link_rate(lossless: Mapping[str, Samples]) -> Claim:
    checks = [
        at_least(f"{NAMES[v]}, Mb/s", measure(lambda x: x.mean(-1) / 1e6, x), 0.95 * PAYLOAD_RATE_BPS / 1e6)
        for v, x in lossless.items()
    ]
    return diagnostic(
        "lossless_link_rate",
        "Without loss every variant fills the link: goodput at least 95% of the payload rate",
        f"first principles: 10 Mb/s x 1460/1500 = {mbps(PAYLOAD_RATE_BPS)} Mb/s",
        {NAMES[v]: mbps(float(np.mean(x))) for v, x in lossless.items()},
        checks=checks,
    )


def goodput_falls_with_loss(goodput: Mapping[str, ByLoss]) -> Claim:
    checks = []
    for v, by_loss in goodput.items():
        levels = sorted(by_loss)
        for a, b in zip(levels, levels[1:], strict=False):
            checks.append(below(f"{NAMES[v]}: {b:.1%} / {a:.1%}", ratio(by_loss[b], by_loss[a]), 1))
    return paper_trend(
        "goodput_falls_with_loss",
        "For every variant, mean goodput falls at each step up in loss rate (0, 0.5, 1, 2, 5%; each step's "
        "ratio of means below 1)",
        f"{MATHIS}: goodput proportional to 1/sqrt(p)",
        checks,
        {
            NAMES[v]: [mbps(float(np.mean(by_loss[p]))) for p in sorted(by_loss)]
            for v, by_loss in goodput.items()
        },
    )


def vanilla_slowest(goodput: Mapping[str, ByLoss]) -> Claim:
    lossy = [p for p in sorted(goodput["vanilla"]) if p > 0]
    checks = [
        below(f"{p:.1%}: Vanilla / {NAMES[v]}", ratio(goodput["vanilla"][p], goodput[v][p]), 1)
        for p in lossy
        for v in goodput
        if v != "vanilla"
    ]
    return paper_ordering(
        "vanilla_slowest",
        "At every non-zero loss rate Vanilla (timeouts only) has a lower mean goodput than each other "
        "variant",
        f"{FALL_FLOYD}: without fast retransmit every loss waits for the retransmission timer",
        checks,
        {f"{p:.1%}": {NAMES[v]: mbps(float(np.mean(goodput[v][p]))) for v in goodput} for p in lossy},
    )


def recovery_beats_reno_2pct(reno: Samples, newreno: Samples, sack: Samples) -> Claim:
    return paper_ordering(
        "recovery_beats_reno_2pct",
        "At 2% loss NewReno and SACK both have a higher mean goodput than Reno (the ratio above 1)",
        f"{FALL_FLOYD}: Reno suffers with several losses in one window; NewReno and SACK do not",
        [above("NewReno / Reno", ratio(newreno, reno), 1), above("SACK / Reno", ratio(sack, reno), 1)],
        {
            NAMES[v]: mbps(float(np.mean(x)))
            for v, x in (("reno", reno), ("newreno", newreno), ("sack", sack))
        },
    )


def sack_beats_newreno_three_drops(completion_s: Mapping[str, float]) -> Claim:
    c = completion_s
    return paper_ordering(
        "sack_beats_newreno_three_drops",
        "Fall and Floyd's multiple-drop case: with three packets lost from one window (segments 40, 42, 44 "
        "of a 146 KB transfer, window about 11 segments), SACK finishes before NewReno (which repairs one "
        "loss per round trip) and NewReno before Reno (deterministic drop lists; completion-time ratios "
        "below 1)",
        f"{FALL_FLOYD}: SACK recovers several losses in one round trip; NewReno needs one round trip per "
        f"loss; "
        "Reno times out",
        [
            below("SACK / NewReno completion", exact(c["sack"] / c["newreno"]), 1),
            below("NewReno / Reno completion", exact(c["newreno"] / c["reno"]), 1),
        ],
        {NAMES[v]: round(t, 4) for v, t in c.items()},
    )


def sack_one_drop_recovery(new_segments: Mapping[str, float]) -> Claim:
    n = new_segments
    return diagnostic(
        "sack_one_drop_recovery",
        "The PIPE algorithm sends what a window inflated by one segment per duplicate ACK sends (Goyal et "
        "al. 1998, Sec. 3.2's equivalence; Fall and Floyd's sack1 sets pipe = cwnd - 3 and does not count "
        "the fast retransmission): in the fast recovery of one drop (segment 40, window about 11) SACK "
        "sends as many new segments as NewReno (a check of the core's SACK)",
        "as many new segments as NewReno",
        {NAMES[v]: int(x) for v, x in n.items()},
        checks=[at_least("SACK - NewReno new segments", exact(n["sack"] - n["newreno"]), 0)],
    )


def _slope(*xs: Any) -> Any:
    """The least-squares slope of log(mean goodput) on log(loss) over ``MATHIS_LOSS``."""
    lp = np.log(np.asarray(MATHIS_LOSS))
    lp = lp - lp.mean()
    lg = np.stack([np.log(x.mean(-1)) for x in xs])
    return np.tensordot(lp, lg - lg.mean(0), axes=1) / (lp @ lp)


def mathis_sqrt_scaling(goodput: ByLoss) -> Claim:
    exponent = Printed("-1/2 (1/sqrt(p), exact)", -0.5, -0.5, -0.5)
    m = measure(_slope, *[goodput[p] for p in MATHIS_LOSS])
    return paper_value(
        "mathis_sqrt_scaling",
        "NewReno's goodput falls as 1/sqrt(p) at light to moderate loss (0.5-2%): the slope of log goodput "
        "on log loss is -1/2 (least squares over the three rates; the model assumes no retransmission "
        "timeouts)",
        [cell("slope of log goodput on log loss", exponent, m)],
        {f"{p:.1%}": mbps(float(np.mean(goodput[p]))) for p in MATHIS_LOSS} | {"slope": round(m.value, 3)},
    )
