"""``tcplab hfc ...``: tools of the HFC study (Cohen and Ramanathan, 1998).

``tcplab hfc buffer``: the Sec. V.B bound.

Declared by the study (``Study.cli``) and mounted by tcplab.cli by discovery. Bad arguments raise
UserError naming the option; the shared ``cli_errors`` handler prints them and exits with 2.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from tcplab import strict_json
from tcplab.errors import UserError, cli_errors
from tcplab.experiment.arguments import fits_float, shown_int
from tcplab.experiment.input_limits import MAX_FLOWS
from tcplab.units import rate_bps, size_bytes

if TYPE_CHECKING:
    from tcplab.studies.hfc.buffer import BufferBound

hfc_app = typer.Typer(
    name="hfc",
    help="The HFC study's tools (Cohen and Ramanathan, 1998: TCP over hybrid fiber-coax networks).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


# --connections with --simulate: each connection is a flow of the generated scenario, so at most
# the 250,000 flows a scenario may have (tcplab.experiment.input_limits.MAX_FLOWS). A flow adds 6
# values (lines and commas), one table and about 9 kB of the core's memory estimate (measured with
# the socket buffers of that many connections), so at the cap the scenario has 1.5 million values
# and 250,000 tables, within the 3,000,000 and 600,000 a file may have, and an estimate of about
# 2.3 GB. Without --simulate any count is computed below the largest floating-point number
# (about 1.8e308: the bound divides by it).
MAX_SIM_CONNECTIONS = MAX_FLOWS


def _check_steps(bound: BufferBound, steps: int, max_steps: int) -> None:
    """Refuse a simulation of more socket-buffer steps than ``max_steps``, naming what set them."""
    if steps <= max_steps:
        return
    if not bound.bounded:  # lan >= down: the steps span 32 to 128 segments of --mss
        raise UserError(
            f"--mss: with no bound (--lan-rate at least --down-rate), --simulate steps the socket "
            f"buffer from 32 to 128 segments of {bound.mss} B in 1 KiB steps: {steps:,} steps, more "
            f"than the {max_steps:,} it runs (9 runs each); choose a smaller --mss"
        )
    raise UserError(
        "--cm-buffer: --simulate steps the socket buffer from half the bound "
        f"({math.floor(bound.max_bytes):,} B) to twice it in 1 KiB steps: {steps:,} steps, more "
        f"than the {max_steps:,} it runs (9 runs each); choose a smaller --cm-buffer (the bound "
        "also grows as --lan-rate nears --down-rate)"
    )


def _kb(n: float) -> str:
    return f"{n / 1000:.1f} KB ({n / 1024:.1f} KiB)"


def buffer_command(
    cm_buffer: Annotated[
        str,
        typer.Option(
            "--cm-buffer",
            metavar="BYTES",
            help="The cable modem's buffer: bytes, or a size such as 10KiB.",
            show_default=False,
        ),
    ],
    connections: Annotated[
        int, typer.Option("--connections", help="Connections sharing the cable modem at once.")
    ] = 1,
    mss: Annotated[int, typer.Option("--mss", metavar="BYTES", help="Segment size P in bytes.")] = 1460,
    down_rate: Annotated[
        str, typer.Option("--down-rate", metavar="BPS", help="Downstream (HFC) rate: bit/s, or e.g. 25Mbps.")
    ] = "25Mbps",
    lan_rate: Annotated[
        str,
        typer.Option("--lan-rate", metavar="BPS", help="CM-to-PC (10Base-T) rate: bit/s, or e.g. 10Mbps."),
    ] = "10Mbps",
    simulate: Annotated[
        bool,
        typer.Option(
            "--simulate",
            help="Also simulate transfers with socket buffers stepping across the bound and report "
            "where CM drops begin.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """The largest TCP socket buffer a cable modem's buffer absorbs (Cohen and Ramanathan, 1998, Sec. V.B).

    C >= (B n - 1) P (down - lan) / down, the paper's 15/25 generalised to any rates: a whole
    window of B segments arriving back to back at the downstream rate leaves at most one drop.
    """
    from tcplab.studies.hfc.buffer import (
        MAX_STEPS,
        MODES,
        overrun_onsets,
        simulate_overruns,
        socket_buffer_bound,
        step_range,
    )

    c = size_bytes(cm_buffer, "--cm-buffer")
    if connections < 1:
        raise UserError(f"--connections: must be at least 1 (got {connections})")
    if simulate and connections > MAX_SIM_CONNECTIONS:
        raise UserError(
            f"--connections: the simulation takes at most {MAX_SIM_CONNECTIONS:,} connections, the "
            f"flows a scenario may have (got {shown_int(connections)})"
        )
    if not fits_float(connections):
        raise UserError(
            "--connections: must be below 1.8e308 (the largest floating-point number), "
            f"got {shown_int(connections)}"
        )
    if not 1 <= mss <= 65495:
        raise UserError(f"--mss: must be from 1 to 65495 bytes (got {mss})")
    down = rate_bps(down_rate, "--down-rate")
    lan = rate_bps(lan_rate, "--lan-rate")
    if c < 1:  # sizes are whole bytes, rounded by the core's parser as everywhere ('1.1KiB' = 1126 B)
        raise UserError(f"--cm-buffer: must be at least one byte (got '{cm_buffer}')")
    bound = socket_buffer_bound(c, connections, mss, down, lan)
    if simulate:
        _check_steps(bound, len(step_range(bound)), MAX_STEPS)
    rows = simulate_overruns(bound) if simulate else []
    onsets = overrun_onsets(rows) if simulate else {}
    if json_out:
        out = {"bound": bound.to_dict()}
        if simulate:
            out["simulation"] = [r.__dict__ for r in rows]
            out["onsets"] = onsets
        sys.stdout.write(strict_json.dumps(out) + "\n")
        return
    echo = typer.echo
    echo("Socket-buffer bound of Cohen and Ramanathan (1998), Sec. V.B: C >= (B n - 1) P (down - lan) / down")
    echo(
        f"  CM buffer C = {bound.cm_buffer} B = {bound.cm_segments:.2f} segments of P = {mss} B; "
        f"n = {connections}; (down - lan)/down = ({down / 1e6:g} - {lan / 1e6:g})/{down / 1e6:g} "
        f"= {bound.fraction:.3f}"
    )
    if not bound.bounded:
        echo("  the CM drains at least as fast as it fills: no bound on the socket buffer")
    else:
        echo(
            f"  at most one drop per burst: B <= {bound.max_segments:.2f} segments = "
            f"{math.floor(bound.max_bytes)} B = {_kb(bound.max_bytes)} per connection"
        )
        echo(
            f"  no drop at all:             B <= {bound.strict_segments:.2f} segments = "
            f"{math.floor(bound.strict_bytes)} B = {_kb(bound.strict_bytes)} per connection"
        )
        if bound.max_segments < 1:
            echo("  (less than one segment: no socket buffer avoids overruns with this many connections)")
    if simulate:
        echo("")
        echo(f"Simulation: lossless transfers through the CM, {connections} connection(s), 3 seeds each")
        for mode, what in MODES.items():
            o = onsets.get(mode, {})
            first = o.get("first_drop")
            multi = o.get("multiple_drops")
            echo(
                f"  {what}:\n    first CM drop at socket buffer "
                f"{'none in range' if first is None else f'{first} B'}; two or more drops from "
                f"{'none in range' if multi is None else f'{multi} B'}"
            )
        echo("")
        echo("  socket buffer (B)  " + "  ".join(f"{m:>20}" for m in MODES) + "   (mean CM drops per run)")
        for buf in sorted({r.sock_buf for r in rows}):
            cells = [next(r.cm_drops for r in rows if r.mode == m and r.sock_buf == buf) for m in MODES]
            echo(f"  {buf:>17}  " + "  ".join(f"{x:>20.2f}" for x in cells))


hfc_app.command("buffer")(cli_errors(buffer_command))
