from __future__ import annotations

import pytest

from verification.claims.extraction import extract_claims
from verification.types import Severity


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("The Pro plan costs $20 per month.", Severity.CRITICAL),
        ("Adults can take 2 tablets every 6 hours.", Severity.CRITICAL),
        ("You are eligible for a full refund.", Severity.CRITICAL),
        ("The device comes with a warranty.", Severity.CRITICAL),
        ("Your costs will be reimbursed.", Severity.CRITICAL),
        ("Version 4.2 was released in 2024.", Severity.MODERATE),
        ("The office is in Lisbon.", Severity.MODERATE),
        ("the interface feels calm and tidy.", Severity.MINOR),
    ],
)
def test_severity(text, severity):
    (claim,) = extract_claims(text)
    assert claim.severity is severity
