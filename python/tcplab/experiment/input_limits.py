"""Limits checked on the raw text of a scenario or sweep spec, before any TOML parse.

Parsing costs far more than the file: the core's TOML parser (the Rust ``toml`` crate, which
builds a whole document first) holds 170-370 bytes per value and up to 1.4 kB per table,
Python's ``tomllib`` 65-105 bytes per value and 0.9-1.2 kB per table, and the validated model
about 3.7 kB per flow. A 64 MiB file of a million flows, a million small tables or a few
million small values would take one to three gigabytes before the memory estimate
(``tcplab-core``'s budget) could refuse it. So these counts, made with ``str.count`` and
regular expressions over the text (no copy of it), refuse such input while it costs little
more than its own size. Each count is an upper bound: it counts every spelling TOML allows
(bare or quoted keys, ``\\u`` escapes, dotted keys, inline tables), so no spelling gets past it,
and it may count a few things that are not there (a header inside a multi-line string, say).

- ``flow``: at most ``MAX_FLOWS`` flows: array-of-tables headers whose key ends in ``flow``
  (``[[flow]]``, ``[["flow"]]``, ``[[base.flow]]``...) count one each and those ending in
  ``pair`` (``[[www.pair]]``) two; once a key ``flow`` or ``pair`` is set to a value anywhere
  (``flow = [...]``, ``"flow" = [...]``, ``[www] pair = [...]``, ``{flow = [...]}``), every
  inline table ``{`` counts as a flow (two with ``pair``). A run costs about 3.7 kB per flow
  before it starts (10^5 flows peak at 0.42 GB, 2x10^5 at 0.76 GB), so the cap is about a
  gigabyte of it.
- ``scenario`` (``spec`` for a sweep spec):
  - at most ``MAX_VALUES`` lines plus commas, an upper bound on the keys and array elements;
  - at most ``MAX_TABLES`` tables of any spelling: table headers (each part of a dotted
    header), inline tables, and the tables dotted keys create (``a.b = 1`` creates ``a``);
  - at most ``MAX_KEY_PARTS`` parts in one key or header (``a.b.c`` has 3; a string that looks
    like a longer dotted key is refused too): a key of thousands of parts costs Python's parser
    memory quadratic in its length (a 200,000-part key exhausted the machine);
  - at most ``MAX_TABLE_NAMES`` different table headers (``[a]``, ``[b.c]``...).
  A scenario at the flow cap, with a dozen lines and a table per flow, fits.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from typing import Any

from tcplab import _core
from tcplab.errors import UserError

__all__ = [
    "MAX_FLOWS",
    "MAX_KEY_PARTS",
    "MAX_TABLES",
    "MAX_TABLE_NAMES",
    "MAX_VALUES",
    "check_scenario_text",
    "check_spec_text",
    "count_flows",
]

MAX_FLOWS = 250_000
MAX_VALUES = 3_000_000
MAX_TABLES = 600_000
MAX_TABLE_NAMES = 10_000
MAX_KEY_PARTS = 32
FLOW_BYTES = 3_700  # measured cost of a flow before the run starts (see above)
TABLE_BYTES = 1_400  # the most a parser was measured to hold per table (Rust, dotted keys)

# One part of a key: bare, "basic" (with escapes) or 'literal'. Possessive quantifiers (*+, ++)
# keep no backtracking state: a 64 MiB key or string is scanned in constant memory and linear time.
_BARE = r"[A-Za-z0-9_-]++"
_PART = rf"""(?:{_BARE}|"(?:[^"\\\n]++|\\.)*+"|'[^'\n]*+')"""
_DOT = r"[ \t]*+\.[ \t]*+"
_KEY = rf"{_PART}(?:{_DOT}{_PART})*+"
_HEADER = re.compile(rf"^[ \t]*+(\[\[?)[ \t]*+({_KEY})[ \t]*+\]", re.MULTILINE)
# A dotted key where a key may start: at a line's start, or after '{' or ',' in an inline table.
_DOTTED = re.compile(rf"(?:^|[{{,])[ \t]*+({_PART}(?:{_DOT}{_PART})++)[ \t]*+=", re.MULTILINE)
# More than MAX_KEY_PARTS parts in a row, anywhere (a key, a header, or a string that looks like
# one): checked first, with a bounded repetition, so the patterns above never repeat more.
_TOO_DEEP = re.compile(rf"(?<![A-Za-z0-9_-])(?:{_PART}{_DOT}){{{MAX_KEY_PARTS}}}{_PART}")
# A key named flow or pair, set to a value (the flows are then inline tables); searched from the
# name, as a regular expression starting with a literal is much faster.
_INLINE_FLOWS = re.compile(r"""(flow|pair)["']?[ \t]*=""")
_BARE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_PARTS = re.compile(_PART)


