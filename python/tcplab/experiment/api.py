"""Run scenarios from Python: ``run(...) -> RunResult``.

A scenario can be given as a path to a TOML file, as TOML text, or as a dict shaped like the file
(see ``tcplab.experiment.scenario``). Nothing here simulates: the Rust core (``tcplab._core``) does.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.errors import UserError
from tcplab.experiment.arguments import check_seed, check_source
from tcplab.experiment.input_limits import check_scenario_text
from tcplab.experiment.out_dir import OutFolder
from tcplab.experiment.scenario import dumps, loads
from tcplab.experiment.trace_files import has_trace_files, inline_trace_files

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    import pandas as pd

__all__ = ["RunResult", "TomlText", "load_scenario", "run", "scenario_text", "validate"]

ScenarioSource = str | os.PathLike[str] | Mapping[str, Any]

# Python's TOML parser takes about a second per megabyte (a 10^5-flow dumbbell is 23 MB, about
# half a minute of start-up); files larger than any hand-written scenario are parsed by the
# core only (its errors name the line too, in its own words).
PYTHON_PARSE_MAX_CHARS = 1 << 20


def load_scenario(path: str | os.PathLike[str] | Traversable) -> TomlText:
    """The text of a scenario file, checked to be TOML (raises ScenarioError if it is not).

    FileNotFoundError / IsADirectoryError / PermissionError propagate unchanged; a device, FIFO
    or oversized file is refused with a UserError before it is read.
    """
    if isinstance(path, str | os.PathLike):
        from tcplab.experiment.input_files import read_input

        text = read_input(path, "scenario")
    else:  # a packaged example (importlib.resources)
        text = path.read_text(encoding="utf-8")
    check_scenario_text(text)  # before any parse: a million flows would take gigabytes to parse
    if len(text) > PYTHON_PARSE_MAX_CHARS and "file" not in text:
        return TomlText(text)  # generated: the core's parser checks it, 20 times as fast
    doc = loads(text)  # Python's TOML errors are clearer than the core's; fields are checked there.
    if not doc:
        raise _core.ScenarioError("scenario", "the file sets nothing (it is empty or only comments)")
    if has_trace_files(doc):  # a trace source's file, next to the scenario file
        folder = Path(path).parent if isinstance(path, str | os.PathLike) else Path.cwd()
        text = dumps(inline_trace_files(doc, folder))
        check_scenario_text(text)
    return TomlText(text)


class TomlText(str):
    """Scenario text already read from a file: never taken for a file name again."""


def _looks_like_text(s: str) -> bool:
    return "\n" in s or "=" in s or not s.strip() or s.lstrip().startswith("#")


def _dict_as_toml(doc: Mapping[str, Any]) -> str:
    """``dumps(doc)``, with what a scenario dict cannot hold raised as a ScenarioError naming
    the value's path, as the same mistake in a file would be."""
    try:
        text = dumps(doc)
    except (TypeError, ValueError) as e:
        field, _, message = str(e).partition(": ")
        raise _core.ScenarioError(field if message else "scenario", message or field) from None
    except RecursionError:
        raise _core.ScenarioError("scenario", "the dict contains itself, or is nested too deeply") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _core.ScenarioError(
            "scenario", f"a string holds a character UTF-8 cannot encode ({e.reason})"
        ) from None
    return text


def scenario_text(source: ScenarioSource) -> str:
    """TOML text for a path, a TOML string or a scenario dict.

    A string is TOML text if it is a ``TomlText`` (from ``load_scenario``), has a newline or an
    ``=``, is blank or starts with a comment; otherwise it names a file, or else a packaged
    example (``"lossy_link"``, as ``tcplab run lossy_link``; a file of that name wins).
    """
    if isinstance(source, Mapping):
        if has_trace_files(source):  # read into a copy: the caller's dict keeps its file name
            source = inline_trace_files(copy.deepcopy(dict(source)), Path.cwd())
        text = _dict_as_toml(source)
        check_scenario_text(text)
        return text
    if isinstance(source, TomlText):
        return source
    if isinstance(source, str) and _looks_like_text(source):
        check_scenario_text(source)
        if "file" in source and has_trace_files(doc := loads(source)):
            source = dumps(inline_trace_files(doc, Path.cwd()))
            check_scenario_text(source)
        return source
    from tcplab.experiment.examples import resolve_scenario

    return load_scenario(resolve_scenario(source))


