"""Packaging in the development install: one version, packaged scenarios, optional extras."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
import tcplab as tl
from conftest import REPO, SCENARIOS, cli
from tcplab import _core
from tcplab.errors import UserError
from tcplab.experiment import bench
from tcplab.experiment.examples import copy_examples, example_path, list_examples, resolve_scenario
from tcplab.extras import require
from tcplab.version import version


def cargo_version() -> str:
    doc = tomllib.loads((REPO / "Cargo.toml").read_text())
    return str(doc["workspace"]["package"]["version"])


def test_one_version_everywhere() -> None:
    assert version() == cargo_version() == _core.__version__ == tl.__version__
    proc = cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert _core.__build__ in ("ordinary", "profile-guided")
    assert proc.stdout == f"tcplab {cargo_version()} ({_core.__build__} build)\n"


def test_pyproject_declares_no_second_version() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    assert not any("dask" in d for d in project["dependencies"]), "Dask is an extra"
    assert any("dask" in d for d in project["optional-dependencies"]["dask"])


def test_every_repository_scenario_is_package_data() -> None:
    on_disk = sorted(str(p.relative_to(SCENARIOS).with_suffix("")) for p in SCENARIOS.rglob("*.toml"))
    assert on_disk and [e.name for e in list_examples()] == on_disk
    assert SCENARIOS.resolve() == (REPO / "python" / "tcplab" / "scenarios").resolve()
    assert Path(str(bench.SCENARIO_DIR)).resolve() == SCENARIOS.resolve()
    assert all(e.summary for e in list_examples()), "every example starts with a title comment"


def test_run_resolves_a_packaged_name_but_a_file_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Path(str(resolve_scenario("lossy_link"))).name == "lossy_link.toml"
    assert example_path("lossy_link.toml") == example_path("lossy_link")
    with pytest.raises(FileNotFoundError, match="no shipped example has that name"):
        resolve_scenario("no_such_example")  # the error points at `tcplab examples`
    (tmp_path / "lossy_link").write_text("# mine\n")
    assert resolve_scenario("lossy_link") == "lossy_link"
    proc = cli("run", "lossy_link", "--json", cwd=tmp_path)
    assert proc.returncode == 2, "the local file (not a scenario) was chosen over the example"
    proc = cli("run", "lossy_link.toml", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"goodput_bps"' in proc.stdout


def test_examples_lists_and_copies_without_overwriting(tmp_path: Path) -> None:
    proc = cli("examples")
    assert proc.returncode == 0
    assert {line.split()[0] for line in proc.stdout.splitlines()} == {e.name for e in list_examples()}
    written = copy_examples(tmp_path / "ex")
    assert (tmp_path / "ex" / "sweeps" / "loss_variants.toml") in written
    assert (tmp_path / "ex" / "lossy_link.toml").read_text() == (SCENARIOS / "lossy_link.toml").read_text()
    with pytest.raises(UserError, match="already exists"):
        copy_examples(tmp_path / "ex")
    proc = cli("examples", "--copy", tmp_path / "ex")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_missing_extra_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    require("dask", "--dask")  # installed in the development environment
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(UserError, match=r"--dask: .*pip install 'tcplab\[dask\]'"):
        require("dask", "--dask")
    from tcplab.experiment.executors import ExecutorChoice

    with pytest.raises(UserError, match="tcplab\\[dask\\]"):
        ExecutorChoice(dask="local")
    ExecutorChoice(workers=1)  # no Dask needed
