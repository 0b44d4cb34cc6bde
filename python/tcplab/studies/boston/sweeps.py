"""The TCP Boston study's sweeps: the star grid of Figs. 7-14, one source alone (Fig. 15), the
per-second series runs (Figs. 15-17), the access-link and timer sensitivity runs, and the chain
of Sec. 4.3. Full, quick and tiny (test) modes differ only in their ``Grid``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tcplab.experiment.spec import SweepSpec
from tcplab.studies.boston.partial import partial_sweeps
from tcplab.studies.boston.scenarios import (
    ACCESS_MODELS,
    BUFFERS,
    PACKET_SIZES,
    PRIMARY_STACK,
    PROTOCOLS,
    WINDOWS,
    ChainConfig,
    StarConfig,
    chain,
    mss_of,
    star,
)
from tcplab.studies.boston.signatures import DEFAULT, SETTINGS, Setting, signature_sweeps

__all__ = [
    "timer_label",
    "timer_labels",
    "EPD_SENSITIVITY",
    "FULL",
    "PROTOS",
    "QUICK",
    "TINY",
    "Grid",
    "chain_config",
    "epd_kind",
    "grid_levels",
    "nominal_window",
    "sweeps",
    "tiny",
]

PROTOS = ("reno", "reno_epd", "boston", "boston_bitmap")
CHAIN_PROTOS = ("reno", "reno_epd", "boston")
NAMES = {p: PROTOCOLS[p].label for p in PROTOS}
REF_PACKET, REF_WINDOW, REF_BUFFER = 9180, 64000, 512  # the paper's Figs. 15-17
PAPER_S = 700.0  # the paper's run length; "per 700 s" values are scaled to it
SERIES_S = 100  # the paper plots the first 100 s of Figs. 15-17
SEED = 1997
# The timer sensitivity levels (zipped): each stack's tick at 100 and 500 ms (on the ns stacks,
# ns-2's timer). On ns1 the stack's own timer is also run with both readings of what a fast
# retransmit does to it (FR_READINGS, the knob ``tcp.fast_retransmit_timer``: ns-1's
# reset_rtx_timer doubles the backoff, "clock", the study's reading; ns-2.1b keeps it, "keep").
TIMERS = {"tcp.timer": ["100ms", "500ms"], "tcp.min_rto": ["200ms", "1s"]}
FR_READINGS = ("clock", "keep")
STACK_READING = "clock"  # what the ns1 preset does (tests/test_boston.py checks it)


def timers(stack: str) -> dict[str, list[str]]:
    """The timer sensitivity levels on ``stack`` (zipped: one level per index)."""
    if stack == "bsd44":
        return TIMERS
    return {**TIMERS, "tcp.timer": [f"ns2:{t}" for t in TIMERS["tcp.timer"]]}


def timer_label(timer: str, fast_retransmit: str | None = None) -> str:
    """What a timer level ran, in words: "ns-2 100 ms", "BSD tick 500 ms", and for the ns1
    stack's own timer "ns-1 100 ms, FR doubles backoff" or "..., FR keeps backoff"."""
    if timer == "stack":  # only the ns1 fast-retransmit runs name the stack's timer with a reading
        return "ns-1 100 ms, FR " + ("keeps backoff" if fast_retransmit == "keep" else "doubles backoff")
    kind, _, tick = timer.rpartition(":")
    tick = tick.replace("ms", " ms")
    return f"{kind.replace('ns', 'ns-')} {tick}" if kind else f"BSD tick {tick}"


def timer_labels(stack: str) -> list[str]:
    """The labels of the timer levels a stack's sensitivity runs, in order."""
    own = [timer_label("stack", f) for f in FR_READINGS]
    return (own if stack == PRIMARY_STACK else []) + [timer_label(t) for t in timers(stack)["tcp.timer"]]


