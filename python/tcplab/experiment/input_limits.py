"""Limits checked on the raw text of a scenario or sweep spec, before any TOML parse.

Parsing costs far more than the file: the core's TOML parser (the Rust ``toml`` crate, which
builds a whole document first) holds 170-370 bytes per value, Python's ``tomllib`` 65-105
bytes per value and about 900 bytes per distinct table, and the validated model about 3.7 kB
per flow. A 16 MiB file of a million flows or a few million small values would take one to
three gigabytes before the memory estimate (``tcplab-core``'s budget) could refuse it. So these
counts, made with ``str.count`` and an iterator over table headers (no copy of the text), refuse
such input while it costs little more than its own size:

- ``flow``: at most ``MAX_FLOWS`` flows (``[[flow]]`` tables, inline flow tables, and two per
  ``[[www.pair]]``). A run costs about 3.7 kB per flow before it starts (measured: 10^5 flows
  peak at 0.42 GB, 2x10^5 at 0.76 GB), so the cap is about a gigabyte of it.
- ``scenario`` (``spec`` for a sweep spec): at most ``MAX_VALUES`` lines plus commas, an upper bound on the
  keys, tables and array elements; at the cap the core's parse holds 0.5-1.1 GB. A scenario at
  the flow cap, with a dozen lines per flow, fits.
- at most ``MAX_TABLE_NAMES`` different table headers (``[a]``, ``[b.c]``...): each costs
  Python's parser about 900 bytes, and a real scenario has a few dozen.
"""

from __future__ import annotations

import re

from tcplab import _core
from tcplab.errors import UserError

__all__ = ["MAX_FLOWS", "MAX_TABLE_NAMES", "MAX_VALUES", "check_scenario_text", "check_spec_text"]

MAX_FLOWS = 250_000
MAX_VALUES = 3_000_000
MAX_TABLE_NAMES = 10_000
FLOW_BYTES = 3_700  # measured cost of a flow before the run starts (see above)

_HEADER = re.compile(r"^[ \t]*\[\[?[^\]\n]*\]", re.MULTILINE)
# ``base.`` too: a sweep spec may hold its base scenario inline.
_FLOW = re.compile(r"^[ \t]*\[\[[ \t]*(?:base[ \t]*\.[ \t]*)?flow[ \t]*\]\]", re.MULTILINE)
_PAIR = re.compile(r"^[ \t]*\[\[[ \t]*(?:base[ \t]*\.[ \t]*)?www[ \t]*\.[ \t]*pair[ \t]*\]\]", re.MULTILINE)
_INLINE_FLOWS = re.compile(r"^[ \t]*flow[ \t]*=", re.MULTILINE)


def _count(pattern: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def count_flows(text: str) -> int:
    """An upper bound on the flows the text declares (not exact: a ``{`` anywhere counts once
    the file has an inline ``flow = [...]`` array)."""
    n = _count(_FLOW, text) + 2 * _count(_PAIR, text)
    if _INLINE_FLOWS.search(text):
        n += text.count("{")
    return n


def _check_values(text: str) -> None:
    values = text.count("\n") + text.count(",") + 1
    if values > MAX_VALUES:
        raise _core.ScenarioError(
            "scenario",
            f"about {values:,} values (lines and commas), more than the {MAX_VALUES:,} a file may "
            "have: parsing it would take gigabytes",
        )
    names: set[str] = set()
    for match in _HEADER.finditer(text):
        names.add(match.group().strip())
        if len(names) > MAX_TABLE_NAMES:
            raise _core.ScenarioError(
                "scenario", f"more than {MAX_TABLE_NAMES:,} different table names (scenarios have dozens)"
            )


def check_scenario_text(text: str) -> None:
    """ScenarioError (field ``flow`` or ``scenario``) if the text is too large to parse safely."""
    flows = count_flows(text)
    if flows > MAX_FLOWS:
        gb, cap_gb = flows * FLOW_BYTES / 1e9, MAX_FLOWS * FLOW_BYTES / 1e9
        raise _core.ScenarioError(
            "flow",
            f"{flows:,} flows, more than the {MAX_FLOWS:,} a scenario may have (about {gb:.1f} GB "
            f"before the run starts; the cap is {cap_gb:.1f} GB)",
        )
    _check_values(text)


def check_spec_text(text: str, source: str) -> None:
    """UserError naming ``source`` if a sweep spec (with its base inline) is too large to parse."""
    try:
        check_scenario_text(text)
    except _core.ScenarioError as e:
        field, message = e.args
        raise UserError(f"{source}: {'base.flow' if field == 'flow' else 'spec'}: {message}") from None
