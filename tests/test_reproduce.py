"""The reproduce framework on the example study: report, figures, claims.json, index; reruns reuse runs."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import cli
from tcplab.report.study import discover

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_studies_are_discovered() -> None:
    studies = discover()
    assert "example_loss" in studies
    study = studies["example_loss"]
    quick, full = study.sweeps(True), study.sweeps(False)
    assert [s.name for s in quick] == [s.name for s in full]
    assert quick[0].replications < full[0].replications  # quick mode: fewer replications...
    assert quick[0].base["duration"] < full[0].base["duration"]  # ...and shorter runs


def test_reproduce_quick_writes_reports_claims_and_index(tmp_path: Path) -> None:
    # One study keeps this test short; `make reproduce` runs them all (`reproduce all`).
    proc = cli("reproduce", "example_loss", "--quick", "--out", tmp_path, "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "example_loss"
    report = (folder / "report.md").read_text()
    assert "**Quick mode.**" in report and "## Claims" in report and "## Figures" in report
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert pngs == ["cwnd_traces.png", "goodput_vs_loss.png", "timeouts_vs_loss.png"]
    for name in pngs:
        assert f"]({name})" in report
        assert (folder / name).read_bytes()[:8] == PNG_MAGIC
    claims = json.loads((folder / "claims.json").read_text())["claims"]
    assert len(claims) >= 3
    for claim in claims:
        assert {"id", "kind", "claim", "paper", "measured", "holds", "verdict", "refuted_if"} <= set(claim)
        assert claim["holds"] is {"holds": True, "misses": False}.get(claim["verdict"])
    assert len({c["id"] for c in claims}) == len(claims)
    index = (tmp_path / "index.md").read_text()
    assert "[example_loss](example_loss/report.md)" in index and "quick" in index
    assert "example_loss: " in proc.stdout and "claims hold" in proc.stdout

    # A second reproduce reuses every stored run and writes the same claims.
    again = cli("reproduce", "example_loss", "--quick", "--out", tmp_path, "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert json.loads((folder / "claims.json").read_text())["claims"] == claims
    assert "| loss | variant (4), loss (5) | 5 | 100 | 0 | 100 | 0 |" in (folder / "report.md").read_text()


def test_a_folder_where_a_report_goes_is_refused_before_any_run(tmp_path: Path) -> None:
    """It was found only after the sweeps, when the claims were written: minutes of runs, then
    an error. Now nothing runs (no store is made)."""
    for in_the_way in ("example_loss/claims.json", "example_loss/report.md", "index.md"):
        out = tmp_path / in_the_way.replace("/", "_")
        (out / in_the_way).mkdir(parents=True)
        proc = cli("reproduce", "example_loss", "--quick", "--out", out, "--workers", "1")
        assert proc.returncode == 2 and "is a folder; reproduce writes a file there" in proc.stderr
        assert in_the_way in proc.stderr and not (out / "example_loss" / "runs.sqlite").exists()


def test_reproduce_unknown_study_exits_2() -> None:
    proc = cli("reproduce", "nonsense")
    assert proc.returncode == 2
    assert "unknown study 'nonsense' (known: all, " in proc.stderr and "example_loss" in proc.stderr


def test_the_index_explains_the_legacy_rule_only_when_a_study_uses_it() -> None:
    from tcplab.report.markdown import index_markdown

    def entry(legacy: int) -> dict[str, object]:
        paper = {"total": 2, "holds": 1, "misses": 1, "not_separated": 0, "degenerate": 0, "legacy": legacy}
        none = {"total": 0, "holds": 0}
        counts = {"paper": paper, "fitted": none, "analytic": none, "diagnostic": none}
        study = {"name": "s", "title": "t", "paper": "p", "quick": True, "runs": 1, "wall_s": 1.0}
        return {**study, "claim_counts": counts}

    assert "legacy rule" not in index_markdown([entry(0)])
    assert "Claims of the legacy rule" in index_markdown([entry(1)])


def test_a_bad_dask_address_or_out_file_is_refused_before_any_study_begins(tmp_path: Path) -> None:
    """Both were found inside the first study, after "reproducing ..." and an empty study folder."""
    out = tmp_path / "out"
    proc = cli("reproduce", "example_loss", "--quick", "--out", out, "--dask", "foo")
    assert proc.returncode == 2 and "--dask foo: not a scheduler address" in proc.stderr, proc.stderr
    assert "reproducing" not in proc.stderr and not out.exists()
    out.write_text("a file")
    proc = cli("reproduce", "example_loss", "--quick", "--out", out)
    assert proc.returncode == 2 and proc.stderr == f"error: --out: {out} exists and is not a folder\n"
