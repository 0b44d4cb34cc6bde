"""Sweep specs: parsing, factorial and zip expansion, seed and key derivation, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, cli
from tcplab.errors import UserError
from tcplab.experiment.expand import derive_seed, expand, run_key, set_path
from tcplab.experiment.spec import SweepSpec, load_spec

BASE = {
    "name": "two-hosts",
    "duration": "2s",
    "nodes": ["a", "b"],
    "link": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
    "flow": [{"src": "a", "dst": "b", "bytes": "100KB"}, {"src": "a", "dst": "b", "bytes": "50KB"}],
}


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_spec_file_reads_base_factors_zip_and_labels(tmp_path: Path) -> None:
    spec = load_spec(
        write(
            tmp_path,
            f"""
name = "loss"
base = "{REPO / "scenarios" / "lossy_link.toml"}"
replications = 3
seed = 9
[factors]
tcp.variant = ["reno", "sack"]            # an unquoted dotted key is the same path
"link.0.ab.loss.p" = [0.0, 0.01]
[zips]
"link.0.rate" = ["10Mbps", "20Mbps", "40Mbps"]
"link.0.delay" = ["10ms", "5ms", "2ms"]
[labels]
"link.0.ab.loss.p" = "loss"
""",
        )
    )
    assert spec.name == "loss" and spec.replications == 3 and spec.base_seed == 9
    assert dict(spec.factors) == {"tcp.variant": ["reno", "sack"], "link.0.ab.loss.p": [0.0, 0.01]}
    assert spec.columns == ["tcp.variant", "loss", "link.0.rate", "link.0.delay"]
    runs = expand(spec)
    assert len(runs) == 2 * 2 * 3 * 3
    # Factorial order: last axis fastest, replications innermost; zipped paths move together.
    assert runs[0].levels == {
        "tcp.variant": "reno",
        "link.0.ab.loss.p": 0.0,
        "link.0.rate": "10Mbps",
        "link.0.delay": "10ms",
    }
    assert [r.replication for r in runs[:4]] == [0, 1, 2, 0]
    assert runs[3].levels["link.0.rate"] == "20Mbps" and runs[3].levels["link.0.delay"] == "5ms"
    assert {(r.levels["link.0.rate"], r.levels["link.0.delay"]) for r in runs} == {
        ("10Mbps", "10ms"),
        ("20Mbps", "5ms"),
        ("40Mbps", "2ms"),
    }
    last = runs[-1]
    assert last.scenario["tcp"]["variant"] == "sack"
    assert last.scenario["link"][0]["ab"]["loss"]["p"] == 0.01
    assert last.scenario["link"][0]["rate"] == "40Mbps"
    assert len({r.key for r in runs}) == len(runs) and len({r.seed for r in runs}) == len(runs)


def test_inline_base_table_and_array_of_zip_groups(tmp_path: Path) -> None:
    spec = load_spec(
        write(
            tmp_path,
            """
