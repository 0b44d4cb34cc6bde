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
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab.errors import ScenarioError, UserError, counted
from tcplab.experiment.scenario import dumps, from_numpy
from tcplab.experiment.spec import SweepSpec, check_size
from tcplab.experiment.sweep_errors import point_error
from tcplab.experiment.trace_files import inline_trace_files

__all__ = [
    "CheckedSweep",
    "Point",
    "Run",
    "canonical_json",
    "check_sweep",
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
        """Whether the run writes traces a sweep keeps: a flow's, a queue's or a drop trace."""
        flows = any(f.get("trace") for f in self.scenario.get("flow", []) if isinstance(f, Mapping))
        links = [lk for lk in self.scenario.get("link", []) if isinstance(lk, Mapping)]
        return flows or any(lk.get("trace_queue") or lk.get("trace_drops") for lk in links)

    def unkept(self) -> list[str]:
        """The fields asking for output a sweep does not keep (pcap captures)."""
        links = self.scenario.get("link", [])
        return [
            f"link[{i}].pcap"
            for i, lk in enumerate(links if isinstance(links, list) else [])
            if isinstance(lk, Mapping) and lk.get("pcap") not in (None, False)
        ]


def canonical_json(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True, default=_json_number
    )


def _json_number(value: Any) -> Any:
    """A numpy number in a scenario as the Python one it stands for: the same key and seed as
    the plain value (``json`` knows np.float64, a float, but not np.int64 or np.bool_)."""
    plain = from_numpy(value)
    if plain is value:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return plain


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
                raise PathError(
                    f"'{here}': index {head} is out of range (the list has {counted(len(node), 'element')})"
                )
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
    # A trace source's file (a base given as a dict, or a level naming one), from the current
    # folder; a spec file's base had its files read beside it (spec._base).
    return inline_trace_files(doc, Path.cwd())


def _describe_levels(levels: Mapping[str, Any]) -> str:
    return ", ".join(f"{p} = {canonical_json(v)}" for p, v in levels.items())


def _core_message(e: ScenarioError) -> tuple[str, str]:
    field, message = e.args if len(e.args) == 2 else ("scenario", str(e))
    return field, _LINE.sub("", message)


# What making or checking one scenario of a sweep can raise: a path that does not fit the base,
# a value TOML cannot hold, a scenario the core refuses.
_REFUSED = (PathError, TypeError, ScenarioError)


def _made(spec: SweepSpec, levels: Mapping[str, Any], check: bool) -> tuple[dict[str, Any], str]:
    """The base with ``levels`` set, as a dict and as TOML text; with ``check``, checked by the
    core (its one crossing per point). Raises one of ``_REFUSED``."""
    doc = _apply(spec.base, levels)
    text = dumps(doc)
    if check:
        _core.validate_scenario(text, None)
    return doc, text


def _names_no_field(spec: SweepSpec, path: str, detail: str) -> UserError:
    where = f"{spec.source}: " if spec.source else ""
    zipped = next((i for i, group in enumerate(spec.zips) if path in group), None)
    what = f"factor '{path}'" if zipped is None else f"zip[{zipped}] path '{path}'"
    return UserError(f"{where}{what} names no scenario field{detail}")


def _alone_names_no_field(spec: SweepSpec, path: str, level: Any) -> bool:
    """Whether ``path`` set to ``level`` on the base alone names a field the scenario lacks."""
    try:
        _made(spec, {path: level}, check=True)
    except PathError:
        return True
    except ScenarioError as e:
        return _core_message(e)[1].startswith("unknown field")
    except TypeError:
        return False
    return False


def _refusal(
    spec: SweepSpec, levels: Mapping[str, Any], e: Exception, point: tuple[int, int] | None = None
) -> UserError:
    """The one-line error for the base with ``levels`` (none: the base itself) refused with
    ``e``: a path naming no field names its factor or zipped group; a value the core refuses names
    the point (``point``: its number and the sweep's count), the field, and where each
    conflicting value came from (``sweep_errors``)."""
    where = f"{spec.source}: " if spec.source else ""
    unknown = isinstance(e, ScenarioError) and _core_message(e)[1].startswith("unknown field")
    if levels and (isinstance(e, PathError) or unknown):
        culprit = next((p for p in levels if _alone_names_no_field(spec, p, levels[p])), next(iter(levels)))
        detail = f": {e}" if isinstance(e, PathError) else " ({}: {})".format(*_core_message(e))
        return _names_no_field(spec, culprit, detail)
    if not isinstance(e, ScenarioError):
        return UserError(f"{where}{_describe_levels(levels) or 'base'}: {e}")
    field, message = _core_message(e)
    if not levels:
        return UserError(f"{where}base: {field}: {message}")
    return point_error(spec, _apply(spec.base, levels), levels, point, field, message)


def _first_fault(
    spec: SweepSpec, levels: Mapping[str, Any], e: Exception, point: tuple[int, int]
) -> UserError:
    """Why a point was refused: the base, if it alone is refused; else the point itself, naming
    where its conflicting values came from. A level refused alone is not blamed on its own:
    another factor may be what makes it valid (RED's ``max_th`` zipped or crossed with
    ``min_th``). Only a refused point pays the extra check."""
    if levels:
        try:
            _made(spec, {}, check=True)
        except _REFUSED as fault:
            return _refusal(spec, {}, fault)
    return _refusal(spec, levels, e, point)


@dataclass(frozen=True)
class Point:
    """One combination of levels, validated: its scenario as a dict and as TOML text."""

    levels: dict[str, Any]
    scenario: dict[str, Any]
    text: str

    def seed(self, spec: SweepSpec, replication: int) -> int:
        """The seed of replication ``replication`` of this point (see the module docstring)."""
        return derive_seed(spec.base_seed, self.levels if spec.seeds == "per_run" else {}, replication)

    def run(self, spec: SweepSpec, replication: int, version: str | None = None) -> Run:
        """Replication ``replication`` of this point (its seed and key derived as documented)."""
        return _Keyer(self, version).run(spec, replication)

    def runs(self, spec: SweepSpec) -> Iterator[Run]:
        """Every replication of this point, in order."""
        keyer = _Keyer(self)
        return (keyer.run(spec, rep) for rep in range(spec.replications))


class _Keyer:
    """Keys of one point's runs: the scenario's canonical JSON is made once per point, not once
    per replication (it is most of a key's cost). The text hashed is exactly ``run_key``'s."""

    def __init__(self, point: Point, version: str | None = None) -> None:
        self.point = point
        self._head = '{"scenario":' + canonical_json(point.scenario) + ',"seed":'
        self._tail = ',"version":' + canonical_json(version or _core.__version__) + "}"

    def run(self, spec: SweepSpec, rep: int) -> Run:
        p = self.point
        seed = p.seed(spec, rep)
        key = hashlib.sha256((self._head + str(seed) + self._tail).encode()).hexdigest()
        return Run(key, dict(p.levels), rep, seed, p.scenario, p.text)


def iter_points(spec: SweepSpec, check: bool = True) -> Iterator[Point]:
    """Every point of the sweep in factorial order (last factor fastest), one at a time: a sweep
    of many points is never held whole. Each point's scenario is checked by the core once.

    Raises UserError (when the iteration reaches it) at the first point that is not a valid
    scenario, naming the base, the factor or the combination at fault and the field. With
    ``seeds = "common"`` two points of the same scenario would be the same runs, and are refused.
    ``check=False`` makes the points of a sweep already checked again, without the core.
    """
    # Only with common seeds can two points share keys (per_run seeds differ with the levels);
    # kept per point: its digest and its number (32 bytes and an int, whatever the point's size).
    seen: dict[bytes, int] | None = {} if check and spec.seeds == "common" else None
    axes = _axes(spec)
    total = math.prod(len(axis) for axis in axes)
    for index, combo in enumerate(itertools.product(*axes), 1):
        levels = _merged(combo)
        try:
            doc, text = _made(spec, levels, check)
        except _REFUSED as e:
            raise _first_fault(spec, levels, e, (index, total)) from None
        if seen is not None:
            digest = hashlib.sha256(canonical_json(doc).encode()).digest()
            if digest in seen:
                first = _merged(next(itertools.islice(itertools.product(*axes), seen[digest], None)))
                raise UserError(
                    f"{spec.source + ': ' if spec.source else ''}two runs are the same scenario and seed "
                    f"({_describe_levels(first)}, replication 0; {_describe_levels(levels)}, replication 0)"
                )
            seen[digest] = index - 1
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


# A checked sweep keeps its points, so that counting, running and reading its runs expand
# nothing again, up to about this many bytes; a bigger sweep makes them again (unchecked, one at
# a time) whenever it needs them. A held point costs up to about six times its TOML text (its
# dict, text and levels: measured 2.5 to 5.5 times on the shipped and study scenarios).
HOLD_BYTES = 64 << 20
_HELD_PER_TEXT_BYTE = 6


@dataclass(frozen=True)
class CheckedSweep:
    """A sweep expanded once, every point checked by the core (``check_sweep``)."""

    spec: SweepSpec
    points: int
    held: tuple[Point, ...] | None  # None: too big to hold; made again, unchecked, when needed

    def iter_points(self) -> Iterator[Point]:
        return iter(self.held) if self.held is not None else iter_points(self.spec, check=False)

    def iter_runs(self) -> Iterator[Run]:
        """Every run, in ``iter_runs``'s order, without checking anything again."""
        for point in self.iter_points():
            yield from point.runs(self.spec)


def check_sweep(
    spec: SweepSpec, each: Callable[[Point], None] | None = None, hold: bool = True
) -> CheckedSweep:
    """Expand ``spec`` once, checking every point as ``iter_points`` does and calling ``each``
    on it (the memory check); ``hold=False`` keeps none of them (a dry run)."""
    held: list[Point] | None = [] if hold else None
    count = size = 0
    for point in iter_points(spec):
        if each is not None:
            each(point)
        count += 1
        if held is not None:
            size += _HELD_PER_TEXT_BYTE * len(point.text)
            held.append(point)
            if size > HOLD_BYTES:
                held = None
    return CheckedSweep(spec, count, tuple(held) if held is not None else None)


def expand(spec: SweepSpec, max_runs: int | None = None) -> list[Run]:
    """Every run of the sweep as a list (``iter_runs`` without holding them all is better for
    large sweeps). Refuses a sweep above ``max_runs`` (default ``spec.MAX_RUNS``) before any
    expansion.

    Raises UserError if the base, a factor path or a combination of levels is not a valid
    scenario, naming the factor and the field.
    """
    check_size(spec, max_runs)
    return list(iter_runs(spec))
