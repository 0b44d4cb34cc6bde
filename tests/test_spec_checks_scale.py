"""Sweep spec checks at scale and their rules: duplicate levels and overlapping paths found in
linear time, the run cap before either, zipped groups refused by repeated rows only, labels that
would collide with a per-flow field, and a missing trace as a UserError."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from tcplab.errors import UserError
from tcplab.experiment import spec as spec_module
from tcplab.experiment.expand import expand
from tcplab.experiment.metrics import flow_metrics
from tcplab.experiment.spec import SweepSpec, _Claims, _overlap, load_spec
from tcplab.experiment.store import FLOW_COLUMNS, RESERVED_COLUMNS, RunRecord, Store

BASE: dict[str, Any] = {
    "name": "two-hosts",
    "duration": "1s",
    "nodes": ["a", "b"],
    "link": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
    "flow": [{"src": "a", "dst": "b", "bytes": "100KB"}, {"src": "a", "dst": "b", "bytes": "50KB"}],
}


def write_spec(tmp_path: Path, body: str, name: str = "spec.toml") -> Path:
    (tmp_path / "base.toml").write_text(
        'duration = "1s"\nnodes = ["a", "b"]\n[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "10ms"\n'
        '[[flow]]\nsrc = "a"\ndst = "b"\nbytes = "100KB"\n'
    )
    path = tmp_path / name
    path.write_text('base = "base.toml"\n' + body)
    return path


# ---------------------------------------------------------------- duplicate levels


def test_sixty_thousand_levels_are_checked_in_well_under_two_seconds() -> None:
    # Comparing each level with every earlier one took 28 s for these.
    levels = [1000 + i for i in range(60_000)]
    start = time.monotonic()
    SweepSpec(base=BASE, factors={"flow.0.bytes": levels})
    with pytest.raises(UserError, match=r"^factors\.flow\.0\.bytes: level 60999\.0 is listed twice$"):
        SweepSpec(base=BASE, factors={"flow.0.bytes": [*levels, 60_999.0]})
    assert time.monotonic() - start < 2


@pytest.mark.parametrize(
    ("levels", "twice"),
    [
        ([1000, 1000.0], "1000.0"),  # equal numbers are one level
        ([{"a": 1, "b": [2, 3]}, {"b": [2, 3.0], "a": 1}], "{'b': [2, 3.0], 'a': 1}"),  # key order
        ([[1, {"x": 2}], [1.0, {"x": 2}]], "[1.0, {'x': 2}]"),
        (["reno", "sack", "reno"], "'reno'"),
        ([{1, 2}, {2, 1}], "{1, 2}"),  # a level no dict can hold is still compared
    ],
)
def test_duplicate_levels_are_what_equality_says(levels: list[Any], twice: str) -> None:
    with pytest.raises(UserError) as e:
        SweepSpec(base=BASE, factors={"tcp.mss": levels})
    assert str(e.value) == f"factors.tcp.mss: level {twice} is listed twice"


@pytest.mark.parametrize(
    "levels",
    [[1, "1"], [[1, 2], [2, 1]], [{"a": 1}, {"a": 1, "b": 2}], [[1], (1,)], [{"a": [1]}, {"a": (1,)}]],
)
def test_levels_that_differ_are_not_duplicates(levels: list[Any]) -> None:
    SweepSpec(base=BASE, factors={"tcp.mss": levels})


# ---------------------------------------------------------------- overlapping paths


@pytest.mark.parametrize(
    "factors",
    [
        {f"flow.0.x{i}": [1] for i in range(5_000)},  # the probe's case: 28 s before
        {f"flow.{i}.bytes": [1] for i in range(5_000)},
        # A '*' beside many indices takes one step, not one per index.
        {**{f"flow.{i}.a": [1] for i in range(2_000)}, **{f"flow.*.b{i}": [1] for i in range(2_000)}},
    ],
    ids=["names", "indices", "stars"],
)
def test_thousands_of_factors_are_checked_in_well_under_two_seconds(factors: dict[str, Any]) -> None:
    # Comparing each path with every earlier one took half a minute for 5,000 factors.
    start = time.monotonic()
    SweepSpec(base=BASE, factors=factors)
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("merged", [spec_module._MERGED_INDICES, 1, 0])
def test_the_path_tree_finds_what_comparing_every_pair_finds(
    merged: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Random paths of parts that match in every way: names, indices, '*', and '01' (not '1').
    monkeypatch.setattr(spec_module, "_MERGED_INDICES", merged)
    rng = random.Random(merged)
    parts = ["a", "b", "x", "0", "1", "01", "*"]
    for _ in range(1000):
        claims, claimed = _Claims(), []
        for _ in range(rng.randint(1, 12)):
            path = ".".join(rng.choice(parts) for _ in range(rng.randint(1, 6)))
            first = next((other for other in claimed if other == path or _overlap(path, other)), None)
            assert claims.first_overlap(path) == first, (path, claimed)
            if first is None:
                claims.add(path)
                claimed.append(path)


@pytest.mark.parametrize(
    ("factors", "message"),
    [
        (
            {"tcp.mss": [1], "tcp": [{"mss": 1}]},
            "factors.tcp: overlaps 'tcp.mss', also varied: the one applied last would overwrite the "
            "other's levels; vary each field by one path only",
        ),
        ({"link.0.rate": ["1Mbps"], "flow.*.bytes": [1], "flow.1.bytes": [2]}, "overlaps 'flow.*.bytes'"),
        # The first of two overlapping paths is named, as before.
        ({"flow.0.bytes": [1], "flow.1.bytes": [2], "flow.*.bytes": [3]}, "overlaps 'flow.0.bytes'"),
        ({"flow.0": [{}], "flow.*.bytes": [3]}, "factors.flow.*.bytes: overlaps 'flow.0'"),
    ],
)
def test_overlapping_paths_keep_their_message(factors: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message.replace("*", r"\*").replace(".", r"\.")):
        SweepSpec(base=BASE, factors=factors)


def test_a_path_varied_twice_keeps_its_message() -> None:
    with pytest.raises(UserError, match=r"^zip\[0\]\.tcp\.mss: this path is already varied elsewhere"):
        SweepSpec(base=BASE, factors={"tcp.mss": [1, 2]}, zips=[{"tcp.mss": [3]}])


def test_paths_that_do_not_overlap_are_accepted() -> None:
    # '*' matches an index only; '01' is not '1'; a shared prefix is not an overlap.
    SweepSpec(
        base=BASE,
        factors={
            "flow.*.bytes": [1],
            "flow.*.x": [1],
            "flow.0.name": ["a"],
            "link.*.rate": ["1Mbps"],
        },
        zips=[{"link.0.delay": ["1ms"], "tcp.mss": [500]}],
    )
    SweepSpec(base=BASE, factors={"flow.1.bytes": [1], "flow.01.bytes": [2], "flow.1.name": ["a"]})


# ---------------------------------------------------------------- the run cap first


def test_a_sweep_over_the_cap_is_refused_before_its_levels_are_checked(tmp_path: Path) -> None:
    # Before, the duplicate was found first: checking a million levels one by one is slow.
    path = write_spec(tmp_path, 'replications = 3\n[factors]\n"flow.0.bytes" = [1000, 2000, 1000.0]\n')
    with pytest.raises(UserError) as e:
        load_spec(path, max_runs=8)
    assert str(e.value) == (
        f"{path}: replications: the sweep has 9 runs (3 replications of 3 points), more than the 8 one "
        "sweep may hold; split it into smaller sweeps, or raise the cap with --max-runs"
    )
    with pytest.raises(UserError, match=r"level 1000\.0 is listed twice"):
        load_spec(path, max_runs=9)


def test_the_early_count_takes_zips_and_the_default_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_spec(
        tmp_path,
        '[factors]\n"tcp.mss" = [500, 500]\n[[zips]]\n"link.0.rate" = ["1Mbps", "2Mbps"]\n'
        '"link.0.delay" = ["1ms", "2ms"]\n',
    )
    monkeypatch.setattr(spec_module, "MAX_RUNS", 3)
    with pytest.raises(UserError, match="the sweep has 4 runs .* more than the 3 one sweep may hold"):
        load_spec(path)
    with pytest.raises(UserError, match="level 500 is listed twice"):
        load_spec(path, max_runs=4)


def test_a_spec_whose_count_cannot_be_made_gets_its_own_message(tmp_path: Path) -> None:
    for body, message in [
        ('replications = 0\n[factors]\n"tcp.mss" = [1, 2]\n', "replications: must be a positive integer"),
        ('[factors]\n"tcp.mss" = 5\n', "levels must be a list"),
        ('[zips]\n"link.0.rate" = ["1Mbps", "2Mbps"]\n"link.0.delay" = ["1ms"]\n', "same length"),
    ]:
        with pytest.raises(UserError, match=message):
            load_spec(write_spec(tmp_path, body), max_runs=1)


# ---------------------------------------------------------------- zipped rows


def test_a_zip_may_repeat_a_value_in_a_column() -> None:
    spec = SweepSpec(
        base=BASE,
        zips=[{"link.0.rate": ["10Mbps", "10Mbps", "100Mbps"], "link.0.delay": ["5ms", "50ms", "5ms"]}],
    )
    points = [(r.levels["link.0.rate"], r.levels["link.0.delay"]) for r in expand(spec)]
    assert points == [("10Mbps", "5ms"), ("10Mbps", "50ms"), ("100Mbps", "5ms")]


def test_a_zip_row_that_repeats_an_earlier_row_is_refused_as_a_row() -> None:
    group = {"link.0.rate": ["10Mbps", "10Mbps", "100Mbps", "10Mbps"], "tcp.mss": [1000, 500, 1000, 1000.0]}
    with pytest.raises(UserError) as e:
        SweepSpec(base=BASE, zips=[{"link.0.queue": [5]}, group])
    assert str(e.value) == "zip[1]: row 4 repeats row 1 (link.0.rate = '10Mbps', tcp.mss = 1000.0)"


def test_a_zip_row_repeat_is_named_in_a_spec_file(tmp_path: Path) -> None:
    path = write_spec(
        tmp_path,
        '[zips]\n"link.0.rate" = ["1Mbps", "2Mbps", "1Mbps"]\n"link.0.delay" = ["1ms", "1ms", "1ms"]\n',
    )
    with pytest.raises(
        UserError, match=r"zip\[0\]: row 3 repeats row 1 \(link\.0\.rate = '1Mbps', link\.0\.delay = '1ms'\)"
    ):
        load_spec(path)


def test_level_labels_of_a_repeated_zip_level_must_agree() -> None:
    group = {"link.0.rate": ["10Mbps", "10Mbps", "100Mbps"], "link.0.delay": ["5ms", "50ms", "5ms"]}
    spec = SweepSpec(base=BASE, zips=[group], level_labels={"link.0.rate": ["slow", "slow", "fast"]})
    assert [spec.level_label("link.0.rate", r.levels["link.0.rate"]) for r in expand(spec)] == [
        "slow",
        "slow",
        "fast",
    ]
    with pytest.raises(UserError, match="level '10Mbps' is named 'slow' in row 1 and 'fast' in row 2"):
        SweepSpec(base=BASE, zips=[group], level_labels={"link.0.rate": ["slow", "fast", "fastest"]})
    with pytest.raises(UserError, match="names must be distinct"):
        SweepSpec(base=BASE, zips=[group], level_labels={"link.0.rate": ["slow", "slow", "slow"]})


# ---------------------------------------------------------------- labels and flows_df


def test_flow_columns_are_every_field_of_a_flow_row() -> None:
    tcp = {"id": 0, "name": "f", "goodput_bps": 1.0}
    udp = {**tcp, "id": 1, "udp": {"source": "cbr", "packets_sent": 3}}
    fields = {k for row in flow_metrics({"flows": [tcp, udp]}) for k in row}
    assert fields == FLOW_COLUMNS
    assert {"id", "name", "goodput_bps", "completion_time_s", "source", "delay_p99_s"} <= FLOW_COLUMNS


@pytest.mark.parametrize("column", sorted(FLOW_COLUMNS - RESERVED_COLUMNS))
def test_a_label_naming_a_flow_field_is_refused(column: str) -> None:
    with pytest.raises(UserError) as e:
        SweepSpec(base=BASE, factors={"tcp.variant": ["reno", "sack"]}, labels={"tcp.variant": column})
    assert str(e.value) == (
        f"labels.tcp.variant: the column name {column!r} is taken by the per-flow table (flows_df); "
        f'give the factor another name, e.g. labels."tcp.variant" = "{column}_level"'
    )


def test_a_zipped_label_naming_a_flow_field_is_refused(tmp_path: Path) -> None:
    path = write_spec(
        tmp_path, '[zips]\n"tcp.variant" = ["reno", "sack"]\n[labels]\n"tcp.variant" = "name"\n'
    )
    with pytest.raises(
        UserError, match=r"labels\.tcp\.variant: the column name 'name' is taken by the per-flow"
    ):
        load_spec(path)


def test_a_run_table_name_keeps_its_message() -> None:
    with pytest.raises(UserError, match="the column name 'bytes_delivered' is taken by the result table"):
        SweepSpec(base=BASE, factors={"tcp.mss": [500]}, labels={"tcp.mss": "bytes_delivered"})


# ---------------------------------------------------------------- Store.trace


def test_a_flow_without_a_trace_is_a_user_error_naming_the_run_and_flow(tmp_path: Path) -> None:
    traced, untraced = "a" * 64, "b" * 64
    with Store(tmp_path / "s.sqlite") as store:
        for key, traces in [
            (traced, {"trace-flow0.parquet": b"x", "segments-flow0.parquet": b"x"}),
            (untraced, {}),
        ]:
            store.put(RunRecord(key, "s", {}, 0, 1, "v", "", traces=traces))
        with pytest.raises(UserError) as e:
            store.trace(traced, 1)
        assert (
            str(e.value)
            == f"trace: run aaaaaaaaaaaa... in {store.path} has no trace of flow 1 (traced: flow 0)"
        )
        assert isinstance(e.value, FileNotFoundError)  # what code written before catches
        with pytest.raises(
            UserError, match=r"run bbbbbbbbbbbb\.\.\. .* no segments of flow 0 \(none of its flows"
        ):
            store.trace(untraced, 0, "segments")
        (store.traces_dir / traced / "trace-flow0.parquet").unlink()
        with pytest.raises(
            UserError, match=r"run aaaaaaaaaaaa\.\.\. .*: the file of its trace of flow 0 is missing"
        ):
            store.trace(traced, 0)
