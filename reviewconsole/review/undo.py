"""Undoing a decision within a short window (REVIEW_UNDO_SECONDS): the case is back in the queue, held
by the reviewer who decided it, as if the decision had not been taken.

The client is told of a decision only once the window has passed (services/closing.py holds its webhook until
then; the API shows the case as still in review), so an undone decision never reaches it. An undo is
refused after the window, or once the decision was sent. The undo is its own audit event; the decision's
event stays in the log. The decision row itself goes: every read of decisions (the API, exports, "My
decisions") then sees the case as open.

This module says what can be undone; undoing it is services/undo.py, and undoing a claim label
services/labels.py, with the rest of labelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User

from reviewconsole.review.models import Decision, DecisionKind


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
    return now < decision_shown_at(decision)


def decision_shown_at(decision: Decision) -> datetime:
    """When the client sees `decision`: once its undo window has passed, or at once when it cannot be undone."""
    undoable = (settings.REVIEW_UNDO_SECONDS > 0 and decision.kind in (DecisionKind.APPROVE, DecisionKind.REJECT)
                and decision.case.escalation.reviews_required == 1)
    return decision.created_at + undo_window() if undoable else decision.created_at
