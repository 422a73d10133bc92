"""Assignment: a review lead gives an open case to a named reviewer, or takes it back.

An assigned case is served first to its assignee by "Next case" (services/leases.py) and to nobody else; other
reviewers can still open it and claim it by hand. The assignment ends when the lead takes it back, or
when the assignee records an independent review of a double-reviewed case (the second review is
someone else's). Who holds the lease is a separate matter: assigning does not take a case from its holder.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.review import audit_events
from reviewconsole.review.models import Escalation, EscalationStatus, Review


class AssignmentRefused(Exception):
    """An assignment that cannot be made as asked; `field` names the form field at fault, if any."""

    def __init__(self, message: str, *, status_code: int = 409, field: str | None = None):
        super().__init__(message)
        self.status_code, self.field = status_code, field


def escalation_assign(*, escalation_id: int, lead: User, assignee: User | None) -> Escalation:
    """Assign the open case to `assignee`, or unassign it (None). Audited; refused on a case not open."""
    if not has_role(lead, Role.REVIEW_LEAD):
        raise AssignmentRefused("Only a review lead assigns cases.", status_code=403)
    with transaction.atomic():
        escalation = Escalation.objects.select_for_update(of=("self",)).select_related("assigned_to").get(
            pk=escalation_id
        )
        if escalation.status != EscalationStatus.OPEN:
            raise AssignmentRefused("Only a case waiting in the queue can be assigned: this one is not open.")
        if assignee is not None:
            if not (assignee.is_active and has_role(assignee, Role.REVIEWER)):
                raise AssignmentRefused(
                    f"assignee: {assignee.get_username()} is not an active reviewer.", status_code=400,
                    field="assignee",
                )
            if Review.objects.filter(escalation=escalation, reviewer=assignee).exists():
                raise AssignmentRefused(
                    f"assignee: {assignee.get_username()} reviewed this case already; the second review "
                    "must be someone else's.", status_code=400, field="assignee",
                )
        previous = escalation.assigned_to
        if (previous.pk if previous else None) == (assignee.pk if assignee else None):
            return escalation  # nothing changes, and nothing is recorded
        escalation.assigned_to = assignee
        escalation.save(update_fields=["assigned_to"])
        audit_events.assignment(escalation=escalation, lead=lead, assignee=assignee, previous=previous)
        return escalation
