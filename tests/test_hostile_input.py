"""Issue 11, items 5, 6 and 7: bad files, damaged stores and surprising outputs each give one
line on stderr and exit status 2 (or a refusal before anything is changed)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import tcplab as tl
from conftest import SCENARIOS, cli
from tcplab.errors import ScenarioError, UserError
from tcplab.experiment.out_dir import MARKER
from tcplab.experiment.scenario import read as read_scenario
from tcplab.experiment.spec import SweepSpec, load_spec
from tcplab.experiment.store import Store

ROOT = os.geteuid() == 0  # permissions do not stop root
QUICK = (SCENARIOS / "lossy_link.toml").read_text().replace('duration = "120s"', 'duration = "2s"', 1)


def one_line_error(proc: object, *needles: str) -> str:
    """The single stderr line of a refused command (exit 2), checked to contain ``needles``."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)  # type: ignore[attr-defined]
    lines = proc.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, proc.stderr  # type: ignore[attr-defined]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def quick(tmp_path: Path) -> Path:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    return path


# ---------------------------------------------------------------- item 5: tracebacks


def test_deeply_nested_toml_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 600 + "]" * 600 + "\n")
    one_line_error(cli("run", deep), "deep.toml", "nested too deeply")
    spec = tmp_path / "deep_spec.toml"
    spec.write_text('base = "x.toml"\nb = ' + "[" * 600 + "]" * 600 + "\n")
    one_line_error(cli("sweep", spec), "deep_spec.toml", "nested too deeply")
    with pytest.raises(ScenarioError, match="nested too deeply"):
        tl.validate(deep)


def _small_sweep(tmp_path: Path, quick: Path, replications: int = 6) -> Path:
    spec = tmp_path / "sw.toml"
    spec.write_text(
        f'name = "sw"\nbase = "{quick.name}"\nreplications = {replications}\n'
        '[factors]\n"tcp.variant" = ["reno", "newreno"]\n'
    )
    return spec


