"""Sweep specifications: a base scenario, factors with levels, zipped groups, replications.

A spec is a TOML file (docs/experiments.md has the reference) or a ``SweepSpec`` built in
Python. This module only reads and checks the spec's own shape; ``tcplab.experiment.expand`` applies the
factors to the base scenario and checks the result against the core's schema.

Factor paths are dotted keys into the scenario dict: ``tcp.variant``, ``link.0.ab.loss.p``,
``flow.*.bytes`` (an integer picks an element of an array of tables, ``*`` every element).
In the TOML file an unquoted dotted key (``link.0.rate = [...]``) is the same path as a quoted
one (``"link.0.rate" = [...]``): TOML reads it as nested tables, which are flattened back.
"""

from __future__ import annotations

import copy
import math
import os
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab.errors import UserError, counted

__all__ = ["MAX_RUNS", "SEED_MODES", "SweepSpec", "check_size", "load_spec", "parse_spec", "run_count"]

SEED_MODES = ("per_run", "common")
MAX_RUNS = 1_000_000
_KEYS = (
    "name",
    "base",
    "replications",
    "seed",
    "seeds",
    "factors",
    "zips",
    "labels",
    "level_labels",
    "store",
)
# The old spelling of ``zips`` in spec files (before the Python and TOML spellings were made one).
_OLD_ZIP_KEY = "zip"


@dataclass(frozen=True)
class SweepSpec:
    """A sweep: ``base`` (a scenario dict) run at every combination of the factor levels.

    ``factors`` maps a path to its levels (a full factorial over all of them); each dict of
    ``zips`` is one group of paths whose level lists have equal length and vary together, as a
    single factor. Each point is run ``replications`` times with seeds derived from ``seed``
    (``seeds = "per_run"``: from the seed, the point's levels and the replication index;
    ``"common"``: from the seed and the replication index only, so every point of replication
    i sees the same random streams). ``labels`` renames paths in result tables;
    ``level_labels`` names a path's levels (one name per level, in order), shown in result tables
    instead of the levels themselves: a table-valued level (a whole ``tcp`` table, say) then
    reads as "modified TCP" rather than as JSON text.
    """

    base: Mapping[str, Any]
    factors: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    zips: Sequence[Mapping[str, Sequence[Any]]] = ()
    replications: int = 1
    seed: int | None = None
    seeds: str = "per_run"
    name: str = "sweep"
    labels: Mapping[str, str] = field(default_factory=dict)
    level_labels: Mapping[str, Sequence[str]] = field(default_factory=dict)
    store: Path | None = None
    source: str | None = None  # the spec file, for messages
    base_file: str | None = None  # the base scenario's file, when the spec names one

    def __post_init__(self) -> None:
        # The spec keeps copies: a caller's level list changed after the checks would
        # otherwise run levels nothing checked (a duplicate, or none at all).
        # numpy levels (np.int64 from an array) become the plain values they stand for, so the
        # store's level columns and the run keys are a plain value's.
        for name in ("factors", "labels", "level_labels"):
            if isinstance(value := getattr(self, name), Mapping):
                object.__setattr__(self, name, _plain_levels(value))
        if isinstance(self.zips, list | tuple):
            groups = [_plain_levels(g) if isinstance(g, Mapping) else g for g in self.zips]
            object.__setattr__(self, "zips", groups if isinstance(self.zips, list) else tuple(groups))
        check_spec(self)

    @property
    def base_seed(self) -> int:
        if self.seed is not None:
            return self.seed
        from tcplab.experiment.scenario import from_numpy

        seed = from_numpy(self.base.get("seed", 1))
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else 1

    def label(self, path: str) -> str:
        """The column name of a path in result tables."""
        return self.labels.get(path, path)

    def level_label(self, path: str, level: Any) -> Any:
        """What a result table shows for ``level`` of ``path``: its name if it has one."""
        names = self.level_labels.get(path)
        if names is None:
            return level
        return names[list(self._levels(path)).index(level)]

    def _levels(self, path: str) -> Sequence[Any]:
        if path in self.factors:
            return self.factors[path]
        return next(group[path] for group in self.zips if path in group)

    @property
    def paths(self) -> list[str]:
        """Every varied path: the factors', then each zipped group's."""
        return [*self.factors, *(p for group in self.zips for p in group)]

    @property
    def columns(self) -> list[str]:
        """The factor columns of the result table, in order."""
        return [self.label(p) for p in self.paths]


