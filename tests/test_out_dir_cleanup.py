"""A failed `tcplab run --out DIR` leaves the folder as it was (docs/cli.md: "A failed or
interrupted run leaves no file behind"): a folder in the way of one of the run's files stops
the run before any file is moved in, and folders the run made for `--out` (parents included)
are removed again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import cli
from tcplab.experiment.out_dir import MARKER, OutFolder
from test_hostile_input import QUICK, one_line_error


@pytest.fixture
def quick(tmp_path: Path) -> Path:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    return path


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("blocker", ["summary.json", "trace-flow0.csv", "flow0.png", MARKER])
def test_a_folder_in_the_way_of_one_output_leaves_nothing(tmp_path: Path, quick: Path, blocker: str) -> None:
    folder = tmp_path / "out"
    (folder / blocker).mkdir(parents=True)
    before = _listing(folder)
    line = one_line_error(cli("run", quick, "--out", folder, "--force"), blocker, "is a folder")
    assert "not written" in line
    assert _listing(folder) == before, "no file of the failed run was moved in"


def test_a_folder_in_the_way_keeps_the_previous_runs_files(tmp_path: Path, quick: Path) -> None:
    folder = tmp_path / "out"
    assert cli("run", quick, "--out", folder).returncode == 0
    old = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    (folder / "summary.json").unlink()
    (folder / "summary.json").mkdir()
    one_line_error(cli("run", quick, "--out", folder, "--seed", "7"), "summary.json", "is a folder")
    for name, data in old.items():
        if name != "summary.json":
            assert (folder / name).read_bytes() == data, f"{name} was replaced by the failed run"


def test_a_failed_run_removes_the_parent_folders_it_made(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(QUICK.replace('duration = "2s"', 'duration = "-1s"'))
    one_line_error(cli("run", bad, "--out", tmp_path / "np" / "a" / "b"), "duration")
    assert not (tmp_path / "np").exists(), "every folder the failed run made is gone"


def test_a_failed_run_keeps_parent_folders_that_were_there(tmp_path: Path) -> None:
    (tmp_path / "np").mkdir()
    bad = tmp_path / "bad.toml"
    bad.write_text(QUICK.replace('duration = "2s"', 'duration = "-1s"'))
    one_line_error(cli("run", bad, "--out", tmp_path / "np" / "a" / "b"), "duration")
    assert (tmp_path / "np").is_dir() and not (tmp_path / "np" / "a").exists()


def test_made_parents_with_something_added_meanwhile_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "np" / "a" / "b"
    folder = OutFolder(target, cli=False)
    (tmp_path / "np" / "other.txt").write_text("not the run's")  # another program, meanwhile
    folder.close(failed=True)
    assert not (tmp_path / "np" / "a").exists()
    assert (tmp_path / "np" / "other.txt").read_text() == "not the run's"


def test_a_run_into_a_linked_folder_still_works(tmp_path: Path, quick: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    assert cli("run", quick, "--out", tmp_path / "link").returncode == 0
    assert (real / "summary.json").is_file()


# ---------------------------------------------------------------- errors name the user's file


def test_replacing_a_folder_names_it_not_the_temp_file(tmp_path: Path) -> None:
    """`sweep --csv DIR` (a folder made while the sweep ran) and `reproduce` with claims.json a
    folder said "error: .tmp.907a54b5.tmp: is a directory"."""
    from tcplab.errors import UserError, describe
    from tcplab.experiment.csv_out import write_csv
    from tcplab.experiment.safe_files import open_dir, replace_file

    (tmp_path / "out.csv").mkdir()
    with pytest.raises(UserError) as caught:
        write_csv(__import__("pandas").DataFrame({"a": [1]}), tmp_path / "out.csv")
    assert str(caught.value) == f"{tmp_path / 'out.csv'} is a folder, not a file; nothing was written there"
    (tmp_path / "claims.json").mkdir()
    fd = open_dir(tmp_path, "DIR")
    try:
        with pytest.raises(UserError, match=r"claims\.json is a folder, not a file") as caught:
            replace_file(fd, "claims.json", "{}", tmp_path / "claims.json")
    finally:
        os.close(fd)
    assert ".tmp" not in describe(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.json", "out.csv"], "no temp file left"


def test_other_errors_of_the_temp_file_name_the_final_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.errors import describe
    from tcplab.experiment import safe_files

    def full(src: str, dst: str, **kwargs: object) -> None:
        raise OSError(28, "No space left on device", src)  # as os.replace names the temp file

    monkeypatch.setattr(safe_files.os, "replace", full)
    with pytest.raises(OSError) as caught:
        safe_files.write_file(tmp_path / "x.csv", "a\n")
    assert describe(caught.value) == f"{tmp_path / 'x.csv'}: no space left on device"


def test_an_empty_output_file_name_is_refused(tmp_path: Path) -> None:
    from tcplab.errors import UserError
    from tcplab.experiment.safe_files import write_file

    with pytest.raises(UserError, match="the file name is empty"):
        write_file("", "x")
