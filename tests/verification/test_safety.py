"""The loop's two promises on every demo case and on our own set: no PERMIT whose final answer still
holds a failing claim, and no supported claim removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verification.engine import check_case
from verification.types import Case, State, Terminal

ROOT = Path(__file__).resolve().parents[2]
CASE_FILES = [
    ROOT / "verification" / "demo_cases.json",
    ROOT / "reviewconsole" / "intake" / "fixtures" / "demo_cases.json",
    Path(__file__).parent / "fixtures" / "repair_cases.json",
]
CASES = [case for path in CASE_FILES for case in json.loads(path.read_text(encoding="utf-8"))]


def test_the_case_set_is_not_empty() -> None:
    assert len(CASES) >= 18


@pytest.mark.parametrize("raw", CASES, ids=[case["external_id"] for case in CASES])
@pytest.mark.parametrize("repair", ["auto", "omit"])
def test_no_unsafe_permit_and_no_supported_claim_removed(raw: dict, repair: str) -> None:
    record = check_case(Case.model_validate(raw), repair=repair)

    final = record.candidates[-1]
    if record.terminal is Terminal.PERMIT:
        assert all(claim.state in (State.SUPPORTED, State.NOT_VERIFIABLE) for claim in final.claims)
        assert all(verdict.passed is not False for verdict in final.rule_verdicts)
    assert record.metrics.supported_removed == 0
    original_supported = {c.id for c in record.candidates[0].claims if c.state is State.SUPPORTED}
    final_supported = {c.id for c in final.claims if c.state is State.SUPPORTED}
    assert original_supported <= final_supported
    for repair_record in record.repairs:
        if repair_record.outcome == "ACCEPTED":
            assert repair_record.supported_removed == 0
    # Every accepted repair links its candidate into the chain; ids and hashes are consistent.
    ids = [candidate.id for candidate in record.candidates]
    assert len(set(ids)) == len(ids)
    for candidate in record.candidates[1:]:
        assert candidate.parent in ids[: ids.index(candidate.id)]
