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
from collections.abc import Mapping, Sequence
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


def _check_levels(spec: SweepSpec, where: str, path: Any, levels: Any) -> None:
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise _fail(spec, f"{where}: {path!r} is not a path like 'tcp.variant' or 'link.0.rate'")
    if isinstance(levels, str | bytes | Mapping) or not isinstance(levels, Sequence):
        raise _fail(spec, f"{where}.{path}: levels must be a list, got {levels!r}")
    if len(levels) == 0:
        raise _fail(spec, f"{where}.{path}: the list of levels is empty")
    seen: list[Any] = []
    for level in levels:
        if level in seen:
            raise _fail(spec, f"{where}.{path}: level {level!r} is listed twice")
        seen.append(level)


def check_spec(spec: SweepSpec) -> None:
    """Check the spec's shape; paths are checked against the scenario by ``tcplab.experiment.expand``."""
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
    seen: list[str] = []
    for path, levels in spec.factors.items():
        _check_levels(spec, "factors", path, levels)
        _claim_path(spec, "factors", path, seen)
    for i, group in enumerate(spec.zips):
        where = f"zip[{i}]"
        if not isinstance(group, Mapping) or not group:
            raise _fail(spec, f"{where}: must be a non-empty table of path = [levels]")
        lengths = {}
        for path, levels in group.items():
            _check_levels(spec, where, path, levels)
            lengths[path] = len(levels)
        if len(set(lengths.values())) > 1:
            sizes = ", ".join(f"{p} has {n}" for p, n in lengths.items())
            raise _fail(spec, f"{where}: zipped lists must have the same length ({sizes})")
        for path in group:
            _claim_path(spec, where, path, seen)
    for path, label in spec.labels.items():
        if path not in seen:
            known = ", ".join(sorted(seen)) or "none"
            raise _fail(spec, f"labels.{path}: unknown factor (the factors are: {known})")
        if not isinstance(label, str) or not label:
            raise _fail(spec, f"labels.{path}: must be a non-empty string")
    for path, names in spec.level_labels.items():
        _check_level_labels(spec, seen, path, names)
    columns = [spec.labels.get(p, p) for p in seen]
    _check_reserved(spec, columns)
    dupes = {c for c in columns if columns.count(c) > 1}
    if dupes:
        raise _fail(spec, f"labels: two factors share the column name {sorted(dupes)[0]!r}")


def _claim_path(spec: SweepSpec, where: str, path: str, seen: list[str]) -> None:
    """Add ``path`` to the varied paths, refusing one that another already varies."""
    if path == "seed":
        raise _fail(
            spec,
            f"{where}.seed: the sweep sets every run's seed (from the spec's seed, seeds and "
            "replications), so a factor on the scenario's seed would change nothing; vary "
            "replications instead",
        )
    for other in seen:
        if other == path:
            raise _fail(spec, f"{where}.{path}: this path is already varied elsewhere in the spec")
        if _overlap(path, other):
            raise _fail(
                spec,
                f"{where}.{path}: overlaps {other!r}, also varied: the one applied last would "
                "overwrite the other's levels; vary each field by one path only",
            )
    seen.append(path)


def _overlap(a: str, b: str) -> bool:
    """Whether setting one path can set a field the other sets: one is a prefix of the other,
    an index and ``*`` matching (``tcp`` and ``tcp.mss``, ``link.*.rate`` and ``link.0.rate``)."""
    for x, y in zip(a.split("."), b.split("."), strict=False):
        same_element = "*" in (x, y) and _is_index(x) and _is_index(y)
        if x != y and not same_element:
            return False
    return True


def _is_index(part: str) -> bool:
    return part == "*" or part.isdigit()


def run_count(spec: SweepSpec) -> int:
    """How many runs the sweep has: the factorial's points times the replications."""
    points = math.prod(len(levels) for levels in spec.factors.values())
    points *= math.prod(len(next(iter(group.values()))) for group in spec.zips)
    return points * spec.replications


def check_size(spec: SweepSpec, max_runs: int | None = None) -> None:
    """Refuse, before anything is expanded, a sweep above ``max_runs`` runs (default
    ``MAX_RUNS``): at even a millisecond a run, a million runs take a quarter of an hour of CPU,
    and a billion take weeks (the CLI's ``--max-runs`` raises the cap for a sweep meant to be
    that large). Expansion is lazy, so the cap bounds time, not memory."""
    cap = MAX_RUNS if max_runs is None else max_runs
    n = run_count(spec)
    if n > cap:
        raise _fail(
            spec,
            f"replications: the sweep has {n:,} runs ({counted(spec.replications, 'replication')} of "
            f"{counted(n // spec.replications, 'point')}), more than the {cap:,} one sweep may hold; "
            "split it into smaller sweeps, or raise the cap with --max-runs",
        )


def _check_reserved(spec: SweepSpec, columns: list[str]) -> None:
    """A factor column named like a store column (seed, key, status...) would make result tables
    ambiguous, so it is refused before any run is stored."""
    from tcplab.experiment.store import RESERVED_COLUMNS

    for column in columns:
        if column in RESERVED_COLUMNS:
            path = next(p for p in spec.paths if spec.labels.get(p, p) == column)
            how = f"labels.{path}" if path in spec.labels else f"factors: {path}"
            raise _fail(
                spec,
                f"{how}: the column name {column!r} is taken by the result table; "
                f'give the factor another name, e.g. labels."{path}" = "{column}_level"',
            )


def _check_level_labels(spec: SweepSpec, seen: set[str], path: str, names: Any) -> None:
    where = f"level_labels.{path}"
    if path not in seen:
        known = ", ".join(sorted(seen)) or "none"
        raise _fail(spec, f"{where}: unknown factor (the factors are: {known})")
    if isinstance(names, str | bytes) or not isinstance(names, Sequence):
        raise _fail(spec, f"{where}: must be a list of names, one per level")
    levels = spec._levels(path)
    if len(names) != len(levels):
        raise _fail(spec, f"{where}: {len(names)} names for {len(levels)} levels")
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
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


def parse_spec(doc: Mapping[str, Any], root: Path = Path("."), source: str = "spec") -> SweepSpec:
    """A spec from a parsed TOML document; relative paths are taken from ``root``."""
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
    return SweepSpec(
        base=base,
        factors=_flatten(factors),
        zips=[_flatten(z) for z in zips],
        replications=doc.get("replications", 1),
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
    spec = parse_spec(doc, p.parent, source)
    check_size(spec, max_runs)
    return spec
