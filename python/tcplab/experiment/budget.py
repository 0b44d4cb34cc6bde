"""Memory limits of runs: parse ``max_memory`` and check a sweep's points before any run starts.

The estimate itself is the core's (``tcplab-core``'s budget module); a run over the limit is
refused with a ScenarioError naming the field behind the largest part of the estimate.
"""

from __future__ import annotations

import hashlib

from tcplab import _core

__all__ = ["MemoryCheck", "max_memory_bytes"]


def max_memory_bytes(value: int | str | None, field: str = "max_memory") -> int | None:
    """``max_memory`` in bytes (an int, or a size such as "2GiB"); None keeps the default.
    ``field`` names the argument in an error (the CLI passes "--max-memory")."""
    if value is None:
        return None
    from tcplab.errors import UserError
    from tcplab.units import size_bytes

    try:
        is_int = isinstance(value, int) and not isinstance(value, bool)
        limit = value if is_int else size_bytes(value, field)
    except UserError as e:
        message = str(e).removeprefix(f"{field}: ")
        if message.startswith("size must"):  # the core's range errors: say what the limit is
            raise _core.ScenarioError(field, _out_of_range(value)) from None
        raise _core.ScenarioError(field, message) from None
    except (ValueError, TypeError) as e:
        raise _core.ScenarioError(field, str(e)) from None
    if not 0 < limit < 2**64:
        raise _core.ScenarioError(field, _out_of_range(value))
    return limit


def _out_of_range(value: object) -> str:
    return f"must be a positive size below 2^64 bytes (16 EiB; largest unit TiB), got {value!r}"


class MemoryCheck:
    """Checks scenarios against a memory limit before any runs (a sweep, each of its points):
    ``limit`` is ``max_memory`` in bytes (None: the core's default); each distinct scenario text
    crosses into the core once, and only its digest is kept."""

    def __init__(self, max_memory: int | str | None) -> None:
        self.limit = max_memory_bytes(max_memory)
        self._seen: set[bytes] = set()

    def __call__(self, text: str, seed: int, levels: dict[str, object] | None = None) -> None:
        """Check one scenario; ``levels`` (a sweep point's) name the point in a refusal."""
        digest = hashlib.sha256(text.encode()).digest()
        if digest in self._seen:
            return
        self._seen.add(digest)
        try:
            _core.check_memory(text, seed, self.limit)
        except _core.ScenarioError as e:
            if not levels or len(e.args) != 2:
                raise
            from tcplab.experiment.sweep_errors import describe_levels

            field, message = e.args
            raise _core.ScenarioError(field, f"{message} (at the point {describe_levels(levels)})") from None
