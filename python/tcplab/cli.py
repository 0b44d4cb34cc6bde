"""The ``tcplab`` command line: a thin layer over tcplab.experiment (run, bench, sweep),
tcplab.analysis (anova) and tcplab.report (reproduce), plus each study's own commands, mounted
by discovery and imported only when one of them runs (``tcplab.cli_studies``): importing this
module imports neither a study nor pandas, scipy or matplotlib, so every command starts small.

Every command is wrapped by ``tcplab.errors.cli_errors``, the one place that turns exceptions
into messages: user mistakes print one paragraph to stderr and exit with status 2, simulator
bugs (InvariantError) exit with status 1, and neither shows a traceback.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tcplab._launch import say_interrupted, stop_as_on_ctrl_c
from tcplab.cli_studies import LazyStudyGroup, study_names
from tcplab.errors import UserError, cli_errors, printable
from tcplab.experiment.bench import SCENARIOS as BENCH_SCENARIOS

if TYPE_CHECKING:
    from tcplab.experiment.api import RunResult

# Every study's name, found by discovery without importing one: cli.py names none of them.
STUDIES = study_names()

app = typer.Typer(
    name="tcplab",
    cls=LazyStudyGroup,
    help="tcplab: a fast, reproducible packet-level TCP simulator.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: flags show no "<bool>" metavar, and paragraphs are re-wrapped to the
    # terminal instead of keeping the docstrings' line breaks mid-sentence.
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from tcplab.version import build, version

        typer.echo(f"tcplab {version()} ({build()} build)")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    pass


U64_MAX = 2**64 - 1
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, max=U64_MAX, help="Seed of all random streams (overrides the file's)."),
]
# File arguments are taken as text, not Path: click turns an empty argument into Path("."),
# which would be reported as a folder instead of as the empty name it is (see _named_file).
FileArg = Annotated[
    str, typer.Argument(metavar="FILE.toml", help="Scenario file (TOML).", show_default=False)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
MaxMemoryOpt = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        metavar="SIZE",
        help="Refuse a run whose estimated memory exceeds SIZE (e.g. 2GiB; default: the free memory).",
    ),
]


def _named_file(name: str, what: str) -> Path:
    """A file argument as a Path, refusing an empty one (which Path would read as ".")."""
    if name == "":
        raise UserError(f"{what}: the file name is empty")
    return Path(name)


def _named_folder(name: str, what: str) -> Path:
    """A folder option as a Path, refusing an empty one as ``run --out ''`` does."""
    if name == "":
        raise UserError(f"{what}: the folder name is empty (give a folder, e.g. {what} results)")
    return Path(name)


def _max_memory(value: str | None) -> int | None:
    """``--max-memory`` in bytes, checked before any file is read, its errors naming the option."""
    from tcplab.experiment.budget import max_memory_bytes

    return max_memory_bytes(value, "--max-memory")


def _info(message: str, to_stderr: bool) -> None:
    typer.echo(message, err=to_stderr)


# ---------------------------------------------------------------- run, validate


@app.command(short_help="Run one scenario (a file or an example name).")
@cli_errors
def run(
    file: FileArg,
    seed: SeedOpt = None,
    out_name: Annotated[
        str | None,
        typer.Option(
            "--out", metavar="PATH", help="Write summary.json, traces, pcaps and per-flow PNGs here."
        ),
    ] = None,
    json_out: JsonOpt = False,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a non-empty --out folder that tcplab did not write.")
    ] = False,
    max_memory: MaxMemoryOpt = None,
) -> None:
    """Run one scenario (a file, or a packaged example's name) and print its results."""
    from tcplab.experiment.api import load_scenario
    from tcplab.experiment.api import run as run_scenario
    from tcplab.experiment.examples import resolve_scenario
    from tcplab.experiment.run_progress import RunProgress

    max_bytes = _max_memory(max_memory)
    text = load_scenario(resolve_scenario(_named_file(file, "scenario")))
    if out_name is None:
        with RunProgress() as progress:  # a bar on a terminal, for a run of more than 2 s
            result = run_scenario(text, seed=seed, max_memory=max_bytes, progress=progress)
        _print_result(result, json_out)
        return
    from tcplab.experiment.out_dir import OutFolder

    with OutFolder(out_name, force) as out, RunProgress() as progress:  # locked; written through its handle
        result = run_scenario(text, seed=seed, out_dir=out, max_memory=max_bytes, progress=progress)
        wrote = out.publish(marker=True)
    _print_result(result, json_out)
    _info(printable(f"wrote to {out.path}/: " + ", ".join(wrote)), to_stderr=json_out)
    from tcplab.experiment.api import warn_about_captures

    warn_about_captures(out.path, wrote, result.report)


def _print_result(result: RunResult, json_out: bool) -> None:
    if json_out:
        sys.stdout.write(result.to_json() + "\n")
    else:
        from tcplab.report.terminal import print_run

        print_run(result.report)


@app.command()
@cli_errors
def validate(file: FileArg, seed: SeedOpt = None, max_memory: MaxMemoryOpt = None) -> None:
    """Check a scenario file without running it.

    The check includes the run's memory estimate against --max-memory, as `run` does."""
    from tcplab.experiment.api import validate as validate_scenario

    max_bytes = _max_memory(max_memory)
    validate_scenario(_named_file(file, "scenario"), seed, max_memory=max_bytes)
    typer.echo(printable(f"{file}: ok"))


@app.command(short_help="List or copy the shipped example scenarios.")
@cli_errors
def examples(
    copy: Annotated[
        str | None, typer.Option("--copy", metavar="DIR", help="Copy every example into DIR to edit.")
    ] = None,
) -> None:
    """List the example scenarios shipped with tcplab; `tcplab run NAME` runs one."""
    from tcplab.experiment.examples import copy_examples, list_examples

    if copy is not None:
        for path in copy_examples(_named_folder(copy, "--copy")):
            typer.echo(printable(f"wrote {path}"))
        return
    found = list_examples()
    width = max(len(e.name) for e in found) + 2
    # Whole titles: wrapped under their column on a terminal, one line each into a pipe (for grep).
    wrap = shutil.get_terminal_size().columns - width if sys.stdout.isatty() else None
    for e in found:
        lines = textwrap.wrap(e.summary, wrap) if wrap and wrap > 30 else [e.summary]
        typer.echo(f"{e.name:{width}}" + f"\n{'':{width}}".join(lines or [""]))


# ---------------------------------------------------------------- bench

# `tcplab bench` when a performance target is missed: not bad input (2), not a bug (1).
TARGET_MISSED_STATUS = 3


@app.command(
    short_help="Run the benchmark scenarios.",
    help="Run the benchmark scenarios and check the targets.\n\nEach scenario runs in a fresh process.",
)
@cli_errors
def bench(
    json_out: JsonOpt = False,
    quick: Annotated[bool, typer.Option("--quick", help="Shorter simulated times (for tests).")] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="NAME",
            help=f"Run only this scenario (repeatable): {', '.join(BENCH_SCENARIOS)}.",
        ),
    ] = None,
    report_only: Annotated[
        bool,
        typer.Option("--report-only", help="Exit 0 even when a performance target is missed."),
    ] = False,
) -> None:
    from tcplab.experiment import bench as benchmod

    for name in only or []:
        if name not in BENCH_SCENARIOS:
            known = ", ".join(BENCH_SCENARIOS)
            raise UserError(f"--only: unknown scenario '{name}' (known: {known})")
    if only:  # a scenario named twice is run once (it ran twice and showed one row)
        only = list(dict.fromkeys(only))
    result = benchmod.run_bench(only, quick, progress=lambda n: typer.echo(f"running {n} ...", err=True))
    if json_out:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        from tcplab.report.terminal import print_bench

        print_bench(result)
    missed = [t for t in result["targets"] if not t["met"]]
    if missed and not report_only:
        first = missed[0]
        typer.echo(
            f"error: {len(missed)} of {len(result['targets'])} performance targets missed (first: "
            f"{first['scenario']} {first['metric']} {first['measured']:.4g}, target {first['target']}); "
            "--report-only reports without failing",
            err=True,
        )
        raise typer.Exit(TARGET_MISSED_STATUS)


