"""Fuzz the scenario loader and the sweep spec (issue 11): every mutated file is accepted, or
refused with exit status 2 and exactly one line on stderr; never a traceback or a panic. And run
random cell networks (issue 27): every run keeps its invariants (conservation above all).

``make test`` runs a few hundred seeded cases; ``make fuzz`` thousands (TCPLAB_FUZZ_CASES).
A failing case is reproduced by its id: ``fuzz_inputs.case(SEED, i, kind)`` gives the file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fuzz_inputs import REPO, atm_case, case
from tcplab.cli import app
from tcplab.errors import ScenarioError, UserError
from tcplab.experiment.expand import expand
from tcplab.experiment.spec import load_spec
from typer.testing import CliRunner

SEED = int(os.environ.get("TCPLAB_FUZZ_SEED", "11"))
CASES = int(os.environ.get("TCPLAB_FUZZ_CASES", "300"))
BATCH = 50  # cases per test item: few items, but a failure still names a small range


def _check_cli(runner: CliRunner, path: Path, label: str) -> None:
    result = runner.invoke(app, ["validate", str(path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{label}: {type(result.exception).__name__}: {result.exception}")
    assert result.exit_code in (0, 2), f"{label}: exit {result.exit_code}: {result.stderr}"
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), f"{label}: {result.stderr!r}"


@pytest.mark.parametrize("start", range(0, CASES, BATCH))
def test_mutated_scenarios_validate_or_fail_in_one_line(tmp_path: Path, start: int) -> None:
    runner = CliRunner()
    for i in range(start, min(start + BATCH, CASES)):
        name, text = case(SEED, i, "scenario")
        path = tmp_path / f"case{i}.toml"
        path.write_text(text, encoding="utf-8")
        _check_cli(runner, path, f"scenario case {i} (from {name})")


def _check_spec(path: Path, label: str) -> None:
    try:
        expand(load_spec(path))
    except (UserError, ScenarioError) as e:
        message = str(e)
        assert message and "\n" not in message.strip(), f"{label}: {message!r}"


@pytest.mark.parametrize("start", range(0, CASES // 2, BATCH))
def test_mutated_sweep_specs_expand_or_fail_in_one_line(tmp_path: Path, start: int) -> None:
    # The shipped specs name their base as ../NAME.toml: give them the scenarios beside.
    for scenario in (REPO / "scenarios").glob("*.toml"):
        shutil.copy(scenario, tmp_path / scenario.name)
    (tmp_path / "sweeps").mkdir()
    for i in range(start, min(start + BATCH, CASES // 2)):
        name, text = case(SEED, i, "spec")
        path = tmp_path / "sweeps" / f"case{i}.toml"
        path.write_text(text, encoding="utf-8")
        _check_spec(path, f"spec case {i} (from {name})")


def test_the_mutations_are_seeded() -> None:
    assert case(SEED, 7, "scenario") == case(SEED, 7, "scenario")
    assert case(SEED, 7, "scenario") != case(SEED, 8, "scenario")


ATM_CASES = int(os.environ.get("TCPLAB_FUZZ_ATM_CASES", str(CASES)))


@pytest.mark.parametrize("start", range(0, ATM_CASES, BATCH))
def test_random_cell_networks_run_with_their_ledgers_balanced(start: int) -> None:
    # Issue 27: conservation broke only with TCP Boston and a reassembly cut. Run random cell
    # networks (AAL5 framings, cuts, drop policies, losses, Boston's codecs): each ends with
    # every invariant held, or is refused as a scenario error; an InvariantError is a bug.
    from tcplab import _core

    for i in range(start, min(start + BATCH, ATM_CASES)):
        text = atm_case(SEED, i)
        try:
            _core.run_scenario(text, None, None, 1 << 30)
        except _core.ScenarioError as e:
            assert len(e.args) == 2 and "\n" not in str(e.args[1]), f"atm case {i}: {e.args!r}"
        except Exception as e:
            where = f"atm case {i} (fuzz_inputs.atm_case({SEED}, {i}))"
            raise AssertionError(f"{where}: {type(e).__name__}: {e}") from None
