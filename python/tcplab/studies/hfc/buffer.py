"""The socket-buffer bound of Cohen and Ramanathan (1998), Sec. V.B, for any rates, and its
simulation check.

A window of B segments of P bytes, sent back to back at the downstream rate ``down``, reaches
the cable modem (CM) in B P / down seconds; the CM forwards to the PC at ``lan`` < ``down``.
Once the first segment is in, B - 1 more arrive while the CM drains, so the CM accumulates
(B - 1) P (down - lan) / down bytes on top of the one it is sending. With a CM buffer of C
segments (C = bytes / P, headers ignored, as the paper does) and n connections bursting at
once, the paper's conditions are

    no drop at all:            C >= (B n - 1) f + 1
    at most one drop per burst: C >= (B n - 1) f          (Reno's fast retransmit repairs one)

with f = (down - lan) / down (the paper's 15/25). Solved for B:

    B <= ((C - 1) / f + 1) / n     and     B <= (C / f + 1) / n     segments.

The paper's example (C = 10 KB, about seven 1460-byte segments, one connection, 25 and 10 Mb/s)
gives about 19 KB for the second. With lan >= down the CM never accumulates and there is no bound.

``simulate_overruns`` checks where CM drops begin in the simulator, for socket buffers stepping
across the bound, in three ways: a whole window sent back to back (the bound's own assumption:
an initial window as large as the socket buffer), and slow start from one segment after the FTP
handshake with a PC that delays its ACKs (the paper's PC) or ACKs every segment.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from tcplab.studies.hfc.scenarios import CH_CM, DOWN_BPS, LAN_BPS, MSS, PRIMARY_STACK, hfc_scenario

__all__ = [
    "MAX_STEPS",
    "MODES",
    "BufferBound",
    "OverrunRow",
    "overrun_onsets",
    "overrun_scenario",
    "simulate_overruns",
    "socket_buffer_bound",
    "step_range",
]


@dataclass(frozen=True)
class BufferBound:
    cm_buffer: int
    connections: int
    mss: int
    down_bps: float
    lan_bps: float
    fraction: float
    """(down - lan) / down: the share of each arriving segment the CM must hold."""
    cm_segments: float
    """C, the CM buffer in segments of ``mss`` bytes."""
    max_segments: float
    """Largest socket buffer (segments) with at most one drop per burst; inf without a bound."""
    strict_segments: float
    """Largest socket buffer (segments) with no drop at all; inf without a bound."""

    @property
    def max_bytes(self) -> float:
        return self.max_segments * self.mss

    @property
    def strict_bytes(self) -> float:
        return self.strict_segments * self.mss

    @property
    def bounded(self) -> bool:
        return self.fraction > 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(max_bytes=self.max_bytes, strict_bytes=self.strict_bytes, bounded=self.bounded)
        return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in d.items()}


def socket_buffer_bound(
    cm_buffer: float,
    connections: int = 1,
    mss: int = MSS,
    down_bps: float = DOWN_BPS,
    lan_bps: float = LAN_BPS,
) -> BufferBound:
    """The largest per-connection socket buffer a CM of ``cm_buffer`` bytes absorbs (Sec. V.B)."""
    if not cm_buffer > 0:
        raise ValueError(f"cm_buffer must be positive (got {cm_buffer})")
    if connections < 1:
        raise ValueError(f"connections must be at least 1 (got {connections})")
    if mss < 1:
        raise ValueError(f"mss must be positive (got {mss})")
    if not (down_bps > 0 and lan_bps > 0):
        raise ValueError(f"rates must be positive (got down {down_bps}, lan {lan_bps})")
    f = (down_bps - lan_bps) / down_bps
    c = cm_buffer / mss
    if f <= 0:
        most = strict = math.inf
    else:
        most = (c / f + 1) / connections
        strict = max(0.0, ((c - 1) / f + 1) / connections)
    return BufferBound(int(cm_buffer), connections, mss, down_bps, lan_bps, f, c, most, strict)


# ---------------------------------------------------------------- the simulation check

MODES = {
    "burst": "whole window back to back (initial window = socket buffer)",
    "slow_start": "slow start from one segment, PC delays ACKs (the paper's PC)",
    "slow_start_every_ack": "slow start from one segment, PC ACKs every segment",
}


def overrun_scenario(
    sock_buf: int,
    mode: str,
    cm_buffer: int,
    connections: int = 1,
    mss: int = MSS,
    down_bps: float = DOWN_BPS,
    lan_bps: float = LAN_BPS,
    stack: str = PRIMARY_STACK,
) -> dict[str, Any]:
    """A lossless transfer through a CM of ``cm_buffer`` bytes, to count where CM drops begin.

    ``burst``: no handshake and an initial window far above the socket buffer, so each
    connection's first flight is its whole socket buffer, back to back, and the transfer is
    exactly that one window (later windows cannot add drops). The slow-start modes: the FTP
    pattern (initial window one segment) and 1 MB per connection, long enough for slow start to
    end at the socket buffer and for congestion avoidance to follow.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    tcp: dict[str, Any] = {"mss": mss}
    size, pattern = SLOW_START_BYTES, "ftp"
    if mode == "burst":
        # One window sent back to back: a cwnd above the socket buffer from the start.
        tcp["initial_cwnd"] = max(64, math.ceil(sock_buf / mss) + 1)
        size, pattern = sock_buf, "bulk"
    elif mode == "slow_start_every_ack":
        tcp["delayed_ack"] = False
    return hfc_scenario(
        size=size,
        sock_buf=sock_buf,
        cm_buffer=cm_buffer,
        connections=connections,
        pattern=pattern,
        tcp=tcp,
        down_bps=down_bps,
        lan_bps=lan_bps,
        name=f"hfc-overrun-{mode}",
        stack=stack,
    )