# ---------------------------------------------------------------- sweep, anova

WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="Local worker processes (default: every core)."),
]
DaskOpt = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="ADDRESS|local",
        help="Run on a Dask cluster: a scheduler address (tcp://host:8786), or 'local' for a "
        "LocalCluster on this machine.",
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


@app.command()
@cli_errors
def sweep(
    spec: Annotated[str, typer.Argument(metavar="SPEC.toml", help="Sweep spec (TOML).", show_default=False)],
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    # Text, not Path: Path would read "trail/" (a folder's name) as the file "trail".
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="FILE",
            help="Result store (default: the spec's `store`, else out/sweeps/NAME.sqlite).",
        ),
    ] = None,
    quiet: QuietOpt = False,
    # Text, not Path: Path would read "./-" (a file named "-") as "-" (standard output), and
    # click's Path checks that the file can be read, which an output need not be.
    csv: Annotated[
        str | None,
        typer.Option(
            "--csv",
            metavar="FILE",
            help="Also write the sweep's results, one row per run, to this CSV file, checked before "
            "any run ('-': standard output, the summary then going to stderr; a named pipe or "
            "character device is written into, not replaced). Text cells that start like a "
            "spreadsheet formula get a leading '.",
        ),
    ] = None,
    max_memory: MaxMemoryOpt = None,
    max_runs: Annotated[
        int | None,
        typer.Option(
            "--max-runs",
            min=1,
            metavar="N",
            help="Refuse a sweep of more than N runs (default 1,000,000).",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Check the spec and every point, print the size, run nothing."),
    ] = False,
) -> None:
    """Run a factorial sweep into a result store.

    Replications of every point run on local workers or Dask; a rerun skips the runs already
    stored.
    """
    from tcplab.experiment.runner import default_store, plan_sweep, run_sweep
    from tcplab.experiment.spec import load_spec

    max_bytes = _max_memory(max_memory)
    if store == "":
        raise UserError("--store: the file name is empty (give a file, e.g. --store runs.sqlite)")
    spec_file = _named_file(spec, "sweep spec")
    if dry_run:
        typer.echo(plan_sweep(spec_file, max_memory=max_bytes, max_runs=max_runs).summary())
        return
    loaded = load_spec(spec_file, max_runs)
    if csv is not None:
        from tcplab.experiment.csv_out import check_csv_target

        # Before any run: told after the sweep, a mistake leaves its hours of runs nowhere to go.
        check_csv_target(csv, store or default_store(loaded), spec_file, loaded.base_file)
    result = run_sweep(
        loaded, store=store, workers=workers, dask=dask, quiet=quiet, max_memory=max_bytes, max_runs=max_runs
    )
    csv_on_stdout = csv == "-"  # then stdout holds the CSV alone, for a pipe to read
    typer.echo(result.summary(), err=csv_on_stdout)
    if csv is not None:
        from tcplab.experiment.csv_out import write_sweep_csv

        write_sweep_csv(result.df, csv, result.store)
        if not csv_on_stdout:
            typer.echo(printable(f"csv: {csv}"))
    if result.failed:
        errors = result.errors()
        first = errors.iloc[0]
        levels = ", ".join(f"{c} = {first[c]}" for c in result.spec.columns)
        typer.echo(
            printable(
                f"warning: {result.failed} runs failed and are stored with their errors (status 'failed'); "
                f"a rerun retries them. First: {levels}, replication {first['replication']}: {first['error']}"
            ),
            err=True,
        )


