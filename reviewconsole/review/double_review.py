"""Double review: two independent reviews before a decision, and a review lead when they disagree.

Routing sets `reviews_required=2` for the reasons and severities the pinned constitution names. While
such a case is open, a reviewer's approve or reject is a `Review`, not a decision: the case goes back
to the queue for a second, different reviewer, who sees neither the first review nor its note nor its
labels. Two reviews of the same kind on the same version take the decision; two that differ send the
case to adjudication (`EscalationStatus.ADJUDICATION`), where a review lead sees both and decides.

This module reads a case's reviews; recording one is services/double_review.py.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from reviewconsole.review.models import Escalation, EscalationStatus, Review

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
