"""Every paper claim can fail: its claim function holds on the paper's own numbers and misses on
a refuting input, run without simulating (``Study.can_fail``, ``tcplab.report.claims.CanFail``).

A study that has not declared its fixtures yet lists its paper claims in
``claims_pending_can_fail.PENDING``: each is reported here as a skipped test naming its issue,
never passed silently. Every paper claim a study emits (in its tiny reproduction) must have a
fixture or be listed as pending.
"""

from __future__ import annotations

import json
import math

import pytest
from claims_pending_can_fail import PENDING
from tcplab.report.claims import HOLDS, MISSES, CanFail, Claim
from tcplab.report.study import discover

STUDIES = discover()


def _fixtures() -> list[tuple[str, str, CanFail | None]]:
    out: list[tuple[str, str, CanFail | None]] = []
    for name, study in sorted(STUDIES.items()):
        for f in study.can_fail() if study.can_fail else []:
            out.append((name, f.claim, f))
        issue, ids = PENDING.get(name, ("", ()))
        out += [(name, cid, None) for cid in ids]
    return out


FIXTURES = _fixtures()


def _run(f: CanFail, inputs) -> Claim:
    claim = f.judge(**inputs)
    assert isinstance(claim, Claim)
    assert claim.id == f.claim, f"the fixture of {f.claim} runs the function of {claim.id}"
    assert claim.kind == "paper", f"{claim.id}: a can-fail fixture is for paper claims, got {claim.kind}"
    return claim


@pytest.mark.parametrize(("study", "claim", "fixture"), FIXTURES, ids=[f"{s}:{c}" for s, c, _ in FIXTURES])
def test_paper_claim_holds_on_the_papers_numbers_and_misses_on_refuting_input(
    study: str, claim: str, fixture: CanFail | None
) -> None:
    if fixture is None:
        issue = PENDING[study][0]
        pytest.skip(f"{study}:{claim}: no can-fail fixture yet (pending, {issue})")
    if fixture.paper is not None:
        c = _run(fixture, fixture.paper)
        assert c.verdict == HOLDS, f"{claim} on the paper's own numbers: {c.verdict} ({c.refuted_if})"
    if fixture.satisfying is not None:
        c = _run(fixture, fixture.satisfying)
        assert c.verdict == HOLDS, f"{claim} on an input that satisfies it: {c.verdict} ({c.refuted_if})"
    if fixture.refuting is not None:
        c = _run(fixture, fixture.refuting)
        assert c.verdict == MISSES, f"{claim} on a refuting input: {c.verdict}, not a miss"


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_fixtures_name_each_claim_once(study: str) -> None:
    s = STUDIES[study]
    ids = [f.claim for f in s.can_fail()] if s.can_fail else []
    pending = list(PENDING.get(study, ("", ()))[1])
    assert len(set(ids)) == len(ids), f"{study}: a claim has two fixtures"
    assert not set(ids) & set(pending), f"{study}: a claim has a fixture and is still listed as pending"
    assert ids or pending or study not in PENDING, study


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_every_paper_claim_has_a_fixture_or_is_pending(study: str, tiny_reproduction) -> None:
    s = STUDIES[study]
    if s.tiny is None:
        pytest.skip(f"{study} declares no tiny() hook")
    doc = json.loads(tiny_reproduction(study).claims.read_text())
    paper = {c["id"] for c in doc["claims"] if c["kind"] == "paper"}
    covered = {f.claim for f in s.can_fail()} if s.can_fail else set()
    pending = set(PENDING.get(study, ("", ()))[1])
    assert not paper - covered - pending, (
        f"{study}: paper claims with no can-fail fixture: {paper - covered - pending}"
    )
    assert not covered - paper, (
        f"{study}: fixtures of claims the study does not make as paper claims: {covered - paper}"
    )
    stale = pending - paper
    assert not stale, f"{study}: claims listed as pending that the study no longer makes: {stale}"


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_claims_json_is_strict_json(study: str, tiny_reproduction) -> None:
    """claims.json and study.json parse with a parser that refuses NaN and infinities."""
    if STUDIES[study].tiny is None:
        pytest.skip(f"{study} declares no tiny() hook")

    def refuse(name: str) -> float:
        raise ValueError(f"{study}: strict JSON has no {name}")

    out = tiny_reproduction(study)
    json.loads(out.claims.read_text(), parse_constant=refuse)
    json.loads((out.folder / "study.json").read_text(), parse_constant=refuse)


def test_strict_json_writes_nan_as_null_and_refuses_what_it_cannot() -> None:
    from tcplab.report.reproduce import strict_json

    def refuse(name: str) -> float:
        raise ValueError(name)

    text = strict_json({"a": math.nan, "b": [1.0, math.inf], "c": {"d": -math.inf}})
    assert json.loads(text, parse_constant=refuse) == {"a": None, "b": [1.0, None], "c": {"d": None}}
    with pytest.raises(ValueError):
        json.loads('{"a": NaN}', parse_constant=refuse)