# The levels `anova --confidence` takes: below 0.5 an interval says little, and from 0.9995 up
# its t quantile grows without bound as the error's degrees of freedom shrink.
CONFIDENCE_MIN, CONFIDENCE_MAX = 0.5, 0.999


def _confidence(value: float) -> float:
    """``--confidence`` checked here, not by click's min and max: NaN fails both of their
    tests, and was told it "should be less than or equal to 0.999"."""
    if not CONFIDENCE_MIN <= value <= CONFIDENCE_MAX:  # false for NaN too
        raise typer.BadParameter(f"must be a number from {CONFIDENCE_MIN} to {CONFIDENCE_MAX}, got {value:g}")
    return value


@app.command()
@cli_errors
def anova(
    file: Annotated[str, typer.Argument(metavar="FILE.csv", help="One row per observation.")],
    response: Annotated[str, typer.Option("--response", help="The column to analyse.", show_default=False)],
    factors: Annotated[
        str,
        typer.Option(
            "--factors", metavar="A,B,C", help="Factor columns, comma-separated.", show_default=False
        ),
    ],
    json_out: JsonOpt = False,
    confidence: Annotated[
        float,
        typer.Option("--confidence", callback=_confidence, help="Level of the intervals, from 0.5 to 0.999."),
    ] = 0.90,
    no_interactions: Annotated[
        bool, typer.Option("--no-interactions", help="Leave first-order interactions in the error.")
    ] = False,
) -> None:
    """Factorial analysis after Jain (1991).

    Allocation of variation, main effects with confidence intervals, first-order interactions.
    """
    from tcplab.analysis.anova import factorial_anova, read_observations
    from tcplab.analysis.anova_text import format_anova

    df = read_observations(_named_file(file, "CSV"))
    names = [f.strip() for f in factors.split(",") if f.strip()]
    result = factorial_anova(df, response, names, confidence, interactions=not no_interactions)
    if json_out:
        sys.stdout.write(json.dumps(result.to_dict()) + "\n")
    else:
        typer.echo(format_anova(result))


