"""A review lead's actions on several queue cases at once: assign them to a reviewer, unassign them, or
return them to the open queue.

Each case is its own change, made and audited as if the lead had acted on it alone: one that cannot be
changed (decided meanwhile, reviewed already by the chosen reviewer) is reported with why, and the
others are still changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.review import audit_events
from reviewconsole.review.leases import lease_holder
from reviewconsole.review.models import Escalation, EscalationStatus
from reviewconsole.review.services.assignment import AssignmentRefused, escalation_assign


class BulkAction(StrEnum):
    ASSIGN = "assign"
    UNASSIGN = "unassign"
    RETURN = "return"


LEAD_ONLY = "Acting on several cases at once is for review leads: ask one to assign or return these cases."


@dataclass(frozen=True)
class BulkOutcome:
    """What became of each case asked for, by case id."""

    done: list[int] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    """Cases left as they were, each with why."""


def escalations_bulk_act(
    *, lead: User, action: BulkAction, case_ids: list[int], assignee: User | None, now: datetime
) -> BulkOutcome:
    """Apply `action` to the open cases `case_ids` (`assignee` for ASSIGN), case by case, each audited."""
    if not has_role(lead, Role.REVIEW_LEAD):
        raise AssignmentRefused(LEAD_ONLY, status_code=403)
    escalation_ids = dict(Escalation.objects.filter(case_id__in=case_ids).values_list("case_id", "pk"))
    outcome = BulkOutcome()
    for case_id in dict.fromkeys(case_ids):  # in the order asked, each once
        if case_id not in escalation_ids:
            outcome.refused.append((case_id, "it is not in the review queue."))
            continue
        try:
            if action == BulkAction.RETURN:
                escalation_return(escalation_id=escalation_ids[case_id], lead=lead, now=now)
            else:
                chosen = assignee if action == BulkAction.ASSIGN else None
                escalation_assign(escalation_id=escalation_ids[case_id], lead=lead, assignee=chosen)
        except AssignmentRefused as refused:
            outcome.refused.append((case_id, str(refused).removeprefix("assignee: ")))
        else:
            outcome.done.append(case_id)
    return outcome


def escalation_return(*, escalation_id: int, lead: User, now: datetime) -> Escalation:
    """Put an open case back in the queue for anyone: its holder's lease ends and its assignment too
    (a reviewer who went home with a case, or an assignment that no longer holds)."""
    if not has_role(lead, Role.REVIEW_LEAD):
        raise AssignmentRefused("Only a review lead returns cases to the queue.", status_code=403)
    with transaction.atomic():
        escalation = Escalation.objects.select_for_update(of=("self",)).select_related(
            "holder", "assigned_to"
        ).get(pk=escalation_id)
        if escalation.status != EscalationStatus.OPEN:
            raise AssignmentRefused("it is not open any more: it was decided, or waits for adjudication.")
        holder, assignee = lease_holder(escalation, now), escalation.assigned_to
        if holder is None and assignee is None:
            raise AssignmentRefused("it is in the queue already: nobody holds it and it is assigned to nobody.")
        escalation.holder = escalation.lease_expires_at = escalation.assigned_to = None
        escalation.save(update_fields=["holder", "lease_expires_at", "assigned_to"])
        audit_events.returned(escalation=escalation, lead=lead, holder=holder, assignee=assignee)
        return escalation
