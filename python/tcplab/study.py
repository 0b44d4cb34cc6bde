"""What a study declares: its sweeps, figures and claims. ``tcplab reproduce`` runs it.

A study is a module in ``tcplab.studies`` with a module-level ``STUDY = Study(...)``:

- ``sweeps(quick) -> list[SweepSpec]``: the runs (names unique within the study). Quick mode
  must use fewer replications and shorter runs, and the study says how in ``quick_note``.
- ``figures(data, outdir) -> list[Figure]``: draws PNGs into ``outdir`` (labelled axes with
  units) and returns them with captions that state what the paper reported beside what was
  measured.
- ``claims(data) -> list[Claim]``: each claim's ``holds`` is computed from the measured data.
- ``tables(data) -> list[Table]`` (optional): markdown tables for the report.

``data`` is a ``StudyData``: each sweep's results as a DataFrame (``data["name"]``), plus the
store for traces. The framework (``tcplab.reproduce``) runs the sweeps through the result store,
so running a study again reuses every run already done.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tcplab.errors import UserError
from tcplab.spec import SweepSpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Claim", "Figure", "Study", "StudyData", "Table", "discover"]


@dataclass(frozen=True)
class Figure:
    """A PNG in the study's folder; ``caption`` says what the paper reported and what we measured."""

    file: str
    title: str
    caption: str


@dataclass(frozen=True)
class Table:
    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass(frozen=True)
class Claim:
    """One claim: ``paper`` is what the paper reported, ``measured`` what tcplab measured
    (JSON-able), ``holds`` whether the measured data support the claim (computed, never typed)."""

    id: str
    claim: str
    paper: Any
    measured: Any
    holds: bool

    def __post_init__(self) -> None:
        if isinstance(self.holds, np.bool_):
            object.__setattr__(self, "holds", bool(self.holds))
        if not isinstance(self.holds, bool):
            raise TypeError(f"claim {self.id}: holds must be a bool, got {self.holds!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "claim": self.claim,
            "paper": _plain(self.paper),
            "measured": _plain(self.measured),
            "holds": self.holds,
        }


def _plain(value: Any) -> Any:
    """numpy scalars and containers of them as plain JSON values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass
class StudyData:
    """The results a study's figures and claims are computed from."""

    runs: dict[str, pd.DataFrame]
    store: Path
    quick: bool
    specs: dict[str, SweepSpec] = field(default_factory=dict)

    def __getitem__(self, sweep: str) -> pd.DataFrame:
        return self.runs[sweep]

    def trace(self, key: str, flow_id: int = 0, kind: str = "trace") -> pd.DataFrame:
        """A traced flow's time series from the store (Parquet)."""
        from tcplab.store import Store

        with Store(self.store) as store:
            return store.trace(key, flow_id, kind)


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    paper: str
    summary: str
    sweeps: Callable[[bool], list[SweepSpec]]
    figures: Callable[[StudyData, Path], list[Figure]]
    claims: Callable[[StudyData], list[Claim]]
    tables: Callable[[StudyData], list[Table]] | None = None
    assumptions: tuple[str, ...] = ()
    quick_note: str = "Quick mode: fewer replications and shorter runs."


def discover() -> dict[str, Study]:
    """Every study in ``tcplab.studies``, by name (modules starting with '_' are skipped)."""
    import tcplab.studies as pkg

    found: dict[str, Study] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        study = getattr(module, "STUDY", None)
        if not isinstance(study, Study):
            continue
        if study.name in found:
            raise UserError(f"two study modules declare the name '{study.name}'")
        found[study.name] = study
    return found