def validate(source: ScenarioSource, seed: int | None = None, max_memory: int | str | None = None) -> None:
    """Parse and check a scenario without running it, its memory estimate against
    ``max_memory`` (as ``run`` does) included; raises ScenarioError naming the field."""
    from tcplab.experiment.budget import max_memory_bytes

    check_source(source)
    seed = check_seed(seed)
    limit = max_memory_bytes(max_memory)
    text = scenario_text(source)
    _core.check_memory(text, seed, limit)  # first: it refuses a text too costly to parse
    _core.validate_scenario(text, seed)


def run(
    source: ScenarioSource,
    seed: int | None = None,
    out_dir: str | os.PathLike[str] | OutFolder | None = None,
    max_memory: int | str | None = None,
    plots: bool = True,
    progress: Callable[[float, float], None] | None = None,
) -> RunResult:
    """Run one scenario; with ``out_dir`` also write summary.json, traces, pcaps and (unless
    ``plots=False``) a ``flow<ID>.png`` per traced flow there, as ``tcplab run --out`` does.

    ``seed`` overrides the scenario's own. ``max_memory`` (bytes, or a size such as "2GiB")
    replaces the default limit on the run's estimated memory (what the machine has free). Raises
    ScenarioError for bad input or a run over the limit, UserError for a bad argument or an
    output folder in use by another run, and InvariantError if the simulator breaks one of its
    own invariants (a bug). ``out_dir`` is written as ``tcplab.experiment.out_dir`` says: locked
    for the run, never through a link, and only once the run ended well. ``progress``, if given,
    is called as ``progress(simulated_s, end_s)`` every 50 ms of wall time while the run goes on
    (``end_s`` is 0 during its set-up; ``tcplab.experiment.run_progress.RunProgress`` draws a
    bar); an exception it raises stops the run and is raised here.
    """
    check_source(source)
    seed = check_seed(seed)
    if not isinstance(plots, bool):  # a truthy string such as "no" must not read as yes
        raise UserError(f"plots: must be True or False, got {type(plots).__name__} {plots!r}")
    text = scenario_text(source)
    from tcplab.experiment.budget import max_memory_bytes

    limit = max_memory_bytes(max_memory)
    if out_dir is None:
        report = json.loads(_core.run_scenario(text, seed, None, limit, progress))
        return RunResult(report=report, out_dir=None, series_bin_s=_series_bin_s(text))
    if isinstance(out_dir, OutFolder):
        return _run_into(text, seed, out_dir, limit, plots, progress)
    with OutFolder(out_dir, cli=False) as folder:
        result = _run_into(text, seed, folder, limit, plots, progress)
        wrote = folder.publish()
    warn_about_captures(folder.path, wrote, result.report)
    return result


def warn_about_captures(folder: Path, wrote: list[str], report: dict[str, Any]) -> None:
    """A ``CaptureWithoutHandshake`` warning for each capture in ``wrote`` whose connection
    starts without a SYN (Wireshark then shows raw windows): the CLI prints it as one line."""
    import warnings

    from tcplab.analysis.pcap import capture_warning
    from tcplab.errors import CaptureWithoutHandshake

    for name in wrote:
        if name.endswith(".pcap") and (warning := capture_warning(folder / name, report)):
            warnings.warn(warning, CaptureWithoutHandshake, stacklevel=3)


def _run_into(
    text: str,
    seed: int | None,
    folder: OutFolder,
    limit: int | None,
    plots: bool,
    progress: Callable[[float, float], None] | None,
) -> RunResult:
    """Run into ``folder``'s work folder (with its PNGs unless ``plots`` is false); the caller
    publishes what it wrote."""
    try:
        report = json.loads(_core.run_scenario(text, seed, os.fspath(folder.work), limit, progress))
    except (_core.ScenarioError, OSError) as e:
        raise folder.translate(e) from None
    if plots:
        from tcplab.report.plot import plot_run

        plot_run(folder.work, report)
    return RunResult(report=report, out_dir=folder.path, series_bin_s=_series_bin_s(text))


