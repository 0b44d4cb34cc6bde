"""Trace-driven UDP sources read from a file: ``source = { kind = "trace", file = "frames.txt" }``.

The core takes a trace as ``packets = [[time, size], ...]`` written in the scenario; a trace of
thousands of packets is easier kept in a file of its own, so the Python front end (``tcplab
run``, ``tcplab.run``, ``tcplab validate``, a sweep's ``base``) reads the file and hands the core
its packets. The file is text, one packet per line: its time after the flow's start and its
payload size, separated by blanks or a comma, each a number in the base unit (seconds, bytes)
or a quantity with its unit (``40ms``, ``1400B``); blank lines and ``#`` comments are skipped.
A relative name is found next to the scenario file (or, for scenario text or a dict, in the
current folder). Each value is checked where it is read, so an error names the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab.errors import UserError
from tcplab.units import duration_s, size_bytes

__all__ = ["has_trace_files", "inline_trace_files"]

_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# The largest UDP payload over IPv4 (65535 less the IP and UDP headers), the core's own bound,
# checked here too so that an error names the file's line, not the packet's index in the list
# the file became.
MAX_PAYLOAD: int = _core.UDP_MAX_PAYLOAD


def _trace_sources(doc: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    flows = doc.get("flow")
    if not isinstance(flows, list):
        return []
    return [
        (i, f["source"])
        for i, f in enumerate(flows)
        if isinstance(f, dict) and isinstance(f.get("source"), dict) and "file" in f["source"]
    ]


def has_trace_files(doc: Mapping[str, Any]) -> bool:
    """Whether any flow's source names a trace file."""
    return bool(_trace_sources(doc))


def _value(token: str) -> str | int | float:
    """A token as the scenario would spell it: a bare number stays a number (base unit)."""
    if _INTEGER.fullmatch(token):
        try:
            return int(token)
        except ValueError:  # past Python's digit limit: as a float it is inf, which the checks refuse
            return float(token)
    return float(token) if _NUMBER.fullmatch(token) else token


def _read_packets(path: Path, field: str) -> list[list[str | int | float]]:
    from tcplab.experiment.input_files import read_input

    try:
        text = read_input(path, "trace")
    except OSError as e:
        raise _core.ScenarioError(field, f"cannot read {path}: {e.strerror or e}") from None
    except UserError as e:
        raise _core.ScenarioError(field, str(e)) from None
    packets: list[list[str | int | float]] = []
    last = 0.0
    for n, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].replace(",", " ").split()
        if not fields:
            continue
        where = f"{path} line {n}"
        if len(fields) != 2:
            raise _core.ScenarioError(field, f"{where}: give a time and a size (got {line.strip()!r})")
        time, size = (_value(t) for t in fields)
        try:
            at, n_bytes = duration_s(time, "time"), size_bytes(size, "size")
        except UserError as e:
            raise _core.ScenarioError(field, f"{where}: {e}") from None
        if at < last:
            raise _core.ScenarioError(
                field, f"{where}: times must not decrease (got {time} after {last:g} s)"
            )
        if not 1 <= n_bytes <= MAX_PAYLOAD:
            raise _core.ScenarioError(
                field,
                f"{where}: a size must be 1 to {MAX_PAYLOAD} bytes, the largest UDP payload (got {size})",
            )
        last = at
        packets.append([time, size])
    if not packets:
        raise _core.ScenarioError(field, f"{path}: no packets in it (one 'time size' line each)")
    return packets


def inline_trace_files(doc: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``doc`` with each trace source's ``file`` replaced by the ``packets`` read from it (a name
    relative to ``folder``); the same dict if no source names a file. Raises ScenarioError
    naming ``flow[i].source.file`` for a file that cannot be read or a bad line in it."""
    sources = _trace_sources(doc)
    for i, source in sources:
        field = f"flow[{i}].source.file"
        name = source["file"]
        if not isinstance(name, str):
            raise _core.ScenarioError(field, "give the trace file's name as a string")
        if not name:
            raise _core.ScenarioError(field, "the file name is empty")
        if source.get("kind") != "trace":
            raise _core.ScenarioError(field, "only a source of kind 'trace' reads a file")
        if "packets" in source:
            raise _core.ScenarioError(field, "give the packets in the file or in `packets`, not both")
        path = Path(name) if Path(name).is_absolute() else folder / name
        source["packets"] = _read_packets(path, field)
        del source["file"]
    return doc
