"""The profile-guided build (issue 26): the training runs what it should, fails when a scenario
does, and its profile names the functions of the extension that `make build` installed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tcplab import _core

REPO = Path(__file__).resolve().parents[1]
TRAIN = REPO / "tools" / "pgo_train.py"
PROFILE = REPO / "target" / "pgo-gen" / "tcplab.profdata"


def llvm_profdata() -> Path:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    host = re.search(r"^host: (\S+)$", out, re.M)
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True)
    assert host is not None
    return Path(sysroot.stdout.strip()) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata"


def run_loop_counts(profile: Path) -> dict[str, int]:
    """Each instantiation of the core's run loop in the profile: its mangled name and the sum of
    its block counts. (`--function` matches any part of a name, the loop's module among them:
    the names kept are those whose last segment is `run_loop`.)"""
    show = [str(llvm_profdata()), "show", "--function=run_loop", "--counts", str(profile)]
    text = subprocess.run(show, capture_output=True, text=True, check=True).stdout
    counts: dict[str, int] = {}
    name = ""
    for line in text.splitlines():
        if m := re.match(r"^  (?:\S+;)?(_ZN\S+):$", line):
            name = m.group(1)
        elif "Block counts:" in line and re.search(r"8run_loop17h[0-9a-f]{16}E$", name):
            counts[name] = sum(int(x) for x in re.findall(r"\d+", line.split(":", 1)[1]))
    return counts


def test_a_failing_training_scenario_fails_the_training(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nduration = "1s"\n')
    train = [sys.executable, str(TRAIN), _core.__file__, str(bad)]
    proc = subprocess.run(train, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith(f"pgo_train: {bad}: ") and "nodes" in proc.stderr


@pytest.mark.skipif(_core.__build__ != "profile-guided", reason="built without a profile (PGO=0)")
def test_the_profile_counts_every_run_loop_of_the_installed_extension() -> None:
    # Both fail silently otherwise: a profile whose names differ from the built core's (another
    # crate hash) guides nothing, and a run loop it never saw is compiled as cold. Three loops:
    # the 4-ary heap's, and the radix heap's without and with the onward prefetches.
    counts = run_loop_counts(PROFILE)
    assert len(counts) == 3, counts
    assert all(n > 0 for n in counts.values()), counts
    library = Path(_core.__file__).read_bytes()
    assert all(name.encode() in library for name in counts), "the profile names another build"
