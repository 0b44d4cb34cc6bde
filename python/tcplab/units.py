"""Units: one grammar for rates, sizes and durations, and the two meanings of "KB".

``rate_bps``, ``size_bytes`` and ``duration_s`` parse with the Rust core's parser, the one that
reads scenario files, so the CLI and Python accept exactly the units a scenario file accepts
("10Mbps", "1.5Gb/s", "8KiB", "2GB", "20ms"); a bare number is in the base unit. A bad value
raises UserError naming the field.

The papers use "KB" two ways, and each study keeps its paper's meaning through one of these
helpers (never an ad-hoc 1000 or 1024):

- ``kib(n)``: n KiB = n x 1024 bytes, for socket buffers and queue sizes (4.4BSD's 8192-byte
  buffer is "8 KB" in Cohen and Ramanathan, 1998);
- ``kb(n)``: n kB = n x 1000 bytes, for transfer sizes and windows where the paper means that
  (Cohen and Ramanathan's "300 KB transfer"; Bestavros and Kim's 27 kB = 512 cells of 53 bytes).
"""

from __future__ import annotations

from tcplab import _core
from tcplab.errors import UserError

__all__ = ["KB", "KIB", "duration_s", "kb", "kib", "rate_bps", "size_bytes"]

KIB = 1024
KB = 1000


def kib(n: float) -> int:
    """n KiB in bytes (1 KiB = 1024 bytes)."""
    return int(round(n * KIB))


def kb(n: float) -> int:
    """n kB in bytes (1 kB = 1000 bytes)."""
    return int(round(n * KB))


def _parse(value: str | float, kind: str, field: str) -> float:
    text = value if isinstance(value, str) else repr(float(value))
    try:
        return float(_core.parse_quantity(text, kind))
    except ValueError as e:
        raise UserError(f"{field}: {e}") from None


def rate_bps(value: str | float, field: str = "rate") -> float:
    """A rate in bit/s ("25Mbps", "1.5Gb/s", 10e6); must be positive."""
    return _parse(value, "rate", field)


def size_bytes(value: str | float, field: str = "size") -> int:
    """A size in bytes ("10KiB" = 10240, "2GB" = 2e9, 1500); zero allowed."""
    return int(_parse(value, "size", field))


def duration_s(value: str | float, field: str = "duration") -> float:
    """A duration in seconds ("20ms", "1.5s", 0.2); zero allowed."""
    return _parse(value, "duration", field)