LABELS = {
    "tcp.mss": "mss",
    "tcp.rcv_buf": "window",
    "link.0.ab.queue": "buffer",
    "tcp.timer": "timer",
    "tcp.min_rto": "min_rto",
    "tcp.fast_retransmit_timer": "fr_timer",
}


@dataclass(frozen=True)
class Grid:
    """What a mode runs: the star grid's levels, run lengths and replications."""

    packets: tuple[int, ...]
    windows: tuple[int, ...]
    buffers: tuple[int, ...]
    access: tuple[str, ...]
    duration: float
    reps: int
    chain_m: tuple[int, ...] = (10, 40, 100)
    chain_duration: float = 200.0
    stack: str = PRIMARY_STACK
    # The model sweep (signatures.py): run lengths of its lone and 16-source runs, its settings.
    sig_lone_s: float = PAPER_S
    sig_star_s: float = 200.0
    sig_settings: tuple[Setting, ...] = SETTINGS


FULL = Grid(PACKET_SIZES, WINDOWS, BUFFERS, ACCESS_MODELS, duration=PAPER_S, reps=3)
# Quick mode: three replications, the fewest whose spread a claim's interval can use (one run
# measures no spread, and with two the interval is a t interval on one degree of freedom); its
# model sweep runs 100 s (16-source runs much shorter than that leave Reno at 64 cells too few
# packets to measure its loss).
QUICK = Grid(
    PACKET_SIZES, WINDOWS, BUFFERS, ACCESS_MODELS, duration=200.0, reps=3, sig_lone_s=100.0, sig_star_s=100.0
)
# The fewest, shortest runs that still exercise every figure, claim and table (the claims need
# the two largest packet sizes, 64/512/1000/2000/4000 cells and the 8 and 64 kB windows).
# Quick mode's sensitivity stack: the same grid in runs half as long, so that quick mode stays
# within about half an hour with both stacks ("per 700 s" values are scaled from 100 s).
SENSITIVITY_QUICK = replace(QUICK, duration=100.0)
TINY = Grid(
    (4352, 9180),
    (8000, 64000),
    (64, 512, 1000, 2000, 4000),
    ("payload",),
    4.0,
    1,
    chain_duration=4.0,
    sig_lone_s=4.0,
    sig_star_s=4.0,
    sig_settings=(DEFAULT, Setting("payload", 3, "per_packet")),
)


def chain_config(
    m: int, protocol: str = "reno", duration: float = FULL.chain_duration, stack: str = PRIMARY_STACK
) -> ChainConfig:
    """The study's chain: 3 switches, the middle one congested by 8 Reno connections, 256 cells."""
    return ChainConfig(
        switches=3, protocol=protocol, m=m, cross=8, buffer=256, duration=duration, stack=stack
    )


def rcv_buf(window: int, packet: int) -> int:
    """The receive window for a nominal window: at least one full segment (the core's sender never
    sends a segment that the window alone cut short, so a window below the MSS would send nothing;
    ns-1 counted windows in packets, at least one)."""
    return max(window, mss_of(packet))


def nominal_window(buf: int, packet: int) -> int:
    """The paper's window that a run's receive buffer stands for."""
    return min((w for w in WINDOWS if rcv_buf(w, packet) == buf), default=buf)


def _traced(doc: dict[str, Any]) -> dict[str, Any]:
    doc["flow"][0]["trace"] = True
    return doc


def _per_protocol(
    kind: str,
    base: Callable[[str], dict[str, Any]],
    reps: int,
    factors: dict[str, list[Any]] | None = None,
    zips: Sequence[dict[str, list[Any]]] = (),
    protos: Sequence[str] = PROTOS,
) -> list[SweepSpec]:
    """One sweep per protocol (a protocol sets several fields: the codec and the drop policy)."""
    return [
        SweepSpec(
            name=f"{kind}_{p}",
            base=base(p),
            factors=factors or {},
            zips=list(zips),
            replications=reps,
            seed=SEED,
            labels={k: v for k, v in LABELS.items() if k in (factors or {}) or any(k in z for z in zips)},
        )
        for p in protos
    ]


