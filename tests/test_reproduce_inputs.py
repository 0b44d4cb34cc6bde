"""What `tcplab reproduce` and `tcplab examples --copy` find in the way, found before the work:
a later study's linked folder, a folder at a figure's name, a file where a subfolder goes; and
the index over an output folder that holds other tools' study.json files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import cli
from test_hostile_input import one_line_error


def test_reproduce_all_refuses_a_later_studys_link_before_any_study_runs(tmp_path: Path) -> None:
    """It was found when that study started, after minutes of the studies before it."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "example_loss").symlink_to(elsewhere)
    one_line_error(cli("reproduce", "all", "--quick", "--out", out), "example_loss is a symbolic link")
    assert sorted(p.name for p in out.iterdir()) == ["example_loss"]  # no study began
    (out / "example_loss").unlink()
    (out / "example_loss").mkdir()
    (out / "example_loss" / "runs.sqlite-wal").symlink_to(tmp_path / "victim")
    one_line_error(cli("reproduce", "all", "--quick", "--out", out), "runs.sqlite-wal is a symbolic link")
    assert sorted(p.name for p in out.iterdir()) == ["example_loss"]


def test_reproduce_all_refuses_a_file_at_a_later_studys_traces_folder_before_any_run(tmp_path: Path) -> None:
    """A plain file at runs.sqlite.traces was found when the first run with traces was stored,
    and named by that run's 64-hex folder inside it."""
    out = tmp_path / "out"
    (out / "example_loss").mkdir(parents=True)
    (out / "example_loss" / "runs.sqlite.traces").write_text("x")
    line = one_line_error(
        cli("reproduce", "all", "--quick", "--out", out), "runs.sqlite.traces exists and is not a folder"
    )
    assert str(out / "example_loss" / "runs.sqlite.traces") in line
    assert sorted(p.name for p in (out / "example_loss").iterdir()) == ["runs.sqlite.traces"]  # no run stored


def test_a_folder_at_a_figures_name_is_refused_before_any_run(tmp_path: Path) -> None:
    """It failed after the sweeps, naming /proc/self/fd/N/... instead of the user's folder."""
    figure = tmp_path / "example_loss" / "timeouts_vs_loss.png"
    figure.mkdir(parents=True)
    line = one_line_error(cli("reproduce", "example_loss", "--quick", "--out", tmp_path), "is a folder")
    assert str(figure) in line and "/proc/" not in line
    assert not (tmp_path / "example_loss" / "runs.sqlite").exists()


def test_the_index_leaves_out_study_files_tcplab_did_not_write(tmp_path: Path) -> None:
    """Another tool's study.json crashed the index after all the work; a FIFO hung it."""
    from tcplab.report.reproduce import write_index

    foreign = {"other": {"name": "other"}, "listed": [1, 2], "example_loss": {"name": "example_loss"}}
    for name, doc in foreign.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "study.json").write_text(json.dumps(doc))
    (tmp_path / "boston").mkdir()
    os.mkfifo(tmp_path / "boston" / "study.json")
    index = write_index(tmp_path).read_text()
    assert "No study has been reproduced into this folder yet." in index
    good = {"name": "example_loss", "title": "t", "paper": "p", "quick": True, "runs": 3, "wall_s": 1.5}
    (tmp_path / "example_loss" / "study.json").write_text(json.dumps(good))
    index = write_index(tmp_path).read_text()
    assert "[example_loss](example_loss/report.md)" in index and "other" not in index


def test_examples_copy_refuses_a_file_where_a_subfolder_goes_before_writing(tmp_path: Path) -> None:
    """It wrote ten files, then failed, and a rerun refused them as already there."""
    dest = tmp_path / "ex"
    dest.mkdir()
    (dest / "sweeps").write_text("x")
    one_line_error(cli("examples", "--copy", dest), "sweeps exists and is not a folder")
    assert sorted(p.name for p in dest.iterdir()) == ["sweeps"]
    (dest / "sweeps").unlink()
    assert cli("examples", "--copy", dest).returncode == 0


@pytest.mark.parametrize(
    "command", [["reproduce", "example_loss", "--quick", "--out"], ["examples", "--copy"]]
)
def test_an_empty_folder_option_is_refused_not_read_as_the_current_folder(
    tmp_path: Path, command: list[str]
) -> None:
    """Both wrote into the current folder, where `run --out ''` refuses."""
    option = command[-1]
    one_line_error(cli(*command, "", cwd=tmp_path), f"{option}: the folder name is empty")
    assert list(tmp_path.iterdir()) == []


def test_a_dangling_link_as_the_folder_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "dl").symlink_to(tmp_path / "nowhere")
    one_line_error(cli("examples", "--copy", tmp_path / "dl"), "dl is a symbolic link to a missing folder")


def test_a_file_that_cannot_be_made_is_named_by_its_path_not_its_bare_name(tmp_path: Path) -> None:
    """A read-only folder said "bench_atm_16.toml: read-only file system"."""
    from tcplab.errors import describe
    from tcplab.experiment.safe_files import create_new, open_dir, open_subdir

    fd = open_dir(tmp_path, "--out")
    try:
        with pytest.raises(OSError) as caught:
            create_new(fd, "missing/x.toml", tmp_path / "missing" / "x.toml")
        assert describe(caught.value).startswith(f"{tmp_path}/missing/x.toml: ")
        with pytest.raises(OSError) as caught:
            open_subdir(fd, "missing/sub", tmp_path / "missing" / "sub")
        assert describe(caught.value).startswith(f"{tmp_path}/missing/sub: ")
    finally:
        os.close(fd)