def test_a_store_damaged_in_the_middle_is_one_line(tmp_path: Path, quick: Path) -> None:
    spec = _small_sweep(tmp_path, quick)
    store = tmp_path / "s.sqlite"
    assert cli("sweep", spec, "--store", store, "-q", "--workers", "1").returncode == 0
    size = store.stat().st_size
    with store.open("r+b") as f:
        f.seek(size // 2)
        f.write(b"\xff" * 4096)
    one_line_error(cli("sweep", spec, "--store", store, "-q"), "s.sqlite", "damaged")
    with pytest.raises(UserError, match="damaged"):
        tl.load_runs(store)


@pytest.mark.parametrize("label", ["seed", "key", "status", "replication", "error", "traced"])
def test_a_label_equal_to_a_store_column_is_refused_up_front(tmp_path: Path, quick: Path, label: str) -> None:
    spec = _small_sweep(tmp_path, quick)
    spec.write_text(spec.read_text() + f'[labels]\n"tcp.variant" = "{label}"\n')
    store = tmp_path / "s.sqlite"
    one_line_error(cli("sweep", spec, "--store", store), f"labels.tcp.variant: the column name '{label}'")
    assert not store.exists(), "refused before any run is stored"


def test_a_factor_path_equal_to_a_store_column_is_refused() -> None:
    base = read_scenario(SCENARIOS / "lossy_link.toml")
    # `seed` is refused first for what it is: the sweep sets every run's seed.
    with pytest.raises(UserError, match="factors.seed: the sweep sets every run's seed"):
        SweepSpec(base=base, factors={"seed": [1, 2]})
    with pytest.raises(UserError, match="factors: key: the column name 'key'"):
        SweepSpec(base=base, factors={"key": [1, 2]})


def test_a_nul_in_a_sweep_name_is_one_line(tmp_path: Path, quick: Path) -> None:
    spec = tmp_path / "nul.toml"
    spec.write_text(f'name = "a\\u0000b"\nbase = "{quick.name}"\n')
    one_line_error(cli("sweep", spec), "name: contains a NUL character")


# ---------------------------------------------------------------- item 6: wrong messages


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment", "# one\n# two\n"])
def test_an_empty_or_comment_only_file_says_so(tmp_path: Path, text: str) -> None:
    path = tmp_path / "blank.toml"
    path.write_text(text)
    one_line_error(cli("run", path), "blank.toml", "sets nothing (it is empty or only comments)")
    with pytest.raises(ScenarioError, match="sets nothing"):
        tl.load_scenario(path)


def test_the_api_takes_blank_or_comment_text_as_text_not_a_file_name() -> None:
    for text in ["", "# a comment"]:
        with pytest.raises(ScenarioError) as e:
            tl.validate(text)
        assert "directory" not in str(e.value) and "no such file" not in str(e.value)


@pytest.mark.skipif(ROOT, reason="root reads any file")
def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "secret.toml"
    path.write_text(QUICK)
    path.chmod(0)
    one_line_error(cli("run", path), "secret.toml: permission denied")


def test_a_fifo_or_device_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    one_line_error(cli("run", fifo), "fifo.toml: not a regular file")
    one_line_error(cli("run", "/dev/zero"), "/dev/zero: not a regular file")
    one_line_error(cli("sweep", "/dev/zero"), "/dev/zero: not a regular file")


def test_an_oversized_scenario_is_refused(tmp_path: Path) -> None:
    from tcplab.experiment.input_files import MAX_INPUT_BYTES

    big = tmp_path / "big.toml"
    with big.open("w") as f:
        f.write("# " + "x" * (MAX_INPUT_BYTES + 10) + "\n")
    one_line_error(cli("run", big), "big.toml", "too large")


def test_a_large_generated_scenario_with_a_syntax_error_is_one_line_naming_the_line(tmp_path: Path) -> None:
    # Above the size Python's parser takes (api.PYTHON_PARSE_MAX_CHARS), only the core parses.
    from tcplab.experiment.api import PYTHON_PARSE_MAX_CHARS

    head = (SCENARIOS / "lossy_link.toml").read_text()
    padding = "# padding\n" * (PYTHON_PARSE_MAX_CHARS // 10 + 1)
    big = tmp_path / "big.toml"
    big.write_text(head + padding + "x = = 1\n")
    line = head.count("\n") + padding.count("\n") + 1
    one_line_error(cli("run", big), "big.toml: scenario:", f"(line {line})")
    one_line_error(cli("validate", big), "big.toml: scenario:", f"(line {line})")


@pytest.mark.skipif(ROOT, reason="root writes anywhere")
def test_out_into_a_read_only_folder_is_refused_before_the_run(tmp_path: Path, quick: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        one_line_error(cli("run", quick, "--out", ro / "sub"), f"{ro}", "cannot create the folder")
        empty = tmp_path / "ro2"
        empty.mkdir()
        empty.chmod(0o555)
        one_line_error(cli("run", quick, "--out", empty), f"the folder {empty} is not writable")
    finally:
        ro.chmod(0o755)


@pytest.mark.skipif(ROOT, reason="root writes anywhere")
def test_a_store_in_a_read_only_folder_is_described_correctly(tmp_path: Path, quick: Path) -> None:
    spec = _small_sweep(tmp_path, quick, replications=1)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        line = one_line_error(cli("sweep", spec, "--store", ro / "s.sqlite"), "is not writable")
        assert "not a tcplab result store" not in line
    finally:
        ro.chmod(0o755)


# ---------------------------------------------------------------- item 7: silent surprises


@pytest.mark.parametrize("rate", ["1e308", '"1e200Gbps"'])
def test_an_absurd_rate_is_refused_not_saturated(tmp_path: Path, rate: str) -> None:
    doc = QUICK.replace('rate = "', f"rate = {rate} # ", 1)
    path = tmp_path / "fast.toml"
    path.write_text(doc)
    one_line_error(cli("validate", path), "rate: rate must be at most 1e15 b/s")


def test_out_refuses_a_foreign_non_empty_folder_unless_forced(tmp_path: Path, quick: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "thesis.tex").write_text("precious")
    refused = cli("run", quick, "--out", folder)
    one_line_error(refused, "not empty and was not written by tcplab", "--force")
    assert sorted(p.name for p in folder.iterdir()) == ["thesis.tex"]
    assert cli("run", quick, "--out", folder, "--force").returncode == 0
    assert (folder / "summary.json").exists() and (folder / MARKER).exists()
    assert (folder / "thesis.tex").read_text() == "precious"


def test_out_reuses_its_own_folder_but_never_writes_through_a_symlink(tmp_path: Path, quick: Path) -> None:
    folder = tmp_path / "out"
    assert cli("run", quick, "--out", folder).returncode == 0
    assert cli("run", quick, "--out", folder).returncode == 0, "a folder tcplab wrote is reused"
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    (folder / "summary.json").unlink()
    (folder / "summary.json").symlink_to(victim)
    one_line_error(cli("run", quick, "--out", folder, "--force"), "summary.json is a symbolic link")
    assert victim.read_text() == "untouched"


def test_out_empty_string_is_refused(tmp_path: Path, quick: Path) -> None:
    proc = cli("run", quick, "--out", "", cwd=tmp_path)
    one_line_error(proc, "--out: the folder name is empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quick.toml"]


def test_an_unrelated_sqlite_file_is_rejected_unchanged(tmp_path: Path, quick: Path) -> None:
    other = tmp_path / "app.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    before = other.read_bytes()
    spec = _small_sweep(tmp_path, quick, replications=1)
    one_line_error(cli("sweep", spec, "--store", other), "not a tcplab result store", "users")
    assert other.read_bytes() == before, "not switched to WAL mode"
    with pytest.raises(UserError, match="not a tcplab result store"):
        Store(other, create=False)
    text = tmp_path / "notes.sqlite"
    text.write_text("hello")
    with pytest.raises(UserError, match="not an SQLite file"):
        Store(text)
    assert text.read_text() == "hello"


def test_docs_warn_that_dask_schedulers_must_be_trusted() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "experiments.md").read_text()
    assert "trusted" in docs and "unpickle" in docs


def test_a_nul_in_a_file_name_is_one_line(tmp_path: Path) -> None:
    # Found by tests/test_fuzz.py (spec case 250 of seed 11): os.open raised ValueError.
    spec = tmp_path / "s.toml"
    spec.write_text('base = "a\\u0000b.toml"\n')
    with pytest.raises(UserError, match="base: .*contains a NUL character"):
        load_spec(spec)
    with pytest.raises(UserError, match="contains a NUL character"):
        tl.load_scenario("a\0b.toml")


def test_spec_base_that_is_a_fifo_names_the_field(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.toml")
    spec = tmp_path / "s.toml"
    spec.write_text('base = "pipe.toml"\n')
    with pytest.raises(UserError, match="base: .*not a regular file"):
        load_spec(spec)


# ---------------------------------------------------------------- item 2 (part): sweep size


TIME = Path("/usr/bin/time")


def peak_run(statement: str, *args: object) -> tuple[int, list[str], int]:
    """Run ``statement`` in a child Python (argv: ``args``): exit status, stderr lines, and
    the child's peak RSS in kB. Measured by /usr/bin/time, a small parent: Linux carries the
    RSS high-water mark across fork and exec, so a child of pytest would report pytest's."""
    import subprocess
    import sys

    proc = subprocess.run(
        [str(TIME), "-f", "PEAK %M", sys.executable, "-c", statement, *map(str, args)],
        capture_output=True, text=True, timeout=120,
    )
    lines = proc.stderr.strip().splitlines()
    peak_kb = next(int(x.split()[1]) for x in lines if x.startswith("PEAK "))
    return proc.returncode, [x for x in lines if not x.startswith(("PEAK ", "Command exited"))], peak_kb


CLI = "import sys\nfrom tcplab.cli import main\nsys.argv[0] = 'tcplab'\nmain()"


@pytest.mark.skipif(not TIME.exists(), reason="needs /usr/bin/time")
@pytest.mark.parametrize("replications", ["1000000000", "1e9"])
def test_a_billion_replications_is_refused_up_front_in_little_memory(
    tmp_path: Path, quick: Path, replications: str
) -> None:
    spec = _small_sweep(tmp_path, quick)
    spec.write_text(spec.read_text().replace("replications = 6", f"replications = {replications}"))
    status, lines, peak = peak_run(CLI, "sweep", spec, "--store", tmp_path / "s.sqlite")
    assert status == 2 and len(lines) == 1, lines
    if replications == "1e9":
        assert "replications: must be a positive integer" in lines[0]
    else:
        assert "replications: the sweep has 2,000,000,000 runs" in lines[0]
    # The CLI imports no study (nor pandas, scipy, matplotlib) before a command runs: its
    # refusal is held to the same 200 MB as the API's, and to a little above the bare CLI.
    _, _, baseline = peak_run(CLI, "--version")
    assert peak < 200 * 1024, f"peak {peak / 1024:.0f} MB"
    assert peak < baseline + 30 * 1024, f"peak {peak / 1024:.0f} MB, bare CLI {baseline / 1024:.0f} MB"
    api = "import sys\nfrom tcplab.experiment.spec import load_spec\nload_spec(sys.argv[1])"
    status, lines, peak = peak_run(api, spec)
    assert status == 1 and "UserError" in lines[-1] and "replications" in lines[-1]
    assert peak < 200 * 1024, f"peak {peak / 1024:.0f} MB"
    assert not (tmp_path / "s.sqlite").exists()
