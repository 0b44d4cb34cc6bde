"""Checks of the Python API's arguments: misuse raises UserError naming the argument, not a
TypeError or OverflowError from deep inside (``tcplab.run(None)``, ``seed=-1``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from tcplab.errors import UserError

__all__ = ["U64_MAX", "check_max_runs", "check_seed", "check_source", "fits_float", "shown_int"]

U64_MAX = 2**64 - 1


def check_source(source: Any, name: str = "source") -> None:
    """A scenario is a file name (str or path), TOML text, or a dict shaped like the file."""
    if not isinstance(source, str | os.PathLike | Mapping) and not hasattr(source, "read_text"):
        raise UserError(
            f"{name}: expected a scenario (a file name, TOML text or a dict), got {type(source).__name__} "
            f"{_short(source)}"
        )


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` as an int from 0 to 2^64-1, or None (the scenario's own seed)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise UserError(
            f"{name}: must be an integer from 0 to 2^64-1, got {type(seed).__name__} {_short(seed)}"
        )
    value = seed.__index__()
    if not 0 <= value <= U64_MAX:
        raise UserError(f"{name}: must be an integer from 0 to 2^64-1, got {value}")
    return value


def check_max_runs(max_runs: Any, name: str = "max_runs") -> int | None:
    """``max_runs`` as an int of at least 1, or None (the default cap). Below 1 it was taken
    as a cap, and every sweep was "more than the 0 one sweep may hold"."""
    if max_runs is None:
        return None
    if isinstance(max_runs, bool) or not hasattr(max_runs, "__index__"):
        raise UserError(
            f"{name}: must be a whole number of runs, at least 1, got {type(max_runs).__name__} "
            f"{_short(max_runs)}"
        )
    value = max_runs.__index__()
    if value < 1:
        raise UserError(f"{name}: must be at least 1, got {value}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fits_float(n: int) -> bool:
    """Whether the integer ``n`` converts to a float (below about 1.8e308) without OverflowError."""
    try:
        float(n)
    except OverflowError:
        return False
    return True


def shown_int(n: int) -> str:
    """An integer for a message: as typed, or its first digits and its length if it is long."""
    text = str(n)
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} digits)"
