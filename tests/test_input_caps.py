"""Issue 27, item 2 (Python side): the input caps count every spelling of a flow, a pair or a
table before the parse, and a sweep's parent process does not grow with the size of a point.

Each bomb below took 1.2-2.6 GB before these counts (measured with `tcplab run --max-memory 1GB`
on the issue's files); each must now be refused in one line while the CLI stays small (the
child's own VmHWM, as in test_cli_memory).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tcplab import _core
from tcplab.experiment import runner
from tcplab.experiment.expand import Run
from tcplab.experiment.input_limits import (
    MAX_FLOWS,
    MAX_KEY_PARTS,
    MAX_TABLES,
    check_scenario_text,
    count_flows,
)
from test_cli_memory import HEAD, LIMIT_KIB, cli_peak

TOP = 'duration = "1s"\nnodes = ["a", "b"]\n'
LINK = '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "10ms"\n'


def _name(i: int) -> str:
    """Distinct short key names: a, b, ..., z, ba, bb, ..."""
    s = ""
    while True:
        s = chr(97 + i % 26) + s
        i //= 26
        if i == 0:
            return "t" + s


BOMBS = {
    # The reproducer: a quoted key holding 900,000 inline flows (2.3 GB before).
    "quoted_key": TOP + '"flow" = [' + '{src="a",dst="b"},' * 900_000 + "]\n" + LINK,
    "quoted_header": HEAD + '[["flow"]]\nsrc="a"\ndst="b"\n' * 300_000,
    "escaped_header": HEAD + '[["\\u0066low"]]\n' * 300_000,
    "inline_pairs": TOP + "[www]\npair = [" + '{client="a",server="b"},' * 130_000 + "]\n" + LINK,
    "dotted_tables": TOP + "".join(f"{_name(i)}.x=1\n" for i in range(600_000)) + LINK,
    "inline_tables": TOP + "".join(f"{_name(i)}={{}}\n" for i in range(600_000)) + LINK,
    "long_key": TOP + ".".join(["k"] * 200_000) + " = 1\n",
    "long_header": TOP + "[" + ".".join(["k"] * 200_000) + "]\n",
}
SAYS = {
    "quoted_key": "flow: 900,000 flows, more than the 250,000",
    "quoted_header": "flow: 300,000 flows",
    "escaped_header": "flow: 300,000 flows",
    "inline_pairs": "flow: 260,000 flows",
    "dotted_tables": "scenario: about 600,001 tables",
    "inline_tables": "scenario: about 600,001 tables",
    "long_key": "scenario: a key or table name of more than 32 dotted parts",
    "long_header": "scenario: a key or table name of more than 32 dotted parts",
}


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_every_spelling_is_refused_before_the_parse_in_little_memory(tmp_path: Path, bomb: str) -> None:
    path = tmp_path / f"{bomb}.toml"
    path.write_text(BOMBS[bomb])
    status, lines, peak, _, _ = cli_peak("run", path, "--max-memory", "1GB")
    assert status == 2 and len(lines) == 1 and SAYS[bomb] in lines[0], lines
    assert peak < LIMIT_KIB, f"peak {peak / 1024:.0f} MB"


@pytest.mark.parametrize(
    ("text", "flows"),
    [
        ("[[flow]]\n[[ flow ]]\n[[ 'flow' ]]\n[[\"flow\"]] # c\n", 4),
        ('[["\\u0066low"]]\n', 1),
        ("[[base.flow]]\n[[ \"base\" . 'flow' ]]\n", 2),
        ("[[www.pair]]\n[[www.'pair']]\n", 4),
        ('"flow" = [{src = "a"}, {src = "b"}]\n', 2),
        ("'flow' = [{}]\n", 1),
        ("base.flow = [{}, {}]\n", 2),
        ("base = {flow = [{}, {}, {}]}\n", 4),  # the {} of base itself counts: an upper bound
        ("[www]\npair = [{}, {}]\n", 4),
        ('www.pair = [{client = "a", server = "b"}]\n', 2),
        ('"\\u0066low" = [{}]\n', 2),  # escapes: any {} may be a pair
        ("[[link]]\nloss = {model = 'none'}\n[[flowers]]\noutflow = 1\n", 0),
        ('x = "flow"\ny = "[[flow]]"\n', 0),
    ],
)
def test_flow_counts_cover_every_spelling(text: str, flows: int) -> None:
    assert count_flows(text) == flows


def test_the_table_and_key_caps_are_exact() -> None:
    dotted = "".join(f"{_name(i)}.x = 1\n" for i in range(MAX_TABLES))
    check_scenario_text(dotted)
    with pytest.raises(_core.ScenarioError, match="tables"):
        check_scenario_text(dotted + "zz.y = 2\n")
    with pytest.raises(_core.ScenarioError, match="tables"):
        check_scenario_text("x = [" + "{}," * (MAX_TABLES + 1) + "]\n")
    deep = ".".join(["k"] * MAX_KEY_PARTS)
    check_scenario_text(f"{deep} = 1\n[{deep}]\n")
    quoted = '"a.b.c.d.e.f.g.h.i.j".' + ".".join(["k"] * (MAX_KEY_PARTS - 1))
    check_scenario_text(f"{quoted} = 1\n")  # a quoted part is one part, dots and all
    for text in (f"{deep}.k = 1\n", f"[{deep}.k]\n", f"x = {{{deep}.k = 1}}\n"):
        with pytest.raises(_core.ScenarioError, match="dotted parts"):
            check_scenario_text(text)


def test_shipped_scenarios_and_a_scenario_at_the_flow_cap_pass() -> None:
    from tcplab.experiment.examples import list_examples

    for example in list_examples():
        check_scenario_text(example.path.read_text(encoding="utf-8"))
    at_cap = HEAD + '[[flow]]\nsrc = "a"\ndst = "b"\ntcp = {mss = 1000}\n' * MAX_FLOWS
    check_scenario_text(at_cap)


# ---------------------------------------------------------------- the sweep parent


def test_a_dry_run_with_common_seeds_does_not_grow_with_the_levels(tmp_path: Path) -> None:
    # 400 points whose levels are 400 kB each: the check for equal points used to keep every
    # point's levels as text (160 MB here; 3.8 GB in the case), now an int per point.
    (tmp_path / "base.toml").write_text(HEAD + '[[flow]]\nsrc = "a"\ndst = "b"\nbytes = 1000\n')
    names = ", ".join(f'"{i:03d}{"x" * 400_000}"' for i in range(20))
    mss = ", ".join(str(500 + i) for i in range(20))
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'name = "big_levels"\nbase = "base.toml"\nseeds = "common"\n[factors]\nname = [{names}]\n'
        f'"tcp.mss" = [{mss}]\n'
    )
    status, lines, peak, _, out = cli_peak("sweep", spec, "--dry-run")
    assert status == 0 and "400 runs (400 points x 1 replication)" in out, lines
    assert peak < 120 * 1024, f"peak {peak / 1024:.0f} MB"


def test_a_sweep_of_big_points_runs_in_bounded_memory(tmp_path: Path) -> None:
    # The case at 1/32 of its size: a base with a 4 MB name. Every batch held all its
    # points' texts (1,024 points: 4 GB, a MemoryError); now a batch stops at BATCH_BYTES.
    # Measured: 338 MB before, 159 MB after for these 32 points (the 1,024: see docs).
    name = "x" * 4_000_000
    (tmp_path / "base.toml").write_text(
        f'name = "{name}"\n'
        + HEAD.replace('"1s"', '"10ms"')
        + '[[flow]]\nsrc = "a"\ndst = "b"\nbytes = 1000\n'
    )
    mss = ", ".join(str(500 + i) for i in range(32))
    spec = tmp_path / "spec.toml"
    spec.write_text(f'name = "big_points"\nbase = "base.toml"\n[factors]\n"tcp.mss" = [{mss}]\n')
    store = tmp_path / "s.sqlite"
    status, lines, peak, _, out = cli_peak(
        "sweep", spec, "--store", store, "-q", "--workers", "2", timeout=300
    )
    for leftover in tmp_path.glob("s.sqlite*"):
        leftover.unlink()  # 32 rows of 8 MB: not kept in pytest's temporary folders
    assert status == 0 and "32 ran" in out, lines
    assert peak < 220 * 1024, f"peak {peak / 1024:.0f} MB"


def _run(text: str, i: int) -> Run:
    return Run(key=f"{i:064x}", levels={}, replication=0, seed=i, scenario={}, text=text)


def test_a_batch_is_bounded_by_its_scenario_text_not_only_its_run_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner, "BATCH_BYTES", 1000)
    monkeypatch.setattr(runner, "BATCH", 50)
    big = [_run("x" * 400 + str(i), i) for i in range(7)]  # 400-byte points: 3 to a batch
    assert [len(b) for b in runner._batches(big)] == [3, 3, 1]
    shared = "y" * 400  # replications of one point share their text: counted once
    assert [len(b) for b in runner._batches([_run(shared, i) for i in range(120)])] == [50, 50, 20]


def test_result_tables_keep_keys_and_levels_not_scenarios(tmp_path: Path) -> None:
    import tcplab
    from test_sweep_run import small_spec

    result = tcplab.sweep(small_spec(), store=tmp_path / "s.sqlite", workers=1)
    assert len(result.df) == 8
    assert all(not hasattr(r, "text") for r in result._index)
    assert "runs" not in result.__dict__, "the df did not expand every run's scenario"
