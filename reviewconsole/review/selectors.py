"""Reads of decisions: a reviewer's past ones, and the answer a case released. The queue, the case page
and its parts have modules of their own (queue.py, case_page.py, marking.py, budgets.py)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Decision, DecisionKind


def decisions_of(reviewer: User) -> QuerySet[Decision]:
    return (
        Decision.objects.filter(reviewer=reviewer)
        .select_related("case__client", "candidate")
        .defer("case__run_record", "candidate__text")
        .order_by("-created_at")
    )


def decision_summary(decision: Decision) -> dict[str, object]:
    """A decision as a client reads it, in the API's `decision` and in the case.decided webhook alike."""
    return {
        "kind": decision.kind,
        "candidate": decision.candidate.candidate_id,
        "reason_code": decision.reason_code or None,
        "note": decision.note or None,
        "override": bool(decision.override_reason),
        "decided_at": decision.created_at.isoformat(),
    }


def case_released_answer(case: Case) -> str | None:
    """The text a client may show its user: released by the engine, or approved by a person."""
    if case.status == CaseStatus.RELEASED:
        return case.final_answer
    approvals = Decision.objects.filter(case=case, kind=DecisionKind.APPROVE).select_related("candidate")
    approval = approvals.order_by("-created_at").first()
    return approval.candidate.text if approval else None
