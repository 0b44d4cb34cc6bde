"""The example study's claims, from the derived results (``results.Results``)."""

from __future__ import annotations

from tcplab.report.claims import diagnostic, ordering, trend
from tcplab.report.study import Claim
from tcplab.studies.example_loss.results import Results, mbps
from tcplab.studies.example_loss.scenarios import PAYLOAD_RATE_BPS, mathis_bps
from tcplab.studies.example_loss.sweeps import LOSS, NAMES, VARIANTS

FALL_FLOYD = "Fall & Floyd 1996"
MATHIS_FACTOR = 1.5  # this study's choice: the formula assumes periodic loss, not Bernoulli


def claims(r: Results) -> list[Claim]:
    return [_lossless(r), _falls(r), *_orderings(r), _mathis(r)]


def _lossless(r: Results) -> Claim:
    lossless = {v: r.mean(v, 0.0) for v in VARIANTS}
    return diagnostic(
        "lossless_link_rate",
        "Without loss every variant fills the link: goodput at least 95% of the payload rate",
        f"first principles: 10 Mb/s x 1460/1500 = {mbps(PAYLOAD_RATE_BPS)} Mb/s",
        {NAMES[v]: mbps(x) for v, x in lossless.items()},
        all(x >= 0.95 * PAYLOAD_RATE_BPS for x in lossless.values()),
    )


def _falls(r: Results) -> Claim:
    falls = {v: [r.mean(v, p) for p in LOSS] for v in VARIANTS}
    return trend(
        "goodput_falls_with_loss",
        "For every variant, mean goodput falls at each step up in loss rate (0, 0.5, 1, 2, 5%)",
        "Mathis et al. 1997: goodput proportional to 1/sqrt(p)",
        {NAMES[v]: [mbps(x) for x in xs] for v, xs in falls.items()},
        all(a > b for xs in falls.values() for a, b in zip(xs, xs[1:], strict=False)),
    )


def _orderings(r: Results) -> list[Claim]:
    lossy = [p for p in LOSS if p > 0]
    slowest = {p: min(VARIANTS, key=lambda v, p=p: r.mean(v, p)) for p in lossy}
    at2 = {v: r.mean(v, 0.02) for v in VARIANTS}
    return [
        ordering(
            "vanilla_slowest",
            "At every non-zero loss rate Vanilla (timeouts only) has the lowest mean goodput",
            f"{FALL_FLOYD}: without fast retransmit every loss waits for the retransmission timer",
            {f"{p:.1%}": NAMES[v] for p, v in slowest.items()},
            all(v == "vanilla" for v in slowest.values()),
        ),
        ordering(
            "recovery_beats_reno_2pct",
            "At 2% loss NewReno and SACK both have a higher mean goodput than Reno",
            f"{FALL_FLOYD}: Reno suffers with several losses in one window; NewReno and SACK do not",
            {NAMES[v]: mbps(at2[v]) for v in ("reno", "newreno", "sack")},
            at2["newreno"] > at2["reno"] and at2["sack"] > at2["reno"],
        ),
        ordering(
            "sack_ge_newreno_2pct",
            "At 2% loss SACK's mean goodput is at least NewReno's",
            f"{FALL_FLOYD}: SACK repairs several losses per round trip, NewReno one per round trip",
            {NAMES[v]: mbps(at2[v]) for v in ("newreno", "sack")},
            at2["sack"] >= at2["newreno"],
        ),
    ]


def _mathis(r: Results) -> Claim:
    ratio = {p: r.mean("newreno", p) / mathis_bps(p) for p in (0.005, 0.01, 0.02)}
    return Claim(
        "mathis_newreno",
        f"NewReno's goodput is within a factor of {MATHIS_FACTOR:g} of the Mathis et al. formula at "
        "0.5-2% loss",
        "Mathis et al. 1997: BW = MSS/RTT x sqrt(3/2)/sqrt(p) ("
        + ", ".join(f"{p:.1%}: {mbps(mathis_bps(p))} Mb/s" for p in ratio)
        + ")",
        {f"{p:.1%}": round(x, 3) for p, x in ratio.items()},
        all(1 / MATHIS_FACTOR <= x <= MATHIS_FACTOR for x in ratio.values()),
        kind="value",
    )
