"""Units: the two meanings of "KB" as named helpers.

The papers use "KB" two ways, and each study keeps its paper's meaning through one of these
helpers (never an ad-hoc 1000 or 1024):

- ``kib(n)``: n KiB = n x 1024 bytes, for socket buffers and queue sizes (4.4BSD's 8192-byte
  buffer is "8 KB" in Cohen and Ramanathan, 1998);
- ``kb(n)``: n kB = n x 1000 bytes, for transfer sizes and windows where the paper means that
  (Cohen and Ramanathan's "300 KB transfer"; Bestavros and Kim's 27 kB = 512 cells of 53 bytes).
"""

from __future__ import annotations

__all__ = ["KB", "KIB", "kb", "kib"]

KIB = 1024
KB = 1000


def kib(n: float) -> int:
    """n KiB in bytes (1 KiB = 1024 bytes)."""
    return int(round(n * KIB))


def kb(n: float) -> int:
    """n kB in bytes (1 kB = 1000 bytes)."""
    return int(round(n * KB))
