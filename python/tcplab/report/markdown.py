"""Markdown for ``tcplab reproduce``: one report per study, one index for all of them."""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab.experiment.runner import SweepResult
from tcplab.report.claims import POLICY
from tcplab.report.study import KINDS, Claim, Figure, Study, Table

__all__ = ["claim_counts", "index_markdown", "provenance", "report_markdown"]

# Reproduced values are counted apart from the weaker kinds: an ordering, trend or proportion
# only checks a direction or share, and analytic and diagnostic claims simulate nothing the
# paper measured.
GROUPS = {
    "values": ("value",),
    "orderings_trends_proportions": ("ordering", "trend", "proportion"),
    "analytic_diagnostic": ("analytic", "diagnostic"),
}


def claim_counts(claims: Sequence[Claim]) -> dict[str, Any]:
    """How many claims of each kind there are and hold, and the same for the three groups."""
    by_kind = {k: {"total": 0, "holding": 0} for k in KINDS}
    for c in claims:
        by_kind[c.kind]["total"] += 1
        by_kind[c.kind]["holding"] += int(c.holds)
    groups = {
        g: {
            "total": sum(by_kind[k]["total"] for k in kinds),
            "holding": sum(by_kind[k]["holding"] for k in kinds),
        }
        for g, kinds in GROUPS.items()
    }
    return {"total": len(claims), "holding": sum(c.holds for c in claims), "kinds": by_kind, **groups}


def _git_commit() -> str | None:
    """The checkout's commit when tcplab runs from a git checkout; None otherwise (installed)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and len(commit) == 40 else None


def provenance(quick: bool) -> dict[str, Any]:
    """What produced a report: tcplab's version, the git commit when known, the mode."""
    from tcplab import __version__

    return {
        "tcplab_version": __version__,
        "git_commit": _git_commit(),
        "mode": "quick" if quick else "full",
        "quick": quick,
    }


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


def _count_line(claims: Sequence[Claim]) -> str:
    n = claim_counts(claims)
    v, o, a = n["values"], n["orderings_trends_proportions"], n["analytic_diagnostic"]
    return (
        f"{n['holding']} of {n['total']} claims hold on the measured data: "
        f"{v['holding']} of {v['total']} reproduced values, "
        f"{o['holding']} of {o['total']} orderings, trends and proportions, "
        f"{a['holding']} of {a['total']} analytic and diagnostic checks "
        "(not simulated results of the paper)."
    )


def _claims(
    claims: Sequence[Claim],
    stack: str | None = None,
    sensitivity: Mapping[str, Sequence[Claim]] | None = None,
) -> list[str]:
    sensitivity = sensitivity or {}
    headline = _count_line(claims)
    lines = ["## Claims", ""]
    if stack is None:
        lines += [headline, ""]
    else:
        lines += [f"On the paper's own stack (`{stack}`): {headline}", ""]
        for st, cs in sensitivity.items():
            lines += [f"Sensitivity run on `{st}`: {_count_line(cs)}", ""]
    lines += [f"Tolerance: {POLICY}", ""]
    other = {st: {c.id: c for c in cs} for st, cs in sensitivity.items()}
    headers = ["id", "kind", "claim", "paper", "measured", "holds"]
    if stack is not None and other:
        headers[-2:] = [f"measured ({stack})", f"holds ({stack})"]
        for st in other:
            headers += [f"measured ({st})", f"holds ({st})"]
    rows = []
    for c in claims:
        row: list[Any] = [c.id, c.kind, c.claim, c.paper, c.measured, _yes(c.holds)]
        for by_id in other.values():
            o = by_id.get(c.id)
            row += [o.measured, _yes(o.holds)] if o is not None else ["-", "-"]
        rows.append(row)
    return lines + markdown_table(headers, rows) + [""]


def _yes(holds: bool) -> str:
    return "yes" if holds else "**no**"


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
    prov: dict[str, Any],
    results: Sequence[SweepResult],
    figures: Sequence[Figure],
    claims: Sequence[Claim],
    tables: Sequence[Table],
    wall_s: float,
    store: Path,
    sensitivity: Mapping[str, Sequence[Claim]] | None = None,
) -> str:
    lines = [f"# {study.title}", "", f"Paper: {study.paper}", ""]
    mode = f"**Quick mode.** {study.quick_note}" if prov["quick"] else "Full mode."
    commit = f", git commit {prov['git_commit'][:12]}" if prov.get("git_commit") else ""
    lines += [mode, "", f"tcplab {prov['tcplab_version']}{commit}.", "", study.summary.strip(), ""]
    if study.assumptions:
        lines += ["## Assumptions", ""] + [f"- {a}" for a in study.assumptions] + [""]
    lines += (
        _claims(claims, study.stacks[0] if study.stacks else None, sensitivity)
        + _figures(figures)
        + _tables(tables)
        + _runs(results)
    )
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
