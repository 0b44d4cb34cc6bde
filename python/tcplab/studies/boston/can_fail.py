"""How each of the TCP Boston study's paper claims can fail (Bestavros and Kim, 1997;
``tcplab.report.claims.CanFail``).

The curve claims (claims_figs.py) read runs as the study does, through a ``Results``: here a
small stand-in (``Grid``) whose ``samples`` are three replications spread +-1% around a metric
computed from a formula instead of from runs. ``paper_like`` is a world built to satisfy the
paper's statements (its figures are plots); each refuting world changes the one thing the claim
is about. The reference-point values (claims_ref.py) take per-replication samples directly: the
fixture's paper input is the paper's printed numbers, its refuting input numbers far from them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tcplab.report.claims import CanFail, printed
from tcplab.studies.boston import claims_figs as f
from tcplab.studies.boston import claims_ref as cr
from tcplab.studies.boston import claims_sec42 as s42
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

    def samples(
        self,
        kind: str,
        protocol: str,
        metric: str,
        packet: int = 9180,
        window: int = 64000,
        buffer: int = 512,
        timer: str = "stack",
    ) -> np.ndarray:
        return runs(self.at(kind, protocol, metric, packet, window, buffer, timer))


def runs(value: float, n: int = 3, rel: float = 0.01) -> np.ndarray:
    """``n`` replications spread evenly within +-``rel`` of ``value`` (the same factor at every
    point, as common random numbers would pair them)."""
    return value * np.linspace(1 - rel, 1 + rel, n)


def _reno_loss(pk: int, b: int) -> float:
    """Reno's packet loss: log-linear below 1000 cells, nearly flat above (Sec. 4.1)."""
    return 0.005 + 0.9 * math.exp(-b / 200) * (pk / 9180) ** 0.1


def _ratio(pk: int, b: int) -> float:
    """Reno's loss over Boston's: about 2 at large buffers, larger for larger packets and toward
    64 cells, where it is over twice what it is at 1000 (Boston's loss grows "much slower")."""
    return 1.8 + 4.0 * math.exp(-b / 200) * (1 + pk / 9180)


def paper_like(kind: str, proto: str, metric: str, pk: int, w: int, b: int) -> float:
    """A world that satisfies the paper's statements (see the module's doc)."""
    boston = proto.startswith("boston")
    loss = _reno_loss(pk, b) / (_ratio(pk, b) if boston else 1.0)
    eff_boston = 0.95 - 0.3 * math.exp(-b / 300)
    eff = eff_boston if boston else eff_boston - (0.05 if proto == "reno_epd" else 0.1) * w / 64000
    reno_extra = 0.007 + 0.05 * math.exp(-b / 200) * pk / 9180  # Sec. 4.1: 0.007 ms/byte at large buffers
    # Sec. 4.1: a lost Reno packet lost about half its cells (its cell loss is its packet loss over
    # the ratio of about 2); footnote 14: Boston's cell loss just above Reno's.
    values = {
        "packet_loss_rate": loss,
        "cell_loss_rate": loss if boston else 0.995 * loss / _ratio(pk, b),
        "retransmission_rate": loss,
        "timeouts": 5.0 if boston else 10.0,
        "fast_retransmits": 10.0 if boston else 20.0,
        "offered_fraction": 0.8 * (1.032 if boston else 1.0),
        "response_time_ms_per_byte": 0.05 + (0.0 if boston else reno_extra),
        "effective_throughput": eff,
        "utilization": eff + (0.02 if boston else 0.15),
        "source_bytes": 7.5e6,
    }
    return values[metric]


def _with(change: Callable[[str, str, str, int, int, int, float], float]) -> Grid:
    """The paper-like world with one thing changed: ``change`` gets the point and its value."""
    return Grid(lambda k, p, m, pk, w, b: change(k, p, m, pk, w, b, paper_like(k, p, m, pk, w, b)))


PAPER = {"r": Grid(paper_like)}


