"""Paper claims that have no can-fail fixture yet, by study: the one place that lists them.

tests/test_claims_can_fail.py reports each as a skipped test naming its issue (run pytest with
``-rs`` to list them), and fails on a paper claim that is neither covered by the study's
``can_fail()`` nor listed here, or on an entry here that the study no longer makes. The three
studies are being reworked under their own issues; each entry leaves this file when its study
declares a fixture for it (the claim function, with the paper's own numbers and/or a refuting
input; see docs/experiments.md).
"""

from __future__ import annotations

PENDING: dict[str, tuple[str, tuple[str, ...]]] = {}
