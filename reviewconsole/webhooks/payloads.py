"""What a client's webhook says about a case."""

from __future__ import annotations

from reviewconsole.intake.models import Case, CaseStatus


def case_outcome_payload(case: Case) -> dict[str, object]:
    """What a client learns from a webhook: enough to act, and where to fetch the rest."""
    released = case.status == CaseStatus.RELEASED
    return {
        "case_id": case.pk,
        "external_id": case.external_id,
        "status": case.status,
        "terminal": case.terminal,
        "reason": case.reason,
        "answer": case.final_answer if released else None,
    }
