"""Sec. V's claims (Cohen and Ramanathan, 1998): the socket buffer against a 10 KB CM.

Figs. 8-10 and the bound's match with Fig. 8 are judged with the paper's delayed-ACK PC (paper
claims), and again with a PC that ACKs every segment: that reading is not the paper's setup, so
those ``*_every_ack`` claims are diagnostics (they show which mechanism a miss depends on) and
never count in the headline.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tcplab.report.claims import (
    Claim,
    above,
    analytic,
    at_least,
    below,
    cell,
    diagnostic,
    paper_ordering,
    paper_trend,
    paper_value,
    printed,
    printed_multiple,
    within,
)
from tcplab.report.measure import exact, mean, measure, ratio
from tcplab.studies.hfc import sweeps as sw
from tcplab.studies.hfc.buffer import socket_buffer_bound
from tcplab.studies.hfc.judging import B8, B16, B24, B48, GRID, Points, arr, as_kind, at, buf, r2, size
from tcplab.studies.hfc.results import Results, onsets
from tcplab.studies.hfc.scenarios import CM_BUFFER

PAPER_PC = "the paper's delayed-ACK PC"
EVERY_ACK_PC = "a PC that ACKs every segment"
EVERY_ACK_NOTE = "(Diagnostic: a PC that ACKs every segment is not the paper's setup.)"
BEYOND_GRID = 41 * 1024  # no CM drop anywhere in the bufcheck grid (8-40 KB)


def claims(r: Results) -> list[Claim]:
    bound1 = socket_buffer_bound(CM_BUFFER, 1)
    bound3 = socket_buffer_bound(CM_BUFFER, 3)
    on = onsets(r.bufcheck)
    return [
        *_for_pc(r, "", PAPER_PC, on[("slow_start", 1)]["first_drop"]),
        bound_19kb(bound_kb=bound1.max_bytes / 1000, shown=bound_str(bound1)),
        bound_burst_sim(on[("burst", 1)], on[("burst", 3)], bound1, bound3),
        *(
            as_kind(c, "diagnostic", EVERY_ACK_NOTE)
            for c in _for_pc(
                r, sw.EVERY_ACK_SUFFIX, EVERY_ACK_PC, on[("slow_start_every_ack", 1)]["first_drop"]
            )
        ),
    ]


def _for_pc(r: Results, suffix: str, pc: str, first_drop: int | None) -> list[Claim]:
    f8, f10 = r.runs["fig8" + suffix], r.runs["fig10" + suffix]

    def by_size(b: int) -> dict[int, np.ndarray]:
        return {s: at(f8, sock_buf=b, size=s) for s in sw.FIG8_SIZES}

    t = {b: by_size(b) for b in GRID}
    largest = max(sw.FIG8_SIZES)
    mb8 = 8_000_000
    return [
        fig8_16k_doubles(b8=t[B8], b16=t[B16], suffix=suffix, pc=pc),
        fig8_24k_worse_under_8mb(b16=t[B16], b24=t[B24], suffix=suffix, pc=pc),
        fig8_large_transfers_gain(
            b16=t[B16][largest],
            b24=t[B24][largest],
            b48=t[B48][largest],
            largest=largest,
            suffix=suffix,
            pc=pc,
        ),
        fig9_slow_start_timeout(
            timeouts={b: at(f8, "timeouts", sock_buf=b, size=mb8) for b in (B24, B48)},
            fast_retransmits={b: at(f8, "fast_retransmits", sock_buf=b, size=mb8) for b in (B24, B48)},
            suffix=suffix,
            pc=pc,
        ),
        fig10_smallest_best(per_connection={b: at(f10, sock_buf=b) for b in GRID}, suffix=suffix, pc=pc),
        bound_matches_fig8(first_drop=first_drop, suffix=suffix, pc=pc),
    ]


def bound_str(b: Any) -> str:
    """The Sec. V.B bound, the same number wherever it is shown."""
    # A bound: the largest whole number of bytes within it, rounded down.
    return f"{math.floor(b.max_bytes):,} bytes ({b.max_segments:.1f} segments)"


def kb(b: int | None) -> str | None:
    return None if b is None else f"{b / 1024:g} KB"


def fig8_16k_doubles(b8: Points, b16: Points, suffix: str = "", pc: str = PAPER_PC) -> Claim:
    big = [s for s in sorted(b8) if s >= 8_000_000]
    return paper_value(
        "fig8_16k_doubles" + suffix,
        "Fig. 8: going from an 8 to a 16 KB socket buffer almost doubles the throughput of large transfers "
        f"(8 and 16 MB: ratio of means; {pc})",
        [
            cell(f"{size(s)}: 16 KB / 8 KB", printed_multiple("almost doubles", 2), ratio(b16[s], b8[s]))
            for s in big
        ],
    )


def fig8_24k_worse_under_8mb(b16: Points, b24: Points, suffix: str = "", pc: str = PAPER_PC) -> Claim:
    mid = [s for s in (300_000, 1_000_000, 3_000_000) if s in b16]
    checks = [below(f"{size(s)}: 24 KB / 16 KB", ratio(b24[s], b16[s]), 1) for s in mid]
    return paper_ordering(
        "fig8_24k_worse_under_8mb" + suffix,
        "Fig. 8: a 24 KB socket buffer gives significantly less throughput than 16 KB for transfers under "
        "8 MB, through CM overruns in slow start (300 KB, 1 MB, 3 MB: the ratio below 1; the paper gives "
        "no "
        f"size for 'significantly'; {pc})",
        "significantly lower",
        checks,
        {size(s): f"{np.mean(arr(b24[s])) / np.mean(arr(b16[s])) - 1:+.0%}" for s in mid},
    )


def fig8_large_transfers_gain(
    b16: Any, b24: Any, b48: Any, largest: int = 16_000_000, suffix: str = "", pc: str = PAPER_PC
) -> Claim:
    def best(a16, a24, a48):
        return np.maximum(a24.mean(-1), a48.mean(-1)) / a16.mean(-1)

    return paper_ordering(
        "fig8_large_transfers_gain" + suffix,
        f"Fig. 8: the largest transfers ({size(largest)}) still gain from the larger buffers (the better "
        f"of 24 and 48 KB faster than 16 KB; {pc})",
        "larger transfers benefit",
        [above("best of 24/48 KB / 16 KB", measure(best, b16, b24, b48), 1)],
        {"16 KB": r2(np.mean(arr(b16))), "best of 24/48 KB": r2(max(np.mean(arr(b24)), np.mean(arr(b48))))},
    )


def fig9_slow_start_timeout(
    timeouts: Points, fast_retransmits: Points, suffix: str = "", pc: str = PAPER_PC
) -> Claim:
    checks = []
    for b in sorted(timeouts):
        checks.append(at_least(f"{buf(b)}: timeouts per run", mean(timeouts[b]), 1))
        checks.append(at_least(f"{buf(b)}: fast retransmits per run", mean(fast_retransmits[b]), 1))
    return paper_ordering(
        "fig9_slow_start_timeout" + suffix,
        "Fig. 9: with 24 and 48 KB socket buffers and a 10 KB CM, slow start overruns the CM and ends in a "
        "timeout, later single drops are repaired by fast retransmit (8 MB: at least one timeout and one "
        "fast "
        f"retransmit per run for each buffer; {pc})",
        "timeout in slow start, fast retransmits later",
        checks,
        {
            buf(b): {
                "timeouts": r2(np.mean(arr(timeouts[b]))),
                "fast_retransmits": r2(np.mean(arr(fast_retransmits[b]))),
            }
            for b in sorted(timeouts)
        },
    )


def fig10_smallest_best(per_connection: Points, suffix: str = "", pc: str = PAPER_PC) -> Claim:
    grid = sorted(per_connection)
    checks = [
        below(f"{buf(b)} / {buf(a)}", ratio(per_connection[b], per_connection[a]), 1)
        for a, b in zip(grid, grid[1:], strict=False)
    ]
    return paper_trend(
        "fig10_smallest_best" + suffix,
        "Fig. 10: with three connections through one 10 KB CM the smallest socket buffer performs best and "
        f"throughput falls as the buffer grows (8, 16, 24, 48 KB: each step's ratio below 1; {pc})",
        "smallest best, decreasing",
        checks,
        {buf(b): r2(np.mean(arr(per_connection[b]))) for b in grid},
    )


def bound_matches_fig8(first_drop: int | None, suffix: str = "", pc: str = PAPER_PC) -> Claim:
    bound = socket_buffer_bound(CM_BUFFER, 1)
    drop = exact((first_drop if first_drop is not None else BEYOND_GRID) / 1024)
    return paper_ordering(
        "bound_matches_fig8" + suffix,
        f"Sec. V.B: the bound ({bound_str(bound)}; the paper's 'about 19 kb') matches Fig. 8, i.e. "
        f"slow-start "
        "overruns at the CM begin between the 16 and 24 KB socket buffers (the first CM drop of the 1 "
        "KB-step "
        f"lossless sweep above 16 KB and at most 24 KB; {pc})",
        "between 16 and 24 KB",
        [within("first CM drop, KB", drop, 16 + 1 / 1024, 24)],
        {"first CM drop": kb(first_drop) if first_drop is not None else "none up to 40 KB"},
    )


def bound_19kb(bound_kb: float, shown: str) -> Claim:
    c = cell("bound, kB", printed("19"), exact(bound_kb))
    return analytic(
        "bound_19kb",
        "Sec. V.B: a 10 KB CM buffer and one connection bound the socket buffer at about 19 KB (C >= (B - "
        "1) P 15/25, computed; '19' prints as 18.5-19.5 kB)",
        19,
        shown,
        c.verdict == "holds",
        refuted_if="the computed bound outside 18.5-19.5 kB",
    )


def bound_burst_sim(burst1: dict, burst3: dict, bound1: Any, bound3: Any) -> Claim:
    def ok(o: dict, b: Any) -> bool:
        multi = o["multiple_drops"]
        return multi is not None and b.max_bytes < multi <= b.max_bytes + b.mss + 1024

    return diagnostic(
        "bound_burst_sim",
        "Sec. V.B: the bound is right for its own case, a whole window arriving back to back: in "
        "simulation two or more CM drops (the multiple drops that cost a timeout) begin within one segment "
        "(plus the 1 KB step) above the bound, for one and for three connections (a check of the paper's "
        "formula against its own assumption, not a simulated result of the paper)",
        {"n=1": bound_str(bound1), "n=3": bound_str(bound3)},
        {
            "n=1 first drop": kb(burst1["first_drop"]),
            "n=1 two drops": kb(burst1["multiple_drops"]),
            "n=3 first drop": kb(burst3["first_drop"]),
            "n=3 two drops": kb(burst3["multiple_drops"]),
        },
        ok(burst1, bound1) and ok(burst3, bound3),
        refuted_if="two CM drops begin below the bound or more than one segment (plus 1 KB) above it",
    )
