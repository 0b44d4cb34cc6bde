"""Scenarios as Python data: read and write the TOML subset the schema uses, and small builders.

A scenario is a plain dict shaped like the TOML file (see docs/scenario.md): top-level scalars,
a ``tcp`` table, and ``link`` / ``flow`` lists of tables. ``dumps`` turns such a dict into TOML
text that ``tomllib`` (and the Rust core) reads back to the same dict; ``None`` values are left
out, because TOML has no null and every optional field of the schema means "use the default"
when absent.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab._core import ScenarioError
from tcplab.experiment.input_files import too_long_number

__all__ = ["dumbbell", "dumps", "flow", "link", "loads", "read"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


# ---------------------------------------------------------------- reading


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text; a syntax error becomes a ScenarioError on the field ``scenario``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("scenario", f"not valid TOML: {e}") from None
    except RecursionError:
        raise ScenarioError("scenario", "not valid TOML: tables or arrays nested too deeply") from None
    except ValueError:  # an integer past Python's digit limit: tomllib's int() raises this
        raise ScenarioError("scenario", too_long_number(text)) from None


def read(path: str | Path) -> dict[str, Any]:
    """Read a scenario file into a dict."""
    return loads(Path(path).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- writing


def dumps(doc: Mapping[str, Any]) -> str:
    """Serialise a scenario dict as TOML.

    Supports strings, integers, floats, booleans, lists of those, tables (dicts) and arrays of
    tables (lists of dicts); numpy bool, integer and float scalars are written as the Python
    values they stand for, numpy arrays as lists. Raises TypeError for anything else, ValueError
    for an integer too long to write (each message starts with the value's dotted path).
    """
    lines: list[str] = []
    _table(doc, [], lines)
    return "\n".join(lines).strip("\n") + "\n"


def _table(doc: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    # Scalars and plain arrays first: they belong to the header above them.
    subtables: list[tuple[str, Mapping[str, Any]]] = []
    arrays: list[tuple[str, Sequence[Mapping[str, Any]]]] = []
    for key, value in doc.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            subtables.append((key, value))
        elif _is_table_array(value):
            arrays.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value, [*path, key])}")
    for key, value in subtables:
        sub = [*path, key]
        lines.extend(["", f"[{_dotted(sub)}]"])
        _table(value, sub, lines)
    for key, items in arrays:
        sub = [*path, key]
        for item in items:
            lines.extend(["", f"[[{_dotted(sub)}]]"])
            _table(item, sub, lines)


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(isinstance(v, Mapping) for v in value)
    )


def _dotted(path: list[str]) -> str:
    return ".".join(_key(k) for k in path)


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys must be strings, got {key!r}")
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(s: str) -> str:
    # JSON's escapes are a subset of TOML's basic-string escapes; TOML also forbids raw DEL.
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def from_numpy(value: Any) -> Any:
    """A numpy bool, integer or float scalar as the Python one it stands for, a numpy array as
    a list; anything else unchanged. (A sweep's levels from ``np.linspace`` are np.float64, a
    float whose repr, ``np.float64(0.01)``, is not TOML; np.int64 and np.bool_ are not even
    int or bool.) numpy is not imported for this: if it is not loaded, no value is from it."""
    np = sys.modules.get("numpy")
    if np is None:
        return value
    if isinstance(value, np.bool_ | np.integer | np.floating):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _value(value: Any, path: list[str]) -> str:
    value = from_numpy(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # past Python's digit limit (sys.get_int_max_str_digits)
            raise ValueError(f"{_dotted(path)}: number too large for any field") from None
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_key(k)} = {_value(v, [*path, k])}" for k, v in value.items() if v is not None)
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return "[" + ", ".join(_value(v, path) for v in value) + "]"
    raise TypeError(f"{_dotted(path)}: cannot write {type(value).__name__} {value!r} as TOML")


# ---------------------------------------------------------------- builders


def link(a: str, b: str, rate: str | float, delay: str | float = 0, **fields: Any) -> dict[str, Any]:
    """One ``[[link]]`` table; extra fields (queue, loss, ab, ba, pcap...) pass through."""
    return {"a": a, "b": b, "rate": rate, "delay": delay, **fields}


def flow(src: str, dst: str, **fields: Any) -> dict[str, Any]:
    """One ``[[flow]]`` table; extra fields (name, start, bytes, trace, tcp) pass through."""
    return {"src": src, "dst": dst, **fields}


def dumbbell(
    n: int,
    *,
    name: str = "dumbbell",
    duration: str | float = "10s",
    access_rate: str = "100Mbps",
    access_delay: str = "1ms",
    access_queue: int = 1000,
    bottleneck_rate: str = "10Mbps",
    bottleneck_delay: str = "20ms",
    bottleneck_queue: int = 100,
    stagger_s: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    flow_fields: Mapping[str, Any] | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """n senders s<i> -> r1 == bottleneck == r2 -> receivers d<i>, one bulk flow per pair.

    Flow i starts at ``i * stagger_s / n`` seconds (rounded to the nanosecond).
    """
    if n < 1:
        raise ValueError("a dumbbell needs at least one flow")
    senders = [f"s{i}" for i in range(n)]
    receivers = [f"d{i}" for i in range(n)]
    links = [link("r1", "r2", bottleneck_rate, bottleneck_delay, queue=bottleneck_queue)]
    for s, d in zip(senders, receivers, strict=True):
        links.append(link(s, "r1", access_rate, access_delay, queue=access_queue))
        links.append(link("r2", d, access_rate, access_delay, queue=access_queue))
    flows = [
        flow(s, d, start=round(i * stagger_s / n, 9), **(flow_fields or {}))
        for i, (s, d) in enumerate(zip(senders, receivers, strict=True))
    ]
    return {
        "name": name,
        "duration": duration,
        "seed": seed,
        "nodes": ["r1", "r2", *senders, *receivers],
        "tcp": dict(tcp or {}),
        "link": links,
        "flow": flows,
    }
