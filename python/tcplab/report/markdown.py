"""Markdown for ``tcplab reproduce``: one report per study, one index for all of them."""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab.experiment.runner import SweepResult
from tcplab.report.claims import (
    DEGENERATE,
    HOLDS,
    MISSES,
    POLICY,
    RULE,
    Cell,
    Claim,
    counts,
    headline,
    own_checks_line,
)
from tcplab.report.study import Figure, Study, Table

__all__ = ["claim_counts", "index_markdown", "provenance", "report_markdown"]

claim_counts = counts  # the name reproduce and older callers use


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


def _verdict(c: Claim) -> str:
    shown = {HOLDS: "holds", MISSES: "**misses**"}.get(c.verdict, c.verdict)
    if c.excluded:
        shown += f" ({c.excluded} degenerate point{'s' if c.excluded > 1 else ''} left out)"
    return shown + (" (legacy)" if c.rule == "legacy" else "")


def _headlines(
    claims: Sequence[Claim], stack: str | None, sensitivity: Mapping[str, Sequence[Claim]]
) -> list[str]:
    n = counts(claims)
    where = f" on the paper's own stack (`{stack}`)" if stack else ""
    lines = [f"**{headline(n).capitalize()}**{where}.", ""]
    for st, cs in sensitivity.items():
        lines += [f"Sensitivity run on `{st}`: {headline(counts(cs))}.", ""]
    lines += [f"Our own checks, not counted in the headline: {own_checks_line(n)}.", ""]
    lines += [f"How claims are judged: {RULE}", ""]
    legacy = n["paper"]["legacy"]
    if legacy:
        lines += [f"{legacy} paper claims still follow the legacy rule, marked (legacy): {POLICY}", ""]
    return lines


def _claim_table(
    claims: Sequence[Claim], other: Mapping[str, Mapping[str, Claim]], stack: str | None, own: bool
) -> list[str]:
    first = ["id", "kind" if own else "form", "claim", "paper"]
    headers = [*first, "measured", "verdict"]
    if stack is not None and other:
        headers[-2:] = [f"measured ({stack})", f"verdict ({stack})"]
        for st in other:
            headers += [f"measured ({st})", f"verdict ({st})"]
    rows = []
    for c in claims:
        row: list[Any] = [c.id, c.kind if own else c.subkind, c.claim, c.paper, c.measured, _verdict(c)]
        for by_id in other.values():
            o = by_id.get(c.id)
            row += [o.measured, _verdict(o)] if o is not None else ["-", "-"]
        rows.append(row)
    return markdown_table(headers, rows) + [""]


def _interval(c: Cell) -> str:
    m = c.measured
    if m.is_degenerate:
        return f"degenerate: {m.degenerate}"
    shown = f"{m.value:.4g}" if c.verdict == HOLDS else f"**{m.value:.4g}**"
    return shown if m.low == m.high else f"{shown} [{m.low:.4g}, {m.high:.4g}]"


def _cells(c: Claim) -> list[tuple[str, str, str, str, str, str, str]]:
    """(value, paper, agreement range, band, measured, difference, flag) per value of a value
    claim; a legacy value claim with one number on each side gets one row from its relative
    tolerance."""
    if c.cells:
        return [
            (
                x.label,
                x.paper.text,
                _range(x.agree),
                f"{x.band[0]:.4g} - {x.band[1]:.4g}",
                _interval(x),
                "" if x.verdict == DEGENERATE else f"{x.difference:+.4g}",
                {HOLDS: "", MISSES: "**outside**"}.get(x.verdict, x.verdict),
            )
            for x in c.cells
        ]
    tol = (c.tolerance or {}).get("relative") if isinstance(c.tolerance, Mapping) else None
    if isinstance(c.paper, int | float) and isinstance(c.measured, int | float) and tol is not None:
        band = f"{c.paper * (1 - tol):.4g} - {c.paper * (1 + tol):.4g} (legacy)"
        flag = "" if c.holds else "**outside**"
        return [("", f"{c.paper:g}", band, band, f"{c.measured:.4g}", f"{c.measured - c.paper:+.4g}", flag)]
    return [
        (
            "",
            _cell(c.paper),
            "(legacy: see the claim)",
            "(legacy: see the claim)",
            _cell(c.measured),
            "-",
            "" if c.holds else "**outside**",
        )
    ]


def _range(r: tuple[float, float]) -> str:
    """An agreement range, or "none" when it is empty (the paper's spread is below ours)."""
    return f"{r[0]:.4g} - {r[1]:.4g}" if r[0] <= r[1] else "none"


