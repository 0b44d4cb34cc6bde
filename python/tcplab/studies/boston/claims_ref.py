"""The TCP Boston paper's numbers at its reference point (Bestavros and Kim, 1997, Figs. 15-17 and
Sec. 3: 9180-byte packets, a 64 kB window, a 512-cell buffer), judged as values by the rule of
tcplab.report.claims: each printed number stands for the range that prints the same ("2.3%" is
2.25-2.35%), widened by the 90% interval of our replications, times sqrt(1 + n) since each of
the paper's numbers comes from one 700 s run. For Boston the bitmap variant's value is listed
beside the judged one (not judged).

The claim functions take per-replication samples (``Samples``), so can_fail.py judges them on
the paper's own numbers and on refuting ones without a Results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tcplab.report.claims import Claim, above, cell, paper_ordering, paper_value, printed
from tcplab.report.measure import Samples, change, difference, mean, measure
from tcplab.studies.boston.judging import Runs
from tcplab.studies.boston.sweeps import PAPER_S

__all__ = ["VALUES", "bigger_gap_claim", "ref_claims", "value_claim"]

REF = "9180 B, 64 kB, 512 cells"
PAPER_RUNS = 1  # each of the paper's numbers here is one 700 s simulation


def _p(text: str):  # noqa: ANN202 - a Printed
    return printed(text, runs=PAPER_RUNS)


# The paper's values at the reference point: id -> (run kind, statement, printed, metric, protocol).
VALUES: dict[str, tuple[str, str, str, str, str]] = {
    "fig15_boston_cell_drop": (
        "single",
        "One source alone: Boston's cell drop rate is 2.3%",
        "2.3%",
        "cell_loss_rate",
        "boston",
    ),
    "fig15_reno_packet_drop": (
        "single",
        "One source alone: Reno's packet drop rate is 4.9%",
        "4.9%",
        "packet_loss_rate",
        "reno",
    ),
    "fig15_reno_effective": (
        "single",
        "One source alone: Reno's effective throughput is 83.1%",
        "83.1%",
        "effective_throughput",
        "reno",
    ),
    "fig15_boston_effective": (
        "single",
        "One source alone: Boston's effective throughput is 89.6%",
        "89.6%",
        "effective_throughput",
        "boston",
    ),
    "fig17_reno_effective": (
        "star",
        "16 sources: Reno's effective throughput is 59.1%",
        "59.1%",
        "effective_throughput",
        "reno",
    ),
    "fig17_boston_effective": (
        "star",
        "16 sources: Boston's effective throughput is 78.9%",
        "78.9%",
        "effective_throughput",
        "boston",
    ),
}


def value_claim(cid: str, runs: Samples, beside: Mapping[str, float] | None = None) -> Claim:
    """A value of ``VALUES`` on the measured runs; ``beside``: values listed, not judged."""
    _, text, number, metric, _ = VALUES[cid]
    m = mean(runs)
    measured: Any = None
    if beside:
        measured = {
            "boston": round(m.value, 4),
            **{f"{k} (not judged)": round(v, 4) for k, v in beside.items()},
        }
    return paper_value(cid, f"{text} ({REF})", [cell(metric, _p(number), m)], measured)


def sends_more_claim(boston_offered: Samples, reno_offered: Samples) -> Claim:
    return paper_value(
        "fig15_boston_sends_more",
        f"One source alone: Boston puts 3.2% more bytes into the switch than Reno ({REF}; relative)",
        [cell("Boston / Reno - 1, bytes offered", _p("3.2%"), change(boston_offered, reno_offered))],
    )


def gain_claim(boston_eff: Samples, reno_eff: Samples) -> Claim:
    return paper_value(
        "fig15_boston_gain",
        f"One source alone: Boston's effective throughput exceeds Reno's by 7.83% ({REF}; relative)",
        [cell("Boston / Reno - 1, effective throughput", _p("7.83%"), change(boston_eff, reno_eff))],
    )


def source_bytes_claim(boston_mb: Samples, reno_mb: Samples) -> Claim:
    return paper_value(
        "fig16_source_bytes",
        f"16 sources: a Boston source puts 6.7 MB into the switch over 700 s and a Reno source 5.1 MB "
        f"(mean per source, scaled to 700 s; {REF})",
        [cell("Boston, MB", _p("6.7"), mean(boston_mb)), cell("Reno, MB", _p("5.1"), mean(reno_mb))],
    )


def source_effective_claim(boston: Samples, reno: Samples) -> Claim:
    return paper_value(
        "fig16_source_effective",
        f"16 sources: a Boston source's effective throughput is 5.1% of the link and a Reno source's 3.8% "
        f"(mean per source; {REF})",
        [cell("Boston", _p("5.1%"), mean(boston)), cell("Reno", _p("3.8%"), mean(reno))],
    )


def total_claim(boston_mb: Samples, reno_mb: Samples, capacity_mb: float) -> Claim:
    """Sec. 3's 120 MB in 700 s, for each protocol (the 16 sources' bytes into the switch)."""
    claim = paper_value(
        "total_120mb",
        f"16 sources put 120 MB of data into the switch in 700 s ({REF}, scaled to 700 s; the output "
        "link's payload capacity listed, not judged)",
        [cell("Reno, MB", _p("120"), mean(reno_mb)), cell("Boston, MB", _p("120"), mean(boston_mb))],
    )
    measured = {**claim.measured, "output_payload_capacity_MB": round(capacity_mb, 1)}
    return Claim(**{**claim.__dict__, "measured": measured})


def bigger_gap_claim(
    boston_single: Samples, reno_single: Samples, boston_star: Samples, reno_star: Samples
) -> Claim:
    m = measure(
        lambda a, b, c, d: (c.mean(-1) - d.mean(-1)) - (a.mean(-1) - b.mean(-1)),
        boston_single,
        reno_single,
        boston_star,
        reno_star,
    )
    return paper_ordering(
        "more_sources_bigger_gap",
        f"The effective-throughput gap Boston minus Reno is larger with 16 sources than with one ({REF})",
        {"1_source": round(0.896 - 0.831, 3), "16_sources": round(0.789 - 0.591, 3)},
        [above("gap with 16 sources minus gap with one", m, 0)],
        {
            "1_source": round(float(difference(boston_single, reno_single).value), 3),
            "16_sources": round(float(difference(boston_star, reno_star).value), 3),
        },
    )


def ref_claims(r: Runs, other: str, duration_s: float, capacity_mb: float) -> list[Claim]:
    def s(kind: str, proto: str, metric: str) -> np.ndarray:
        return r.samples(kind, proto, metric)

    out = []
    for cid, (kind, _, _, metric, proto) in VALUES.items():
        beside = {other: float(np.mean(s(kind, "boston_bitmap", metric)))} if proto == "boston" else None
        out.append(value_claim(cid, s(kind, proto, metric), beside))
    scale = PAPER_S / duration_s / 1e6  # bytes over a run -> MB over 700 s
    out += [
        sends_more_claim(s("single", "boston", "offered_fraction"), s("single", "reno", "offered_fraction")),
        gain_claim(
            s("single", "boston", "effective_throughput"), s("single", "reno", "effective_throughput")
        ),
        source_bytes_claim(
            s("star", "boston", "source_bytes") * scale, s("star", "reno", "source_bytes") * scale
        ),
        source_effective_claim(s("star", "boston", "source_eff"), s("star", "reno", "source_eff")),
        total_claim(
            s("star", "boston", "source_bytes") * 16 * scale,
            s("star", "reno", "source_bytes") * 16 * scale,
            capacity_mb,
        ),
        bigger_gap_claim(
            s("single", "boston", "effective_throughput"),
            s("single", "reno", "effective_throughput"),
            s("star", "boston", "effective_throughput"),
            s("star", "reno", "effective_throughput"),
        ),
    ]
    return out
