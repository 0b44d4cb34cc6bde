"""User input that was misreported: sizes with an exabyte unit, empty file arguments, control
characters in sweep names, and the result store opened for reading (a missing file, a
read-only folder, a foreign database, a closed Store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cli
from tcplab import _core
from tcplab.errors import UserError
from tcplab.experiment.budget import max_memory_bytes
from tcplab.units import size_bytes
from test_hostile_input import QUICK, one_line_error

SPEC = Path(__file__).resolve().parent.parent / "scenarios" / "sweeps" / "loss_variants.toml"


@pytest.fixture
def quick(tmp_path: Path) -> Path:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    return path


# ---------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("text", "unit"), [("1EiB", "EiB"), ("1EB", "EB"), ("2 EiB", "EiB"), ("1.5e3EB", "EB"), ("1Eb", "Eb")]
)
def test_an_exa_unit_says_which_units_there_are(text: str, unit: str) -> None:
    """It said "'1EiB' does not start with a number" (the core read the E as an exponent)."""
    with pytest.raises(UserError) as caught:
        size_bytes(text, "max_memory")
    message = str(caught.value)
    assert message.startswith(f"max_memory: unknown size unit '{unit}'"), message
    assert f"in '{text}'" in message and "TiB" in message and "start with a number" not in message


def test_numbers_with_an_exponent_still_parse() -> None:
    assert size_bytes("1e3KiB") == 1024000 and size_bytes("2E3B") == 2000 and size_bytes("1e6") == 10**6


@pytest.mark.parametrize("value", ["1e30", "99999999999999999999", 2**70, "1e400GiB", "0", 0])
def test_an_out_of_range_max_memory_names_the_argument(value: object) -> None:
    with pytest.raises(_core.ScenarioError) as caught:
        max_memory_bytes(value)  # type: ignore[arg-type]
    field, message = caught.value.args
    assert field == "max_memory" and "size must" not in message, message
    with pytest.raises(_core.ScenarioError) as caught:
        max_memory_bytes(value, "--max-memory")  # type: ignore[arg-type]
    assert caught.value.args[0] == "--max-memory"


@pytest.mark.parametrize("command", ["run", "validate", "sweep"])
def test_a_bad_max_memory_is_named_as_the_option_before_any_file_is_read(command: str) -> None:
    """It said "FILE: max_memory: ...", as if the file had a field of that name, and only after
    reading the file; now the option is checked first, and named."""
    line = one_line_error(cli(command, "no-such-file.toml", "--max-memory", "lots"), "--max-memory: ")
    assert line.startswith("error: --max-memory: ") and "no-such-file" not in line


def test_the_sweep_summary_escapes_a_name_it_prints(tmp_path: Path) -> None:
    (tmp_path / "quick.toml").write_text(QUICK)
    spec = tmp_path / "spec.toml"
    spec.write_text('name = "a\u202eb"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno"]\n')
    for args in (["--dry-run"], ["--store", tmp_path / "s.sqlite", "--quiet", "--workers", "1"]):
        proc = cli("sweep", spec, *args)
        assert proc.returncode == 0, proc.stderr
        assert "\u202e" not in proc.stdout and "sweep 'a\\u202eb'" in proc.stdout, proc.stdout


def test_the_cli_max_memory_with_an_exa_unit(quick: Path) -> None:
    one_line_error(
        cli("run", quick, "--max-memory", "1EiB"), "--max-memory", "unknown size unit 'EiB'", "TiB"
    )


# ---------------------------------------------------------------- empty file arguments


@pytest.mark.parametrize(
    "command", [["run"], ["validate"], ["sweep"], ["anova", "--response", "x", "--factors", "a"]]
)
def test_an_empty_file_argument_says_it_is_empty(command: list[str]) -> None:
    line = one_line_error(cli(*command, ""), "empty")
    assert "directory" not in line


def test_the_api_refuses_an_empty_spec_name() -> None:
    from tcplab.experiment.spec import load_spec

    with pytest.raises(UserError, match="sweep spec: the file name is empty"):
        load_spec("")


def test_the_readers_refuse_an_empty_name() -> None:
    from tcplab.analysis.anova import read_observations
    from tcplab.experiment.api import load_scenario

    with pytest.raises(UserError, match="scenario: the file name is empty"):
        load_scenario("")
    with pytest.raises(UserError, match="CSV: the file name is empty"):
        read_observations("")


# ---------------------------------------------------------------- sweep names


@pytest.mark.parametrize("char", ["\x85", "\x9b", "\x80", "\x9f", "\x1b", "\x7f"])
def test_a_sweep_name_with_a_c1_control_character_is_refused(tmp_path: Path, char: str) -> None:
    from tcplab.experiment.safe_names import file_name_problem

    problem = file_name_problem(f"a{char}b")
    assert problem is not None and problem.startswith("contains a control character"), problem
    assert f"U+{ord(char):04X}" in problem
    (tmp_path / "quick.toml").write_text(QUICK)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'name = "a\\u{ord(char):04x}b"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno"]\n'
    )
    one_line_error(cli("sweep", spec, "--dry-run"), "name: contains a control character")


@pytest.mark.parametrize("name", ["café", "run\u00a0one", "日本", "a\u00a0b"])
def test_printable_non_ascii_sweep_names_are_kept(name: str) -> None:
    from tcplab.experiment.safe_names import file_name_problem

    assert file_name_problem(name) is None


# ---------------------------------------------------------------- the result store


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two finished runs (one sweep), made once for these tests."""
    import tcplab
    from test_sweep_run import small_spec

    path = tmp_path_factory.mktemp("store") / "s.sqlite"
    tcplab.sweep(small_spec(replications=1), store=path, workers=1)
    return path


