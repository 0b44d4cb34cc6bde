"""How each of the TCP Boston study's paper claims can fail (Bestavros and Kim, 1997;
``tcplab.report.claims.CanFail``).

The claims are still judged by the legacy rule (the study's own booleans on means over
replications), so every fixture feeds the claim function the same thing the study does: a
``Results``, here a small stand-in (``Grid``) whose ``at`` reads a metric from a formula instead
of from runs. ``paper_like`` is a world built to satisfy the paper's statements (its figures are
plots; where the text prints numbers, Figs. 15-17, the world takes them); each refuting world
changes the one thing the claim is about. Where the paper prints the numbers themselves (the
"about X" values of Figs. 15-17 and Fig. 16's per-source shares), the fixture's paper input is
those numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tcplab.report.claims import CanFail, Claim
from tcplab.studies.boston import claims as c
from tcplab.studies.boston import setup_claims as sc
from tcplab.studies.boston.scenarios import BUFFERS, PACKET_SIZES, WINDOWS

Metric = Callable[[str, str, str, int, int, int], float]


@dataclass(frozen=True)
class Grid:
    """A stand-in for ``results.Results``: the grid the study runs and a metric per point."""

    metric: Metric
    packets: tuple[int, ...] = PACKET_SIZES
    window_sizes: tuple[int, ...] = WINDOWS
    buffers: tuple[int, ...] = BUFFERS
    duration_s: float = 700.0
    other: str = "bitmap variant"
    average_window: dict[str, float] = field(default_factory=lambda: {"boston": 27700.0, "reno": 23900.0})

    def at(
        self,
        kind: str,
        protocol: str,
        metric: str,
        packet: int = 9180,
        window: int = 64000,
        buffer: int = 512,
        timer: str = "stack",
    ) -> float:
        return self.metric(kind, protocol, metric, packet, window, buffer)


def _reno_loss(pk: int, b: int) -> float:
    """Reno's packet loss: log-linear below 1000 cells, nearly flat above (Sec. 4.1)."""
    return 0.005 + 0.9 * math.exp(-b / 200) * (pk / 9180) ** 0.1


def _ratio(pk: int, b: int) -> float:
    """Reno's loss over Boston's: about 2, larger toward 64 cells and for larger packets."""
    return 1.8 + 0.4 * math.exp(-b / 200) * pk / 9180


# Figs. 15-17's printed values at the reference point: (kind, protocol) -> metric -> value.
_PRINTED: dict[tuple[str, str], dict[str, float]] = {
    ("single", "boston"): {"effective_throughput": 0.896, "offered_fraction": 0.8 * 1.032},
    ("single", "reno"): {"effective_throughput": 0.831, "offered_fraction": 0.8},
    ("star", "boston"): {"source_bytes": 6.7e6, "source_eff": 0.051},
    ("star", "reno"): {"source_bytes": 5.1e6, "source_eff": 0.038},
}


def paper_like(kind: str, proto: str, metric: str, pk: int, w: int, b: int) -> float:
    """A world that satisfies the paper's statements (see the module's doc)."""
    boston = proto != "reno"
    printed = _PRINTED.get((kind, "boston" if boston else "reno"), {})
    if metric in printed and (pk, w, b) == (9180, 64000, 512):
        return printed[metric]
    loss = _reno_loss(pk, b) / (_ratio(pk, b) if boston else 1.0)
    eff_boston = 0.95 - 0.3 * math.exp(-b / 300)
    eff = eff_boston if boston else eff_boston - 0.1 * w / 64000
    reno_extra = 0.007 + 0.02 * math.exp(-b / 1000) * pk / 9180
    values = {
        "packet_loss_rate": loss,
        "cell_loss_rate": loss,
        "retransmission_rate": loss,
        "response_time_ms_per_byte": 0.05 + (0.0 if boston else reno_extra),
        "effective_throughput": eff,
        "utilization": eff + (0.02 if boston else 0.15),
        "source_bytes": 7.5e6,
    }
    return values[metric]


def _with(change: Callable[[str, str, str, int, int, int, float], float]) -> Grid:
    """The paper-like world with one thing changed: ``change`` gets the point and its value."""
    return Grid(lambda k, p, m, pk, w, b: change(k, p, m, pk, w, b, paper_like(k, p, m, pk, w, b)))


def _pick(make: Callable[[Any], list[Claim]], cid: str) -> Callable[..., Claim]:
    """The judge of claim ``cid`` among those ``make`` returns."""

    def judge(r: Any) -> Claim:
        return next(x for x in make(r) if x.id == cid)

    return judge


PAPER = {"r": Grid(paper_like)}


