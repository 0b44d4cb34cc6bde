"""The ``tcplab`` command line: a thin layer over tcplab.api, bench, plot, sweep, anova, reproduce.

Every command is wrapped by ``cli_errors``, the one place that turns exceptions into messages:
user mistakes print one paragraph to stderr and exit with status 2, simulator bugs
(InvariantError) exit with status 1, and neither shows a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from tcplab.cli_boston import boston_app
from tcplab.errors import InternalError, InvariantError, ScenarioError, UserError, describe
from tcplab.hfc_cli import hfc_app

app = typer.Typer(
    name="tcplab",
    help="tcplab: a fast, reproducible packet-level TCP simulator.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(boston_app, name="boston")


def _print_version(value: bool) -> None:
    if value:
        from tcplab.version import version

        typer.echo(f"tcplab {version()}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    pass

F = TypeVar("F", bound=Callable[..., Any])

U64_MAX = 2**64 - 1
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, max=U64_MAX, help="Seed of all random streams (overrides the file's)."),
]
FileArg = Annotated[
    Path, typer.Argument(metavar="FILE.toml", help="Scenario file (TOML).", show_default=False)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]


def _fail(status: int, message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(status)


def cli_errors(fn: F) -> F:
    """Report exceptions as one-paragraph errors. A parameter named ``file`` names the input."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        source = kwargs.get("file")
        try:
            return fn(*args, **kwargs)
        except (ScenarioError, UserError, OSError) as e:
            _fail(2, describe(e, source))
        except (InvariantError, InternalError) as e:
            _fail(
                1,
                f"{describe(e, source)}\nThis is a bug in tcplab, not in the scenario: please report it "
                "with the scenario file and the seed.",
            )
        except KeyboardInterrupt:
            _fail(130, "interrupted")

    return wrapper  # type: ignore[return-value]


def _info(message: str, to_stderr: bool) -> None:
    typer.echo(message, err=to_stderr)


# ---------------------------------------------------------------- run, validate


@app.command()
@cli_errors
def run(
    file: FileArg,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write summary.json, traces, pcaps and per-flow PNGs here."),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Run one scenario (a file, or a packaged example's name) and print its results."""
    from tcplab.api import load_scenario
    from tcplab.api import run as run_scenario
    from tcplab.examples import resolve_scenario

    text = load_scenario(resolve_scenario(file))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    result = run_scenario(text, seed=seed, out_dir=out)
    plots: list[Path] = []
    if out is not None:
        from tcplab.plot import plot_run

        plots = plot_run(out, result.report)
    if json_out:
        sys.stdout.write(result.to_json() + "\n")
    else:
        from tcplab.tables import print_run

        print_run(result.report)
    if out is not None:
        _info(f"wrote {out}/summary.json" + "".join(f", {p.name}" for p in plots), to_stderr=json_out)


@app.command()
@cli_errors
def validate(file: FileArg, seed: SeedOpt = None) -> None:
    """Check a scenario file without running it."""
    from tcplab.api import validate as validate_scenario

    validate_scenario(Path(file), seed)
    typer.echo(f"{file}: ok")


@app.command()
@cli_errors
def examples(
    copy: Annotated[
        Path | None, typer.Option("--copy", metavar="DIR", help="Copy every example into DIR to edit.")
    ] = None,
) -> None:
    """List the example scenarios shipped with tcplab; `tcplab run NAME` runs one."""
    from tcplab.examples import copy_examples, list_examples

    if copy is not None:
        for path in copy_examples(copy):
            typer.echo(f"wrote {path}")
        return
    for e in list_examples():
        typer.echo(f"{e.name:24} {e.summary}")


# ---------------------------------------------------------------- bench


@app.command()
@cli_errors
def bench(
    json_out: JsonOpt = False,
    quick: Annotated[bool, typer.Option("--quick", help="Shorter simulated times (for tests).")] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only", help="Run only this scenario (repeatable): dumbbell_10, dumbbell_100, scale_10k."
        ),
    ] = None,
) -> None:
    """Run the standard performance scenarios, each in a fresh process, and check the targets."""
    from tcplab import bench as benchmod

    for name in only or []:
        if name not in benchmod.SCENARIOS:
            known = ", ".join(benchmod.SCENARIOS)
            raise UserError(f"--only: unknown scenario '{name}' (known: {known})")
    result = benchmod.run_bench(only, quick, progress=lambda n: typer.echo(f"running {n} ...", err=True))
    if json_out:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        from tcplab.tables import print_bench

        print_bench(result)


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
    spec: Annotated[Path, typer.Argument(metavar="SPEC.toml", help="Sweep spec (TOML).", show_default=False)],
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store", help="Result store (default: the spec's `store`, else out/sweeps/NAME.sqlite)."
        ),
    ] = None,
    quiet: QuietOpt = False,
    csv: Annotated[
        Path | None,
        typer.Option("--csv", help="Also write the sweep's results, one row per run, to this CSV file."),
    ] = None,
) -> None:
    """Run a factorial sweep with replications into a result store (reruns skip stored runs)."""
    from tcplab.runner import run_sweep

    result = run_sweep(spec, store=store, workers=workers, dask=dask, quiet=quiet)
    typer.echo(result.summary())
    if csv is not None:
        csv.parent.mkdir(parents=True, exist_ok=True)
        result.df.to_csv(csv, index=False)
        typer.echo(f"csv: {csv}")
    if result.failed:
        errors = result.errors()
        first = errors.iloc[0]
        levels = ", ".join(f"{c} = {first[c]}" for c in result.spec.columns)
        typer.echo(
            f"warning: {result.failed} runs failed and are stored with their errors (status 'failed'); "
            f"a rerun retries them. First: {levels}, replication {first['replication']}: {first['error']}",
            err=True,
        )


@app.command()
@cli_errors
def anova(
    file: Annotated[Path, typer.Argument(metavar="FILE.csv", help="One row per observation.")],
    response: Annotated[str, typer.Option("--response", help="The column to analyse.", show_default=False)],
    factors: Annotated[
        str,
        typer.Option(
            "--factors", metavar="A,B,C", help="Factor columns, comma-separated.", show_default=False
        ),
    ],
    json_out: JsonOpt = False,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Level of the intervals.")
    ] = 0.90,
    no_interactions: Annotated[
        bool, typer.Option("--no-interactions", help="Leave first-order interactions in the error.")
    ] = False,
) -> None:
    """Jain's (1991) factorial analysis: allocation of variation, main effects with confidence intervals."""
    from tcplab.anova import factorial_anova, read_observations
    from tcplab.anova_text import format_anova

    df = read_observations(file)
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
    study: Annotated[str, typer.Argument(help="A study name, or 'all'.")],
    quick: Annotated[bool, typer.Option("--quick", help="Quick mode (fewer runs, shorter times).")] = False,
    out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path("out"),
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Reproduce studies into DIR/STUDY/ (report.md, PNGs, claims.json) and DIR/index.md."""
    from tcplab.reproduce import reproduce as reproduce_studies

    outputs = reproduce_studies(
        study,
        out,
        quick,
        workers=workers,
        dask=dask,
        quiet=quiet,
        progress=lambda name: _info(f"reproducing {name} ...", to_stderr=True),
    )
    for o in outputs:
        typer.echo(
            f"{o.study}: {o.claims_holding} of {o.claims_total} claims hold, {o.runs} runs; wrote {o.report}"
        )
    typer.echo(f"wrote {out / 'index.md'}")


app.add_typer(hfc_app, name="hfc")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
