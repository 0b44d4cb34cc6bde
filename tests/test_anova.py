"""Jain's factorial analysis against Goyal et al. (1998): Tables 4 and 7 in, 5/6 and 8/9 out.

Tables 4 and 7 (the efficiency and fairness of each TCP flavour x buffer size x drop policy
combination, WAN and MEO) are transcribed in tests/data. The expected values are the paper's
printed Tables 5, 6, 8 and 9, imported from the satellite study's paper.py (typed in once, for
the study and this test); each computed value must match to within one unit of the last
printed digit. (The paper truncates rather than rounds in places: SSY = 18.626667 is
printed 18.6266, se = 0.047260 as 0.0472; one unit of tolerance covers both.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import cli
from tcplab.analysis.anova import AnovaResult, factorial_anova
from tcplab.studies.satellite.paper import ALLOCATION, EFFECTS

DATA = Path(__file__).parent / "data"
FACTORS = ["tcp", "buffer", "drop_policy"]
# The first-order interactions, named as factorial_anova and paper.ALLOCATION name them.
PAIRS = ("tcp x buffer", "tcp x drop_policy", "buffer x drop_policy")
FILES = {"wan": "goyal98_table4_wan.csv", "meo": "goyal98_table7_meo.csv"}
RESPONSES = ("efficiency", "fairness")
UNIT_SS = 1.000001e-4  # the last printed digit of 4-decimal values (float slack)
UNIT_PCT = 1.000001e-2


def analyse(link: str, response: str) -> AnovaResult:
    return factorial_anova(pd.read_csv(DATA / FILES[link]), response, FACTORS)


@pytest.mark.parametrize("link", ["wan", "meo"])
@pytest.mark.parametrize("i", [0, 1], ids=RESPONSES)
def test_allocation_of_variation_matches_tables_5_and_8(link: str, i: int) -> None:
    a = analyse(link, RESPONSES[i])
    paper = ALLOCATION[link]
    assert a.n == 24 and a.replications == 1 and a.dof_e == 6
    assert a.ss_y == pytest.approx(paper["ssy"][i], abs=UNIT_SS)
    assert a.ss_0 == pytest.approx(paper["ss0"][i], abs=UNIT_SS)
    assert a.ss_t == pytest.approx(paper["sst"][i], abs=UNIT_SS)
    assert a.se == pytest.approx(paper["se"][i], abs=UNIT_SS)
    for name in ("tcp", "buffer", "drop_policy", *PAIRS):
        c = a.component(*name.split(" x "))
        ss, pct = paper[name][i], paper[name][2 + i]
        assert c.ss == pytest.approx(ss, abs=UNIT_SS), name
        assert c.percent == pytest.approx(pct, abs=UNIT_PCT), name
    assert [c.dof for c in a.components] == [3, 2, 1, 6, 3, 2]


@pytest.mark.parametrize("link", ["wan", "meo"])
@pytest.mark.parametrize("i", [0, 1], ids=RESPONSES)
def test_main_effects_and_intervals_match_tables_6_and_9(link: str, i: int) -> None:
    a = analyse(link, RESPONSES[i])
    assert a.t_quantile == pytest.approx(1.943, abs=5e-4)  # t[0.95; 6]
    for (factor, level), values in EFFECTS[link].items():
        effect, low, high = values[i]
        e = a.effect(factor, level)
        assert e.effect == pytest.approx(effect, abs=UNIT_SS), (factor, level)
        assert e.ci_low == pytest.approx(low, abs=UNIT_SS), (factor, level)
        assert e.ci_high == pytest.approx(high, abs=UNIT_SS), (factor, level)
        if min(abs(low), abs(high)) >= UNIT_SS:  # the printed interval clearly holds or excludes 0
            assert e.significant == (not low <= 0 <= high), (factor, level)


@pytest.mark.parametrize("link", ["wan", "meo"])
@pytest.mark.parametrize("response", RESPONSES)
def test_sums_of_squares_agree_with_statsmodels(link: str, response: str) -> None:
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    df = pd.read_csv(DATA / FILES[link])
    a = factorial_anova(df, response, FACTORS)
    formula = f"{response} ~ (C(tcp) + C(buffer) + C(drop_policy)) ** 2"
    table = anova_lm(smf.ols(formula, data=df).fit(), typ=2)
    names = {
        ("tcp",): "C(tcp)",
        ("buffer",): "C(buffer)",
        ("drop_policy",): "C(drop_policy)",
        ("tcp", "buffer"): "C(tcp):C(buffer)",
        ("tcp", "drop_policy"): "C(tcp):C(drop_policy)",
        ("buffer", "drop_policy"): "C(buffer):C(drop_policy)",
    }
    for c in a.components:
        row = table.loc[names[c.factors]]
        assert c.ss == pytest.approx(row["sum_sq"], rel=1e-9, abs=1e-12)
        assert c.dof == row["df"]
    assert a.ss_e == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-9)
    assert a.dof_e == table.loc["Residual", "df"]
    # The parts add up to the total variation.
    assert sum(c.ss for c in a.components) + a.ss_e == pytest.approx(a.ss_t, rel=1e-12)


def test_replicated_design_and_no_interactions() -> None:
    df = pd.read_csv(DATA / FILES["wan"])
    doubled = pd.concat([df, df.assign(efficiency=df["efficiency"] + 0.01)])
    a = factorial_anova(doubled, "efficiency", FACTORS)
    assert a.replications == 2 and a.n == 48 and a.dof_e == 48 - 1 - 6 - 11
    single = factorial_anova(df, "efficiency", FACTORS)
    assert a.component("tcp").ss == pytest.approx(2 * single.component("tcp").ss)
    b = factorial_anova(df, "efficiency", FACTORS, interactions=False)
    assert b.dof_e == 24 - 1 - 6 and len(b.components) == 3
    assert b.ss_e == pytest.approx(single.ss_e + sum(c.ss for c in single.components[3:]))


def test_the_allocation_does_not_move_with_the_responses_offset() -> None:
    """SST was SSY - SS0: at a mean of 1e9 (goodput in b/s) and a spread of tenths, the two
    cancelled to 0 and every share was NaN (at 1e7 the shares summed to 101%)."""
    df = pd.read_csv(DATA / FILES["wan"])
    plain = factorial_anova(df, "efficiency", FACTORS)
    for offset in (1e7, 1e9):
        shifted = factorial_anova(df.assign(efficiency=df["efficiency"] + offset), "efficiency", FACTORS)
        assert shifted.ss_t == pytest.approx(plain.ss_t, rel=1e-6), offset
        for c in plain.components:
            moved = shifted.component(*c.factors).percent
            assert moved == pytest.approx(c.percent, abs=1e-3), (offset, c.name)


def test_cli_anova_prints_tables_and_json() -> None:
    path = DATA / FILES["wan"]
    proc = cli("anova", path, "--response", "efficiency", "--factors", "tcp,buffer,drop_policy")
    assert proc.returncode == 0, proc.stderr
    assert "57.50" in proc.stdout and "Allocation of variation" in proc.stdout
    assert "90% confidence intervals" in proc.stdout and "-0.162696" in proc.stdout
    proc = cli("anova", path, "--response", "fairness", "--factors", "tcp,buffer,drop_policy", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["dof_e"] == 6 and out["se"] == pytest.approx(0.0472, abs=1e-4)
    assert {c["name"] for c in out["components"]} >= {"tcp", "tcp x buffer"}
    assert {"factor", "level", "effect", "ci_low", "ci_high", "significant"} <= set(out["effects"][0])


@pytest.mark.parametrize(
    ("csv", "args", "expected"),
    [
        ("a,b,y\nx,p,1\n", ["--response", "z", "--factors", "a,b"], "no column named 'z'"),
        ("a,b,y\nx,p,1\n", ["--response", "y", "--factors", "a,c"], "no column named 'c' (columns: a, b, y)"),
        ("a,b,y\nx,p,1\nx,q,oops\n", ["--response", "y", "--factors", "a,b"], "not a number in row 2"),
        ("a,b,y\nx,p,1\nx,q,2\ny,p,3\n", ["--response", "y", "--factors", "a,b"], "not a full factorial"),
        ("", ["--response", "y", "--factors", "a"], "the file is empty"),
    ],
)
def test_cli_anova_bad_input_exits_2(tmp_path: Path, csv: str, args: list[str], expected: str) -> None:
    path = tmp_path / "data.csv"
    path.write_text(csv)
    proc = cli("anova", path, *args)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.startswith(f"error: {path}: ")
    assert expected in proc.stderr
