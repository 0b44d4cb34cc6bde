"""``tcplab reproduce STUDY|all``: run studies' sweeps, then write their reports and an index.

For each study (``tcplab.report.study``) into ``OUT/<study>/``: the sweeps run through the result
store ``OUT/<study>/runs.sqlite`` (so a second reproduce reuses every run already done), then
``report.md`` with the figures (PNG), the claims and tables, ``claims.json`` (the claims, each
``{id, kind, claim, paper, measured, holds}`` plus ``subkind``, ``verdict``, ``refuted_if`` and
how it was judged (``cells`` with their bands, or ``checks``), the headline and the counts by
kind; for a study with sensitivity stacks, the claims on each under ``sensitivity``) and
``study.json`` (what the index shows, with the tcplab version, git commit when known, and
mode). Then ``OUT/index.md`` lists every study reproduced into OUT so far. Both JSON files are
strict JSON: a NaN is written as null (``tcplab.report.claims.plain``), and a NaN that slipped
through would stop the write (``allow_nan=False``) rather than produce a file strict parsers
reject.

The study's results are derived once (``Study.derive``) and passed to its figures, claims and
tables.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tcplab.errors import UserError, describe
from tcplab.experiment.executors import Executor, ExecutorChoice
from tcplab.experiment.input_files import read_input
from tcplab.experiment.out_dir import OutFolder
from tcplab.experiment.runner import SweepResult, run_sweep
from tcplab.experiment.safe_files import link_refused, open_dir, open_subdir, replace_file
from tcplab.experiment.spec import SweepSpec
from tcplab.experiment.store_checks import check_traces_folder
from tcplab.report.claims import Claim, counts, headline, plain
from tcplab.report.markdown import index_markdown, provenance, report_markdown
from tcplab.report.study import Study, StudyData, discover

__all__ = ["StudyOutput", "reproduce", "reproduce_study", "strict_json", "write_index"]

STORE_NAME = "runs.sqlite"
_STORE_ENTRIES = (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm", f"{STORE_NAME}.traces")

# What a study writes by name, after its sweeps: checked before them, so that a folder in the
# way stops the command at once rather than after minutes of runs.
STUDY_OUTPUTS = ("report.md", "claims.json", "study.json")


def _lstat_mode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def _refuse_folders_at(targets: list[Path]) -> None:
    """Refuse a folder where reproduce will write a file (a link there is replaced, not
    followed, so only a real folder is in the way)."""
    for target in targets:
        mode = _lstat_mode(target)
        if mode is not None and stat.S_ISDIR(mode):
            raise UserError(f"{target} is a folder; reproduce writes a file there (remove or rename it)")


def _precheck_study_folder(folder: Path) -> None:
    """What a study's run would refuse, found before any study runs (``reproduce all`` would
    otherwise spend minutes on the studies before it): its folder, its store's names, its
    files. The checks through the folder's handle (``_study_folder``) still hold at its start."""
    mode = _lstat_mode(folder)
    if mode is None:
        return
    if stat.S_ISLNK(mode):
        raise link_refused(folder)
    if not stat.S_ISDIR(mode):
        raise UserError(f"{folder} exists and is not a folder")
    for entry in _STORE_ENTRIES:
        entry_mode = _lstat_mode(folder / entry)
        if entry_mode is not None and stat.S_ISLNK(entry_mode):
            raise link_refused(folder / entry)
    check_traces_folder(folder / f"{STORE_NAME}.traces")
    # Figures are PNG files whose names are known only once the study has derived its data.
    pngs = [f for f in folder.glob("*.png") if stat.S_ISDIR(_lstat_mode(f) or 0)]
    _refuse_folders_at([folder / f for f in STUDY_OUTPUTS] + sorted(pngs))


@dataclass(frozen=True)
class StudyOutput:
    study: str
    folder: Path
    report: Path
    claims: Path
    figures: list[Path]
    runs: int
    claims_holding: int  # paper claims that hold
    claims_total: int  # paper claims
    headline: str  # "paper claims: K of N hold (M not separated, D degenerate)"