def _star_sweeps(g: Grid) -> list[SweepSpec]:
    specs: list[SweepSpec] = []
    for packet in g.packets:
        # One sweep per packet size too: a window below one packet is one packet (see docs).
        specs += _per_protocol(
            f"star{packet}",
            lambda p, k=packet: star(
                StarConfig(sources=16, protocol=p, packet=k, duration=g.duration, stack=g.stack)
            ),
            g.reps,
            {"tcp.rcv_buf": [rcv_buf(w, packet) for w in g.windows], "link.0.ab.queue": list(g.buffers)},
        )
    return specs


def _single_sweeps(g: Grid) -> list[SweepSpec]:
    return _per_protocol(
        "single",
        lambda p: star(StarConfig(sources=1, protocol=p, duration=g.duration, stack=g.stack)),
        g.reps,
        {"tcp.mss": [mss_of(p) for p in g.packets], "link.0.ab.queue": list(g.buffers)},
    )


def _series_sweeps(g: Grid) -> list[SweepSpec]:
    specs: list[SweepSpec] = []
    for n in (1, 16):
        specs += _per_protocol(
            f"series{n}",
            lambda p, n=n: _traced(
                star(StarConfig(sources=n, protocol=p, duration=g.duration, series_bin=1.0, stack=g.stack))
            ),
            1,
        )
    return specs


def _per_access(g: Grid, kind: str, timer_levels: dict[str, list[str]]) -> list[SweepSpec]:
    """One source and 16 at the reference point, per access model, at 64 and 512 cells, over
    zipped timer levels: sweeps "<kind>_<access><n>_<protocol>"."""
    specs: list[SweepSpec] = []
    for n in (1, 16):
        for access in g.access:
            specs += _per_protocol(
                f"{kind}_{access}{n}",
                lambda p, n=n, a=access: star(
                    StarConfig(sources=n, protocol=p, duration=g.duration, access=a, stack=g.stack)
                ),
                g.reps,
                factors={"link.0.ab.queue": [64, REF_BUFFER]},
                zips=[timer_levels],
            )
    return specs


def _access_sweeps(g: Grid) -> list[SweepSpec]:
    return _per_access(g, "access", timers(g.stack))


# EPD's threshold is not in the paper (EPD_THRESHOLD, 0.8, is borrowed): Reno with EPD is also
# run at these, on the reference point's packet and window, across the buffers.
EPD_SENSITIVITY = (0.5, 0.95)


def epd_kind(threshold: float) -> str:
    """The run kind of Reno with EPD at another threshold: 0.5 -> "epd50"."""
    return f"epd{round(threshold * 100)}"


def _epd_sweeps(g: Grid) -> list[SweepSpec]:
    """Reno with EPD at the other thresholds, on the paper's stack only."""
    if g.stack != PRIMARY_STACK:
        return []

    def base(p: str, t: float) -> dict[str, Any]:
        doc = star(StarConfig(sources=16, protocol=p, packet=REF_PACKET, duration=g.duration, stack=g.stack))
        doc["link"][0]["ab"]["drop"]["threshold"] = t
        return doc

    specs: list[SweepSpec] = []
    for t in EPD_SENSITIVITY:
        specs += _per_protocol(
            epd_kind(t),
            lambda p, t=t: base(p, t),
            g.reps,
            {"link.0.ab.queue": list(g.buffers)},
            protos=("reno_epd",),
        )
    return specs


