"""Recording an independent review of a double-reviewed case (review/double_review.py says how it goes):
the last review required decides the case, or sends it to a review lead when the reviews disagree."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User

from reviewconsole.intake.models import Candidate
from reviewconsole.review import audit_events, progress
from reviewconsole.review.double_review import reviews_of
from reviewconsole.review.models import Escalation, EscalationStatus, Review
from reviewconsole.review.services.closing import decision_close
from reviewconsole.review.services.queue_counts import queue_count_move


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

