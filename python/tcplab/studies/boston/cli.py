"""``tcplab boston ...``: the analytic tools of Bestavros and Kim (1997), TCP Boston, and a simulated check.

``tcplab boston waste --p P --m M [--hops H] [--simulate]`` prints the wasted byte-hops ratio of
eq. 4 with its limits (eqs. 5 and 6) and, with ``--hops``, eqs. 1-3 per packet on a path of
H switches; with ``--simulate`` it also runs a chain of H cell switches (one of them congested
by cross traffic) for Boston, Reno with EPD and plain Reno and measures the wasted cell-hops of
the tagged connection beside the formula.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from tcplab.errors import cli_errors

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
    from tcplab.errors import UserError
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
        sys.stdout.write(json.dumps(out) + "\n")
        return
    _print(out, eq4, eq5, eq6)


def _simulate(switches: int, m: int, cross: int, buffer: int, duration: float, seed: int) -> dict[str, Any]:
    from tcplab.studies.boston import analytic as bw
    from tcplab.studies.boston.metrics import run_chain
    from tcplab.studies.boston.scenarios import ChainConfig

    runs = {
        name: run_chain(
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
            name: (w.wasted_per_packet / base if base > 0 else None) for name, w in runs.items()
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
