"""Undoing a decision within its window (review/undo.py says what can be undone, and until when): the case is back
in the queue, held by the reviewer who decided it, as if the decision had not been taken. Audited as its own
event; the decision's event stays in the log, and the decision row goes."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.intake import outcomes
from reviewconsole.review import audit_events
from reviewconsole.review.leases import lease_held_by, lease_until
from reviewconsole.review.models import Decision, DecisionKind, Escalation, EscalationStatus
from reviewconsole.review.services.leases import escalation_lease_release
from reviewconsole.review.services.queue_counts import queue_count_move
from reviewconsole.review.undo import undo_window
from reviewconsole.webhooks import services as webhooks


class UndoRefused(Exception):
    """An undo that cannot be done: nothing changed. The message says why."""


def decision_undo(*, case_id: int, reviewer: User, now: datetime) -> Escalation:
    """Take back the reviewer's decision on the case; the case is open again and theirs to decide."""
    with transaction.atomic():
        escalation = (
            Escalation.objects.select_for_update(of=("self",)).select_related("case__client").get(case_id=case_id)
        )
        decision = (
            Decision.objects.filter(case_id=case_id).select_related("candidate").order_by("-created_at", "-pk").first()
        )
        decision = _undoable(escalation, decision, reviewer, now)
        # Last, as it cannot be taken back: the client's pending webhook leaves the outbox.
        if webhooks.delivery_withdraw(case=escalation.case, event_type=webhooks.CASE_DECIDED) is False:
            raise UndoRefused("The decision was already sent to the client, so it stands.")
        outcomes.case_decision_undo(case=escalation.case)
        escalation.status = EscalationStatus.OPEN
        escalation.decided_at = None
        escalation.holder, escalation.lease_expires_at = reviewer, lease_until(now)
        escalation.save(update_fields=["status", "decided_at", "holder", "lease_expires_at"])
        # One case held at a time: the next case the decision led to goes back to the queue.
        for other in Escalation.objects.filter(lease_held_by(reviewer, now)).exclude(pk=escalation.pk):
            escalation_lease_release(escalation=other, reviewer=reviewer)
        queue_count_move(escalation=escalation, from_status=EscalationStatus.DECIDED)
        audit_events.decision_undone(
            decision=decision, reviewer=reviewer, seconds_after=int((now - decision.created_at).total_seconds())
        )
        decision.delete()
        return escalation


def _undoable(escalation: Escalation, decision: Decision | None, reviewer: User, now: datetime) -> Decision:
    """The decision, if `reviewer` may undo it now; else UndoRefused, saying why."""
    if settings.REVIEW_UNDO_SECONDS <= 0:
        raise UndoRefused("Undo is turned off on this console: decisions stand as taken.")
    closing = decision is not None and decision.kind in (DecisionKind.APPROVE, DecisionKind.REJECT)
    if escalation.status != EscalationStatus.DECIDED or decision is None or not closing:
        raise UndoRefused(f"Case {escalation.case_id} has no decision to undo.")
    if decision.reviewer_id != reviewer.pk:
        raise UndoRefused(f"Only {decision.reviewer.get_username()}, who decided case {escalation.case_id}, "
                          "can undo that decision.")
    if escalation.reviews_required > 1:
        raise UndoRefused("A decision taken by two independent reviews, or by a review lead settling them, "
                          "cannot be undone.")
    if now >= decision.created_at + undo_window():
        raise UndoRefused(f"The undo window ({settings.REVIEW_UNDO_SECONDS} seconds) has passed: "
                          "the decision stands.")
    return decision
