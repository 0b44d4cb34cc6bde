"""Issue 27, item 4: output folders are locked for a run, and nothing tcplab writes follows a
symbolic link, whether it was there before the run or planted during it (`run --out`, the
API's `out_dir`, `reproduce --out`, `examples --copy`)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import tcplab as tl
from conftest import REPO, SCENARIOS, interruptible, tcplab
from tcplab.errors import UserError
from tcplab.experiment.out_dir import MARKER, STAGE_PREFIX, OutFolder
from test_hostile_input import QUICK, one_line_error


@pytest.fixture
def quick(tmp_path: Path) -> Path:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    return path


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text("untouched")
    return path


def test_a_second_run_into_a_folder_in_use_is_refused_in_one_line(tmp_path: Path, quick: Path) -> None:
    folder = tmp_path / "out"
    with OutFolder(folder):  # another run holds the folder
        one_line_error(
            tcplab("run", quick, "--out", folder), "--out: the folder", "in use by another tcplab run"
        )
        with pytest.raises(UserError, match="out_dir: the folder .* in use by another tcplab run"):
            tl.run(QUICK, out_dir=folder)
    assert tcplab("run", quick, "--out", folder).returncode == 0, "free again once the first run ends"


def test_a_rerun_replaces_the_last_runs_files_and_keeps_the_users(tmp_path: Path, quick: Path) -> None:
    """A rerun into a folder tcplab wrote left the last run's traces, pcaps and plots beside the
    new summary.json, as if one run had written them all."""
    folder = tmp_path / "out"
    assert tcplab("run", SCENARIOS / "dumbbell.toml", "--out", folder).returncode == 0
    first = {p.name for p in folder.iterdir()}
    assert {"summary.json", "flow0.png"} <= first and any(n.endswith(".pcap") for n in first), first
    (folder / "notes.txt").write_text("mine")
    assert tcplab("run", quick, "--out", folder).returncode == 0  # one flow, no capture
    second = (folder / MARKER).read_text().splitlines()[1:]
    assert "summary.json" in second and not any(n.endswith(".pcap") or "flow1" in n for n in second)
    assert {p.name for p in folder.iterdir()} == {MARKER, "notes.txt", *second}


def test_two_cli_runs_at_once_do_not_mix(tmp_path: Path) -> None:
    long = tmp_path / "long.toml"
    long.write_text((SCENARIOS / "bench_dumbbell_10.toml").read_text().replace('"60s"', '"3000s"'))
    folder = tmp_path / "out"
    first = interruptible(sys.executable, "-m", "tcplab", "run", long, "--out", folder, "--json", cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while not any(folder.glob(STAGE_PREFIX + "*")) and time.monotonic() < deadline:
            assert first.poll() is None, first.communicate()
            time.sleep(0.05)
        second = tcplab("run", long, "--out", folder, "--seed", "2")
        one_line_error(second, "in use by another tcplab run")
        out, err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, err
    import json

    assert json.loads((folder / "summary.json").read_text())["seed"] == json.loads(out)["seed"] == 1


def test_a_link_planted_during_the_run_is_replaced_not_followed(tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "out"
    assert "trace = true" in QUICK
    with OutFolder(folder, cli=False) as out:
        result = tl.run(QUICK, out_dir=out)  # written into the run's own work folder
        for name in ("summary.json", "trace-flow0.csv"):
            (folder / name).symlink_to(victim)  # planted after every check, before the files land
        moved = out.publish(marker=True)
    assert {"summary.json", "trace-flow0.csv"} <= set(moved)
    assert victim.read_text() == "untouched"
    assert not (folder / "summary.json").is_symlink() and (folder / "summary.json").stat().st_size > 100
    assert result.trace(0)["cwnd"].max() > 0
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == [MARKER]


def test_a_folder_swapped_for_a_link_during_the_run_redirects_nothing(tmp_path: Path) -> None:
    folder, moved, elsewhere = tmp_path / "out", tmp_path / "moved", tmp_path / "elsewhere"
    elsewhere.mkdir()
    with OutFolder(folder, cli=False) as out:
        folder.rename(moved)
        folder.symlink_to(elsewhere)  # the name now points somewhere else
        tl.run(QUICK, out_dir=out)
        out.publish()
    assert list(elsewhere.iterdir()) == []
    assert (moved / "summary.json").is_file()


def test_a_cli_run_with_a_link_planted_mid_run(tmp_path: Path, victim: Path) -> None:
    long = tmp_path / "long.toml"
    long.write_text((SCENARIOS / "bench_dumbbell_10.toml").read_text().replace('"60s"', '"2000s"'))
    folder = tmp_path / "out"
    proc = interruptible(sys.executable, "-m", "tcplab", "run", long, "--out", folder, cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while not any(folder.glob(STAGE_PREFIX + "*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (folder / "summary.json").symlink_to(victim)
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert victim.read_text() == "untouched" and not (folder / "summary.json").is_symlink()


def test_a_failed_run_leaves_no_work_folder_and_a_killed_ones_is_cleaned(tmp_path: Path, quick: Path) -> None:
    folder = tmp_path / "out"
    bad = tmp_path / "bad.toml"
    bad.write_text(QUICK.replace('duration = "2s"', 'duration = "-1s"'))
    one_line_error(tcplab("run", bad, "--out", folder), "duration")
    assert not folder.exists(), "the folder the failed run made is gone"
    folder.mkdir()
    (folder / (STAGE_PREFIX + "deadbeef")).mkdir()  # left by a run killed with SIGKILL
    (folder / (STAGE_PREFIX + "deadbeef") / "summary.json").write_text("{}")
    assert tcplab("run", quick, "--out", folder).returncode == 0
    assert not any(folder.glob(STAGE_PREFIX + "*"))


@pytest.mark.parametrize("bad", ["", "   ", 12, None, "a\0b"])
def test_api_out_dir_must_be_a_folder_name(bad: object) -> None:
    if bad is None:
        assert tl.run(QUICK, out_dir=None).out_dir is None
        return
    with pytest.raises(UserError, match="out_dir: "):
        tl.run(QUICK, out_dir=bad)  # type: ignore[arg-type]


def test_api_out_dir_never_writes_through_links(tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "summary.json").symlink_to(victim)
    tl.run(QUICK, out_dir=folder)
    assert victim.read_text() == "untouched" and not (folder / "summary.json").is_symlink()


def test_a_folder_that_is_a_link_is_followed_and_its_inside_kept_safe(tmp_path: Path, victim: Path) -> None:
    # docs/cli.md: DIR may be a link to a folder elsewhere (a larger disk); what is inside the
    # folder it leads to is protected as in any other.
    disk = tmp_path / "disk"
    disk.mkdir()
    (disk / "summary.json").symlink_to(victim)
    (tmp_path / "out").symlink_to(disk)
    tl.run(QUICK, out_dir=tmp_path / "out")
    assert (disk / "summary.json").stat().st_size > 100 and not (disk / "summary.json").is_symlink()
    assert victim.read_text() == "untouched" and (tmp_path / "out").is_symlink()


# ---------------------------------------------------------------- reproduce, examples


def test_reproduce_replaces_a_linked_index_and_refuses_a_linked_study_folder(
    tmp_path: Path, victim: Path
) -> None:
    from tcplab.report.reproduce import reproduce_study, write_index
    from tcplab.report.study import discover

    out = tmp_path / "out"
    out.mkdir()
    (out / "index.md").symlink_to(victim)
    write_index(out)
    assert victim.read_text() == "untouched" and "tcplab" in (out / "index.md").read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    study = discover()["example_loss"]
    (out / study.name).symlink_to(elsewhere)
    with pytest.raises(UserError, match="is a symbolic link"):
        reproduce_study(study, out, quick=True, workers=1, specs=study.tiny())
    assert list(elsewhere.iterdir()) == []
    (out / study.name).unlink()
    (out / study.name).mkdir()
    (out / study.name / "runs.sqlite").symlink_to(tmp_path / "other.sqlite")
    with pytest.raises(UserError, match="runs.sqlite is a symbolic link"):
        reproduce_study(study, out, quick=True, workers=1, specs=study.tiny())
    assert not (tmp_path / "other.sqlite").exists()


def test_reproduced_files_replace_links_planted_in_the_study_folder(tmp_path: Path, victim: Path) -> None:
    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    study = discover()["example_loss"]
    folder = tmp_path / "out" / study.name
    folder.mkdir(parents=True)
    first = reproduce_study(study, tmp_path / "out", quick=True, workers=1, specs=study.tiny())
    planted = [first.report, first.claims, folder / "study.json", *first.figures]
    for path in planted:
        path.unlink()
        path.symlink_to(victim)
    reproduce_study(study, tmp_path / "out", quick=True, workers=1, specs=study.tiny())
    assert victim.read_text() == "untouched"
    assert not any(p.is_symlink() for p in planted) and all(p.stat().st_size > 0 for p in planted)


def test_an_interrupted_reproduce_leaves_the_last_report_with_its_figures(tmp_path: Path) -> None:
    """A reproduce interrupted after its figures (during the sensitivity sweeps, minutes long)
    left them beside the previous run's report, or beside no report at all."""
    import dataclasses

    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    study = discover()["example_loss"]
    first = reproduce_study(study, tmp_path, quick=True, workers=1, specs=study.tiny())
    written = [first.report, first.claims, first.folder / "study.json", *first.figures]
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in written}

    def interrupted(derived: object) -> list[object]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reproduce_study(
            dataclasses.replace(study, claims=interrupted),
            tmp_path,
            quick=True,
            workers=1,
            specs=study.tiny(),
        )
    after = {p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in written}
    assert after == before
    assert not [name for name in os.listdir(first.folder) if name.startswith(".")]  # no work folder


