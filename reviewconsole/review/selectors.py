"""Reads of decisions (a reviewer's past ones, and the answer a case released), of the reviewers a case can be
given to, and of a person's saved queue filters. The queue, the case page and its parts have modules of their
own (queue.py, case_page.py, marking.py, budgets.py); writes are the services' (services/)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import QuerySet

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Decision, DecisionKind, Review, SavedQueueFilter


def decisions_of(reviewer: User) -> QuerySet[Decision]:
    return (
        Decision.objects.filter(reviewer=reviewer)
        .select_related("case__client", "case__escalation", "candidate")
        .defer("case__run_record", "candidate__text")
        .order_by("-created_at")
    )


def reviews_of(reviewer: User) -> QuerySet[Review]:
    """The reviewer's independent reviews of double-reviewed cases, newest first."""
    return (
        Review.objects.filter(reviewer_id=reviewer.pk)
        .select_related("escalation__case__client", "candidate")
        .defer("escalation__case__run_record", "candidate__text")
        .order_by("-created_at", "-id")
    )


@dataclass(frozen=True)
class PastDecision:
    """One row of a reviewer's "My decisions": a decision they took, or an independent review they gave."""

    created_at: datetime
    case_id: int
    client: str
    kind: str
    """In words: "Approve", "Edit", "Reject"."""
    candidate: str
    reason_code: str
    note: str
    override: bool
    independent_review: bool
    """One of the two reviews of a double-reviewed case: the case is decided when they agree."""
    case_status: str
    """Where the case is now, in words ("Open", "Reviewers disagree", "Decided")."""
    seconds_spent: int | None = None
    """From the reviewer's claim of the case to this decision (review/progress.py)."""


def past_decisions(reviewer: User, *, limit: int) -> list[PastDecision]:
    """The reviewer's decisions and independent reviews, newest first, at most `limit` of each kind read.

    The review that agreed with the first one takes the decision in its reviewer's name: that person is
    shown the review once, not a review and a decision of the same thing.
    """
    reviews = list(reviews_of(reviewer)[:limit])
    agreed = {(review.escalation.case_id, review.kind, review.candidate_id) for review in reviews}
    rows = [
        PastDecision(
            created_at=review.created_at, case_id=review.escalation.case_id, client=review.escalation.case.client.name,
            kind=review.get_kind_display(), candidate=review.candidate.candidate_id, reason_code=review.reason_code,
            note=review.note or review.override_reason, override=bool(review.override_reason),
            independent_review=True, case_status=review.escalation.get_status_display(),
            seconds_spent=review.seconds_spent,
        )
        for review in reviews
    ]
    for decision in decisions_of(reviewer)[:limit]:
        if (decision.case_id, decision.kind, decision.candidate_id) in agreed:
            continue
        escalation = getattr(decision.case, "escalation", None)
        rows.append(PastDecision(
            created_at=decision.created_at, case_id=decision.case_id, client=decision.case.client.name,
            kind=decision.get_kind_display(), candidate=decision.candidate.candidate_id,
            reason_code=decision.reason_code, note=decision.note or decision.override_reason,
            override=bool(decision.override_reason), independent_review=False,
            case_status=escalation.get_status_display() if escalation is not None else "",
            seconds_spent=decision.seconds_spent,
        ))
    rows.sort(key=lambda row: row.created_at, reverse=True)
    return rows[:limit]


def decision_summary(decision: Decision) -> dict[str, object]:
    """A decision as a client reads it, in the API's `decision` and in the case.decided webhook alike."""
    return {
        "kind": decision.kind,
        "candidate": decision.candidate.candidate_id,
        "reason_code": decision.reason_code or None,
        "note": decision.note or None,
        "override": bool(decision.override_reason),
        "adjudicated": decision.adjudicated,
        "decided_at": decision.created_at.isoformat(),
    }


def case_released_answer(case: Case, decisions: Sequence[Decision] | None = None) -> str | None:
    """The text a client may show its user: released by the engine, or approved by a person.

    `decisions`, the case's decisions newest first with their candidates, when the caller has them read.
    """
    if case.status == CaseStatus.RELEASED:
        return case.final_answer
    if decisions is None:
        approvals = Decision.objects.filter(case=case, kind=DecisionKind.APPROVE).select_related("candidate")
        approval = approvals.order_by("-created_at").first()
    else:
        approval = next((decision for decision in decisions if decision.kind == DecisionKind.APPROVE), None)
    return approval.candidate.text if approval else None


def assignable_reviewers() -> QuerySet[User]:
    """People a case can be given to: active reviewers, by name."""
    return User.objects.filter(groups__name=Role.REVIEWER.value, is_active=True).order_by("username").distinct()


def saved_filters_of(owner: User) -> QuerySet[SavedQueueFilter]:
    return SavedQueueFilter.objects.filter(owner=owner).order_by("name")
