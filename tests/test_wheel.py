"""The built wheel, installed into a fresh virtualenv outside the checkout, works on its own.

Marked ``wheel`` and left out of a plain ``pytest`` run (it installs the dependencies into a new
virtualenv, about half a minute from pip's cache); ``make test`` runs it with the others and
``make test-wheel`` alone.
The wheel is built with the release profile that ``make build`` has just compiled, so cargo has
nothing to do and maturin only packs the files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import REPO
from doc_blocks import python_blocks

pytestmark = pytest.mark.wheel


def sh(
    *args: str | Path, cwd: Path, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without anything that would point Python back at the checkout."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}
    return {k: v for k, v in os.environ.items() if k not in drop} | extra


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ folder of a fresh virtualenv holding only the wheel and its dependencies."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    maturin = Path(sys.executable).parent / "maturin"
    build = sh(maturin, "build", "--release", "--quiet", "-o", dist, cwd=REPO,
               env=clean_env(VIRTUAL_ENV=str(Path(sys.executable).parents[1])), timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("tcplab-*.whl")
    venv = root / "venv"
    made = sh(sys.executable, "-m", "venv", venv, cwd=root, env=clean_env())
    assert made.returncode == 0, made.stderr
    pip = sh(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=root, env=clean_env())
    assert pip.returncode == 0, pip.stderr
    return venv / "bin"


def test_wheel_runs_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    env = clean_env(PATH=f"{installed}{os.pathsep}{os.environ.get('PATH', '')}")
    where = sh(installed / "python", "-c", "import tcplab; print(tcplab.__file__)", cwd=tmp_path, env=env)
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), "imported the checkout"

    version = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    proc = sh(installed / "tcplab", "--version", cwd=tmp_path, env=env)
    # A wheel is built without a trained profile: only `make build` trains one (tools/pgo_profile.sh).
    assert (proc.returncode, proc.stdout) == (0, f"tcplab {version} (ordinary build)\n"), proc.stderr

    proc = sh(installed / "tcplab", "run", "lossy_link", "--json", "--out", "lossy", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["flows"][0]["bytes_delivered"] == 3_000_000
    assert (tmp_path / "lossy" / "summary.json").exists()

    bench = ["bench", "--quick", "--only", "dumbbell_10", "--json", "--report-only"]
    proc = sh(installed / "tcplab", *bench, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scenarios"]["dumbbell_10"]["events"] > 0


def test_wheel_without_the_dask_extra_says_how_to_get_it(installed: Path, tmp_path: Path) -> None:
    env = clean_env()
    proc = sh(installed / "tcplab", "examples", "--copy", "ex", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    spec = tmp_path / "ex" / "sweeps" / "loss_variants.toml"
    proc = sh(installed / "tcplab", "sweep", spec, "--dask", "local", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert "pip install 'tcplab[dask]'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists(), "nothing ran"


# Every ```python block of these runs as it is, in order, each in a fresh interpreter, in one
# empty folder outside the checkout (a block may read what an earlier one wrote there).
DOCS = ["README.md", "docs/cli.md", "docs/experiments.md"]


@pytest.mark.parametrize("doc", DOCS)
def test_doc_python_blocks_run_outside_the_checkout(installed: Path, tmp_path: Path, doc: str) -> None:
    blocks = python_blocks(REPO / doc)
    assert blocks, f"{doc} has no python block"
    env = clean_env(MPLBACKEND="Agg")
    for i, block in enumerate(blocks):
        script = tmp_path / f"block{i}.py"
        script.write_text(block)
        proc = sh(installed / "python", script, cwd=tmp_path, env=env, timeout=600)
        assert proc.returncode == 0, f"{doc}, python block {i + 1}:\n{block}\n{proc.stderr}"
    if doc == "docs/experiments.md":  # the RED sweep of the worked example drew its figure
        assert (tmp_path / "out" / "gallery" / "red_queue.png").stat().st_size > 10_000


def test_type_checkers_see_the_installed_types(installed: Path, tmp_path: Path) -> None:
    code = "import tcplab; reveal_type(tcplab.run); reveal_type(tcplab.sweep); reveal_type(tcplab.summarize)"
    proc = sh(sys.executable, "-m", "mypy", "--python-executable", installed / "python", "--no-incremental",
              "-c", code, cwd=tmp_path, env=clean_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    revealed = [line for line in proc.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 3 and not any('"Any"' in line for line in revealed), proc.stdout
    assert "-> tcplab.experiment.api.RunResult" in revealed[0]
    assert "-> tcplab.experiment.runner.SweepResult" in revealed[1]
