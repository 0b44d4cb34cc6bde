"""The study commands' options are checked in the command: a bad value is one line naming the option
the user typed, exit status 2, before anything is built (never a traceback, nor an error naming a
field or line of the scenario the command generates). `tcplab boston waste` and `tcplab hfc buffer`.

Each refusal test replaces what would build or run the simulation with a stub that fails the
test, so a check that is missing fails at once instead of building millions of flows."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import cli

U64_MAX = 2**64 - 1
BIG = 10**400  # past the largest float (about 1.8e308)


class Built(Exception):
    """Raised by the stubs: the command got as far as building or running the simulation."""


@pytest.fixture
def no_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stub out building and running the generated scenarios of both studies."""
    import tcplab.experiment.api
    import tcplab.studies.boston.metrics
    import tcplab.studies.boston.scenarios
    import tcplab.studies.hfc.buffer

    def built(*args: Any, **kwargs: Any) -> Any:
        raise Built

    monkeypatch.setattr(tcplab.experiment.api, "run", built)
    monkeypatch.setattr(tcplab.studies.boston.scenarios, "chain", built)
    monkeypatch.setattr(tcplab.studies.boston.metrics, "chain", built)
    monkeypatch.setattr(tcplab.studies.hfc.buffer, "simulate_overruns", built)
    monkeypatch.setattr(tcplab.studies.hfc.buffer, "default_steps", built)
    monkeypatch.setattr(tcplab.studies.hfc.buffer, "hfc_scenario", built)