@pytest.fixture
def store_copy(stored: Path, tmp_path: Path) -> Path:
    import shutil

    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(stored, folder / "s.sqlite")
    return folder / "s.sqlite"


def test_reading_a_missing_store_names_it_and_creates_nothing(tmp_path: Path) -> None:
    from tcplab.experiment.store import Store, load_runs

    with pytest.raises(UserError, match=r"typo\.sqlite: no result store here"):
        load_runs(tmp_path / "typo.sqlite")
    with pytest.raises(UserError, match=r"typo\.sqlite: no result store here"):
        Store(tmp_path / "typo.sqlite", create=False)
    assert list(tmp_path.iterdir()) == []
    assert "create=False" in (Store.__doc__ or ""), "the docstring says how to open without creating"


@pytest.mark.parametrize("name", [".", "/", ""])
def test_a_folder_without_a_name_as_the_store_is_refused(tmp_path: Path, name: str) -> None:
    """'.' and '/' have no file name to make the traces folder's from: a ValueError traceback."""
    from tcplab.experiment.store import Store, load_runs

    for open_it in (lambda: Store(name), lambda: load_runs(name)):
        with pytest.raises(UserError, match="the store must be a file, and this is a directory"):
            open_it()
    says = "--store: the file name is empty" if name == "" else "the store must be a file"
    one_line_error(cli("sweep", str(SPEC), "--store", name), says)


def test_a_file_or_a_link_at_the_traces_folder_is_refused_as_the_store_opens(tmp_path: Path) -> None:
    from tcplab.experiment.store import Store

    traces = tmp_path / "s.sqlite.traces"
    traces.write_text("x")
    with pytest.raises(UserError, match=r"s\.sqlite\.traces exists and is not a folder"):
        Store(tmp_path / "s.sqlite")
    traces.unlink()
    traces.symlink_to(tmp_path)
    with pytest.raises(UserError, match=r"s\.sqlite\.traces is a symbolic link"):
        Store(tmp_path / "s.sqlite")


def _folder_not_writable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """As a read-only mount looks to os.access (root is refused there too, EROFS)."""
    import os

    from tcplab.experiment import store_checks

    real = os.access

    def access(path: object, mode: int, **kw: object) -> bool:
        if mode & os.W_OK and Path(path).resolve() in (folder.resolve(), (folder / "s.sqlite").resolve()):  # type: ignore[arg-type]
            return False
        return real(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store_checks.os, "access", access)


def test_a_store_in_a_read_only_folder_is_read(
    stored: Path, store_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.experiment.store import RunRecord, Store, load_runs

    _folder_not_writable(monkeypatch, store_copy.parent)
    assert len(load_runs(store_copy)) == len(load_runs(stored)) > 0
    with Store(store_copy, create=False) as store:
        assert store.count() == len(load_runs(stored)) and not store.flows_df().empty
        record = RunRecord("f" * 64, "small", {}, 0, 1, "v", "scenario", report=None, error="x")
        with pytest.raises(UserError, match="opened read-only"):
            store.put(record)


def test_a_store_on_a_read_only_mount_is_read(stored: Path, store_copy: Path) -> None:
    import subprocess

    from tcplab.experiment.store import load_runs

    mount = store_copy.parent.parent / "mnt"
    mount.mkdir()
    if subprocess.run(
        ["mount", "--bind", "-o", "ro", store_copy.parent, mount], capture_output=True
    ).returncode:
        pytest.skip("cannot make a read-only bind mount here (needs root)")
    try:
        assert len(load_runs(mount / "s.sqlite")) == len(load_runs(stored)) > 0
    finally:
        subprocess.run(["umount", mount], check=True)


def test_a_store_with_an_unfinished_journal_in_a_read_only_folder_is_refused(
    store_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.experiment.store import load_runs

    (store_copy.parent / "s.sqlite-wal").write_bytes(b"\0" * 100)  # runs not yet in the file
    _folder_not_writable(monkeypatch, store_copy.parent)
    with pytest.raises(UserError, match=r"s\.sqlite-wal"):
        load_runs(store_copy)


@pytest.mark.parametrize(
    "schema", ["CREATE TABLE runs (x TEXT)", "CREATE TABLE runs (x TEXT); PRAGMA user_version = 7"]
)
def test_a_foreign_runs_table_is_refused_and_left_unchanged(tmp_path: Path, schema: str) -> None:
    import sqlite3

    from tcplab.experiment.store import Store

    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.executescript(schema)
    db.close()
    before = path.read_bytes()
    for create in (True, False):
        with pytest.raises(UserError, match="not a tcplab result store|store schema 7"):
            Store(path, create=create)
    assert path.read_bytes() == before, "not switched to WAL mode, no table or version added"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_a_closed_store_says_it_is_closed(stored: Path) -> None:
    from tcplab.experiment.store import Store

    with Store(stored, create=False) as store:
        pass
    for use in (store.count, store.runs_df, store.keys, lambda: store.report("0" * 64)):
        with pytest.raises(UserError) as caught:
            use()
        assert "closed" in str(caught.value) and "damaged" not in str(caught.value), caught.value
