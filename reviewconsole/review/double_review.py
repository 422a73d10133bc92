"""Double review: two independent reviews before a decision, and a review lead when they disagree.

Routing sets `reviews_required=2` for the reasons and severities the pinned constitution names. While
such a case is open, a reviewer's approve or reject is a `Review`, not a decision: the case goes back
to the queue for a second, different reviewer, who sees neither the first review nor its note nor its
labels. Two reviews of the same kind on the same version take the decision; two that differ send the
case to adjudication (`EscalationStatus.ADJUDICATION`), where a review lead sees both and decides.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, User
from django.db.models import QuerySet

from reviewconsole.intake.models import Candidate
from reviewconsole.review import audit_events, progress
from reviewconsole.review.closing import decision_close
from reviewconsole.review.models import Escalation, EscalationStatus, Review
from reviewconsole.review.queue_counts import queue_count_move

# Said wherever an edit is not offered: on the case page, and by the service to a post that tries anyway.
NO_EDIT_WHILE_INDEPENDENT = (
    "Edits are not offered while two reviewers review this case independently: an edit would show the "
    "other reviewer your judgement. Approve or reject; if the reviews disagree, a review lead can edit."
)


# Said by the case page and by the services to a review lead who gave one of the disagreeing reviews.
OWN_DISAGREEMENT = (
    "You gave one of the two reviews that disagree: another review lead adjudicates this case, so that the "
    "disagreement is not settled by one of its sides."
)


def is_independent(escalation: Escalation) -> bool:
    """Whether the case is in its independent reviews: double-reviewed and still open."""
    return escalation.reviews_required > 1 and escalation.status == EscalationStatus.OPEN


def review_by(escalation: Escalation, reviewer: AbstractBaseUser) -> Review | None:
    """The reviewer's own review of the case, if they made one."""
    return Review.objects.filter(escalation=escalation, reviewer_id=reviewer.pk).select_related("candidate").first()


def reviews_of(escalation: Escalation) -> list[Review]:
    """Every review of the case, first first: what a review lead compares when adjudicating."""
    return list(
        Review.objects.filter(escalation=escalation)
        .select_related("reviewer", "candidate")
        .order_by("created_at", "id")
    )


def adjudication_queue() -> QuerySet[Escalation]:
    """Cases whose reviews disagree, in queue order, with their reviews for the lead's list."""
    return (
        Escalation.objects.filter(status=EscalationStatus.ADJUDICATION)
        .select_related("case__client")
        .defer("case__run_record")
        .prefetch_related("reviews__reviewer")
        .order_by("-priority", "created_at", "id")
    )


def review_record(
    *,
    escalation: Escalation,
    reviewer: User,
    kind: str,
    candidate: Candidate,
    now: datetime,
    reason_code: str = "",
    note: str = "",
    override_reason: str = "",
) -> Review:
    """Store one independent review; the last one required decides the case, or sends it to a lead.

    The caller holds the escalation's row lock, has checked that the reviewer has not reviewed it yet
    and that `candidate` is the version on screen, and has applied the approval rule.
    """
    review = Review.objects.create(
        escalation=escalation, reviewer=reviewer, kind=kind, candidate=candidate, reason_code=reason_code,
        note=note, override_reason=override_reason, seconds_spent=progress.seconds_spent(escalation, reviewer, now),
    )
    reviews = reviews_of(escalation)
    # The reviewer is done with the case: it goes back to the queue for the next reviewer, and an
    # assignment to this reviewer is fulfilled (the second review must be someone else's).
    assignment_done = escalation.assigned_to_id == reviewer.pk
    escalation.holder, escalation.lease_expires_at = None, None
    if assignment_done:
        escalation.assigned_to = None
    audit_events.review_recorded(
        review=review, number=len(reviews), required=escalation.reviews_required, assignment_done=assignment_done
    )
    fields = ["holder", "lease_expires_at", "assigned_to"]
    if len(reviews) < escalation.reviews_required:
        escalation.save(update_fields=fields)
        return review
    if len({(each.kind, each.candidate_id) for each in reviews}) == 1:
        escalation.save(update_fields=fields)
        decision_close(
            escalation=escalation, reviewer=reviewer, kind=kind, candidate=candidate, now=now,
            reason_code=reason_code, note=note, override_reason=override_reason, reviews=reviews,
        )
    else:
        escalation.status = EscalationStatus.ADJUDICATION
        escalation.save(update_fields=[*fields, "status"])
        queue_count_move(escalation=escalation, from_status=EscalationStatus.OPEN)
        audit_events.adjudication_opened(escalation=escalation, reviews=reviews, actor=reviewer)
    return review

