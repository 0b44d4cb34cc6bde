"""Issue 27, item 6 (Python side): names reach the terminal with control characters escaped,
`tcplab anova` reads its CSV under the input rules of `run`, API misuse raises tcplab's own
errors naming the argument, `Store.trace` reads only the store's own files, and `--csv` cells
that a spreadsheet would run as formulas are defused."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

import pandas as pd
import pytest
import tcplab as tl
from conftest import cli, tcplab
from tcplab.errors import UserError, printable
from tcplab.experiment.store import Store, load_runs
from test_hostile_input import QUICK, one_line_error
from test_sweep_run import small_spec

TWO_NODES = 'duration = "1s"\nnodes = {nodes}\n[[link]]\na = "a"\nb = {b}\nrate = "10Mbps"\ndelay = "1ms"\n'

# ---------------------------------------------------------------- control characters


def test_an_escape_sequence_in_a_flow_name_does_not_reach_the_terminal(tmp_path: Path) -> None:
    path = tmp_path / "esc.toml"
    path.write_text(
        TWO_NODES.format(nodes='["a", "b"]', b='"b"')
        + '[[flow]]\nname = "\\u001b[2J\\u001b[31mpwned\\u202e"\nsrc = "a"\ndst = "b"\nbytes = 1000\n'
    )
    proc = tcplab("run", path)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\x1b[2J\\x1b[31mpwned\\u202e" in proc.stdout


@pytest.mark.parametrize(
    ("nodes", "b", "says"),
    [
        # The core's message quotes the name: escaped where Python prints it.
        ('["a", "b\\nerror: all fine", "b\\nerror: all fine"]', '"b"', "listed twice"),
        ('["a", "b"]', '"c\\nerror: all fine"', "no node named"),
    ],
)
def test_a_newline_in_a_name_cannot_forge_a_second_error_line(
    tmp_path: Path, nodes: str, b: str, says: str
) -> None:
    path = tmp_path / "nl.toml"
    path.write_text(TWO_NODES.format(nodes=nodes, b=b))
    line = one_line_error(tcplab("run", path), says, "\\nerror: all fine")
    assert line.startswith("error: ")


def test_printable_escapes_controls_and_keeps_text() -> None:
    assert printable("a\x1b[0m\tb\r\n\x00\x7f\x9b\u2028é→") == "a\\x1b[0m\\tb\\r\\n\\x00\\x7f\\x9b\\u2028é→"


# ---------------------------------------------------------------- anova's input


ANOVA = ["--response", "y", "--factors", "a,b"]


def test_anova_refuses_devices_fifos_and_oversized_files(tmp_path: Path) -> None:
    one_line_error(tcplab("anova", "/dev/zero", *ANOVA), "/dev/zero", "not a regular file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    finished = threading.Event()
    result: list = []
    thread = threading.Thread(target=lambda: (result.append(tcplab("anova", fifo, *ANOVA)), finished.set()))
    thread.start()
    if not finished.wait(20):  # unblock a reader stuck on the FIFO before failing
        with open(fifo, "w"):
            pass
        thread.join(5)
        pytest.fail("anova hung on a FIFO")
    one_line_error(result[0], "not a regular file")
    big = tmp_path / "big.csv"
    with big.open("wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    one_line_error(tcplab("anova", big, *ANOVA), "big.csv", "too large")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("inf", "column 'y': not a finite number in row 2: inf"),
        ("-inf", "not a finite number"),
        ("NaN", "NaN in row 2"),
    ],
)
def test_anova_refuses_non_finite_responses_in_one_line(tmp_path: Path, value: str, says: str) -> None:
    path = tmp_path / "obs.csv"
    path.write_text(f"a,b,y\nx,p,1\nx,q,{value}\nz,p,2\nz,q,3\n")
    line = one_line_error(tcplab("anova", path, *ANOVA), "obs.csv", says)
    assert "mean inf" not in line and "RuntimeWarning" not in line
    with pytest.raises(UserError, match="column 'y'"):
        tl.factorial_anova(pd.read_csv(path), "y", ["a", "b"])


def test_anova_prints_names_from_the_csv_escaped(tmp_path: Path) -> None:
    path = tmp_path / "obs.csv"
    path.write_text('"a\x1b[2J",b,y\nx\x1b,p,1\nx\x1b,q,2\nz,p,2\nz,q,4\n')
    proc = tcplab("anova", path, "--response", "y", "--factors", "a\x1b[2J,b", "--no-interactions")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "a\\x1b[2J" in proc.stdout and "x\\x1b" in proc.stdout


# ---------------------------------------------------------------- API misuse


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"source": None}, "source: expected a scenario"),
        ({"source": 42}, "source: expected a scenario"),
        ({"source": QUICK, "seed": -1}, "seed: must be an integer from 0 to 2^64-1, got -1"),
        ({"source": QUICK, "seed": 2**64}, "seed: must be an integer from 0 to 2^64-1"),
        ({"source": QUICK, "seed": "3"}, "seed: must be an integer"),
        ({"source": QUICK, "seed": True}, "seed: must be an integer"),
        ({"source": QUICK, "seed": 1.5}, "seed: must be an integer"),
    ],
)
def test_api_misuse_raises_tcplabs_error_naming_the_argument(kwargs: dict, says: str) -> None:
    for call in (tl.run, tl.validate):
        with pytest.raises(UserError) as e:
            call(**kwargs)
        assert says in str(e.value)


def test_the_largest_seed_runs() -> None:
    assert tl.run(QUICK, seed=2**64 - 1).seed == 2**64 - 1


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    tl.sweep(small_spec(replications=1), store=path, workers=1)
    return path


@pytest.mark.parametrize(
    ("column", "value"),
    [("levels", "{not json"), ("levels", "[1, 2]"), ("levels", None), ("flow_metrics", '{"a": 1}')],
)
def test_damaged_rows_are_one_error_naming_the_run_and_column(
    store: Path, column: str, value: object
) -> None:
    with sqlite3.connect(store) as db:
        key = db.execute("SELECT key FROM runs LIMIT 1").fetchone()[0]
        if value is None:  # levels is NOT NULL: a foreign writer would have to drop the constraint
            db.execute("PRAGMA writable_schema = ON")
        db.execute(
            f"UPDATE runs SET {column} = ? WHERE key = ?", (value if value is not None else "null", key)
        )
    with pytest.raises(UserError, match=rf"run {key[:12]}: column {column} is damaged"):
        load_runs(store) if column == "levels" else Store(store).flows_df()


def test_a_damaged_report_is_one_error(store: Path) -> None:
    with sqlite3.connect(store) as db:
        key = db.execute("SELECT key FROM runs LIMIT 1").fetchone()[0]
        db.execute("UPDATE runs SET report = '[[' WHERE key = ?", (key,))
    with Store(store) as s, pytest.raises(UserError, match="column report is damaged"):
        s.report(key)


# ---------------------------------------------------------------- Store.trace


def test_trace_keys_are_checked_and_no_file_outside_the_store_is_read(tmp_path: Path) -> None:
    doc = tl.load_scenario(os.fspath(Path(__file__).parents[1] / "scenarios" / "lossy_link.toml"))
    spec = tl.SweepSpec(base=tl.experiment.scenario.loads(doc.replace('"120s"', '"2s"')), name="traced")
    path = tmp_path / "s.sqlite"
    key = tl.sweep(spec, store=path, workers=1).df["key"].iloc[0]
    # A Parquet file a traversing key would reach.
    outside = tmp_path / "secret"
    outside.mkdir()
    pd.DataFrame({"time_s": [0.0], "cwnd": [1], "ssthresh": [1], "snd_una": [0], "snd_nxt": [0]}).to_parquet(
        outside / "trace-flow0.parquet"
    )
    with Store(path) as s:
        assert len(s.trace(key)) > 10
        for bad in ["../../secret", "../" * 3 + "secret", key.upper(), key[:-1], key + "0", "", None, 7]:
            with pytest.raises(UserError, match="run key must be a key"):
                s.trace(bad)  # type: ignore[arg-type]
        for flow_id in (-1, "0", True, 1.0):
            with pytest.raises(UserError, match="flow_id"):
                s.trace(key, flow_id)  # type: ignore[arg-type]
        with pytest.raises(UserError, match="kind must be one of"):
            s.trace(key, 0, "../../secret/trace")
        with pytest.raises(UserError, match="no run with key"):
            s.trace("0" * 64)
        with pytest.raises(FileNotFoundError):
            s.trace(key, 5)


# ---------------------------------------------------------------- --csv


def test_csv_defuses_formula_cells_and_keeps_numbers(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    (tmp_path / "quick.toml").write_text(QUICK)
    spec.write_text(
        'name = "formula"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno", "sack"]\n'
        '[level_labels]\n"tcp.variant" = ["=HYPERLINK(\\"http://x\\")", "@SUM(A1)"]\n'
        '[labels]\n"tcp.variant" = "-variant"\n'
    )
    csv = tmp_path / "out.csv"
    proc = tcplab("sweep", spec, "--store", tmp_path / "s.sqlite", "--workers", "1", "-q", "--csv", csv)
    assert proc.returncode == 0, proc.stderr
    raw = csv.read_text()
    assert "'=HYPERLINK" in raw and "'@SUM(A1)" in raw and "'-variant" in raw
    assert "\n=" not in raw and ",=" not in raw and ",@" not in raw
    df = pd.read_csv(csv)
    assert df["seed"].dtype.kind in "iu" and df["total_goodput_bps"].dtype == float


def test_csv_onto_the_store_or_a_folder_is_refused_before_the_sweep(tmp_path: Path) -> None:
    """It replaced the store with CSV text: every run lost, the next sweep refused the file."""
    (tmp_path / "quick.toml").write_text(QUICK)
    spec = tmp_path / "spec.toml"
    spec.write_text('name = "over"\nbase = "quick.toml"\n[factors]\n"tcp.variant" = ["reno", "sack"]\n')
    store = tmp_path / "s.sqlite"
    assert cli("sweep", spec, "--store", store, "--workers", "1", "-q").returncode == 0
    kept = store.read_bytes()
    (tmp_path / "folder").mkdir()
    for target, what in (
        (store, "is the sweep's result store"),
        (spec, "is the sweep spec"),
        (tmp_path / "folder", "is a folder"),
    ):
        proc = cli("sweep", spec, "--store", store, "--workers", "1", "-q", "--csv", target)
        assert proc.returncode == 2 and what in proc.stderr, proc.stderr
        assert proc.stdout == ""  # refused before the sweep ran
    assert store.read_bytes() == kept
    assert (
        cli("sweep", spec, "--store", store, "--workers", "1", "-q", "--csv", tmp_path / "ok.csv").returncode
        == 0
    )


def test_spreadsheet_safe_cells() -> None:
    from tcplab.experiment.csv_out import spreadsheet_safe

    df = pd.DataFrame({"t": ["=1+1", "+cmd", "-x", "@f", "\tz", "-1.5", "+2", "ok", None], "n": range(-4, 5)})
    safe = spreadsheet_safe(df)
    assert list(safe["t"][:5]) == ["'=1+1", "'+cmd", "'-x", "'@f", "'\tz"]
    assert list(safe["t"][5:8]) == ["-1.5", "+2", "ok"] and pd.isna(safe["t"][8])
    assert list(safe["n"]) == list(range(-4, 5))
    assert json.dumps(list(df["t"][:1])) == '["=1+1"]', "the frame itself is unchanged"
