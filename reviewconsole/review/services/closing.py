"""Taking the decision that closes a case: the Decision row, the case's outcome, the audit event and the
client's webhook, all in the caller's transaction.

One path for every way a case is decided: one reviewer's approve or reject, two independent reviews that
agree (services/double_review.py), and a review lead's adjudication of two that do not.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User

from reviewconsole.intake import outcomes
from reviewconsole.intake.models import Candidate
from reviewconsole.review import audit_events, progress
from reviewconsole.review.models import Decision, DecisionKind, Escalation, EscalationStatus, Review
from reviewconsole.review.selectors import decision_summary
from reviewconsole.review.services.queue_counts import queue_count_move
from reviewconsole.webhooks import services as webhooks
from reviewconsole.webhooks.payloads import case_outcome_payload


def decision_close(
    *,
    escalation: Escalation,
    reviewer: User,
    kind: str,
    candidate: Candidate,
    now: datetime,
    reason_code: str = "",
    note: str = "",
    override_reason: str = "",
    reviews: Sequence[Review] = (),
) -> Decision:
    """Record an approve or reject that closes the case, release or refuse the answer, and tell the client.

    The caller holds the escalation's row lock. `reviews` are the independent reviews behind the
    decision (double review), linked from its audit event.
    """
    if kind not in (DecisionKind.APPROVE, DecisionKind.REJECT):
        raise ValueError(f"a decision that closes a case approves or rejects, not {kind!r}")
    from_status = escalation.status
    adjudicated = from_status == EscalationStatus.ADJUDICATION
    seconds_spent = progress.seconds_spent(escalation, reviewer, now)
    if seconds_spent is None and reviews and reviews[-1].reviewer_id == reviewer.pk:
        # The review that agreed with the first one: its time is the decision's (the lease is gone by now).
        seconds_spent = reviews[-1].seconds_spent
    decision = Decision.objects.create(
        case=escalation.case, reviewer=reviewer, kind=kind, candidate=candidate, reason_code=reason_code,
        note=note, override_reason=override_reason, seconds_spent=seconds_spent, adjudicated=adjudicated,
    )
    if kind == DecisionKind.APPROVE:
        outcomes.case_release_approved(case=escalation.case, candidate=candidate)
    else:
        outcomes.case_reject(case=escalation.case)
    escalation.status = EscalationStatus.DECIDED
    escalation.decided_at = now
    escalation.lease_expires_at = None
    escalation.save(update_fields=["status", "decided_at", "lease_expires_at"])
    queue_count_move(escalation=escalation, from_status=from_status)
    audit_events.decision(decision=decision, reviews=reviews, adjudicated=adjudicated)
    payload = {
        **case_outcome_payload(escalation.case),
        "decision": decision_summary(decision),
    }
    if decision.kind == DecisionKind.APPROVE:
        payload["answer"] = candidate.text
    # Sent once the reviewer's undo window has passed (review/undo.py): an undone decision is never pushed.
    webhooks.webhook_event_record(
        case=escalation.case, event_type=webhooks.CASE_DECIDED, payload=payload,
        due_at=now + timedelta(seconds=settings.REVIEW_UNDO_SECONDS),
    )
    return decision
