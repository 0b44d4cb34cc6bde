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


def test_run_and_sweep_import_no_heavy_library(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text(HEAD + '[[flow]]\nsrc = "a"\ndst = "b"\nbytes = 10000\n')
    status, lines, _, heavy, _ = cli_peak("run", base)
    assert status == 0 and heavy == [], (lines, heavy)
    spec = tmp_path / "spec.toml"
    spec.write_text('name = "light"\nbase = "base.toml"\nreplications = 3\n')
    store = tmp_path / "s.sqlite"
    status, lines, _, heavy, out = cli_peak("sweep", spec, "--store", store, "-q", "--workers", "1")
    assert status == 0 and "3 ran" in out and heavy == [], (lines, heavy)


# ---------------------------------------------------------------- input too large to parse

HEAD = 'duration = "1s"\nnodes = ["a", "b"]\n[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "10ms"\n'


def _flows_file(path: Path, n: int, flow: str = '[[flow]]\nsrc="a"\ndst="b"\n') -> Path:
    path.write_text(HEAD + flow * n)
    return path


@pytest.mark.parametrize(
    ("n", "flow", "says"),
    [
        # The bomb: a million [[flow]] tables (headers only: it fits the file size cap).
        (10**6, "[[flow]]\n", "flow: 1,000,000 flows, more than the 250,000"),
        # A million valid flows: within the file size cap, refused by the flow count.
        (10**6, '[[flow]]\nsrc="a"\ndst="b"\n', "flow: 1,000,000 flows"),
        # Three million valid flows is larger than any file tcplab reads.
        (3 * 10**6, '[[flow]]\nsrc="a"\ndst="b"\n', "too large for a scenario"),
    ],
    ids=["million_headers", "million_valid", "3million_valid"],
)
def test_a_million_flows_is_refused_before_the_parse(tmp_path: Path, n: int, flow: str, says: str) -> None:
    path = _flows_file(tmp_path / "flows.toml", n, flow)
    status, lines, peak, _, _ = cli_peak("run", path)
    assert status == 2 and len(lines) == 1 and says in lines[0], lines
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"


def test_a_sweep_of_a_base_with_too_many_flows_is_refused_before_the_parse(tmp_path: Path) -> None:
    _flows_file(tmp_path / "flows.toml", 600_000)
    spec = tmp_path / "spec.toml"
    spec.write_text('name = "many"\nbase = "flows.toml"\nreplications = 2\n')
    status, lines, peak, _, _ = cli_peak("sweep", spec, "--store", tmp_path / "s.sqlite", "-q")
    assert status == 2 and len(lines) == 1 and "flow: 600,000 flows" in lines[0], lines
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"
    assert not (tmp_path / "s.sqlite").exists()
    inline = tmp_path / "inline.toml"
    inline.write_text("[base]\n" + HEAD.replace("[[link]]", "[[base.link]]") + "[[base.flow]]\n" * 300_000)
    status, lines, _, _, _ = cli_peak("sweep", inline, "--store", tmp_path / "s.sqlite", "-q")
    assert status == 2 and len(lines) == 1 and "base.flow: 300,000 flows" in lines[0], lines


def test_many_distinct_tables_are_refused_before_the_parse(tmp_path: Path) -> None:
    # Python's TOML parser holds about 900 bytes per distinct table: 10^5 of them, 90 MB.
    path = tmp_path / "tables.toml"
    path.write_text(HEAD + "".join(f"[t{i}]\n" for i in range(100_000)))
    status, lines, peak, _, _ = cli_peak("run", path)
    assert status == 2 and len(lines) == 1 and "scenario: more than 10,000 different table names" in lines[0]
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"


def test_the_flow_and_value_caps_are_exact() -> None:
    from tcplab import _core
    from tcplab.experiment.input_limits import MAX_FLOWS, MAX_VALUES, check_scenario_text, count_flows

    at_cap = HEAD + "[[flow]]\n" * (MAX_FLOWS - 2) + '[[www.pair]]\nclient = "a"\nserver = "b"\n'
    assert count_flows(at_cap) == MAX_FLOWS
    check_scenario_text(at_cap)
    with pytest.raises(_core.ScenarioError) as e:
        check_scenario_text(at_cap + "[[flow]]\n")
    assert e.value.args[0] == "flow" and f"{MAX_FLOWS + 1:,} flows" in e.value.args[1]
    inline = 'flow = [{src = "a", dst = "b"}, {src = "b", dst = "a"}]\n'
    assert count_flows(HEAD + inline) == 2
    values = "x = [" + "1," * (MAX_VALUES - 1) + "]"
    check_scenario_text(values)
    with pytest.raises(_core.ScenarioError) as e:
        check_scenario_text(values + "\n")
    assert e.value.args[0] == "scenario" and "values" in e.value.args[1]


def test_the_api_refuses_too_many_flows_in_text_too() -> None:
    from tcplab import _core
    from tcplab.experiment.api import run

    with pytest.raises(_core.ScenarioError) as e:
        run(HEAD + '[[flow]]\nsrc="a"\ndst="b"\n' * 250_001)
    assert e.value.args[0] == "flow"