def _plain_levels(table: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``table`` of path = levels, numpy numbers in the level lists made plain."""
    from tcplab.experiment.scenario import from_numpy

    def plain(levels: Any) -> Any:
        levels = from_numpy(levels)  # a numpy array of levels becomes a list
        if isinstance(levels, list | tuple):
            return [from_numpy(level) for level in levels]
        return levels

    return {path: plain(copy.deepcopy(levels)) for path, levels in table.items()}


def _where(spec: SweepSpec) -> str:
    return f"{spec.source}: " if spec.source else ""


def _fail(spec: SweepSpec, message: str) -> UserError:
    return UserError(f"{_where(spec)}{message}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_shape(spec: SweepSpec, where: str, path: Any, levels: Any) -> None:
    """A path like ``tcp.variant`` and a non-empty list of levels (duplicates are checked apart:
    a factor may not repeat a level, a zipped group may not repeat a row)."""
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise _fail(spec, f"{where}: {path!r} is not a path like 'tcp.variant' or 'link.0.rate'")
    if not _is_level_list(levels):
        raise _fail(spec, f"{where}.{path}: levels must be a list, got {levels!r}")
    if len(levels) == 0:
        raise _fail(spec, f"{where}.{path}: the list of levels is empty")


def _is_level_list(levels: Any) -> bool:
    return not isinstance(levels, str | bytes | Mapping) and isinstance(levels, Sequence)


def _check_levels(spec: SweepSpec, where: str, path: Any, levels: Any) -> None:
    """A factor's levels: ``_check_shape``, and no level equal to an earlier one."""
    _check_shape(spec, where, path, levels)
    for i, first in enumerate(_first_equal(levels)):
        if first != i:
            raise _fail(spec, f"{where}.{path}: level {levels[i]!r} is listed twice")


def _check_rows(spec: SweepSpec, where: str, group: Mapping[str, Sequence[Any]]) -> None:
    """A zipped group's rows (one level of each path) must differ: a column may repeat a value
    (three hand-picked points (rate, delay) may share a rate), but a repeated row would be the
    same point twice."""
    rows = list(zip(*group.values(), strict=True))
    for i, first in enumerate(_first_equal(rows)):
        if first != i:
            values = ", ".join(f"{path} = {level!r}" for path, level in zip(group, rows[i], strict=True))
            raise _fail(spec, f"{where}: row {i + 1} repeats row {first + 1} ({values})")


def _first_equal(values: Sequence[Any]) -> list[int]:
    """For each value, the index of the first value equal to it (``==``, as ``in`` compares:
    1000 and 1000.0 are equal, so are tables whatever their key order): its own index when no
    earlier value is. Found through a dict of ``_hashable`` stand-ins, in linear time;
    comparing each value with every earlier one took minutes for a list of 60,000 levels."""
    try:
        firsts: dict[Hashable, int] = {}
        return [firsts.setdefault(_hashable(value), i) for i, value in enumerate(values)]
    except TypeError:  # a value no dict can hold (a Python set, say): compared one by one
        return [
            next((j for j in range(i) if values[j] is value or values[j] == value), i)
            for i, value in enumerate(values)
        ]


def _hashable(value: Any) -> Hashable:
    """A stand-in for ``value`` that is equal (and hashes equal) to another's exactly when the
    values are ``==``: a table becomes a frozenset of its items, a list a tuple; each is tagged
    with its kind, as a list is never equal to a tuple or a table. Numbers need nothing: Python
    hashes 1000 and 1000.0 (and True and 1) alike, as ``==`` finds them equal."""
    if isinstance(value, Mapping):
        return (Mapping, frozenset((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return (list, tuple(_hashable(v) for v in value))
    if isinstance(value, tuple):
        return (tuple, tuple(_hashable(v) for v in value))
    return value


def check_spec(spec: SweepSpec) -> None:
    """Check the spec's shape; paths are checked against the scenario by ``tcplab.experiment.expand``.

    Every check takes time linear in the spec's size (the levels, the factors): a spec of a
    million levels is answered in seconds, not hours."""
    if not isinstance(spec.base, Mapping):
        raise _fail(spec, f"base: must be a scenario table, got {type(spec.base).__name__}")
    if not isinstance(spec.name, str) or not spec.name:
        raise _fail(spec, "name: must be a non-empty string")
    from tcplab.experiment.safe_names import file_name_problem

    if (problem := file_name_problem(spec.name)) is not None:
        raise _fail(spec, f"name: {problem}")
    if not _is_int(spec.replications) or spec.replications < 1:
        raise _fail(spec, f"replications: must be a positive integer, got {spec.replications!r}")
    if spec.seed is not None and (not _is_int(spec.seed) or not 0 <= spec.seed < 2**64):
        raise _fail(spec, f"seed: must be an integer from 0 to 2^64-1, got {spec.seed!r}")
    if spec.seeds not in SEED_MODES:
        raise _fail(spec, f"seeds: must be one of {', '.join(SEED_MODES)}, got {spec.seeds!r}")
    if not isinstance(spec.factors, Mapping):
        raise _fail(spec, "factors: must be a table of path = [levels]")
    claims = _Claims()
    for path, levels in spec.factors.items():
        _check_levels(spec, "factors", path, levels)
        _claim_path(spec, "factors", path, claims)
    for i, group in enumerate(spec.zips):
        where = f"zip[{i}]"
        if not isinstance(group, Mapping) or not group:
            raise _fail(spec, f"{where}: must be a non-empty table of path = [levels]")
        lengths = {}
        for path, levels in group.items():
            _check_shape(spec, where, path, levels)
            lengths[path] = len(levels)
        if len(set(lengths.values())) > 1:
            sizes = ", ".join(f"{p} has {n}" for p, n in lengths.items())
            raise _fail(spec, f"{where}: zipped lists must have the same length ({sizes})")
        _check_rows(spec, where, group)
        for path in group:
            _claim_path(spec, where, path, claims)
    seen = claims.paths
    varied = set(seen)
    for path, label in spec.labels.items():
        if path not in varied:
            known = ", ".join(sorted(seen)) or "none"
            raise _fail(spec, f"labels.{path}: unknown factor (the factors are: {known})")
        if not isinstance(label, str) or not label:
            raise _fail(spec, f"labels.{path}: must be a non-empty string")
    for path, names in spec.level_labels.items():
        _check_level_labels(spec, varied, path, names)
    _check_reserved(spec, seen)
    columns = [spec.labels.get(p, p) for p in seen]
    dupes = {c for c, n in Counter(columns).items() if n > 1}
    if dupes:
        raise _fail(spec, f"labels: two factors share the column name {sorted(dupes)[0]!r}")


def _claim_path(spec: SweepSpec, where: str, path: str, claims: _Claims) -> None:
    """Add ``path`` to the varied paths, refusing one that another already varies."""
    if path == "seed":
        raise _fail(
            spec,
            f"{where}.seed: the sweep sets every run's seed (from the spec's seed, seeds and "
            "replications), so a factor on the scenario's seed would change nothing; vary "
            "replications instead",
        )
    other = claims.first_overlap(path)
    if other == path:
        raise _fail(spec, f"{where}.{path}: this path is already varied elsewhere in the spec")
    if other is not None:
        raise _fail(
            spec,
            f"{where}.{path}: overlaps {other!r}, also varied: the one applied last would "
            "overwrite the other's levels; vary each field by one path only",
        )
    claims.add(path)


def _overlap(a: str, b: str) -> bool:
    """Whether setting one path can set a field the other sets: one is a prefix of the other,
    an index and ``*`` matching (``tcp`` and ``tcp.mss``, ``link.*.rate`` and ``link.0.rate``).
    ``_Claims`` answers the same question for many paths at once."""
    for x, y in zip(a.split("."), b.split("."), strict=False):
        same_element = "*" in (x, y) and _is_index(x) and _is_index(y)
        if x != y and not same_element:
            return False
    return True


def _is_index(part: str) -> bool:
    return part == "*" or part.isdigit()


@dataclass
class _Node:
    """One dotted part of the claimed paths: the paths that go on from it, by their next part."""

    first: tuple[int, str]  # the first claimed path through this part: (its order, the path)
    children: dict[str, _Node] = field(default_factory=dict)
    indices: dict[str, _Node] = field(default_factory=dict)  # those named by an index or '*'
    any_index: _Node | None = None  # all of ``indices`` merged: what a '*' goes on to
    end: tuple[int, str] | None = None  # the first claimed path that ends here


# A path's first indices are also stored under ``any_index`` (a path with k of them is stored
# 2^k times, k at most this), so that a '*' there takes one step, not one per index below it
# (varying flow.N.a for 5,000 flows beside flow.*.bK for 5,000 names took a minute that way).
# Deeper indices, which no scenario field has, are looked through one by one.
_MERGED_INDICES = 4


class _Claims:
    """The varied paths, in the order they were claimed, and a tree of their dotted parts.

    ``first_overlap`` follows the new path's parts down the tree (an index into itself and
    ``*``, a ``*`` into every index), so it meets only the claimed paths that can overlap it,
    in about the path's length: comparing it with every claimed path (``_overlap``) made 5,000
    factors take half a minute. It answers what that comparison answered: the first
    overlapping path in claim order."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._root = _Node(first=(-1, ""))

    def first_overlap(self, path: str) -> str | None:
        """The first claimed path that ``_overlap`` says overlaps ``path`` (it included)."""
        parts = path.split(".")
        found: list[tuple[int, str]] = []
        stack = [(self._root, 0, 0)]  # a node, the parts matched, the indices among them
        while stack:
            node, depth, indices = stack.pop()
            if depth == len(parts):
                found.append(node.first)  # a claimed path that this one starts, or this one
                continue
            if node.end is not None:
                found.append(node.end)  # a claimed path that starts this one
            part = parts[depth]
            below = indices + _is_index(part)
            stack.extend((child, depth + 1, below) for child in _matching(node, part, indices))
        return min(found)[1] if found else None

    def add(self, path: str) -> None:
        order = len(self.paths)
        self.paths.append(path)
        item = (order, path)
        parts = path.split(".")
        stack = [(self._root, 0, 0)]
        while stack:
            node, depth, indices = stack.pop()
            if depth == len(parts):
                node.end = node.end or item
                continue
            part = parts[depth]
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node(first=item)
                if _is_index(part):
                    node.indices[part] = child
            stack.append((child, depth + 1, indices + _is_index(part)))
            if _is_index(part) and indices < _MERGED_INDICES:
                node.any_index = node.any_index or _Node(first=item)
                stack.append((node.any_index, depth + 1, indices + 1))


def _matching(node: _Node, part: str, indices: int) -> list[_Node]:
    """The children of ``node`` whose part ``_overlap`` matches with ``part`` (``indices``: the
    indices in the parts above it)."""
    if part == "*":
        if indices < _MERGED_INDICES:
            return [node.any_index] if node.any_index is not None else []
        return list(node.indices.values())
    names = (part, "*") if part.isdigit() else (part,)
    return [node.children[name] for name in names if name in node.children]


def run_count(spec: SweepSpec) -> int:
    """How many runs the sweep has: the factorial's points times the replications."""
    points = math.prod(len(levels) for levels in spec.factors.values())
    points *= math.prod(len(next(iter(group.values()))) for group in spec.zips)
    return points * spec.replications


def _count_from_lengths(factors: Any, zips: Any, replications: Any) -> int | None:
    """The run count from the lengths of the level lists alone, before any level is looked
    at; None when the shape is not (yet) right for it, which ``check_spec`` then names."""
    if not _is_int(replications) or replications < 1 or not isinstance(factors, Mapping):
        return None
    if not all(_is_level_list(levels) for levels in factors.values()) or not isinstance(zips, list | tuple):
        return None
    points = math.prod(len(levels) for levels in factors.values())
    for group in zips:
        if not isinstance(group, Mapping) or not group:
            return None
        if not all(_is_level_list(levels) for levels in group.values()):
            return None
        lengths = {len(levels) for levels in group.values()}
        if len(lengths) != 1:
            return None
        points *= lengths.pop()
    return points * replications


def check_size(spec: SweepSpec, max_runs: int | None = None) -> None:
    """Refuse, before anything is expanded, a sweep above ``max_runs`` runs (default
    ``MAX_RUNS``): at even a millisecond a run, a million runs take a quarter of an hour of CPU,
    and a billion take weeks (the CLI's ``--max-runs`` raises the cap for a sweep meant to be
    that large). Expansion is lazy, so the cap bounds time, not memory."""
    _refuse_above(_where(spec), run_count(spec), spec.replications, max_runs)


def _refuse_above(where: str, n: int | None, replications: int, max_runs: int | None) -> None:
    cap = MAX_RUNS if max_runs is None else max_runs
    if n is not None and n > cap:
        raise UserError(
            f"{where}replications: the sweep has {n:,} runs ({counted(replications, 'replication')} of "
            f"{counted(n // replications, 'point')}), more than the {cap:,} one sweep may hold; "
            "split it into smaller sweeps, or raise the cap with --max-runs",
        )


def _check_reserved(spec: SweepSpec, paths: list[str]) -> None:
    """A factor column named like a store column (seed, key, status...) would make result tables
    ambiguous, and a label naming a per-flow field (goodput_bps, name...) would be overwritten
    by that field in ``flows_df``, so either is refused before any run is stored. (A bare path
    is a flow field's name only for the scenario's own ``name``, which a sweep may vary.)"""
    from tcplab.experiment.store import FLOW_COLUMNS, RESERVED_COLUMNS

    for path in paths:
        column = spec.labels.get(path, path)
        if column in RESERVED_COLUMNS:
            table = "the result table"
        elif column in FLOW_COLUMNS and path in spec.labels:
            table = "the per-flow table (flows_df)"
        else:
            continue
        how = f"labels.{path}" if path in spec.labels else f"factors: {path}"
        raise _fail(
            spec,
            f"{how}: the column name {column!r} is taken by {table}; "
            f'give the factor another name, e.g. labels."{path}" = "{column}_level"',
        )


def _check_level_labels(spec: SweepSpec, varied: set[str], path: str, names: Any) -> None:
    where = f"level_labels.{path}"
    if path not in varied:
        known = ", ".join(sorted(varied)) or "none"
        raise _fail(spec, f"{where}: unknown factor (the factors are: {known})")
    if isinstance(names, str | bytes) or not isinstance(names, Sequence):
        raise _fail(spec, f"{where}: must be a list of names, one per level")
    levels = spec._levels(path)
    if len(names) != len(levels):
        raise _fail(spec, f"{where}: {len(names)} names for {len(levels)} levels")
    # A zipped path may repeat a level (in different rows): each of its levels has one name.
    firsts = _first_equal(levels)
    for i, first in enumerate(firsts):
        if names[i] != names[first]:
            raise _fail(
                spec,
                f"{where}: level {levels[i]!r} is named {names[first]!r} in row {first + 1} and "
                f"{names[i]!r} in row {i + 1}; give a level one name",
            )
    named = [names[i] for i, first in enumerate(firsts) if first == i]
    if not all(isinstance(n, str) and n for n in names) or len(set(named)) != len(named):
        raise _fail(spec, f"{where}: names must be distinct non-empty strings")


# ---------------------------------------------------------------- reading TOML


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables back to dotted paths: {"link": {"0": {"rate": [...]}}} -> {"link.0.rate": [...]}."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping):
            flat.update(_flatten(value, path))
        else:
            flat[path] = value
    return flat


def _base(doc: Mapping[str, Any], root: Path, source: str) -> tuple[dict[str, Any], str | None]:
    from tcplab.experiment.scenario import loads

    base = doc.get("base")
    if isinstance(base, Mapping):
        return dict(base), None
    if not isinstance(base, str):
        raise UserError(f"{source}: base: give a scenario file name or a [base] table")
    path = Path(base) if Path(base).is_absolute() else root / base
    from tcplab.experiment.input_files import read_input

    try:
        text = read_input(path, "scenario")
    except OSError as e:
        raise UserError(f"{source}: base: cannot read {path}: {e.strerror or e}") from None
    except UserError as e:
        raise UserError(f"{source}: base: {e}") from None
    from tcplab.errors import ScenarioError
    from tcplab.experiment.input_limits import check_scenario_text

    try:
        check_scenario_text(text)  # before the parse, which costs many times the file
    except ScenarioError as e:
        raise UserError(f"{source}: base: {path}: {e.args[0]}: {e.args[1]}") from None
    try:
        doc = loads(text)
        from tcplab.experiment.trace_files import inline_trace_files

        return inline_trace_files(doc, path.parent), os.fspath(path)  # trace files beside it
    except ScenarioError as e:
        raise UserError(f"{source}: base: {path}: {e.args[-1]}") from None


def _zips(doc: Mapping[str, Any], source: str) -> list[Mapping[str, Any]]:
    """The zipped groups: ``[zips]`` (one group) or ``[[zips]]`` (several); the old ``[zip]``
    spelling still works, with a deprecation warning."""
    key = "zips"
    if _OLD_ZIP_KEY in doc:
        if "zips" in doc:
            raise UserError(f"{source}: zip: give zipped groups as [[zips]] only (zip is its old name)")
        from tcplab.errors import deprecated

        deprecated(f"{source}: [zip] is now spelled [zips] (or [[zips]]), as SweepSpec(zips=...); rename it")
        key = _OLD_ZIP_KEY
    zips = doc.get(key, [])
    if isinstance(zips, Mapping):
        zips = [zips]
    if not isinstance(zips, list) or not all(isinstance(z, Mapping) for z in zips):
        raise UserError(f"{source}: {key}: must be a [zips] table or [[zips]] tables of path = [levels]")
    return zips


def parse_spec(
    doc: Mapping[str, Any], root: Path = Path("."), source: str = "spec", *, refuse_above: int | None = None
) -> SweepSpec:
    """A spec from a parsed TOML document; relative paths are taken from ``root``.

    ``refuse_above``: refuse a sweep of more runs than this (``check_size``'s message) as soon
    as the lengths of its level lists say so, before each level is checked; None leaves the
    count to ``check_size``."""
    unknown = [k for k in doc if k not in (*_KEYS, _OLD_ZIP_KEY)]
    if unknown:
        raise UserError(f"{source}: {unknown[0]}: unknown key (known: {', '.join(_KEYS)})")
    if "base" not in doc:
        raise UserError(f"{source}: base: missing (a scenario file name, or a [base] table)")
    base, base_file = _base(doc, root, source)
    factors = doc.get("factors", {})
    if not isinstance(factors, Mapping):
        raise UserError(f"{source}: factors: must be a table of path = [levels]")
    zips = _zips(doc, source)
    labels = doc.get("labels", {})
    if not isinstance(labels, Mapping):
        raise UserError(f'{source}: labels: must be a table of path = "column name"')
    level_labels = doc.get("level_labels", {})
    if not isinstance(level_labels, Mapping):
        raise UserError(f"{source}: level_labels: must be a table of path = [names, one per level]")
    store = doc.get("store")
    if store is not None and not isinstance(store, str):
        raise UserError(f"{source}: store: must be a file name")
    factors, zips = _flatten(factors), [_flatten(z) for z in zips]
    replications = doc.get("replications", 1)
    if refuse_above is not None:  # at once, as the docs say: checking a level costs far more
        runs = _count_from_lengths(factors, zips, replications)
        _refuse_above(f"{source}: ", runs, replications, refuse_above)
    return SweepSpec(
        base=base,
        factors=factors,
        zips=zips,
        replications=replications,
        seed=doc.get("seed"),
        seeds=doc.get("seeds", "per_run"),
        name=doc.get("name", Path(source).stem if source != "spec" else "sweep"),
        labels=_flatten(labels),
        level_labels=_flatten(level_labels),
        store=(root / store) if store else None,
        source=source,
        base_file=base_file,
    )


def load_spec(path: str | os.PathLike[str], max_runs: int | None = None) -> SweepSpec:
    """Read a sweep spec file, or the packaged example of that name (``"sweeps/loss_variants"``,
    as ``tcplab run lossy_link`` takes a scenario's; a file wins); raises UserError naming the
    file and the problem, or a sweep of more than ``max_runs`` runs (default ``MAX_RUNS``)."""
    from tcplab.experiment.examples import resolve_scenario
    from tcplab.experiment.input_files import parse_toml, read_input

    if os.fspath(path) == "":  # before Path(""), which names the current folder
        raise UserError("sweep spec: the file name is empty")
    found = resolve_scenario(path)
    p = found if isinstance(found, Path) else Path(path)  # a packaged file is a Path when installed
    source = os.fspath(path)
    from tcplab.experiment.input_limits import check_spec_text

    text = read_input(p, "sweep spec")
    check_spec_text(text, source)  # before the parse, which costs many times the file
    doc = parse_toml(text, source)
    spec = parse_spec(doc, p.parent, source, refuse_above=MAX_RUNS if max_runs is None else max_runs)
    check_size(spec, max_runs)
    return spec
