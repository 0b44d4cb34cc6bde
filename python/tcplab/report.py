"""Markdown for ``tcplab reproduce``: one report per study, one index for all of them."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tcplab.runner import SweepResult
from tcplab.study import Claim, Figure, Study, Table

__all__ = ["index_markdown", "report_markdown"]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return lines


def _claims(claims: Sequence[Claim]) -> list[str]:
    held = sum(c.holds for c in claims)
    lines = ["## Claims", "", f"{held} of {len(claims)} claims hold on the measured data.", ""]
    rows = [(c.id, c.claim, c.paper, c.measured, "yes" if c.holds else "**no**") for c in claims]
    return lines + markdown_table(["id", "claim", "paper", "measured", "holds"], rows) + [""]


def _figures(figures: Sequence[Figure]) -> list[str]:
    lines = ["## Figures", ""]
    for i, fig in enumerate(figures, 1):
        lines += [f"### Figure {i}: {fig.title}", "", f"![{fig.title}]({fig.file})", "", fig.caption, ""]
    return lines


def _tables(tables: Sequence[Table]) -> list[str]:
    lines: list[str] = []
    for t in tables:
        lines += [f"### {t.title}", ""]
        frame = t.frame.reset_index() if t.frame.index.name else t.frame
        lines += markdown_table([str(c) for c in frame.columns], frame.itertuples(index=False))
        lines += ["", t.note, ""] if t.note else [""]
    return ["## Tables", "", *lines] if lines else []


def _runs(results: Sequence[SweepResult]) -> list[str]:
    lines = ["## Runs", ""]
    rows = []
    for r in results:
        factors = ", ".join(f"{r.spec.label(p)} ({len(_levels(r, p))})" for p in r.spec.paths) or "none"
        rows.append((r.spec.name, factors, r.spec.replications, r.total, r.ran, r.skipped, r.failed))
    lines += markdown_table(
        ["sweep", "factors (levels)", "replications", "runs", "ran now", "reused", "failed"], rows
    )
    return lines + [""]


def _levels(result: SweepResult, path: str) -> set[str]:
    return {json.dumps(run.levels[path], sort_keys=True) for run in result.runs}


def report_markdown(
    study: Study,
    quick: bool,
    results: Sequence[SweepResult],
    figures: Sequence[Figure],
    claims: Sequence[Claim],
    tables: Sequence[Table],
    wall_s: float,
    store: Path,
) -> str:
    lines = [f"# {study.title}", "", f"Paper: {study.paper}", ""]
    mode = f"**Quick mode.** {study.quick_note}" if quick else "Full mode."
    lines += [mode, "", study.summary.strip(), ""]
    if study.assumptions:
        lines += ["## Assumptions", ""] + [f"- {a}" for a in study.assumptions] + [""]
    lines += _claims(claims) + _figures(figures) + _tables(tables) + _runs(results)
    lines += [
        f'Results store: `{store.name}` (SQLite; load it with `tcplab.load_runs("{store.name}")`).',
        f"Wall time: {wall_s:.1f} s. Claims as JSON: [claims.json](claims.json).",
        "",
    ]
    return "\n".join(lines)


def index_markdown(entries: Sequence[dict[str, Any]]) -> str:
    lines = ["# tcplab: reproduced studies", ""]
    if not entries:
        return "\n".join([*lines, "No study has been reproduced into this folder yet.", ""])
    rows = []
    for e in entries:
        mode = "quick" if e["quick"] else "full"
        rows.append(
            (
                f"[{e['name']}]({e['name']}/report.md)",
                e["title"],
                e["paper"],
                f"{e['claims_holding']} of {e['claims']}",
                e["runs"],
                mode,
                f"{e['wall_s']:.1f} s",
            )
        )
    lines += markdown_table(["study", "title", "paper", "claims holding", "runs", "mode", "wall time"], rows)
    if any(e["quick"] for e in entries):
        lines += ["", "Quick mode uses fewer replications and shorter runs; each report says how."]
    return "\n".join([*lines, ""])