def _parts(key: str) -> int:
    """How many parts a key has (``a."b.c".d`` has 3)."""
    return key.count(".") + 1 if '"' not in key and "'" not in key else len(_PARTS.findall(key))


def _last_part(key: str) -> str | None:
    """The last part of a key as TOML reads it (escapes decoded): what says whether an array of
    tables holds flows or pairs. None if it is too long to be either, or not a key."""
    last = _PARTS.findall(key)[-1]
    if len(last) > 64:  # "pair" or "flow", even each letter escaped, is far shorter
        return None
    try:
        doc: Any = tomllib.loads(f"{last} = 0")
    except tomllib.TOMLDecodeError:
        return None
    return next(iter(doc)) if len(doc) == 1 else None


class _Shape:
    """Counts of the text's headers, dotted keys and inline tables (upper bounds)."""

    def __init__(self, text: str) -> None:
        self.headers: Counter[tuple[str, str]] = Counter()
        for match in _HEADER.finditer(text):
            self.headers[(match.group(1), match.group(2))] += 1
            if len(self.headers) > MAX_TABLE_NAMES:
                raise _core.ScenarioError(
                    "scenario", f"more than {MAX_TABLE_NAMES:,} different table names (scenarios have dozens)"
                )
        self.names = {h: _last_part(h[1]) for h in self.headers}
        self.inline_tables = text.count("{")
        self.dotted_tables = sum(_parts(m.group(1)) - 1 for m in _DOTTED.finditer(text))
        found = {
            m.group(1)
            for m in _INLINE_FLOWS.finditer(text)
            if m.start() == 0 or text[m.start() - 1] not in _BARE_CHARS
        }
        escaped = "\\u" in text or "\\U" in text  # a key may spell flow or pair in escapes
        self.inline_flow_weight = 2 if "pair" in found or escaped else 1 if found else 0

    def flows(self) -> int:
        n = self.inline_flow_weight * self.inline_tables
        for header, count in self.headers.items():
            if header[0] == "[[":
                n += count * {"flow": 1, "pair": 2}.get(self.names[header] or "", 0)
        return n

    def tables(self) -> int:
        headers = sum(count * _parts(key) for (_, key), count in self.headers.items())
        return headers + self.inline_tables + self.dotted_tables


def count_flows(text: str) -> int:
    """An upper bound on the flows the text declares (see the module docstring)."""
    return _Shape(text).flows()


def _check_values(text: str) -> None:
    values = text.count("\n") + text.count(",") + 1
    if values > MAX_VALUES:
        raise _core.ScenarioError(
            "scenario",
            f"about {values:,} values (lines and commas), more than the {MAX_VALUES:,} a file may "
            "have: parsing it would take gigabytes",
        )


def _check_depth(text: str) -> None:
    """Keys of more than MAX_KEY_PARTS parts; first, as the other counts assume there are none
    (and Python's parser needs memory quadratic in a key's length)."""
    if text.count(".") >= MAX_KEY_PARTS and _TOO_DEEP.search(text):
        raise _core.ScenarioError(
            "scenario",
            f"a key or table name of more than {MAX_KEY_PARTS} dotted parts (scenario keys have at "
            "most five)",
        )


def _check_tables(shape: _Shape) -> None:
    tables = shape.tables()
    if tables > MAX_TABLES:
        gb = tables * TABLE_BYTES / 1e9
        raise _core.ScenarioError(
            "scenario",
            f"about {tables:,} tables (headers, inline tables and dotted keys), more than the "
            f"{MAX_TABLES:,} a file may have: parsing them would take about {gb:.1f} GB",
        )


def check_scenario_text(text: str) -> None:
    """ScenarioError (field ``flow`` or ``scenario``) if the text is too large to parse safely."""
    _check_depth(text)
    shape = _Shape(text)
    flows = shape.flows()
    if flows > MAX_FLOWS:
        # In bytes, not GB: just over the cap, the estimate and the cap round to the same GB.
        raise _core.ScenarioError(
            "flow",
            f"{flows:,} flows, more than the {MAX_FLOWS:,} a scenario may have: at about "
            f"{FLOW_BYTES:,} bytes a flow before the run starts, they would take about "
            f"{flows * FLOW_BYTES:,} bytes (the cap allows {MAX_FLOWS * FLOW_BYTES:,})",
        )
    _check_values(text)
    _check_tables(shape)


def check_spec_text(text: str, source: str) -> None:
    """UserError naming ``source`` if a sweep spec (with its base inline) is too large to parse."""
    try:
        check_scenario_text(text)
    except _core.ScenarioError as e:
        field, message = e.args
        raise UserError(f"{source}: {'base.flow' if field == 'flow' else 'spec'}: {message}") from None