def _grid_claims() -> list[CanFail]:
    def flat_reno(k, p, m, pk, w, b, v):  # Reno's loss no longer falls with the buffer
        return 0.3 if (p == "reno" and m == "packet_loss_rate") else v

    def boston_loss_up(k, p, m, pk, w, b, v):  # Boston's cell loss rises toward 64 cells like Reno's
        return _reno_loss(pk, b) * (1.0 if b == 64 else 1.0 / _ratio(pk, b)) if m == "cell_loss_rate" else v

    def constant_ratio(k, p, m, pk, w, b, v):
        return _reno_loss(pk, b) / 2 if m == "cell_loss_rate" else v

    def rtx_unrelated(k, p, m, pk, w, b, v):
        return 0.05 + 0.01 * ((pk + b) % 3) if m == "retransmission_rate" else v

    def rt_flat(k, p, m, pk, w, b, v):
        return 0.05 + (0.0 if p != "reno" else 0.007) if m == "response_time_ms_per_byte" else v

    def rt_equal(k, p, m, pk, w, b, v):
        return 0.05 if m == "response_time_ms_per_byte" else v

    def boston_poor(k, p, m, pk, w, b, v):
        return v - 0.2 if (m == "effective_throughput" and p != "reno") else v

    def reno_above(k, p, m, pk, w, b, v):
        return v + 0.2 if (m == "effective_throughput" and p == "reno") else v

    def boston_busy(k, p, m, pk, w, b, v):  # at 64 cells the link is busy but carries waste
        return v + 0.3 if (m == "utilization" and p != "reno") else v

    def reno_clean(k, p, m, pk, w, b, v):
        return v - 0.14 if (m == "utilization" and p == "reno") else v

    def gap_grows_small_windows(k, p, m, pk, w, b, v):
        return v + 0.1 * w / 64000 - 0.1 * 8000 / w if (m == "effective_throughput" and p == "reno") else v

    def bigger_single_gap(k, p, m, pk, w, b, v):
        if m == "effective_throughput" and k == "single":
            return 0.95 if p != "reno" else 0.5
        return v

    def loss_flat_below(k, p, m, pk, w, b, v):
        return 0.2 if (m == "packet_loss_rate" and p == "reno" and b <= 1000) else v

    def bytes_low(k, p, m, pk, w, b, v):
        return 2e6 if m == "source_bytes" else v

    def bytes_printed(k, p, m, pk, w, b, v):
        return 7.5e6 if m == "source_bytes" else v

    fig7, fig10, resp, win = c._fig7, c._fig10, c._response, c._windows
    optimal = _pick(fig10, "fig10_boston_optimal_large_buffers")
    cases = [
        ("fig7_loss_falls_with_buffer", _pick(fig7, "fig7_loss_falls_with_buffer"), flat_reno),
        ("fig7_reno_grows_faster", _pick(fig7, "fig7_reno_grows_faster"), boston_loss_up),
        ("fig7_ratio_toward_small_buffers", _pick(fig7, "fig7_ratio_toward_small_buffers"), constant_ratio),
        ("retransmission_tracks_loss", _pick(fig7, "retransmission_tracks_loss"), rtx_unrelated),
        ("fig8_response_ratio_grows", _pick(resp, "fig8_response_ratio_grows"), rt_flat),
        ("response_margin_0.007", _pick(resp, "response_margin_0.007"), rt_equal),
        ("fig10_boston_optimal_large_buffers", optimal, boston_poor),
        ("fig10_reno_below_boston", _pick(fig10, "fig10_reno_below_boston"), reno_above),
        ("boston_small_buffer_idle", _pick(fig10, "boston_small_buffer_idle"), boston_busy),
        ("reno_small_buffer_waste", _pick(fig10, "reno_small_buffer_waste"), reno_clean),
        ("window_convergence", _pick(win, "window_convergence"), gap_grows_small_windows),
        ("more_sources_bigger_gap", c._bigger_gap, bigger_single_gap),
        ("fig7_reno_exponential_below_50kB", sc._exponential, loss_flat_below),
        ("total_120mb", sc._total, bytes_low),
    ]
    out = [
        CanFail(cid, judge, satisfying=PAPER, refuting={"r": _with(change)}, source="paper_like: Figs. 7-17")
        for cid, judge, change in cases
        if cid != "total_120mb"
    ]
    # Fig. 16's printed per-source bytes (6.7 and 5.1 MB) are 107 and 82 MB for 16 sources, not
    # the 120 MB of Sec. 3: the paper's own numbers do not satisfy both, so each has its world.
    out.append(
        CanFail(
            "total_120mb",
            sc._total,
            satisfying={"r": _with(bytes_printed)},
            refuting={"r": _with(bytes_low)},
            source="Sec. 3: 120 MB in 700 s",
        )
    )
    out.append(
        CanFail(
            "fig16_source_bytes",
            _pick(c._figs16_17, "fig16_source_bytes"),
            paper=PAPER,
            refuting={"r": _with(bytes_low)},
            source="Fig. 16: 6.7 and 5.1 MB per source",
        )
    )
    return out


def _values() -> list[CanFail]:
    out = [
        CanFail(
            cid,
            c.about_claim,
            paper={"cid": cid, "measured_value": paper},
            refuting={"cid": cid, "measured_value": 2 * paper},
            source="Figs. 15, 17 (printed values)",
        )
        for cid, (_, _, paper, _, _) in c.ABOUT.items()
    ]
    out += [
        CanFail(
            "fig16_source_effective",
            c.fig16_source_effective_claim,
            paper={"boston": 0.051, "reno": 0.038},
            refuting={"boston": 0.038, "reno": 0.051},
            source="Fig. 16: 5.1% and 3.8% of the link per source",
        ),
        CanFail(
            "boston_cell_loss_at_most_2pct_higher",
            c.footnote14_claim,
            satisfying={"boston": [0.0101, 0.0505, 0.2], "reno": [0.01, 0.05, 0.2]},
            refuting={"boston": [0.2, 0.3], "reno": [0.1, 0.1]},
            source="Sec. 4.2, footnote 14",
        ),
        CanFail(
            "fig15_boston_sends_more",
            _pick(c._fig15, "fig15_boston_sends_more"),
            paper=PAPER,
            refuting={"r": _with(lambda k, p, m, pk, w, b, v: 0.8 if m == "offered_fraction" else v)},
            source="Fig. 15: 3.2% more bytes",
        ),
        CanFail(
            "fig15_boston_gain",
            _pick(c._fig15, "fig15_boston_gain"),
            paper=PAPER,
            refuting={"r": _with(lambda k, p, m, pk, w, b, v: 0.831 if m == "effective_throughput" else v)},
            source="Fig. 15: 89.6% against 83.1%",
        ),
    ]
    return out


def can_fail() -> list[CanFail]:
    return [*_grid_claims(), *_values()]
