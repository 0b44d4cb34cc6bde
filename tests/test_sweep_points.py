"""Sweep points are validated as wholes: a zipped row's values together, factors crossed, and a
refused point names its number, its levels and where each conflicting value came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import tcplab
from tcplab.errors import ScenarioError, UserError
from tcplab.experiment.expand import expand, iter_points
from tcplab.experiment.runner import plan_sweep
from tcplab.experiment.spec import SweepSpec

RED = {"kind": "red", "min_th": 25, "max_th": 75}
BASE = {
    "duration": "1s",
    "nodes": ["a", "r", "b"],
    "link": [
        {"a": "r", "b": "b", "rate": "10Mbps", "delay": "10ms", "queue": 200, "qdisc": RED},
        {"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"},
    ],
    "flow": [{"src": "a", "dst": "b"}],
}
QUEUES = [20, 50, 100, 200]  # max_th = 3 queue / 4: never above the queue limit
MIN_TH = [5, 12, 25, 50]
MAX_TH = [15, 37, 75, 150]


def red_zip(**extra: list[int]) -> dict[str, list[int]]:
    return {"link.0.queue": QUEUES, "link.0.qdisc.max_th": MAX_TH, **extra}


def test_zipped_red_thresholds_are_checked_together() -> None:
    # max_th = 15 alone is below the base's min_th = 25; with its zipped min_th = 5 it is fine.
    spec = SweepSpec(base=BASE, zips=[red_zip(**{"link.0.qdisc.min_th": MIN_TH})], replications=3)
    plan = plan_sweep(spec)
    assert (plan.points, plan.total) == (4, 12)
    pairs = [(p.scenario["link"][0]["qdisc"]["min_th"], p.scenario["link"][0]["qdisc"]["max_th"]) for p in
             iter_points(spec)]
    assert pairs == list(zip(MIN_TH, MAX_TH, strict=True))


def test_crossed_factors_are_checked_as_combinations() -> None:
    # min_th = 80 alone is above the base's max_th = 75, but every point also sets max_th above it.
    spec = SweepSpec(base=BASE, factors={"link.0.qdisc.min_th": [80, 90], "link.0.qdisc.max_th": [100, 120]})
    assert len(expand(spec)) == 4


def test_a_refused_point_names_itself_and_each_value_s_origin() -> None:
    spec = SweepSpec(base=BASE, factors={"link.0.qdisc.min_th": [5, 20]}, zips=[red_zip()])
    with pytest.raises(UserError) as e:
        expand(spec)
    assert str(e.value) == (
        "point 5 of 8 (link.0.qdisc.min_th = 20, link.0.queue = 20, link.0.qdisc.max_th = 15): "
        "link[0].qdisc.max_th: must be above min_th (got 15); values: link.0.qdisc.max_th = 15 from "
        "zip[0], link.0.qdisc.min_th = 20 from factor link.0.qdisc.min_th"
    )


def test_a_value_from_the_base_is_named_as_such() -> None:
    spec = SweepSpec(base=BASE, zips=[red_zip()])
    with pytest.raises(UserError, match=r"^point 1 of 4 .*min_th = 25 from the base$"):
        plan_sweep(spec)


def test_a_table_level_is_the_origin_of_its_fields() -> None:
    bad = {"kind": "red", "min_th": 30, "max_th": 20}
    spec = SweepSpec(base=BASE, factors={"tcp.mss": [500, 1000], "link.0.qdisc": [RED, bad]})
    with pytest.raises(UserError) as e:
        expand(spec)
    message = str(e.value)
    assert message.startswith("point 2 of 4 (tcp.mss = 500, link.0.qdisc = ")
    assert "max_th = 20 from factor link.0.qdisc, link.0.qdisc.min_th = 30 from factor link.0.qdisc" in (
        message
    )


def test_a_zipped_path_that_names_no_field_is_named_with_its_group() -> None:
    spec = SweepSpec(base=BASE, zips=[{"tcp.variant": ["reno", "sack"], "tcp.msss": [500, 1000]}])
    expected = r"^zip\[0\] path 'tcp.msss' names no scenario field \(tcp.msss: unknown"
    with pytest.raises(UserError, match=expected):
        plan_sweep(spec)


def test_a_point_over_the_memory_limit_is_named() -> None:
    spec = SweepSpec(base=BASE, factors={"tcp.mss": [500, 1000]})
    with pytest.raises(ScenarioError) as e:
        plan_sweep(spec, max_memory="1KiB")
    assert str(e.value.args[1]).endswith("(at the point tcp.mss = 500)")


def test_cli_dry_run_of_the_red_sweep(tmp_path: Path) -> None:
    spec = tmp_path / "red.toml"
    spec.write_text(
        'base = "base.toml"\nreplications = 3\n[zips]\n'
        f'"link.0.queue" = {QUEUES}\n"link.0.qdisc.min_th" = {MIN_TH}\n"link.0.qdisc.max_th" = {MAX_TH}\n'
    )
    from tcplab.experiment.scenario import dumps

    (tmp_path / "base.toml").write_text(dumps(BASE))
    proc = tcplab("sweep", spec, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "12 runs (4 points x 3 replications)" in proc.stdout


def test_the_old_zip_spelling_works_with_a_warning(tmp_path: Path) -> None:
    from tcplab.errors import DeprecatedInput
    from tcplab.experiment.scenario import dumps
    from tcplab.experiment.spec import load_spec

    (tmp_path / "base.toml").write_text(dumps(BASE))
    old = tmp_path / "old.toml"
    old.write_text(
        f'base = "base.toml"\n[zip]\n"link.0.queue" = {QUEUES}\n"link.0.qdisc.min_th" = {MIN_TH}\n'
        f'"link.0.qdisc.max_th" = {MAX_TH}'
    )
    new = tmp_path / "new.toml"
    new.write_text(old.read_text().replace("[zip]", "[zips]"))
    with pytest.warns(DeprecatedInput, match=r"\[zip\] is now spelled \[zips\]"):
        spec = load_spec(old)
    assert spec.zips == load_spec(new).zips
    proc = tcplab("sweep", old, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"warning: {old}: [zip] is now spelled [zips] (or [[zips]]), as SweepSpec(zips=...); rename it\n"
    )