def reproduce_study(
    study: Study,
    out: Path,
    quick: bool = False,
    workers: int | None = None,
    dask: str | None = None,
    quiet: bool = True,
    specs: list[SweepSpec] | None = None,
    sensitivity_specs: dict[str, list[SweepSpec]] | None = None,
) -> StudyOutput:
    """Run one study into ``out/<name>/``; ``specs`` replaces the study's sweeps (``Study.tiny``
    in tests) and ``sensitivity_specs`` the sweeps of its sensitivity stacks (by default the
    study's own, unless ``specs`` is given)."""
    folder = out / study.name
    _precheck_study_folder(folder)
    with (
        _study_folder(out, study.name) as folder_fd,
        # Locked for the study; its figures and files wait in a work folder and move into the
        # study's folder together at the end: an interrupted reproduce left new figures beside
        # the last run's report, or beside none.
        OutFolder(folder, cli=False, handle=folder_fd, what="--out") as stage,
    ):
        output = _reproduce_into(study, folder, stage, quick, workers, dask, quiet, specs, sensitivity_specs)
        stage.publish()
        return output


@contextmanager
def _study_folder(out: Path, name: str) -> Iterator[int]:
    """A handle on ``out/name`` (both created if needed), refusing a link there or at the
    store's names: everything the study writes then goes into the folder that was checked."""
    out_fd = open_dir(out, "--out")
    try:
        folder_fd = open_subdir(out_fd, name, out / name)
    finally:
        os.close(out_fd)
    try:
        for entry in _STORE_ENTRIES:
            try:
                mode = os.stat(entry, dir_fd=folder_fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(mode):
                raise link_refused(out / name / entry)
        yield folder_fd
    finally:
        os.close(folder_fd)


def _reproduce_into(
    study: Study,
    folder: Path,
    stage: OutFolder,
    quick: bool,
    workers: int | None,
    dask: str | None,
    quiet: bool,
    specs: list[SweepSpec] | None,
    sensitivity_specs: dict[str, list[SweepSpec]] | None,
) -> StudyOutput:
    stack_specs_default = specs is None
    started = time.perf_counter()
    store = folder / STORE_NAME
    if specs is None:
        specs = study.sweeps(quick)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise UserError(f"study {study.name}: two sweeps share a name ({', '.join(names)})")
    results: list[SweepResult] = [
        run_sweep(spec, store=store, workers=workers, dask=dask, quiet=quiet) for spec in specs
    ]
    data = StudyData(
        runs={r.spec.name: r.df for r in results},
        store=store,
        quick=quick,
        specs={s.name: s for s in specs},
    )
    derived = study.derive(data)
    try:
        figures = study.figures(derived, stage.work)
    except (UserError, OSError) as e:  # named by the folder the user gave, not the work folder's
        raise UserError(describe(stage.translate(e))) from None
    for fig in figures:
        if not (stage.work / fig.file).is_file():
            raise RuntimeError(f"study {study.name}: figure {fig.file} was declared but not written")
    claims = study.claims(derived)
    tables = study.tables(derived) if study.tables else []
    sensitivity: dict[str, list[Claim]] = {}
    if sensitivity_specs is None and study.stack_sweeps is not None and stack_specs_default:
        sensitivity_specs = {st: study.stack_sweeps(quick, st) for st in study.sensitivity_stacks}
    for stack, stack_specs in (sensitivity_specs or {}).items():
        stack_results, stack_claims = _sensitivity(
            study, stack, stack_specs, store, quick, workers, dask, quiet
        )
        results += stack_results
        sensitivity[stack] = stack_claims
    wall_s = time.perf_counter() - started
    prov = provenance(quick)
    report = folder / "report.md"
    text = report_markdown(study, prov, results, figures, claims, tables, wall_s, store, sensitivity)
    (stage.work / report.name).write_text(text, encoding="utf-8")
    n = counts(claims)
    claims_path = folder / "claims.json"
    claims_doc: dict[str, Any] = {
        "headline": headline(n),
        "counts": n,
        "claims": [c.to_dict() for c in claims],
    }
    if study.stacks:
        claims_doc["stack"] = study.stacks[0]
        claims_doc["sensitivity"] = {
            st: {"headline": headline(counts(cs)), "counts": counts(cs), "claims": [c.to_dict() for c in cs]}
            for st, cs in sensitivity.items()
        }
    (stage.work / claims_path.name).write_text(strict_json(claims_doc), encoding="utf-8")
    meta = {
        "name": study.name,
        "title": study.title,
        "paper": study.paper,
        **prov,
        "claims": n["paper"]["total"],
        "claims_holding": n["paper"]["holds"],
        "headline": headline(n),
        "claim_counts": n,
        **({"stack": study.stacks[0]} if study.stacks else {}),
        **(
            {"claim_counts_by_stack": {st: counts(cs) for st, cs in sensitivity.items()}}
            if sensitivity
            else {}
        ),
        "runs": sum(r.total for r in results),
        "failed_runs": sum(r.failed for r in results),
        "wall_s": wall_s,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    (stage.work / "study.json").write_text(strict_json(meta), encoding="utf-8")
    return StudyOutput(
        study=study.name,
        folder=folder,
        report=report,
        claims=claims_path,
        figures=[folder / f.file for f in figures],
        runs=meta["runs"],
        claims_holding=n["paper"]["holds"],
        claims_total=n["paper"]["total"],
        headline=headline(n),
    )


def strict_json(doc: Any) -> str:
    """``doc`` as strict JSON (NaN and infinities as null; anything else non-finite raises)."""
    return json.dumps(plain(doc), indent=2, allow_nan=False) + "\n"


def _sensitivity(
    study: Study,
    stack: str,
    specs: list[SweepSpec],
    store: Path,
    quick: bool,
    workers: int | None,
    dask: str | None,
    quiet: bool,
) -> tuple[list[SweepResult], list[Claim]]:
    """The study's sweeps on a sensitivity stack (named ``sweep@stack`` in the store and the
    report), derived and evaluated as on the paper's stack: the claims only, no figures."""
    renamed = [dataclasses.replace(s, name=f"{s.name}@{stack}") for s in specs]
    results = [run_sweep(spec, store=store, workers=workers, dask=dask, quiet=quiet) for spec in renamed]
    data = StudyData(
        runs={s.name: r.df for s, r in zip(specs, results, strict=True)},
        store=store,
        quick=quick,
        specs={s.name: s for s in specs},
    )
    return results, study.claims(study.derive(data))


# The keys and types the index reads from a study.json: anything else under OUT (another
# tool's study.json, one half written by another reproduce) is left out, not a crash.
_INDEX_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "title": str,
    "paper": str,
    "quick": bool,
    "runs": int,
    "wall_s": (int, float),
}


def _index_entry(meta: Path) -> dict[str, Any] | None:
    """The study.json at ``meta`` if it is one tcplab wrote for its folder, else None."""
    if meta.parent.is_symlink() or not stat.S_ISREG(_lstat_mode(meta) or 0):
        return None  # a link, or a FIFO that would block the read
    try:
        doc = json.loads(read_input(meta, "study.json"))
    except (OSError, UserError, json.JSONDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("name") != meta.parent.name:
        return None
    if not all(isinstance(doc.get(k), t) for k, t in _INDEX_KEYS.items()):
        return None
    return doc


def write_index(out: Path) -> Path:
    """``out/index.md`` over every study folder in ``out`` that has a study.json (a link to a
    folder is not one; index.md itself is replaced, never written through a link)."""
    out_fd = open_dir(out, "--out")
    try:
        studies = discover()
        entries = [e for e in map(_index_entry, sorted(out.glob("*/study.json"))) if e is not None]
        entries = [e for e in entries if e["name"] in studies]
        index = out / "index.md"
        replace_file(out_fd, index.name, index_markdown(entries), index)
    finally:
        os.close(out_fd)
    return index


def reproduce(
    study: str,
    out: Path,
    quick: bool = False,
    workers: int | None = None,
    dask: str | None = None,
    quiet: bool = True,
    progress: Callable[[str], None] | None = None,
) -> list[StudyOutput]:
    """Reproduce one study, or ``all``, then rewrite the index. Returns what each study wrote."""
    studies = discover()
    if study != "all" and study not in studies:
        known = ", ".join(["all", *studies])
        raise UserError(f"study: unknown study '{study}' (known: {known})")
    chosen = list(studies.values()) if study == "all" else [studies[study]]
    # Before any study's folder is made or named as begun: a file where the folder goes, and a
    # --dask address no scheduler answers at (or a bad --workers), left an empty study folder.
    if os.path.lexists(out) and not os.path.isdir(out):
        if os.path.islink(out):  # followed to a folder, as a shell would; here it leads nowhere
            raise UserError(
                f"--out: {out} is a symbolic link to nothing ({os.readlink(out)}); remove it, or make "
                "the folder it leads to"
            )
        raise UserError(f"--out: {out} exists and is not a folder")
    with Executor(ExecutorChoice(workers=workers, dask=dask)):
        pass  # contacts a remote scheduler at once; a local pool or cluster starts only when used
    _refuse_folders_at([out / "index.md"])
    for s in chosen:
        _precheck_study_folder(out / s.name)
    outputs = []
    for s in chosen:
        if progress:
            progress(s.name)
        outputs.append(reproduce_study(s, out, quick, workers, dask, quiet))
    write_index(out)
    return outputs