def _series_bin_s(text: str) -> float | None:
    """The scenario's ``series_bin`` in seconds (the core checked it), or None."""
    from tcplab.units import duration_s

    if "series_bin" not in text and "\\u" not in text and "\\U" not in text:
        return None  # not set (a key can only be spelled otherwise with escapes): skip the parse
    value = loads(text).get("series_bin")
    return None if value is None else duration_s(value, "series_bin")


@dataclass(frozen=True)
class RunResult:
    """The report of one run (the JSON object of ``tcplab run --json``), plus where files went."""

    report: dict[str, Any]
    out_dir: Path | None = None
    series_bin_s: float | None = None  # the scenario's series_bin, for series_df's times

    def __repr__(self) -> str:
        return (
            f"RunResult(seed={self.report.get('seed')}, flows={len(self.report.get('flows', []))}, "
            f"events={self.report.get('events')}, sim_time_s={self.report.get('sim_time_s')}, "
            f"out_dir={str(self.out_dir) if self.out_dir else None!r})"
        )

    @property
    def flows(self) -> list[dict[str, Any]]:
        return self.report["flows"]

    @property
    def links(self) -> list[dict[str, Any]]:
        return self.report["links"]

    @property
    def events(self) -> int:
        return self.report["events"]

    @property
    def sim_time_s(self) -> float:
        return self.report["sim_time_s"]

    @property
    def wall_s(self) -> float:
        return self.report["wall_s"]

    @property
    def seed(self) -> int:
        return self.report["seed"]

    def flows_df(self) -> pd.DataFrame:
        """One row per flow, indexed by flow id (missing values NaN; series in ``series_df``)."""
        from tcplab.experiment.frames import flows_frame

        return flows_frame(self.flows)

    def links_df(self) -> pd.DataFrame:
        """One row per link direction (channel), indexed by channel id (link i: 2i a->b, 2i+1 b->a)."""
        from tcplab.experiment.frames import links_frame

        return links_frame(self.links)

    def series_df(self) -> pd.DataFrame:
        """The run's time series (with ``series_bin``) in long format: bin, time_s, source, id,
        flow, series, value."""
        from tcplab.experiment.frames import series_frame

        return series_frame(self.report, self.series_bin_s)

    def trace_path(self, flow_id: int) -> Path | None:
        """The trace CSV of a flow, if the run wrote one."""
        if self.out_dir is None:
            return None
        path = self.out_dir / f"trace-flow{flow_id}.csv"
        return path if path.exists() else None

    def trace(self, flow_id: int) -> pd.DataFrame:
        """A traced flow's time series: time_s, cwnd, ssthresh, snd_una, snd_nxt (bytes),
        rtt_sample_s (NaN on rows without a sample), srtt_s, rto_s, flight (bytes)."""
        path = self.trace_path(flow_id)
        if path is None:
            raise FileNotFoundError(
                f"no trace for flow {flow_id}: set trace = true on the flow and run with out_dir"
            )
        from tcplab.report.plot import read_trace

        return read_trace(path)

    def drops(self) -> pd.DataFrame:
        """Every packet the run's links dropped (links with ``trace_drops = true``), one row
        each, oldest first: channel, link, direction, then ``drops-<channel>.csv``'s columns
        (time_s, flow, kind, seq, ack, len, bytes, cause, marked; docs/scenario.md#output)."""
        import pandas as pd
        from tcplab.experiment.frames import drops_frame

        found = sorted(self.out_dir.glob("drops-*.csv")) if self.out_dir is not None else []
        files = {int(f.stem[6:]): f for f in found if f.stem[6:].isdigit()}
        if not files:
            raise FileNotFoundError("no drop trace: set trace_drops = true on a link and run with out_dir")
        return drops_frame({channel: pd.read_csv(f) for channel, f in files.items()})

    def to_json(self) -> str:
        return json.dumps(self.report)

    def _repr_html_(self) -> str:
        from tcplab.report.html import run_html

        return run_html(self)
