"""What a study declares to the framework, and how the framework finds studies.

A study is a package in ``tcplab.studies`` whose ``__init__`` defines ``STUDY = Study(...)``:

- ``sweeps(quick) -> list[SweepSpec]``: the runs (names unique within the study). Quick mode
  uses fewer replications and shorter runs, and the study says how in ``quick_note``.
- ``tiny() -> list[SweepSpec]`` (a test hook): the same sweeps cut to the fewest, shortest runs
  that still exercise every figure, claim and table.
- ``derive(data) -> results``: everything the figures, claims and tables need, computed ONCE
  by the framework from the sweeps' results (``StudyData``) and passed to the three below. A
  study with nothing to derive leaves the default, which passes ``StudyData`` itself.
- ``figures(results, outdir) -> list[Figure]``: draws PNGs into ``outdir`` and returns them with
  captions that state what the paper reported beside what was measured.
- ``claims(results) -> list[Claim]``: each claim has a ``kind`` and a verdict computed from the
  measured data by the rule of ``tcplab.report.claims`` (paper claims make the headline; fitted,
  analytic and diagnostic checks are listed apart).
- ``can_fail() -> list[CanFail]`` (optional, expected of every study): for each paper claim, its
  claim function with the paper's own numbers (it must hold on them) and/or a refuting input (it
  must miss on it); tests/test_claims_can_fail.py runs them without simulating.
- ``tables(results) -> list[Table]`` (optional): markdown tables for the report.
- ``stacks`` and ``stack_sweeps(quick, stack) -> list[SweepSpec]`` (optional): the TCP stacks
  the study runs on. ``stacks[0]`` is the paper's own stack, which ``sweeps`` runs and the
  figures, tables and headline claim count use; every other stack is a sensitivity run: the
  framework runs ``stack_sweeps(quick, stack)``, derives and evaluates the claims on it, and the
  claims table gets a column per stack.
- ``cli() -> typer.Typer`` (optional): the study's own commands, mounted as ``tcplab NAME ...``.
  A study's CLI must not import ``tcplab.cli`` (``tcplab.errors.cli_errors`` handles errors).

The framework (``tcplab.report.reproduce``) runs the sweeps through the result store, so running
a study again reuses every run already done.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.errors import UserError
from tcplab.experiment.spec import SweepSpec
from tcplab.report.claims import KINDS, SUBKINDS, CanFail, Claim

if TYPE_CHECKING:
    import pandas as pd
    import typer

__all__ = [
    "KINDS",
    "SUBKINDS",
    "CanFail",
    "Claim",
    "Figure",
    "Paper",
    "Study",
    "StudyData",
    "Table",
    "discover",
]


@dataclass(frozen=True)
class Paper:
    """A paper as the product names it: authors, title and year (never a file name)."""

    authors: str
    title: str
    year: int
    venue: str = ""

    def cite(self) -> str:
        venue = f", {self.venue}" if self.venue else ""
        return f"{self.authors}, {self.title}{venue}, {self.year}"

    def short(self) -> str:
        return f"{self.authors}, {self.year}"


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
class StudyData:
    """The sweeps' results a study derives its results from."""

    runs: dict[str, pd.DataFrame]
    store: Path
    quick: bool
    specs: dict[str, SweepSpec] = field(default_factory=dict)

    def __getitem__(self, sweep: str) -> pd.DataFrame:
        return self.runs[sweep]

    def trace(self, key: str, flow_id: int = 0, kind: str = "trace") -> pd.DataFrame:
        """A traced flow's time series from the store (Parquet)."""
        from tcplab.experiment.store import Store

        with Store(self.store, create=False) as store:  # to read: no lock, no write
            return store.trace(key, flow_id, kind)


def _identity(data: StudyData) -> StudyData:
    return data


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    papers: tuple[Paper, ...]
    summary: str
    sweeps: Callable[[bool], list[SweepSpec]]
    figures: Callable[[Any, Path], list[Figure]]
    claims: Callable[[Any], list[Claim]]
    tiny: Callable[[], list[SweepSpec]] | None = None
    derive: Callable[[StudyData], Any] = _identity
    tables: Callable[[Any], list[Table]] | None = None
    cli: Callable[[], typer.Typer] | None = None
    assumptions: tuple[str, ...] = ()
    quick_note: str = "Fewer replications and shorter runs."
    stacks: tuple[str, ...] = ()
    stack_sweeps: Callable[[bool, str], list[SweepSpec]] | None = None
    can_fail: Callable[[], Sequence[CanFail]] | None = None

    def __post_init__(self) -> None:
        if len(self.stacks) > 1 and self.stack_sweeps is None:
            raise ValueError(f"study {self.name}: sensitivity stacks need stack_sweeps")

    @property
    def sensitivity_stacks(self) -> tuple[str, ...]:
        """The stacks run beside the paper's own (``stacks[0]``)."""
        return self.stacks[1:]

    @property
    def paper(self) -> str:
        """The papers reproduced, cited by authors, title and year."""
        return "; ".join(p.cite() for p in self.papers)


def discover() -> dict[str, Study]:
    """Every study package (or module) in ``tcplab.studies`` that declares ``STUDY``, by name.

    Names starting with '_' are helpers, not studies.
    """
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
            raise UserError(f"two study packages declare the name '{study.name}'")
        found[study.name] = study
    return found
