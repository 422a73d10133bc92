"""Undoing a decision within a short window (REVIEW_UNDO_SECONDS): the case is back in the queue, held
by the reviewer who decided it, as if the decision had not been taken.

The client is told of a decision only once the window has passed (closing.py holds its webhook until
then; the API shows the case as still in review), so an undone decision never reaches it. An undo is
refused after the window, or once the decision was sent. The undo is its own audit event; the decision's
event stays in the log. The decision row itself goes: every read of decisions (the API, exports, "My
decisions") then sees the case as open.

Undoing a claim label is in labels.py, with the rest of labelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.intake import outcomes
from reviewconsole.review import audit_events
from reviewconsole.review.leases import escalation_lease_release, lease_held_by, lease_until
from reviewconsole.review.models import Decision, DecisionKind, Escalation, EscalationStatus
from reviewconsole.review.queue_counts import queue_count_move
from reviewconsole.webhooks import services as webhooks


class UndoRefused(Exception):
    """An undo that cannot be done: nothing changed. The message says why."""


def undo_window() -> timedelta:
    return timedelta(seconds=settings.REVIEW_UNDO_SECONDS)


@dataclass(frozen=True)
class UndoOffer:
    """The reviewer's last decision, while it can still be undone."""

    decision: Decision
    until: datetime


def undo_offer(*, reviewer: User, now: datetime) -> UndoOffer | None:
    """The decision the undo bar offers to take back: the reviewer's latest approve or reject, in its window."""
    if settings.REVIEW_UNDO_SECONDS <= 0:
        return None
    decision = (
        Decision.objects.filter(reviewer=reviewer, kind__in=[DecisionKind.APPROVE, DecisionKind.REJECT],
                                created_at__gt=now - undo_window(), case__escalation__reviews_required=1)
        .select_related("candidate").defer("candidate__text").order_by("-created_at", "-pk").first()
    )
    if decision is None:
        return None
    return UndoOffer(decision, decision.created_at + undo_window())


def undo_pending(decision: Decision, now: datetime) -> bool:
    """Whether the reviewer who took `decision` may still take it back: until then it is not the client's."""
    return (settings.REVIEW_UNDO_SECONDS > 0 and decision.kind in (DecisionKind.APPROVE, DecisionKind.REJECT)
            and now < decision.created_at + undo_window() and decision.case.escalation.reviews_required == 1)


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
