"""Expand a sweep spec into runs: apply factor levels to the base, derive seeds and run keys.

Seeds and keys are stable across machines, Python versions and processes: they come from
SHA-256 over canonical JSON (sorted keys, no whitespace), never from Python's ``hash()``.

- A run's seed is the first 63 bits of sha256({"seed": base seed, "levels": {path: level},
  "replication": i}); with ``seeds = "common"`` the levels are left out, so replication i of
  every point uses the same seed (common random numbers).
- A run's key is sha256({"scenario": the expanded scenario dict, "seed": seed,
  "version": tcplab version}) in hex: the same run under the same simulator version is the
  same key, whatever sweep it came from.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tcplab import _core
from tcplab.errors import ScenarioError, UserError
from tcplab.experiment.scenario import dumps
from tcplab.experiment.spec import SweepSpec, check_size

__all__ = [
    "Point",
    "Run",
    "canonical_json",
    "derive_seed",
    "expand",
    "iter_points",
    "iter_runs",
    "run_key",
    "set_path",
]

SEED_BITS = 63  # SQLite integers are signed 64-bit; the core takes any u64.
_LINE = re.compile(r"\s*\(line \d+(, column \d+)?\)$")


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: a point (levels by path), a replication, a seed, a key."""

    key: str
    levels: dict[str, Any]
    replication: int
    seed: int
    scenario: dict[str, Any]
    text: str  # the scenario as TOML, what the core runs

    @property
    def traced(self) -> bool:
        return any(f.get("trace") for f in self.scenario.get("flow", []) if isinstance(f, Mapping))


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def _sha256(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def derive_seed(base_seed: int, levels: Mapping[str, Any], replication: int) -> int:
    """The seed of one run (see the module docstring); stable everywhere."""
    digest = _sha256({"seed": base_seed, "levels": dict(levels), "replication": replication})
    return int(digest[:16], 16) & ((1 << SEED_BITS) - 1)


def run_key(scenario: Mapping[str, Any], seed: int, version: str | None = None) -> str:
    """The store key of a run: the scenario, the seed and the tcplab version, hashed."""
    return _sha256({"scenario": scenario, "seed": seed, "version": version or _core.__version__})


# ---------------------------------------------------------------- paths


class PathError(Exception):
    """A factor path that does not fit the base scenario's shape."""


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at a dotted path, creating missing tables; ``*`` means every element."""
    _set(doc, path.split("."), value, [])


def _set(node: Any, parts: list[str], value: Any, done: list[str]) -> None:
    head, rest = parts[0], parts[1:]
    here = ".".join([*done, head])
    if isinstance(node, list):
        if head == "*":
            indices = range(len(node))
        elif head.isdigit():
            if int(head) >= len(node):
                raise PathError(f"'{here}': index {head} is out of range ({len(node)} elements)")
            indices = range(int(head), int(head) + 1)
        else:
            raise PathError(f"'{'.'.join(done)}' is a list: '{head}' must be an index or '*'")
        for i in indices:
            if rest:
                _set(node[i], rest, copy.deepcopy(value), [*done, str(i)])
            else:
                node[i] = copy.deepcopy(value)
        return
    if not isinstance(node, dict):
        raise PathError(f"'{'.'.join(done)}' is a value, not a table: '{here}' cannot be set")
    if not rest:
        node[head] = copy.deepcopy(value)
        return
    if head not in node:
        if parts[1].isdigit() or parts[1] == "*":
            raise PathError(f"'{here}' is not in the base scenario, so '{here}.{parts[1]}' cannot be set")
        node[head] = {}
    _set(node[head], rest, value, [*done, head])


# ---------------------------------------------------------------- expansion


def _axes(spec: SweepSpec) -> list[list[dict[str, Any]]]:
    """Each factor, and each zipped group, as a list of assignments {path: level}."""
    axes = [[{path: level} for level in levels] for path, levels in spec.factors.items()]
    for group in spec.zips:
        paths = list(group)
        n = len(group[paths[0]])
        axes.append([{p: group[p][i] for p in paths} for i in range(n)])
    return axes


def _apply(base: Mapping[str, Any], levels: Mapping[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(dict(base))
    for path, level in levels.items():
        set_path(doc, path, level)
    return doc


def _describe_levels(levels: Mapping[str, Any]) -> str:
    return ", ".join(f"{p} = {canonical_json(v)}" for p, v in levels.items())


def _core_message(e: ScenarioError) -> tuple[str, str]:
    field, message = e.args if len(e.args) == 2 else ("scenario", str(e))
    return field, _LINE.sub("", message)


def _validate(spec: SweepSpec, doc: dict[str, Any], levels: Mapping[str, Any]) -> str:
    """TOML text of a scenario the core accepts, or UserError naming the factor and the field."""
    where = f"{spec.source}: " if spec.source else ""
    try:
        text = dumps(doc)
        _core.validate_scenario(text, None)
    except TypeError as e:
        raise UserError(f"{where}{_describe_levels(levels)}: {e}") from None
    except ScenarioError as e:
        field, message = _core_message(e)
        if not levels:
            raise UserError(f"{where}base: {field}: {message}") from None
        if message.startswith("unknown field") and len(levels) == 1:
            (path,) = levels
            raise UserError(f"{where}factor '{path}' names no scenario field ({field}: {message})") from None
        raise UserError(f"{where}{_describe_levels(levels)}: {field}: {message}") from None
    return text


def _check_axes(spec: SweepSpec, axes: list[list[dict[str, Any]]]) -> None:
    """Each level alone on the base: errors name the one factor at fault."""
    where = f"{spec.source}: " if spec.source else ""
    for axis in axes:
        for assignment in axis:
            for path, level in assignment.items():
                try:
                    doc = _apply(spec.base, {path: level})
                except PathError as e:
                    raise UserError(f"{where}factor '{path}' names no scenario field: {e}") from None
                _validate(spec, doc, {path: level})


@dataclass(frozen=True)
class Point:
    """One combination of levels, validated: its scenario as a dict and as TOML text."""

    levels: dict[str, Any]
    scenario: dict[str, Any]
    text: str

    def run(self, spec: SweepSpec, replication: int, version: str | None = None) -> Run:
        """Replication ``replication`` of this point (its seed and key derived as documented)."""
        return _Keyer(self, version).run(spec, replication)


class _Keyer:
    """Keys of one point's runs: the scenario's canonical JSON is made once per point, not once
    per replication (it is most of a key's cost). The text hashed is exactly ``run_key``'s."""

    def __init__(self, point: Point, version: str | None = None) -> None:
        self.point = point
        self._head = '{"scenario":' + canonical_json(point.scenario) + ',"seed":'
        self._tail = ',"version":' + canonical_json(version or _core.__version__) + "}"

    def run(self, spec: SweepSpec, rep: int) -> Run:
        p = self.point
        seed = derive_seed(spec.base_seed, p.levels if spec.seeds == "per_run" else {}, rep)
        key = hashlib.sha256((self._head + str(seed) + self._tail).encode()).hexdigest()
        return Run(key, dict(p.levels), rep, seed, p.scenario, p.text)


def iter_points(spec: SweepSpec) -> Iterator[Point]:
    """Every point of the sweep in factorial order (last factor fastest), each validated, one at
    a time: a sweep of many points is never held whole.

    Raises UserError (when the iteration reaches it) if the base, a factor path or a combination
    of levels is not a valid scenario, naming the factor and the field; the base and each level
    alone are checked before the first point is yielded. With ``seeds = "common"`` two points
    of the same scenario would be the same runs, and are refused.
    """
    _validate(spec, copy.deepcopy(dict(spec.base)), {})
    axes = _axes(spec)
    _check_axes(spec, axes)
    # Only with common seeds can two points share keys (per_run seeds differ with the levels);
    # kept per point: its digest and its number (32 bytes and an int, whatever the point's size).
    seen: dict[bytes, int] | None = {} if spec.seeds == "common" else None
    for number, combo in enumerate(itertools.product(*axes)):
        levels = _merged(combo)
        doc = _apply(spec.base, levels)
        text = _validate(spec, doc, levels)
        if seen is not None:
            digest = hashlib.sha256(canonical_json(doc).encode()).digest()
            if digest in seen:
                first = _merged(next(itertools.islice(itertools.product(*axes), seen[digest], None)))
                raise UserError(
                    f"{spec.source + ': ' if spec.source else ''}two runs are the same scenario and seed "
                    f"({_describe_levels(first)}, replication 0; {_describe_levels(levels)}, replication 0)"
                )
            seen[digest] = number
        yield Point(levels, doc, text)


def _merged(combo: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    levels: dict[str, Any] = {}
    for assignment in combo:
        levels.update(assignment)
    return levels


def iter_runs(spec: SweepSpec, version: str | None = None) -> Iterator[Run]:
    """Every run of the sweep, points in factorial order, replications inner, one at a time."""
    for point in iter_points(spec):
        keyer = _Keyer(point, version)
        for rep in range(spec.replications):
            yield keyer.run(spec, rep)


def expand(spec: SweepSpec, max_runs: int | None = None) -> list[Run]:
    """Every run of the sweep as a list (``iter_runs`` without holding them all is better for
    large sweeps). Refuses a sweep above ``max_runs`` (default ``spec.MAX_RUNS``) before any
    expansion.

    Raises UserError if the base, a factor path or a combination of levels is not a valid
    scenario, naming the factor and the field.
    """
    check_size(spec, max_runs)
    return list(iter_runs(spec))
