"""``tcplab reproduce``: for now, run the example scenarios and index their results.

The study framework will replace this module; until then ``reproduce all`` and
``reproduce examples`` run every scenario in scenarios/ except the bench_* ones, writing
``DIR/examples/<stem>/`` (summary.json, traces, pcaps, per-flow PNGs) and ``DIR/examples/index.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab.api import RunResult, run
from tcplab.errors import ScenarioError, UserError, describe
from tcplab.plot import plot_run

__all__ = ["STUDIES", "example_scenarios", "reproduce", "reproduce_examples"]

REPO = Path(__file__).resolve().parents[2]
STUDIES = ("all", "examples")


def scenarios_dir() -> Path:
    """scenarios/ of the source tree, or of the working directory for an installed package."""
    for d in (REPO / "scenarios", Path.cwd() / "scenarios"):
        if d.is_dir():
            return d
    raise UserError("cannot find the scenarios/ folder (run from the tcplab source tree)")


def example_scenarios(directory: Path | None = None) -> list[Path]:
    """Example scenario files: every *.toml except the bench_* performance scenarios."""
    d = directory or scenarios_dir()
    return sorted(p for p in d.glob("*.toml") if not p.name.startswith("bench_"))


def _description(path: Path) -> str:
    """The first comment line of a scenario file."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip():
            break
    return ""


def _goodput_line(result: RunResult) -> str:
    flows = result.flows
    if not flows:
        return "no flows"
    total = sum(f["goodput_bps"] for f in flows) / 1e6
    timeouts = sum(f["timeouts"] for f in flows)
    if len(flows) == 1:
        (f,) = flows
        done = f["completion_time_s"]
        end = f"done in {done:.2f} s" if done is not None else "unfinished"
        return f"goodput {total:.2f} Mb/s, {end}, {f['retransmits']} retransmits, {timeouts} timeouts"
    per = ", ".join(f"{f['goodput_bps'] / 1e6:.2f}" for f in flows)
    done = sum(f["completion_time_s"] is not None for f in flows)
    return (
        f"{len(flows)} flows, goodput {total:.2f} Mb/s in total ({per} Mb/s each), "
        f"{done} completed, {timeouts} timeouts"
    )


@dataclass(frozen=True)
class ExampleRun:
    path: Path
    out_dir: Path
    result: RunResult
    plots: list[Path]


def run_example(path: Path, out_dir: Path) -> ExampleRun:
    try:
        result = run(path, out_dir=out_dir)
    except ScenarioError as e:
        raise UserError(describe(e, path)) from None
    return ExampleRun(path, out_dir, result, plot_run(out_dir, result.report))


def _index(runs: list[ExampleRun], root: Path) -> str:
    lines = ["# Example scenarios", ""]
    lines.append("Each scenario of scenarios/ (except the bench_* ones), run once with its own seed.")
    lines.append("")
    for r in runs:
        rel = r.out_dir.relative_to(root)
        desc = _description(r.path)
        lines.append(f"- [{r.path.stem}]({rel.as_posix()}/summary.json){': ' + desc if desc else ''}")
        lines.append(f"  Result: {_goodput_line(r.result)}.")
    return "\n".join(lines) + "\n"


def reproduce_examples(
    out: Path,
    quick: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Run every example scenario into ``out/examples``; returns the index file.

    ``quick`` is accepted for the interface's sake: the examples are already short.
    """
    root = out / "examples"
    runs = []
    for path in example_scenarios():
        if progress:
            progress(path.stem)
        runs.append(run_example(path, root / path.stem))
    index = root / "index.md"
    root.mkdir(parents=True, exist_ok=True)
    index.write_text(_index(runs, root), encoding="utf-8")
    return index


def reproduce(study: str, out: Path, quick: bool = False, **kwargs: Any) -> list[Path]:
    """Reproduce one study (or all); returns the index/report files written."""
    if study not in STUDIES:
        raise UserError(f"study: unknown study '{study}' (known: {', '.join(STUDIES)})")
    return [reproduce_examples(out, quick, **kwargs)]