replications = 2
[base]
duration = "1s"
nodes = ["a", "b"]
[[base.link]]
a = "a"
b = "b"
rate = "10Mbps"
[[base.flow]]
src = "a"
dst = "b"
[[zips]]
"link.0.rate" = ["1Mbps", "2Mbps"]
"link.0.queue" = [10, 20]
[[zips]]
"flow.*.bytes" = ["10KB", "20KB"]
"flow.0.start" = [0, 0.5]
""",
        )
    )
    assert spec.name == "spec"  # the file's stem
    runs = expand(spec)
    assert len(runs) == 2 * 2 * 2
    assert runs[-1].scenario["flow"][0] == {"src": "a", "dst": "b", "bytes": "20KB", "start": 0.5}


def test_set_path_creates_tables_and_applies_wildcards() -> None:
    doc = {"nodes": ["a"], "flow": [{"src": "a"}, {"src": "b"}]}
    set_path(doc, "tcp.variant", "sack")
    set_path(doc, "flow.*.tcp.mss", 1000)
    set_path(doc, "flow.1.bytes", "1MB")
    assert doc["tcp"] == {"variant": "sack"}
    assert doc["flow"] == [
        {"src": "a", "tcp": {"mss": 1000}},
        {"src": "b", "tcp": {"mss": 1000}, "bytes": "1MB"},
    ]


def test_seeds_are_stable_and_depend_on_levels_and_replication() -> None:
    # Fixed values: the derivation must never change (stored sweeps rely on it).
    assert derive_seed(1, {"tcp.variant": "reno"}, 0) == derive_seed(1, {"tcp.variant": "reno"}, 0)
    assert derive_seed(1, {"a": 1, "b": 2}, 0) == derive_seed(1, {"b": 2, "a": 1}, 0)
    assert derive_seed(1, {}, 0) == 8610970783403967358
    assert derive_seed(1, {"tcp.variant": "reno"}, 3) == 6217501672072226929
    seeds = {derive_seed(s, {"x": x}, r) for s in (1, 2) for x in (0.0, 0.01) for r in range(5)}
    assert len(seeds) == 20 and all(0 <= s < 2**63 for s in seeds)
    spec = SweepSpec(base=BASE, factors={"tcp.variant": ["reno", "sack"]}, replications=2, seeds="common")
    runs = expand(spec)
    assert [r.seed for r in runs[:2]] == [r.seed for r in runs[2:]]  # common random numbers


def test_run_key_covers_scenario_seed_and_version() -> None:
    k = run_key(BASE, 1, "0.1.0")
    assert k == run_key(dict(reversed(list(BASE.items()))), 1, "0.1.0")  # key order is irrelevant
    assert k != run_key(BASE, 2, "0.1.0")
    assert k != run_key(BASE, 1, "0.2.0")
    assert k != run_key({**BASE, "duration": "3s"}, 1, "0.1.0")
    assert len(k) == 64


def test_python_spec_checks_its_shape() -> None:
    with pytest.raises(UserError, match="levels is empty"):
        SweepSpec(base=BASE, factors={"tcp.variant": []})
    with pytest.raises(UserError, match="same length"):
        SweepSpec(base=BASE, zips=[{"link.0.rate": ["1Mbps"], "link.0.queue": [1, 2]}])
    with pytest.raises(UserError, match="replications"):
        SweepSpec(base=BASE, replications=0)
    with pytest.raises(UserError, match="listed twice"):
        SweepSpec(base=BASE, factors={"tcp.variant": ["reno", "reno"]})
    with pytest.raises(UserError, match="names no scenario field"):
        expand(SweepSpec(base=BASE, factors={"tcp.varient": ["reno"]}))


def test_paths_that_set_different_fields_may_share_a_prefix() -> None:
    spec = SweepSpec(
        base=BASE,
        factors={"link.*.rate": ["1Mbps", "2Mbps"], "link.0.delay": ["1ms", "5ms"], "flow.0.bytes": ["1KB"]},
        zips=[{"flow.1.bytes": ["2KB", "3KB"], "tcp.mss": [500, 1000]}],
    )
    assert len(expand(spec)) == 8


def test_a_spec_keeps_its_own_copy_of_the_levels() -> None:
    levels = ["reno", "sack"]
    zipped = {"link.0.rate": ["1Mbps", "2Mbps"]}
    spec = SweepSpec(base=BASE, factors={"tcp.variant": levels}, zips=[zipped])
    levels.append("reno")  # a duplicate the checks never saw
    zipped["link.0.rate"].clear()
    runs = expand(spec)
    assert sorted({r.levels["tcp.variant"] for r in runs}) == ["reno", "sack"]
    assert len(runs) == 4


GOOD_HEAD = f'base = "{REPO / "scenarios" / "lossy_link.toml"}"\n'

BAD_SPECS = {
    "not_toml": ("base = \n[factors", "not valid TOML"),
    "unknown_key": (GOOD_HEAD + "replication = 3\n", "replication: unknown key"),
    "no_base": ("[factors]\n'tcp.variant' = ['reno']\n", "base: missing"),
    "missing_base_file": ('base = "no/such.toml"\n', "base: cannot read"),
    "unknown_factor": (
        GOOD_HEAD + '[factors]\n"tcp.variant" = ["reno"]\n[labels]\n"tcp.mss" = "mss"\n',
        "labels.tcp.mss: unknown factor",
    ),
    "no_such_field": (
        GOOD_HEAD + '[factors]\n"tcp.variantt" = ["reno"]\n',
        "factor 'tcp.variantt' names no scenario field",
    ),
    "index_out_of_range": (
        GOOD_HEAD + '[factors]\n"link.3.rate" = ["1Mbps"]\n',
        "factor 'link.3.rate' names no scenario field: 'link.3': index 3 is out of range",
    ),
    "empty_levels": (
        GOOD_HEAD + '[factors]\n"tcp.variant" = []\n',
        "factors.tcp.variant: the list of levels is empty",
    ),
    "zip_lengths": (
        GOOD_HEAD + '[zips]\n"link.0.rate" = ["1Mbps", "2Mbps"]\n"link.0.delay" = ["1ms"]\n',
        "zipped lists must have the same length (link.0.rate has 2, link.0.delay has 1)",
    ),
    "zip_and_zips": (
        GOOD_HEAD + '[zip]\n"link.0.rate" = ["1Mbps"]\n[zips]\n"link.0.delay" = ["1ms"]\n',
        "zip: give zipped groups as [[zips]] only",
    ),
    "bad_level": (
        GOOD_HEAD + '[factors]\n"tcp.variant" = ["reno", "cubicle"]\n',
        "point 2 of 2 (tcp.variant = \"cubicle\"): tcp.variant: unknown variant 'cubicle'",
    ),
    "levels_not_a_list": (GOOD_HEAD + '[factors]\n"tcp.variant" = "reno"\n', "levels must be a list"),
    # A table level would replace the whole table, the finer path's levels with it.
    "table_over_its_field": (
        GOOD_HEAD + '[factors]\n"tcp.mss" = [500, 1460]\n"tcp" = [{variant = "reno"}, {variant = "sack"}]\n',
        "factors.tcp: overlaps 'tcp.mss', also varied",
    ),
    "wildcard_over_an_index": (
        GOOD_HEAD + '[factors]\n"link.0.rate" = ["10Mbps"]\n[[zips]]\n"link.*.rate" = ["20Mbps"]\n',
        "zip[0].link.*.rate: overlaps 'link.0.rate', also varied",
    ),
    "seed_as_a_factor": (
        GOOD_HEAD + '[factors]\nseed = [1, 2, 3]\n',
        "factors.seed: the sweep sets every run's seed",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_spec_exits_2_naming_the_problem(tmp_path: Path, case: str) -> None:
    text, expected = BAD_SPECS[case]
    spec = write(tmp_path, text)
    proc = cli("sweep", spec, "--store", tmp_path / "s.sqlite")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {spec}: ")
    assert expected in proc.stderr
    assert not (tmp_path / "s.sqlite").exists()  # nothing ran


def test_bad_sweep_arguments_exit_2(tmp_path: Path) -> None:
    spec = write(tmp_path, GOOD_HEAD + '[factors]\n"tcp.variant" = ["reno"]\n')
    proc = cli("sweep", spec, "--workers", "0")
    assert proc.returncode == 2 and "--workers" in proc.stderr
    proc = cli("sweep", tmp_path / "missing.toml")
    assert proc.returncode == 2 and "no such file" in proc.stderr
    proc = cli("sweep", spec, "--store", tmp_path / "s.sqlite", "--dask", "nonsense")
    assert proc.returncode == 2 and "--dask nonsense: not a scheduler address" in proc.stderr


def test_example_spec_runs_and_writes_csv(tmp_path: Path) -> None:
    spec = REPO / "scenarios" / "sweeps" / "loss_variants.toml"
    proc = cli(
        "sweep", spec, "--store", tmp_path / "s.sqlite", "--csv", tmp_path / "s.csv", "--workers", "2"
    )
    assert proc.returncode == 0, proc.stderr
    assert "45 runs (9 points x 5 replications): 45 ran" in proc.stdout
    header = (tmp_path / "s.csv").read_text().splitlines()[0].split(",")
    assert header[:6] == ["key", "sweep", "status", "error", "variant", "loss"]
    proc = cli("anova", tmp_path / "s.csv", "--response", "total_goodput_bps", "--factors", "variant,loss")
    assert proc.returncode == 0, proc.stderr
    assert "5 replications per combination" in proc.stdout
