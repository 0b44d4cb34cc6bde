"""Numbers as reports, claims and figures write them: shares as percentages, sizes in the units of
the paper at hand (the two meanings of "KB" are in ``tcplab.units``)."""

from __future__ import annotations

__all__ = ["kib_text", "pct", "size_text"]


def pct(x: float, digits: int = 0) -> str:
    """A share as a percentage: ``pct(0.257)`` is "26%", ``pct(0.257, 1)`` is "25.7%"."""
    return f"{x:.{digits}%}"


def kib_text(b: float) -> str:
    """A socket buffer in Cohen and Ramanathan's (1998) KB of 1024 bytes: 8192 is "8 KB"."""
    return f"{b / 1024:g} KB"


def size_text(s: float) -> str:
    """A transfer size in their kB of 1000 bytes below a megabyte, else in MB: 30000 is "30 KB",
    3000000 is "3 MB"."""
    return f"{s / 1000:g} KB" if s < 1_000_000 else f"{s / 1e6:g} MB"
