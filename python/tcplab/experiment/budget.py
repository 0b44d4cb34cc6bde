"""Memory limits of runs: parse ``max_memory`` and check a sweep's points before any run starts.

The estimate itself is the core's (``tcplab-core``'s budget module); a run over the limit is
refused with a ScenarioError naming the field behind the largest part of the estimate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tcplab import _core

if TYPE_CHECKING:
    from tcplab.experiment.expand import Run

__all__ = ["check_memory", "max_memory_bytes"]


def max_memory_bytes(value: int | str | None) -> int | None:
    """``max_memory`` in bytes (an int, or a size such as "2GiB"); None keeps the default."""
    if value is None:
        return None
    from tcplab.units import size_bytes

    try:
        is_int = isinstance(value, int) and not isinstance(value, bool)
        limit = value if is_int else size_bytes(value, "max_memory")
    except (ValueError, TypeError) as e:
        raise _core.ScenarioError("max_memory", str(e)) from None
    if not 0 < limit < 2**64:
        raise _core.ScenarioError("max_memory", f"must be a positive size below 2^64 bytes, got {value!r}")
    return limit


def check_memory(runs: Iterable[Run], max_memory: int | str | None) -> int | None:
    """Check every distinct scenario of ``runs`` against the limit; returns the limit in bytes.

    ``runs`` may be an iterator (a sweep's points, one at a time): only a digest of each
    scenario is kept."""
    limit = max_memory_bytes(max_memory)
    seen: set[bytes] = set()
    for run in runs:
        digest = hashlib.sha256(run.text.encode()).digest()
        if digest not in seen:
            seen.add(digest)
            try:
                _core.check_memory(run.text, run.seed, limit)
            except _core.ScenarioError as e:
                if not run.levels or len(e.args) != 2:
                    raise
                from tcplab.experiment.sweep_errors import describe_levels

                field, message = e.args
                point = describe_levels(run.levels)
                raise _core.ScenarioError(field, f"{message} (at the point {point})") from None
    return limit
