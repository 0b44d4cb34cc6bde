"""Every study package follows the one study interface, and the CLI finds studies by discovery."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from tcplab.report.claims import RULE, SUBKINDS, VERDICTS, about, proportion
from tcplab.report.study import KINDS, Claim, Paper, Study, discover

PKG = Path(__file__).resolve().parents[1] / "python" / "tcplab"
STUDIES = discover()
# Studies still being converted to the package shape on their own branch: their own tests run
# them on a tiny grid until they declare ``tiny``.
PENDING_TINY: set[str] = set()


def test_the_known_studies_are_discovered() -> None:
    assert {"example_loss", "hfc", "boston"} <= set(STUDIES)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_study_declares_the_interface(name: str) -> None:
    study = STUDIES[name]
    assert isinstance(study, Study) and study.name == name
    assert study.papers and all(isinstance(p, Paper) and 1900 < p.year < 2100 for p in study.papers)
    assert "seed 0" not in study.paper.lower() and "seed 0" not in study.title.lower()
    quick, full = study.sweeps(True), study.sweeps(False)
    assert [s.name for s in quick] == [s.name for s in full]
    assert len({s.name for s in quick}) == len(quick)
    assert sum(s.replications for s in quick) <= sum(s.replications for s in full)
    assert not study.quick_note.lower().startswith("quick mode")  # the report says it once
    assert (PKG / "studies" / name / "__init__.py").is_file()  # a package, not a module


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_study_runs_tiny_and_labels_every_claim(name: str, tiny_reproduction) -> None:
    study = STUDIES[name]
    if study.tiny is None:
        assert name in PENDING_TINY, f"study {name} declares no tiny() test hook"
        pytest.skip(f"{name}: converted on its own branch; its own tests run it tiny")
    out = tiny_reproduction(name)
    doc = json.loads(out.claims.read_text())
    claims = doc["claims"]
    assert claims and len({c["id"] for c in claims}) == len(claims)
    for c in claims:
        assert c["kind"] in KINDS, c
        assert {"id", "kind", "claim", "paper", "measured", "holds", "verdict", "refuted_if"} <= set(c)
        assert c["verdict"] in VERDICTS
        assert c["holds"] is {"holds": True, "misses": False}.get(c["verdict"])
        assert c["kind"] != "paper" or c["subkind"] in SUBKINDS
        assert ("tolerance" in c) == (c.get("tolerance") is not None)
    counts = doc["counts"]
    assert counts["total"] == len(claims)
    assert sum(counts[k]["total"] for k in KINDS) == len(claims)
    paper = counts["paper"]
    assert paper["total"] == out.claims_total and paper["holds"] == out.claims_holding
    assert paper["total"] == paper["holds"] + paper["misses"] + paper["not_separated"] + paper["degenerate"]
    meta = json.loads((out.folder / "study.json").read_text())
    assert meta["mode"] == "quick" and meta["tcplab_version"]
    assert meta["claim_counts"] == doc["counts"] and meta["headline"] == doc["headline"] == out.headline
    report = out.report.read_text()
    assert "Quick mode. Quick mode" not in report and "**Quick mode.**" in report
    assert out.headline.capitalize() in report and RULE in report
    for fig in out.figures:
        assert fig.is_file() and f"]({fig.name})" in report


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_cli_imports_no_study() -> None:
    imported = _imports(PKG / "cli.py")
    assert not [m for m in imported if m.startswith("tcplab.studies")], imported


def test_no_study_imports_the_cli() -> None:
    for path in (PKG / "studies").rglob("*.py"):
        assert "tcplab.cli" not in _imports(path), path


def test_study_commands_are_mounted_by_discovery() -> None:
    from tcplab.cli import app
    from typer.testing import CliRunner

    with_cli = [s.name for s in STUDIES.values() if s.cli is not None]
    assert {"hfc", "boston"} <= set(with_cli)
    for name in with_cli:
        result = CliRunner().invoke(app, [name, "--help"])
        assert result.exit_code == 0, result.output


def test_claim_needs_a_valid_kind() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        Claim("x", "text", 1, 1, True, kind="guess")
    with pytest.raises(TypeError):
        Claim("x", "text", 1, 1, True)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="subkind"):
        Claim("x", "text", 1, 1, True, kind="paper")
    with pytest.raises(ValueError, match="contradicts"):
        Claim("x", "text", 1, 1, True, kind="diagnostic", verdict="misses")


def test_legacy_kinds_are_paper_claims_of_that_form() -> None:
    c = Claim("x", "text", 1, 1, False, kind="value")
    assert (c.kind, c.subkind, c.verdict, c.rule) == ("paper", "value", "misses", "legacy")


def test_about_policy() -> None:
    assert about(1.2, 1.0) and not about(1.3, 1.0)
    assert about(2, 1, count=True) and not about(3, 1, count=True)
    assert about(12, 11, count=True) and not about(14, 11, count=True)


def test_legacy_proportion_uses_a_binomial_test() -> None:
    assert proportion("p", "one in five", 0.2, 21, 100).holds
    rejected = proportion("p", "one in five", 0.2, 45, 100)
    assert not rejected.holds and rejected.subkind == "proportion" and rejected.measured["p_value"] < 0.05
    assert proportion("p", "none", 0.2, 0, 0).verdict == "degenerate"
