"""The studies' names, papers and whether they have commands, read without importing them.

Importing a study imports its figures, claims and tables, and with them pandas, scipy and
matplotlib: about 150 MB and a second or two before ``tcplab --version`` could answer. The CLI
only needs each study's name, whether it declares ``cli`` and its first paper (for the help
line), so this module reads them from the source of each study package's ``__init__`` (the
``STUDY = Study(...)`` call) with ``ast``. A study that spells them in a way this cannot read
(a name computed at import, say) is imported instead: slower, never wrong. A test checks the
index against ``tcplab.report.study.discover()``.
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["StudyEntry", "study_index"]

_PACKAGE = "tcplab.studies"


@dataclass(frozen=True)
class StudyEntry:
    """One study as the CLI sees it before importing it."""

    name: str
    module: str  # the package to import when one of its commands runs
    has_cli: bool
    paper: str  # the first paper as "authors, year"


def _package_dir() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{_PACKAGE} is not a package")
    return Path(next(iter(spec.submodule_search_locations)))


def study_index() -> list[StudyEntry]:
    """Every study package in ``tcplab.studies`` that declares ``STUDY``, sorted by module name."""
    root = _package_dir()
    entries: list[StudyEntry] = []
    for info in sorted(pkgutil.iter_modules([str(root)]), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = f"{_PACKAGE}.{info.name}"
        source = root / info.name / "__init__.py" if info.ispkg else root / f"{info.name}.py"
        entry = _read(source, module)
        if entry is None:
            entry = _imported(module)
        if entry is not None:
            entries.append(entry)
    return entries


def _read(source: Path, module: str) -> StudyEntry | None:
    """The entry from the source's ``STUDY = Study(...)``; None if it is not spelled plainly."""
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), str(source))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["STUDY"]
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "Study"
        ):
            return _from_call(node.value, module)
    return None


def _from_call(call: ast.Call, module: str) -> StudyEntry | None:
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    name = _constant(keywords.get("name"), str)
    papers = keywords.get("papers")
    if name is None or not isinstance(papers, ast.Tuple | ast.List) or not papers.elts:
        return None
    first = papers.elts[0]
    if not (isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "Paper"):
        return None
    if len(first.args) < 3:
        return None
    authors, year = _constant(first.args[0], str), _constant(first.args[2], int)
    if authors is None or year is None:
        return None
    cli = keywords.get("cli")
    has_cli = cli is not None and not (isinstance(cli, ast.Constant) and cli.value is None)
    return StudyEntry(name=name, module=module, has_cli=has_cli, paper=f"{authors}, {year}")


def _constant(node: ast.expr | None, kind: type) -> object | None:
    """A literal of type ``kind`` (adjacent or ``+``-joined strings included), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, kind) and not isinstance(node.value, bool):
        return node.value
    if kind is str and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant(node.left, str), _constant(node.right, str)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    return None


def _imported(module: str) -> StudyEntry | None:
    """The entry of a study whose source this module cannot read: import it."""
    from tcplab.report.study import Study

    study = getattr(importlib.import_module(module), "STUDY", None)
    if not isinstance(study, Study):
        return None
    return StudyEntry(study.name, module, study.cli is not None, study.papers[0].short())
