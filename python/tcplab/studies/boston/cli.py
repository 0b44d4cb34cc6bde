"""``tcplab boston ...``: the analytic tools of Bestavros and Kim (1997), TCP Boston, and a simulated check.

``tcplab boston waste --p P --m M [--hops H] [--simulate]`` prints the wasted byte-hops ratio of
eq. 4 with its limits (eqs. 5 and 6) and, with ``--hops``, eqs. 1-3 per packet on a path of
H switches; with ``--simulate`` it also runs a chain of H cell switches (one of them congested
by cross traffic) for Boston, Reno with EPD and plain Reno and measures the wasted cell-hops of
the tagged connection beside the formula.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from tcplab import strict_json
from tcplab.errors import UserError, cli_errors
from tcplab.experiment.arguments import fits_float, shown_int

if TYPE_CHECKING:
    from tcplab.studies.boston.metrics import ChainWaste
    from tcplab.studies.boston.scenarios import ChainConfig

__all__ = ["boston_app"]

boston_app = typer.Typer(
    name="boston",
    help="TCP Boston (Bestavros and Kim, 1997): wasted byte-hops (eqs. 1-7) and a simulated multi-hop check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])


PROTOCOL_ORDER = ("boston", "reno_epd", "reno")

# Upper bounds of the options that only the simulated chain uses (``--simulate``), checked before
# anything is built. The chain is a generated scenario, so it must stay within what the core
# takes: the counts of tcplab.experiment.input_limits (at most 250,000 flows, 3,000,000 values,
# lines plus commas, and 600,000 tables in its text) and the core's memory estimate, which is
# refused when it exceeds the memory free (naming a field of the generated text); input_limits
# caps flows at about a gigabyte of that estimate, and so do these. Measured on ``chain()``: a
# switch costs 10 values, 2 tables (its link) and about 15 kB of the estimate (at 1,000
# switches; less each beyond); a cross connection 24 values, 4 tables, one flow and 0.33 MB (its
# 64 kB window is 1,334 cells in flight); the rest about 60 values and 1 MB. The test
# ``test_boston_chain_at_the_bounds_fits_the_core`` extrapolates these from small chains.
#
# --hops: 50,000 switches are 500,000 values, 100,000 tables and at most 0.75 GB of the estimate.
# The analytic path (no --simulate) takes any H below the largest float; the simulated round
# trip grows by 20 ms a switch (1,000 s at the bound), so a far longer chain could not deliver a
# packet within any useful --duration anyway.
MAX_SIM_SWITCHES = 50_000
# --cross: 1,000 connections (the paper's chain has 8) are 24,000 values, 4,000 tables, 1,001
# flows and 0.33 GB of the estimate (with few switches: see the next bound).
MAX_SIM_CROSS = 1_000
# --hops and --cross together: every cell link keeps a drop record per connection direction
# (the core's ``CellDropper``, 12 bytes each, both directions of each link), crossing it or
# not, so the chain costs about 48 bytes per link and connection: 50,000 switches with 1,000
# cross connections would hold 2.4 GB of them. At most 5,000,000 links x connections: 0.24 GB,
# and the whole estimate stays within about 1.1 GB (50,000 switches with 98 cross connections,
# or 1,000 cross connections with 4,999 switches).
MAX_SIM_LINKS_X_CONNECTIONS = 5_000_000
# --buffer: the core counts a queue's packets (here cells) in 32 bits (``link[].ab.queue``:
# "must be a positive integer", at most 2^32 - 1). A queue is not allocated to its limit (the
# core's memory estimate sizes it by what the windows can put in it), so any count the core
# takes is safe; beyond about (cross + 1) x 1,334 cells (64 kB windows of 48-byte payloads) a
# larger buffer only means no loss.
MAX_SIM_BUFFER = 2**32 - 1
# --duration: the core's limit on any duration, 10^9 s (``tcplab-core`` units::MAX_SECONDS), and
# at least its clock's 1 ns tick (a shorter one rounds to 0 and is refused as not positive).
MAX_SIM_SECONDS = 1e9
MIN_SIM_SECONDS = 1e-9
# --seed: what ``tcplab run --seed`` takes, 0 to 2^64 - 1 (checked by tcplab.experiment's
# ``check_seed``). The chain's seed is passed to the run, not written into its text, where a TOML
# integer stops at 2^63 - 1.


@boston_app.command()
@cli_errors
def waste(
    p: Annotated[
        float,
        typer.Option(
            "--p", help="Probability that a cell is NOT dropped at the congested switch, in (0, 1]."
        ),
    ],
    m: Annotated[int, typer.Option("--m", help="Cells per packet (fragmentation level), at least 1.")],
    hops: Annotated[
        int | None,
        typer.Option("--hops", help="Switches on the path (the connection crosses H + 1 links); default 3."),
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate", help="Also simulate a chain of H cell switches, one congested.")
    ] = False,
    cross: Annotated[
        int, typer.Option("--cross", help="Cross-traffic Reno connections at the congested switch.")
    ] = 8,
    buffer: Annotated[
        int, typer.Option("--buffer", help="Cells in the congested switch's output buffer.")
    ] = 256,
    duration: Annotated[float, typer.Option("--duration", help="Simulated seconds per protocol.")] = 200.0,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the simulation.")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """Wasted byte-hops of Boston, Reno with EPD and Reno (eqs. 1-7), optionally simulated."""
    from tcplab.studies.boston import analytic as bw

    bw.check_p(p)
    bw.check_m(m)
    if hops is not None:
        bw.check_hops(hops)
    switches = 3 if hops is None else hops
    if buffer < 1:
        raise UserError(f"--buffer: must be at least 1 cell, got {buffer}")
    if not duration > 0:
        raise UserError(f"--duration: must be positive, got {duration}")
    if cross < 1:
        raise UserError(f"--cross: must be at least 1, got {cross}")
    if simulate:
        seed = _check_simulation(switches, m, cross, buffer, duration, seed)
    _check_float_range(m, switches)

    eq4 = bw.ratio(p, m)
    eq5 = bw.ratio_small_loss(m)
    eq6 = bw.ratio_large_loss(p) if p < 1 else None
    h = switches + 1
    delta = (switches + 1) // 2
    per_packet = {
        "boston": bw.waste_boston(p, m, 1, delta),
        "reno_epd": bw.waste_epd(p, m, 1, delta),
        "reno": bw.waste_reno(p, m, 1, delta, h),
    }
    out: dict[str, Any] = {
        "p": p,
        "m": m,
        "q": bw.packet_loss(p, m),
        "eq4": list(eq4.rounded(4)),
        "eq5": list(eq5.rounded(4)),
        "eq6": list(eq6.rounded(4)) if eq6 else None,
        "switches": switches,
        "hops": h,
        "delta": delta,
        "per_packet_cell_hops": per_packet,
    }
    sim = _simulate(switches, m, cross, buffer, duration, seed) if simulate else None
    if sim is not None:
        out["simulation"] = sim
    if json_out:
        sys.stdout.write(strict_json.dumps(out) + "\n")
        return
    _print(out, eq4, eq5, eq6)


def _check_float_range(m: int, switches: int) -> None:
    """Eqs. 1-3 are computed in floating point from M, H and delta x M (an exact integer first):
    a value past the largest float (about 1.8e308) would end in an OverflowError traceback.
    Anything below it is computed as before (a huge H or M may print inf)."""

    if not fits_float(m):
        raise UserError(f"--m: must be below 1.8e308 (the largest floating-point number), got {shown_int(m)}")
    delta = (switches + 1) // 2
    if not (fits_float(switches + 1) and fits_float(delta * m)):
        raise UserError(
            "--hops: the switches times the cells per packet (--m) must stay below 1.8e308 "
            f"(the largest floating-point number), got {shown_int(switches)} switches"
        )


def _check_simulation(switches: int, m: int, cross: int, buffer: int, duration: float, seed: int) -> int:
    """The simulated chain's options against the bounds above, before anything is built; the
    checked seed."""
    from tcplab.experiment.arguments import check_seed
    from tcplab.studies.boston.scenarios import ChainConfig

    if switches > MAX_SIM_SWITCHES:
        raise UserError(
            f"--hops: the simulated chain takes at most {MAX_SIM_SWITCHES:,} switches "
            f"(got {shown_int(switches)}); without --simulate any number is computed"
        )
    if cross > MAX_SIM_CROSS:
        raise UserError(
            f"--cross: the simulated chain takes at most {MAX_SIM_CROSS:,} cross connections "
            f"(got {shown_int(cross)})"
        )
    links, connections = switches + 1, cross + 1
    if links * connections > MAX_SIM_LINKS_X_CONNECTIONS:
        raise UserError(
            f"--hops, --cross: the simulated chain takes at most {MAX_SIM_LINKS_X_CONNECTIONS:,} links x "
            f"connections, as every cell link keeps a drop record per connection (got {links:,} links, "
            f"H + 1, x {connections:,} connections, cross + 1); lower either"
        )
    if buffer > MAX_SIM_BUFFER:
        raise UserError(
            f"--buffer: the simulated switch's buffer holds at most {MAX_SIM_BUFFER:,} cells "
            f"(2^32 - 1; got {shown_int(buffer)})"
        )
    if not math.isfinite(duration):
        raise UserError(f"--duration: must be a finite number of seconds, got {duration}")
    if duration > MAX_SIM_SECONDS:
        raise UserError(f"--duration: must be at most 1e9 s, about 32 years (got {duration:g} s)")
    if duration < MIN_SIM_SECONDS:
        raise UserError(
            f"--duration: must be at least {MIN_SIM_SECONDS:g} s (the simulator's clock ticks in "
            f"nanoseconds; got {duration:g} s)"
        )
    checked = check_seed(seed, "--seed")
    assert checked is not None
    # --m's own range for the chain (1 to 240 cells), from the one place that states it.
    ChainConfig(switches=switches, m=m, cross=cross, buffer=buffer, duration=duration)
    return checked


def _run_chain(cfg: ChainConfig) -> ChainWaste:
    """``metrics.run_chain`` with the seed passed to the run rather than written into the
    scenario (a TOML integer stops at 2^63 - 1; ``tcplab run --seed`` takes up to 2^64 - 1)."""
    from tcplab.experiment.api import run
    from tcplab.experiment.run_progress import RunProgress
    from tcplab.studies.boston.metrics import chain_waste
    from tcplab.studies.boston.scenarios import chain

    doc = chain(cfg)
    del doc["seed"]
    with RunProgress(label=cfg.protocol) as progress:  # a long --duration says how long it takes
        report = run(doc, seed=cfg.seed, progress=progress).report
    return chain_waste(report, cfg)


def _simulate(switches: int, m: int, cross: int, buffer: int, duration: float, seed: int) -> dict[str, Any]:
    from tcplab.studies.boston import analytic as bw
    from tcplab.studies.boston.scenarios import ChainConfig

    runs = {
        name: _run_chain(
            ChainConfig(
                switches=switches,
                protocol=name,
                m=m,
                cross=cross,
                buffer=buffer,
                duration=duration,
                seed=seed,
            )
        )
        for name in PROTOCOL_ORDER
    }
    base = runs["boston"].wasted_per_packet
    reno = runs["reno"]
    # The paper's use of the formula: measure p at the congested switch (here: plain Reno's
    # tagged cells), then predict the three protocols from it, with this chain's delta and h.
    predicted = {
        "boston": bw.waste_boston(reno.p, m, 1, reno.delta),
        "reno_epd": bw.waste_epd(reno.p, m, 1, reno.delta),
        "reno": bw.waste_reno(reno.p, m, 1, reno.delta, reno.hops),
    }
    return {
        "switches": switches,
        "hops": switches + 1,
        "congested_switch": reno.delta,
        "cross": cross,
        "buffer_cells": buffer,
        "duration_s": duration,
        "seed": seed,
        "exact": reno.exact,
        "runs": {name: w.to_dict() for name, w in runs.items()},
        "measured_ratio": {
            name: (w.wasted_per_packet / base if 0 < base < math.inf else None) for name, w in runs.items()
        },
        "predicted_at_reno_p": predicted,
        "predicted_ratio": {
            name: v / predicted["boston"] if predicted["boston"] > 0 else None
            for name, v in predicted.items()
        },
    }


def _fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _print(out: dict[str, Any], eq4: Any, eq5: Any, eq6: Any) -> None:
    echo = typer.echo
    echo(
        f"Wasted byte-hops, TCP Boston Sec. 4.3: p = {out['p']:g} (cell gets through), "
        f"m = {out['m']} cells/packet"
    )
    echo(f"  packet loss q = 1 - p^m = {out['q']:.4f}")
    echo(f"  eq. 4 (delta = h/2)        Boston : Reno+EPD : Reno = {eq4}")
    echo(f"  eq. 5 (p -> 1)             1 : {eq5.epd:g} : {eq5.reno:g}")
    echo("  eq. 6 (p^m negligible)     " + (f"{eq6}" if eq6 else "- (p = 1: nothing is dropped)"))
    pp = out["per_packet_cell_hops"]
    echo(
        f"  eqs. 1-3 per packet, {out['switches']} switches "
        f"(h = {out['hops']} hops, delta = {out['delta']}): "
        f"Boston {pp['boston']:.3f}, Reno+EPD {pp['reno_epd']:.3f}, Reno {pp['reno']:.3f} cell-hops "
        f"(x 53 bytes)"
    )
    sim = out.get("simulation")
    if not sim:
        return
    echo("")
    echo(
        f"Simulated chain: {sim['switches']} switches ({sim['hops']} hops), switch {sim['congested_switch']} "
        f"congested by {sim['cross']} Reno connections, {sim['buffer_cells']}-cell buffer, "
        f"{sim['duration_s']:g} s, seed {sim['seed']}; packets of {out['m']} cells (48 x m bytes)"
    )
    head = (
        f"  {'protocol':<10} {'p measured':>10} {'packets':>9} {'wasted/packet':>14} {'eqs.1-3 own p':>14} "
        f"{'eqs.1-3 Reno p':>15} {'ratio meas.':>11} {'ratio eqs.':>10}"
    )
    echo(head)
    names = {"boston": "Boston", "reno_epd": "Reno+EPD", "reno": "Reno"}
    for name in PROTOCOL_ORDER:
        r = sim["runs"][name]
        echo(
            f"  {names[name]:<10} {r['p']:>10.4f} {r['packets']:>9.0f} {r['wasted_per_packet']:>14.3f} "
            f"{r['formula_per_packet']:>14.3f} {sim['predicted_at_reno_p'][name]:>15.3f} "
            f"{_fmt(sim['measured_ratio'][name]):>11} {_fmt(sim['predicted_ratio'][name]):>10}"
        )
    echo("  (cell-hops of the tagged connection per packet delivered; x 53 for byte-hops)")
    if not sim["exact"]:
        echo(
            "  note: with one switch the congested link is the last hop and also carries the cross traffic;"
            " the tagged cells on it are estimated from the buffer's overall drop rate"
        )