def _grid_claims() -> list[CanFail]:
    def flat_reno(k, p, m, pk, w, b, v):  # Reno's loss no longer falls with the buffer
        return 0.3 if (p == "reno" and m == "packet_loss_rate") else v

    def boston_not_much_slower(k, p, m, pk, w, b, v):  # Boston's loss grows slower than Reno's, by 1.3x only
        return _reno_loss(pk, b) / (1.8 * (1.3 if b < 1000 else 1.0)) if m == "cell_loss_rate" else v

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

    def boston_busy(k, p, m, pk, w, b, v):  # at small buffers the link is busy but carries waste
        return v + 0.3 if (m == "utilization" and p != "reno") else v

    def reno_clean(k, p, m, pk, w, b, v):
        return v - 0.14 if (m == "utilization" and p == "reno") else v

    def gap_grows_small_windows(k, p, m, pk, w, b, v):
        return v + 0.1 * w / 64000 - 0.1 * 8000 / w if (m == "effective_throughput" and p == "reno") else v

    def loss_flat_below(k, p, m, pk, w, b, v):
        return 0.2 if (m == "packet_loss_rate" and p == "reno" and b <= 1000) else v

    def boston_loses_more(k, p, m, pk, w, b, v):  # Boston's cell loss 10% above Reno's
        return 1.1 * _reno_loss(pk, b) if (m == "cell_loss_rate" and p != "reno") else v

    def epd_above(k, p, m, pk, w, b, v):  # EPD delivers more than Boston
        return v + 0.2 if (m == "effective_throughput" and p == "reno_epd") else v

    def boston_detects_more(k, p, m, pk, w, b, v):
        return 3 * v if (m in ("timeouts", "fast_retransmits") and p != "reno") else v

    def boston_floods(k, p, m, pk, w, b, v):
        return 1.3 * v if (m == "offered_fraction" and p != "reno") else v

    cases = [
        ("boston_detects_fewer_losses", s42.fewer_loss_detections, boston_detects_more),
        ("fig15_no_visible_difference", s42.no_visible_difference, boston_floods),
        ("sec42_overall_gain", s42.overall_gain, boston_poor),
        ("boston_above_reno_epd", f.boston_above_epd, epd_above),
        ("fig7_loss_falls_with_buffer", f.loss_falls, flat_reno),
        ("fig7_reno_grows_faster", f.reno_grows_faster, boston_not_much_slower),
        ("fig7_ratio_toward_small_buffers", f.ratio_toward_small_buffers, constant_ratio),
        ("retransmission_tracks_loss", f.retransmission_tracks_loss, rtx_unrelated),
        ("fig7_reno_exponential_below_50kB", f.reno_exponential, loss_flat_below),
        ("fig8_response_ratio_grows", f.response_ratio_grows, rt_flat),
        ("response_margin_0.007", f.response_margin, rt_equal),
        ("fig10_boston_optimal_large_buffers", f.boston_optimal, boston_poor),
        ("fig10_reno_below_boston", f.reno_below_boston, reno_above),
        ("boston_small_buffer_idle", f.boston_small_buffer_idle, boston_busy),
        ("reno_small_buffer_waste", f.reno_small_buffer_waste, reno_clean),
        ("window_convergence", f.window_convergence, gap_grows_small_windows),
        ("boston_cell_loss_at_most_2pct_higher", f.footnote14, boston_loses_more),
    ]
    return [
        CanFail(cid, judge, satisfying=PAPER, refuting={"r": _with(change)}, source="paper_like: Figs. 7-14")
        for cid, judge, change in cases
    ]


def _values() -> list[CanFail]:
    out = [
        CanFail(
            cid,
            cr.value_claim,
            paper={"cid": cid, "runs": runs(printed(number).value, n=20)},
            refuting={"cid": cid, "runs": runs(2 * printed(number).value)},
            source="Figs. 15, 17 (printed values)",
        )
        for cid, (_, _, number, _, _) in cr.VALUES.items()
    ]
    cell_s = 53 * 8 / 1.5e6  # one cell's time on a 1.5 Mb/s link
    out += [
        # 300 cells is an 84.8 ms round trip; the packet-access model's 143.8 ms is 509 cells.
        CanFail(
            "bdp_300_cells",
            sc.bdp_claim,
            paper={"first_rtt_s": 300 * cell_s},
            refuting={"first_rtt_s": 0.1438},
            source="Sec. 3: approximately 300 cells",
        ),
        CanFail(
            "fig16_source_effective",
            cr.source_effective_claim,
            paper={"boston": runs(0.051), "reno": runs(0.038)},
            refuting={"boston": runs(0.038), "reno": runs(0.051)},
            source="Fig. 16: 5.1% and 3.8% of the link per source",
        ),
        CanFail(
            "fig16_source_bytes",
            cr.source_bytes_claim,
            paper={"boston_mb": runs(6.7), "reno_mb": runs(5.1)},
            refuting={"boston_mb": runs(2.0), "reno_mb": runs(2.0)},
            source="Fig. 16: 6.7 and 5.1 MB per source",
        ),
        # Fig. 16's printed per-source bytes (6.7 and 5.1 MB) are 107 and 82 MB for 16 sources, not
        # the 120 MB of Sec. 3: the paper's own numbers do not satisfy both, so each has its input.
        CanFail(
            "total_120mb",
            cr.total_claim,
            paper={"boston_mb": runs(120.0), "reno_mb": runs(120.0), "capacity_mb": 130.0},
            refuting={"boston_mb": runs(32.0), "reno_mb": runs(32.0), "capacity_mb": 130.0},
            source="Sec. 3: 120 MB in 700 s",
        ),
        CanFail(
            "fig15_boston_sends_more",
            cr.sends_more_claim,
            paper={"boston_offered": runs(0.8 * 1.032), "reno_offered": runs(0.8)},
            refuting={"boston_offered": runs(0.8), "reno_offered": runs(0.8)},
            source="Fig. 15: 3.2% more bytes",
        ),
        # 89.6% and 83.1% as printed give 7.82%; values that print as them (89.65%, 83.14%) give
        # the paper's 7.83%, which it computed from unrounded numbers.
        CanFail(
            "fig15_boston_gain",
            cr.gain_claim,
            paper={"boston_eff": runs(0.8965), "reno_eff": runs(0.8314)},
            refuting={"boston_eff": runs(0.831), "reno_eff": runs(0.831)},
            source="Fig. 15 and footnote 16: 89.6% against 83.1%, 7.83%",
        ),
        CanFail(
            "more_sources_bigger_gap",
            cr.bigger_gap_claim,
            paper={
                "boston_single": runs(0.896),
                "reno_single": runs(0.831),
                "boston_star": runs(0.789),
                "reno_star": runs(0.591),
            },
            refuting={
                "boston_single": runs(0.95),
                "reno_single": runs(0.5),
                "boston_star": runs(0.789),
                "reno_star": runs(0.591),
            },
            source="Figs. 15 and 17: 89.6/83.1% with one source, 78.9/59.1% with 16",
        ),
    ]
    return out


def can_fail() -> list[CanFail]:
    return [*_grid_claims(), *_values()]