def test_a_study_folder_in_use_is_refused(tmp_path: Path) -> None:
    import fcntl

    from tcplab.report.reproduce import reproduce_study
    from tcplab.report.study import discover

    study = discover()["example_loss"]
    (tmp_path / study.name).mkdir()
    holder = os.open(tmp_path / study.name, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(UserError, match="--out: the folder .* is in use by another tcplab run"):
            reproduce_study(study, tmp_path, quick=True, workers=1, specs=study.tiny())
    finally:
        os.close(holder)
    assert os.listdir(tmp_path / study.name) == []


def test_examples_copy_refuses_a_dangling_link(tmp_path: Path) -> None:
    dest = tmp_path / "ex"
    dest.mkdir()
    target = tmp_path / "created_through_the_link.toml"
    (dest / "lossy_link.toml").symlink_to(target)  # dangling
    one_line_error(tcplab("examples", "--copy", dest), "lossy_link.toml already exists")
    assert not target.exists()
    (dest / "lossy_link.toml").unlink()
    (dest / "sweeps").symlink_to(tmp_path)  # a linked subfolder
    one_line_error(tcplab("examples", "--copy", dest), "sweeps is a symbolic link")
    assert not (tmp_path / "loss_variants.toml").exists()
    (dest / "sweeps").unlink()
    assert tcplab("examples", "--copy", dest).returncode == 0
    assert (dest / "sweeps" / "loss_variants.toml").is_file() and not os.path.islink(dest / "sweeps")
