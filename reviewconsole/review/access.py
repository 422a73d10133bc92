"""Who may open the review console: signed-in reviewers and review leads. Anonymous users sign in; other
roles get 403. Assigning cases and adjudicating reviewers' disagreements are for review leads only."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, AnonymousUser
from django.db.models import Exists, OuterRef, QuerySet
from django.shortcuts import get_object_or_404

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.review.models import ClaimComment, Escalation

# Sends anonymous users to sign in and refuses signed-in users with neither role.
reviewer_required = role_required(
    Role.REVIEWER, Role.REVIEW_LEAD, refusal="the review console is for reviewers and review leads"
)
lead_required = role_required(Role.REVIEW_LEAD, refusal="assigning and adjudicating cases is for review leads")


def is_lead(user: AbstractUser | AnonymousUser) -> bool:
    return has_role(user, Role.REVIEW_LEAD)


def escalation_for_reviewer(case_id: int) -> Escalation:
    """The escalation of a case a reviewer may act on: any case that was sent to the review queue.

    A case that never needed a person (released or rejected by the engine without a spot check) has
    nothing to act on, so it answers 404 here; its page shows it read-only (`case_escalation`).
    """
    return get_object_or_404(_escalations(), case_id=case_id)


def case_escalation(case_id: int) -> Escalation | None:
    """The escalation of a case, or None for a case that never reached the queue (or no case at all)."""
    return _escalations().filter(case_id=case_id).first()


def _escalations() -> QuerySet[Escalation]:
    return Escalation.objects.select_related(
        "case__client", "case__constitution_pin__document", "holder", "assigned_to"
    ).annotate(
        # In the same query: the case page reads the comments on its claims only when there are some.
        has_claim_comments=Exists(ClaimComment.objects.filter(case_id=OuterRef("case_id")))
    )