# ---------------------------------------------------------------- reproduce


@app.command()
@cli_errors
def reproduce(
    study: Annotated[
        str,
        typer.Argument(metavar="STUDY", help=f"One of {', '.join(STUDIES)}, or 'all'.", show_default=False),
    ],
    quick: Annotated[bool, typer.Option("--quick", help="Quick mode (fewer runs, shorter times).")] = False,
    out: Annotated[str, typer.Option("--out", help="Output folder.")] = "out",
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Reproduce a study, or all of them, from the simulator.

    Writes DIR/STUDY/report.md (claims, figures, tables), the PNGs, claims.json and study.json,
    and DIR/index.md over every study reproduced into DIR.
    """
    from tcplab.report.reproduce import reproduce as reproduce_studies

    out_dir = _named_folder(out, "--out")
    outputs = reproduce_studies(
        study,
        out_dir,
        quick,
        workers=workers,
        dask=dask,
        quiet=quiet,
        progress=lambda name: _info(f"reproducing {name} ...", to_stderr=True),
    )
    for o in outputs:
        counts = f"{o.claims_holding} of {o.claims_total} claims hold, {o.runs} runs"
        typer.echo(printable(f"{o.study}: {counts}; wrote {o.report}"))
    typer.echo(printable(f"wrote {out_dir / 'index.md'}"))


def _one_line_warnings() -> None:
    """tcplab's own warnings (an old spelling, say) as one ``warning:`` line on stderr, without
    Python's file and line prefix."""
    import warnings

    from tcplab.errors import CaptureWithoutHandshake, DeprecatedInput, NotKept

    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        if issubclass(category, DeprecatedInput | NotKept | CaptureWithoutHandshake):
            typer.echo(printable(f"warning: {message}"), err=True)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def _one_line_usage_errors() -> None:
    """A mistake on the command line (a bad flag value, an unknown option) as one ``error:``
    line naming the option, as every other user error is, not click's usage block. A command
    given no arguments still prints its help (click's own ``NoArgsIsHelpError.show``)."""
    from typer._click.exceptions import UsageError

    def show(self: UsageError, file: object = None) -> None:
        where = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        typer.echo(printable(f"error: {self.format_message()}{where}"), err=True)

    UsageError.show = show  # type: ignore[method-assign]


def main() -> None:
    # A Ctrl-C before a command's own handler is in place (while typer parses the line or a
    # study's commands are imported) is still an interrupt, not a traceback. (A closed pipe is
    # quiet: commands leave through cli_errors, help text through click, which exits 1.)
    # Set again for `python -m tcplab` and callers of main() that did not come through the
    # console script (tcplab._launch).
    stop_as_on_ctrl_c()
    _one_line_warnings()
    _one_line_usage_errors()
    try:
        app()
    except KeyboardInterrupt:
        say_interrupted()
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
