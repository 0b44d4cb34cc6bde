"""JSON as tcplab's commands print it: strict, as RFC 8259 and every parser but Python's
demand (no NaN, no Infinity): a number that is not finite (a ratio to zero, a rate of a run
that sent nothing) is printed as null. Light (no numpy): the CLI imports it."""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by None, in dicts, lists and
    tuples at any depth."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps(doc: Any, **options: Any) -> str:
    """``json.dumps`` of ``doc`` as strict JSON (``options`` as json.dumps takes them)."""
    return json.dumps(finite(doc), allow_nan=False, **options)