def _values(
    claims: Sequence[Claim], other: Mapping[str, Mapping[str, Claim]], stack: str | None = None
) -> list[str]:
    values = [c for c in claims if c.kind == "paper" and c.subkind in ("value", "proportion")]
    if not values:
        return []
    on = f" ({stack})" if stack and other else ""
    headers = [
        "claim",
        "value",
        "paper",
        f"agrees within{on}",
        f"band{on}",
        f"measured [90% interval]{on}",
        f"difference{on}",
        f"flag{on}",
    ]
    for st in other:
        headers += [f"measured ({st})", f"difference ({st})", f"flag ({st})"]
    rows = []
    for c in values:
        mine = _cells(c)
        theirs = {st: (_cells(by_id[c.id]) if c.id in by_id else []) for st, by_id in other.items()}
        for i, (label, paper, agree, band, measured, diff, flag) in enumerate(mine):
            row: list[Any] = [c.id, label, paper, agree, band, measured, diff, flag]
            for cs in theirs.values():
                row += list(cs[i][4:]) if i < len(cs) else ["-", "-", "-"]
            rows.append(row)
    note = (
        "Each value against two ranges. Its band: the range of values that print as the paper's number, "
        "widened by our 90% interval; a value outside it misses, flagged **outside**. Its agreement range: "
        "the printed range widened only by the paper's own sampling spread (when its number is from a few "
        "runs); the value holds when our whole interval lies within it, and is flagged not separated when "
        "it lies within the band but its interval reaches past the agreement range. claims.json gives each "
        "range's derivation; each stack's value is judged on its own interval. Difference: measured minus "
        "the paper's value."
    )
    return ["### Values: the paper's numbers against ours", "", note, "", *markdown_table(headers, rows), ""]


def _claims(
    claims: Sequence[Claim],
    stack: str | None = None,
    sensitivity: Mapping[str, Sequence[Claim]] | None = None,
) -> list[str]:
    sensitivity = sensitivity or {}
    other = {st: {c.id: c for c in cs} for st, cs in sensitivity.items()}
    lines = ["## Claims", "", *_headlines(claims, stack, sensitivity)]
    paper = [c for c in claims if c.kind == "paper"]
    own = [c for c in claims if c.kind != "paper"]
    lines += ["### Paper claims", "", *_claim_table(paper, other, stack, own=False)]
    lines += _values(paper, other, stack)
    if own:
        lines += ["### Our own checks (not counted in the headline)", ""]
        lines += _claim_table(own, other, stack, own=True)
    return lines


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
        crossed = [f"{r.spec.label(p)} ({len(_levels(r, p))})" for p in r.spec.factors]
        # A zipped group is one factor: its paths vary together.
        zipped = [
            " + ".join(r.spec.label(p) for p in group) + f" (zipped, {len(next(iter(group.values())))})"
            for group in r.spec.zips
            if group
        ]
        factors = ", ".join([*crossed, *zipped]) or "none"
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


def _index_claims(e: Mapping[str, Any]) -> tuple[str, str]:
    """(the paper-claims headline, our own checks) of one study.json; older files lack the split."""
    n = e.get("claim_counts") or {}
    if "paper" not in n:
        return f"{e.get('claims_holding', '?')} of {e.get('claims', '?')} claims (before the rule)", "-"
    shown = headline(n).removeprefix("paper claims: ")
    legacy = n["paper"].get("legacy", 0)
    if legacy:
        shown += f"; {legacy} judged by the legacy rule"
    return shown, own_checks_line(n)


def index_markdown(entries: Sequence[dict[str, Any]]) -> str:
    lines = ["# tcplab: reproduced studies", ""]
    if not entries:
        return "\n".join([*lines, "No study has been reproduced into this folder yet.", ""])
    rows = []
    for e in entries:
        mode = "quick" if e["quick"] else "full"
        paper_claims, own = _index_claims(e)
        rows.append(
            (
                f"[{e['name']}]({e['name']}/report.md)",
                e["title"],
                e["paper"],
                paper_claims,
                own,
                e["runs"],
                mode,
                f"{e['wall_s']:.1f} s",
            )
        )
    headers = [
        "study",
        "title",
        "paper",
        "paper claims",
        "our own checks (not counted)",
        "runs",
        "mode",
        "wall time",
    ]
    lines += markdown_table(headers, rows)
    legend = (
        "Paper claims are the papers' statements judged on the measured data; a claim is 'not separated' "
        "when the 90% interval of the compared quantity spans its bound, 'degenerate' where nothing can be "
        "measured. Each report says how every claim is judged."
    )
    if any((e.get("claim_counts") or {}).get("paper", {}).get("legacy", 0) for e in entries):
        legend += (
            " Claims of the legacy rule are the study's own booleans (a blanket 'about' band), not yet "
            "derived from replications."
        )
    lines += ["", legend]
    if any(e["quick"] for e in entries):
        lines += ["", "Quick mode uses fewer replications and shorter runs; each report says how."]
    return "\n".join([*lines, ""])