def grid_levels(n: int, buffers: Sequence[int] = (64, REF_BUFFER)) -> dict[str, list[Any]]:
    """The factor levels that name the reference packet and window at ``buffers`` in the grid
    that runs ``n`` sources: the lone source's ("single": MSS and buffer) or the 16-source star's
    (window and buffer). A run's seed derives from its sweep's seed and its point's levels
    (experiment/expand.py), so a sweep over exactly these levels runs on the grid point's seeds."""
    if n == 1:
        return {"tcp.mss": [mss_of(REF_PACKET)], "link.0.ab.queue": list(buffers)}
    return {"tcp.rcv_buf": [rcv_buf(REF_WINDOW, REF_PACKET)], "link.0.ab.queue": list(buffers)}


def _with_reading(doc: dict[str, Any], reading: str) -> dict[str, Any]:
    """The scenario under a fast-retransmit reading; the stack's own ("clock", ns-1's rule on the
    ns1 preset) is left to the stack, so that run is the grid's run to the key."""
    if reading != STACK_READING:
        doc["tcp"]["fast_retransmit_timer"] = reading
    return doc


def _fast_retransmit_sweeps(g: Grid) -> list[SweepSpec]:
    """ns-1's own timer under each reading of a fast retransmit, one and 16 sources at the
    reference point at 64 and 512 cells, per access model: sweeps "frt_<reading>_<access><n>",
    merged into "access_<access><n>" by results.derive; ns1 stack only.

    The reading is in the sweep's name and base, not a factor, and the factors are the grid's
    own levels (``grid_levels``): replication i of every frt point runs on the seed of replication
    i of the grid's point (16 sources: star9180's; one: single's), whatever the reading and the
    access model. Under the default access the "clock" reading is then the grid's run itself (same
    scenario, seed and key: the store runs it once), and the rows differ by the reading alone."""
    if g.stack != PRIMARY_STACK:
        return []
    specs: list[SweepSpec] = []
    for reading in FR_READINGS:
        for n in (1, 16):
            for access in g.access:
                specs += _per_protocol(
                    f"frt_{reading}_{access}{n}",
                    lambda p, n=n, a=access, fr=reading: _with_reading(
                        star(StarConfig(sources=n, protocol=p, duration=g.duration, access=a, stack=g.stack)),
                        fr,
                    ),
                    g.reps,
                    factors=grid_levels(n),
                )
    return specs


def _chain_sweeps(g: Grid) -> list[SweepSpec]:
    specs: list[SweepSpec] = []
    for m in g.chain_m:
        specs += _per_protocol(
            f"chain{m}",
            lambda p, m=m: chain(chain_config(m, p, g.chain_duration, g.stack)),
            g.reps,
            protos=CHAIN_PROTOS,
        )
    return specs


def _signature_sweeps(g: Grid) -> list[SweepSpec]:
    """The model sweep behind the defaults: on the paper's stack only (it chooses the model)."""
    if g.stack != PRIMARY_STACK:
        return []
    return signature_sweeps(g.sig_lone_s, g.sig_star_s, g.reps, g.stack, SEED, g.sig_settings)


def _partial_sweeps(g: Grid) -> list[SweepSpec]:
    """Boston's two readings of the partial ACK (partial.py), on the paper's stack only."""
    if g.stack != PRIMARY_STACK:
        return []
    return partial_sweeps(g.duration, g.reps, g.stack, SEED)


def specs(g: Grid) -> list[SweepSpec]:
    return (
        _star_sweeps(g)
        + _single_sweeps(g)
        + _series_sweeps(g)
        + _access_sweeps(g)
        + _fast_retransmit_sweeps(g)
        + _chain_sweeps(g)
        + _epd_sweeps(g)
        + _signature_sweeps(g)
        + _partial_sweeps(g)
    )


def sweeps(quick: bool, stack: str = PRIMARY_STACK) -> list[SweepSpec]:
    if stack == PRIMARY_STACK:
        return specs(QUICK if quick else FULL)
    return specs(replace(SENSITIVITY_QUICK if quick else FULL, stack=stack))


def tiny(stack: str = PRIMARY_STACK) -> list[SweepSpec]:
    return specs(replace(TINY, stack=stack))
