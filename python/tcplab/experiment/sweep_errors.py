"""Messages for a sweep point the core refuses: which point, and where each value came from.

A point's scenario is the base with every factor's and zipped group's level applied. When the
core refuses it, the field at fault may have its value from a factor, from a zipped group or
from the base (or from no one: the core's default), and the field it conflicts with from
another: the message names the point and, for the field and every field of the same table the
core's message mentions (``max_th: must be above min_th``), where its value came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tcplab.errors import UserError
from tcplab.experiment.spec import SweepSpec

__all__ = ["describe_levels", "origin", "point_error"]

_INDEX = re.compile(r"\[(\d+)\]")
_MISSING = object()


def describe_levels(levels: Mapping[str, Any]) -> str:
    return ", ".join(f"{p} = {_show(v)}" for p, v in levels.items())


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _parts(field: str) -> list[str]:
    """The core's field name as path parts: ``link[0].qdisc.max_th`` -> link, 0, qdisc, max_th."""
    return [p for p in _INDEX.sub(r".\1", field).split(".") if p]


def _get(doc: Any, parts: list[str]) -> Any:
    node = doc
    for part in parts:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


def _covers(path: str, parts: list[str]) -> bool:
    """Whether setting ``path`` (``*`` for every element) set the field at ``parts``."""
    mine = path.split(".")
    return len(mine) <= len(parts) and all(m in ("*", p) for m, p in zip(mine, parts, strict=False))


def _source(spec: SweepSpec, path: str) -> str:
    if path in spec.factors:
        return f"factor {path}"
    return f"zip[{next(i for i, g in enumerate(spec.zips) if path in g)}]"


def origin(spec: SweepSpec, levels: Mapping[str, Any], parts: list[str]) -> str:
    """Where the field at ``parts`` got its value at this point: the varied path that set it
    (the longest, when a table and a field of it are both varied), else the base, else none
    (the core's default)."""
    setters = [p for p in levels if _covers(p, parts)]
    if setters:
        return _source(spec, max(setters, key=lambda p: len(p.split("."))))
    return "the base" if _get(spec.base, parts) is not _MISSING else "nowhere (the core's default)"


def _conflicting(doc: Mapping[str, Any], parts: list[str], message: str) -> list[list[str]]:
    """The field at fault, then each field of its table that the message names."""
    fields = [parts]
    table = _get(doc, parts[:-1]) if len(parts) > 1 else doc
    if isinstance(table, Mapping):
        for key in table:
            if key != parts[-1] and re.search(rf"(?<![\w.]){re.escape(str(key))}(?!\w)", message):
                fields.append([*parts[:-1], str(key)])
    return fields


def point_error(
    spec: SweepSpec,
    doc: Mapping[str, Any],
    levels: Mapping[str, Any],
    point: tuple[int, int] | None,
    field: str,
    message: str,
) -> UserError:
    """``SPEC: point I of N (levels): field: message; where the values came from``."""
    where = f"{spec.source}: " if spec.source else ""
    which = f"point {point[0]} of {point[1]}" if point else "point"
    parts = _parts(field)
    sources = []
    for f in _conflicting(doc, parts, message):
        value = _get(doc, f)
        shown = "unset" if value is _MISSING else _show(value)
        sources.append(f"{'.'.join(f)} = {shown} from {origin(spec, levels, f)}")
    return UserError(
        f"{where}{which} ({describe_levels(levels)}): {field}: {message}; values: {', '.join(sources)}"
    )