def refused(*args: object, option: str) -> str:
    """Run the command; assert exit status 2 and one line naming ``option``; the line."""
    r = cli(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    line = r.stderr.strip()
    assert "\n" not in line, line
    prefix = f"error: {option}:"
    assert line.startswith(prefix), line
    for hidden in ("(line ", "link[", "flow[", "flow:", "scenario:", "seed:", "Traceback"):
        assert hidden not in line[len(prefix) :], line
    assert r.stdout == ""
    return line


def text_counts(doc: dict[str, Any]) -> tuple[int, int, int]:
    """Values, tables and flows of a generated scenario's text, as tcplab.experiment.input_limits
    counts them."""
    from tcplab.experiment.api import scenario_text
    from tcplab.experiment.input_limits import _Shape

    text = scenario_text(doc)
    shape = _Shape(text)
    return text.count("\n") + text.count(",") + 1, shape.tables(), shape.flows()


# ---------------------------------------------------------------- tcplab boston waste

WASTE = ("boston", "waste", "--p", "0.9", "--m", "10")


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("hops", [50_001, 400_000, 10_000_000, 99999999999999999999, BIG])
def test_boston_simulated_hops_are_bounded(hops: int) -> None:
    line = refused(*WASTE, "--hops", hops, "--simulate", "--duration", 1, option="--hops")
    assert "at most 50,000 switches" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("cross", [1_001, 1_000_000, 99999999999999999999])
def test_boston_simulated_cross_traffic_is_bounded(cross: int) -> None:
    line = refused(*WASTE, "--cross", cross, "--simulate", "--duration", 1, option="--cross")
    assert "at most 1,000 cross connections" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize(("hops", "cross"), [(50_000, 1_000), (50_000, 100), (5_000, 999)])
def test_boston_simulated_switches_times_cross_traffic_is_bounded(hops: int, cross: int) -> None:
    """Every cell link keeps a drop record per connection: 50,000 switches and 1,000 cross
    connections held 2.4 GB of them, beyond what the command's bounds promised (about 1.1 GB)."""
    line = refused(
        *WASTE, "--hops", hops, "--cross", cross, "--simulate", "--duration", 1, option="--hops, --cross"
    )
    assert "at most 5,000,000 links x connections" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("buffer", [2**32, 99999999999999999999])
def test_boston_simulated_buffer_is_bounded(buffer: int) -> None:
    line = refused(*WASTE, "--buffer", buffer, "--simulate", option="--buffer")
    assert "4,294,967,295 cells" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("seed", [2**64, 99999999999999999999999])
def test_boston_simulated_seed_is_a_u64(seed: int) -> None:
    line = refused(*WASTE, "--simulate", "--seed", seed, option="--seed")
    assert "0 to 2^64-1" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize(
    ("duration", "says"),
    [("inf", "finite"), ("1e300", "at most 1e9 s"), ("1e9000", "finite"), ("1e-12", "at least 1e-09 s")],
)
def test_boston_simulated_duration_is_in_the_cores_range(duration: str, says: str) -> None:
    assert says in refused(*WASTE, "--simulate", "--duration", duration, option="--duration")


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize(
    "options",
    [
        ("--hops", 50_000),
        ("--cross", 1_000),
        ("--hops", 50_000, "--cross", 98),
        ("--hops", 4_999, "--cross", 999),
        ("--buffer", 2**32 - 1),
        ("--seed", U64_MAX),
        ("--duration", "1e9"),
        ("--duration", "1e-9"),
    ],
)
def test_boston_simulated_bounds_themselves_are_taken(options: tuple[object, ...]) -> None:
    with pytest.raises(Built):
        cli(*WASTE, *options, "--simulate")


def test_boston_seed_above_a_toml_integer_is_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2^63 .. 2^64-1 cannot be written as a TOML integer: the seed goes to the run, not the text.
    import tcplab.experiment.api

    seen: list[tuple[dict[str, Any], int | None]] = []

    def run(doc: dict[str, Any], seed: int | None = None, **kwargs: Any) -> Any:
        seen.append((doc, seed))
        raise Built

    monkeypatch.setattr(tcplab.experiment.api, "run", run)
    with pytest.raises(Built):
        cli(*WASTE, "--simulate", "--seed", U64_MAX)
    ((doc, seed),) = seen
    assert seed == U64_MAX
    assert doc.get("seed", 0) < 2**63


def test_boston_analytic_path_takes_what_it_took() -> None:
    # Without --simulate nothing is built: options only the simulation uses are not bounded, and
    # a huge H is computed as before.
    r = cli(*WASTE, "--hops", 99999999999999999999, "--cross", 10**20, "--buffer", 10**20, "--seed", 10**30)
    assert r.returncode == 0, r.stderr
    assert "99999999999999999999 switches" in r.stdout
    assert cli(*WASTE, "--duration", "inf", "--json").returncode == 0


@pytest.mark.parametrize(("options", "option"), [(("--hops", BIG), "--hops"), (("--m", BIG), "--m")])
def test_boston_analytic_path_refuses_past_the_float_range(options: tuple[object, ...], option: str) -> None:
    assert "1.8e308" in refused(
        *WASTE[:-2], *(("--m", 10) if option == "--hops" else ()), *options, option=option
    )


def test_boston_chain_at_the_bounds_fits_the_core() -> None:
    # The scenario's counts grow linearly with switches and cross connections, its memory estimate
    # linearly or less: extrapolated from small chains to the bounds, they stay within the core's
    # limits, and the estimate within about a gigabyte.
    from tcplab import _core
    from tcplab.experiment.api import scenario_text
    from tcplab.experiment.input_limits import MAX_FLOWS, MAX_TABLES, MAX_VALUES
    from tcplab.studies.boston.cli import MAX_SIM_CROSS, MAX_SIM_LINKS_X_CONNECTIONS, MAX_SIM_SWITCHES
    from tcplab.studies.boston.scenarios import ChainConfig, chain

    def measure(h: int, c: int) -> tuple[int, int, int, int]:
        doc = chain(ChainConfig(switches=h, cross=c, protocol="boston", m=10, buffer=2**32 - 1))
        estimate = sum(part[2] for part in _core.memory_estimate(scenario_text(doc), None, False))
        return (*text_counts(doc), estimate)

    # Each count is linear in switches and in cross connections, with a term in their product
    # (the cell links' drop records: a link's per connection): extrapolated from four chains.
    base, more_switches, more_cross, more_both = (
        measure(3, 1),
        measure(1003, 1),
        measure(3, 201),
        measure(1003, 201),
    )

    def extrapolated(switches: int, cross: int) -> list[float]:
        ds, dc = (switches - 3) / 1000, (cross - 1) / 200
        return [
            b + (s - b) * ds + (c - b) * dc + (sc - s - c + b) * ds * dc
            for b, s, c, sc in zip(base, more_switches, more_cross, more_both, strict=True)
        ]

    corners = [
        (MAX_SIM_SWITCHES, MAX_SIM_LINKS_X_CONNECTIONS // (MAX_SIM_SWITCHES + 1) - 1),
        (MAX_SIM_LINKS_X_CONNECTIONS // (MAX_SIM_CROSS + 1) - 1, MAX_SIM_CROSS),
    ]
    for switches, cross in corners:
        assert (switches + 1) * (cross + 1) <= MAX_SIM_LINKS_X_CONNECTIONS
        values, tables, flows, estimate = extrapolated(switches, cross)
        assert values < MAX_VALUES and tables < MAX_TABLES and flows < MAX_FLOWS
        assert estimate < 1.2e9, (switches, cross, estimate)
    # The two single bounds alone would pass it (the cell links' records, their product).
    assert extrapolated(MAX_SIM_SWITCHES, MAX_SIM_CROSS)[3] > 1.5e9


# ---------------------------------------------------------------- tcplab hfc buffer

BUFFER = ("hfc", "buffer")


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize(
    ("cm_buffer", "steps"), [("1e19", "24,414,062,500,000,003"), ("1GiB", "2,621,443"), ("1MiB", "2,563")]
)
def test_hfc_simulated_steps_are_bounded(cm_buffer: str, steps: str) -> None:
    line = refused(*BUFFER, "--cm-buffer", cm_buffer, "--simulate", option="--cm-buffer")
    assert f"{steps} steps" in line and "2,000" in line


@pytest.mark.usefixtures("no_simulation")
def test_hfc_simulated_steps_without_a_bound_name_the_mss() -> None:
    # lan >= down: no bound, the steps span 32 to 128 segments of --mss.
    line = refused(
        *BUFFER, "--cm-buffer", "10KiB", "--mss", 65495, "--lan-rate", "30Mbps", "--simulate", option="--mss"
    )
    assert "6,141 steps" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("connections", [250_001, 300_000, 100_000_000, 99999999999999999999])
def test_hfc_simulated_connections_are_bounded(connections: int) -> None:
    line = refused(
        *BUFFER, "--cm-buffer", "10KiB", "--connections", connections, "--simulate", option="--connections"
    )
    assert "at most 250,000 connections" in line


@pytest.mark.usefixtures("no_simulation")
@pytest.mark.parametrize("options", [("--connections", 250_000), ("--cm-buffer", "400KiB")])
def test_hfc_simulated_bounds_themselves_are_taken(options: tuple[object, ...]) -> None:
    with pytest.raises(Built):
        cli(*BUFFER, "--cm-buffer", "10KiB", *options, "--simulate")


def test_hfc_step_range_is_the_default_steps() -> None:
    from tcplab.studies.hfc.buffer import MAX_STEPS, default_steps, socket_buffer_bound, step_range

    paper = socket_buffer_bound(10240)
    assert default_steps(paper) == list(step_range(paper))
    assert len(step_range(paper)) == 28
    assert len(step_range(socket_buffer_bound(400 * 1024))) <= MAX_STEPS


def test_hfc_connections_past_the_float_range_are_refused() -> None:
    assert "1.8e308" in refused(*BUFFER, "--cm-buffer", "10KiB", "--connections", BIG, option="--connections")


@pytest.mark.parametrize("cm_buffer", ["0.4", "0.0004KB", "0B", "0.6", "0.5B", "0.0009KB"])
def test_hfc_cm_buffer_below_one_byte_is_refused(cm_buffer: str) -> None:
    """0.6 was rounded up to a one-byte buffer (the core's size parser now refuses a size
    between none and one byte, as it does everywhere)."""
    line = refused(*BUFFER, "--cm-buffer", cm_buffer, option="--cm-buffer")
    assert line.startswith("error: --cm-buffer: ") and "at least one byte" in line, line


@pytest.mark.parametrize(
    ("cm_buffer", "bytes_"), [("1", 1), ("1.4", 1), ("1.6", 2), ("1B", 1), ("0.001KB", 1), ("1.1KiB", 1126)]
)
def test_hfc_cm_buffer_from_one_byte_is_rounded_as_every_size(cm_buffer: str, bytes_: int) -> None:
    r = cli(*BUFFER, "--cm-buffer", cm_buffer)
    assert r.returncode == 0, r.stderr
    assert f"CM buffer C = {bytes_} B" in r.stdout


def test_hfc_scenario_at_the_connection_bound_fits_the_core() -> None:
    from tcplab.experiment.input_limits import MAX_FLOWS, MAX_TABLES, MAX_VALUES
    from tcplab.studies.hfc.buffer import overrun_scenario
    from tcplab.studies.hfc.cli import MAX_SIM_CONNECTIONS

    one, more = (text_counts(overrun_scenario(9652, "burst", 10240, n)) for n in (1, 101))
    values, tables, flows = (
        a + (b - a) * (MAX_SIM_CONNECTIONS - 1) / 100 for a, b in zip(one, more, strict=True)
    )
    assert values < MAX_VALUES and tables < MAX_TABLES and flows <= MAX_FLOWS


def test_boston_json_is_strict_when_no_packet_gets_through() -> None:
    """A one-cell buffer lets no packet through: the waste per packet is infinite and the
    ratio to it NaN, which --json printed as `Infinity` and `NaN` (not JSON)."""
    import json

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in --json output")

    r = cli(
        "boston",
        "waste",
        "--p",
        "1",
        "--m",
        "240",
        "--simulate",
        "--buffer",
        "1",
        "--duration",
        "5",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout, parse_constant=refuse)
    boston = out["simulation"]["runs"]["boston"]
    assert boston["packets"] == 0 and boston["wasted_per_packet"] is None
    assert out["simulation"]["measured_ratio"]["boston"] is None


def test_strict_json_prints_what_is_not_finite_as_null() -> None:
    from tcplab import strict_json

    doc = {"a": float("inf"), "b": [float("nan"), 1.5, (float("-inf"), 2)], "c": "x", "d": 3}
    assert strict_json.dumps(doc) == '{"a": null, "b": [null, 1.5, [null, 2]], "c": "x", "d": 3}'
