"""Reads for intake: what a client may see of its cases."""

from __future__ import annotations

from typing import Any

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Decision, DecisionKind


def case_latest_decision(case: Case) -> dict[str, Any] | None:
    decision = Decision.objects.filter(case=case).select_related("candidate").order_by("-created_at").first()
    if decision is None:
        return None
    return {
        "kind": decision.kind,
        "candidate": decision.candidate.candidate_id,
        "reason_code": decision.reason_code or None,
        "note": decision.note or None,
        "decided_at": decision.created_at.isoformat(),
    }


def case_released_answer(case: Case) -> str | None:
    """The text a client may show its user: released by the engine, or approved by a person."""
    if case.status == CaseStatus.RELEASED:
        return case.final_answer
    approvals = Decision.objects.filter(case=case, kind=DecisionKind.APPROVE).select_related("candidate")
    approval = approvals.order_by("-created_at").first()
    return approval.candidate.text if approval else None