SLOW_START_BYTES = 1_000_000


@dataclass(frozen=True)
class OverrunRow:
    mode: str
    sock_buf: int
    cm_drops: float
    """Mean CM drops per run."""
    timeouts: float
    """Mean retransmission timeouts per run, over the connections."""


# The most socket-buffer steps ``tcplab hfc buffer --simulate`` runs (checked in cli.py before
# anything is built). Each step is 9 runs (3 modes x 3 seeds): the paper's 10 KiB CM takes 28
# steps (2 s); a 400 KiB CM takes 1,003 (18 s on one core). 2,000 steps, a CM of up to about
# 800 KiB at the paper's rates, keep a run under a minute or two; a 1 GiB CM would be 2.6 million
# steps and never end.
MAX_STEPS = 2_000


def step_range(bound: BufferBound) -> range:
    """Socket buffers from half the bound to twice it, in 1 KiB steps (at least 8 steps); a
    range, so that its length is known before anything is built."""
    top = bound.max_bytes if bound.bounded else 64 * bound.mss
    lo = max(bound.mss, int(top / 2) // 1024 * 1024)
    hi = max(lo + 8 * 1024, int(2 * top))
    return range(lo, hi + 1, 1024)


def default_steps(bound: BufferBound) -> list[int]:
    """Socket buffers from half the bound to twice it, in 1 KiB steps (at least 8 steps)."""
    return list(step_range(bound))


def simulate_overruns(
    bound: BufferBound,
    steps: Iterable[int] | None = None,
    modes: Iterable[str] = tuple(MODES),
    seeds: Iterable[int] = (1, 2, 3),
) -> list[OverrunRow]:
    """Run ``overrun_scenario`` for every socket buffer of ``steps`` and mode; CM drops per run."""
    from tcplab.experiment.api import run

    rows = []
    seeds = list(seeds)
    for mode in modes:
        for sock_buf in steps if steps is not None else default_steps(bound):
            doc = overrun_scenario(
                sock_buf, mode, bound.cm_buffer, bound.connections, bound.mss, bound.down_bps, bound.lan_bps
            )
            drops = timeouts = 0
            for seed in seeds:
                report = run(doc, seed=seed).report
                drops += report["links"][CH_CM]["drops_queue"]
                timeouts += sum(f["timeouts"] for f in report["flows"])
            rows.append(OverrunRow(mode, sock_buf, drops / len(seeds), timeouts / len(seeds)))
    return rows


def overrun_onsets(rows: Iterable[OverrunRow]) -> dict[str, dict[str, int | None]]:
    """Per mode: the smallest socket buffer with any CM drop, and with two or more (per run)."""
    out: dict[str, dict[str, int | None]] = {}
    for row in sorted(rows, key=lambda r: (r.mode, r.sock_buf)):
        o = out.setdefault(row.mode, {"first_drop": None, "multiple_drops": None})
        if o["first_drop"] is None and row.cm_drops > 0:
            o["first_drop"] = row.sock_buf
        if o["multiple_drops"] is None and row.cm_drops >= 2:
            o["multiple_drops"] = row.sock_buf
    return out
