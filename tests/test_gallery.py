"""The examples gallery (examples/*.py) runs, in quick form, and draws its figure; docs show
every script and the one the docs embed whole is the same file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

GALLERY = REPO / "examples"
SCRIPTS = sorted(p.stem for p in GALLERY.glob("*.py"))
# What each script prints that shows it did its job, beyond writing its figure.
SAYS = {
    "dask_sweep": r"sweep 'dask_flows': 12 runs \(6 points x 2 replications\): 12 ran",
    "dumbbell_red_mixed": r"RED drops at the bottleneck: early \d+",
    "read_pcap": r"10\.0\.0\.1:10000 -> 10\.0\.0\.7:5001  S   window scale 3",
    "red_queue_sweep": r"sweep 'red_queue': 24 runs \(8 points x 3 replications\): 24 ran",
    "study_from_store": r"loss\s+40\n(?:\w+\s+\d+\n)*traces\s+4",
    "sweep_anova": r"variant x loss",
    # The CBR source sends from 1 s to 4 s at 3 Mb/s in 1000-byte packets: exactly 1125.
    "udp_cross_traffic": r"cbr\s+cbr\s+1125\s+\d+\s+\d+.*\n(?:.*\n)*frames\s+trace\s+10\s",
}
FIGURES = {"red_queue_sweep": "red_queue.png"}


def test_every_script_is_checked_and_shown_in_the_docs() -> None:
    assert 5 <= len(SCRIPTS) <= 8 and set(SCRIPTS) == set(SAYS)
    gallery = (REPO / "docs" / "gallery.md").read_text()
    for name in SCRIPTS:
        assert f"examples/{name}.py" in gallery
        figure = FIGURES.get(name, f"{name}.png")
        assert f"gallery/{figure}" in gallery and (REPO / "docs" / "gallery" / figure).exists()


def test_the_red_sweep_in_the_docs_is_the_gallery_script() -> None:
    from doc_blocks import python_blocks

    script = (GALLERY / "red_queue_sweep.py").read_text()
    assert script in python_blocks(REPO / "docs" / "experiments.md")


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs_quick_and_draws(name: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, GALLERY / f"{name}.py", "--quick", "--out", tmp_path / "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(SAYS[name], proc.stdout), proc.stdout
    figure = tmp_path / "out" / FIGURES.get(name, f"{name}.png")
    assert figure.stat().st_size > 10_000
