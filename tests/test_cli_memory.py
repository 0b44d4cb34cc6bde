"""The CLI itself stays small (issue 11, item 2): it starts without importing a study, pandas,
scipy or matplotlib, and it refuses the memory bombs before they cost memory.

Peaks are each child's own VmHWM (from /proc/self/status, read as the CLI exits): ru_maxrss
would carry pytest's peak across fork and exec.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from test_budget import QUEUE, TRACE

MB = 1 << 20
LIMIT_KIB = 200 * 1024

# The CLI's own entry point, then its peak and the heavy modules it imported on stderr.
CLI = textwrap.dedent(
    """
    import sys
    sys.argv[0] = "tcplab"
    try:
        from tcplab.cli import main
        main()
    finally:
        hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
        heavy = [m for m in ("pandas", "scipy", "matplotlib") if m in sys.modules]
        sys.stderr.write(f"PEAK_KIB {hwm[0].split()[1]} HEAVY {','.join(heavy) or '-'}\\n")
    """
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


def cli_peak(*args: object, timeout: float = 120) -> tuple[int, list[str], int, list[str], str]:
    """Run the CLI in a child: exit status, stderr lines (without the peak's), peak in KiB, the
    heavy modules it imported, and stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", CLI, *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = proc.stderr.strip().splitlines()
    peak = next(x for x in lines if x.startswith("PEAK_KIB "))
    _, kib, _, heavy = peak.split()
    rest = [x for x in lines if not x.startswith("PEAK_KIB ")]
    return proc.returncode, rest, int(kib), [] if heavy == "-" else heavy.split(","), proc.stdout


def test_version_starts_small_without_the_heavy_libraries() -> None:
    status, _, peak, heavy, out = cli_peak("--version")
    assert status == 0 and out.startswith("tcplab ")
    assert heavy == []
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"


def test_help_lists_the_study_commands_without_importing_a_study() -> None:
    from tcplab.report.study import discover

    status, _, _, heavy, out = cli_peak("--help")
    assert status == 0 and heavy == []
    with_cli = [s for s in discover().values() if s.cli is not None]
    assert with_cli
    for study in with_cli:
        assert f"The {study.name} study's own commands ({study.papers[0].short()})." in out


def test_a_study_command_imports_its_study_when_it_runs() -> None:
    status, _, _, heavy, out = cli_peak("hfc", "buffer", "--help")
    assert status == 0 and "Usage: tcplab hfc buffer" in out
    assert "tcplab.studies.hfc" not in out  # nothing leaked into the help
    # The study package pulls in its figures: so a study command is where the cost lands.
    assert "matplotlib" in heavy or "pandas" in heavy


def test_the_study_index_matches_discovery() -> None:
    import importlib

    from tcplab.report.study import discover
    from tcplab.report.study_index import study_index

    found = {s.name: (s.cli is not None, s.papers[0].short()) for s in discover().values()}
    index = study_index()
    assert {e.name for e in index} == set(found)
    for e in index:
        assert (e.has_cli, e.paper) == found[e.name], e
        assert importlib.import_module(e.module).STUDY.name == e.name


@pytest.mark.parametrize(
    ("text", "field"), [(QUEUE, "initial_cwnd"), (TRACE, "trace")], ids=["initial_cwnd", "trace"]
)
def test_run_refuses_a_bomb_in_little_memory(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bomb.toml"
    path.write_text(text)
    status, lines, peak, heavy, _ = cli_peak("run", path)
    assert status == 2 and len(lines) == 1 and field in lines[0], lines
    assert heavy == []
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"
