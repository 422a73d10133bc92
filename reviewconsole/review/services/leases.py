"""Taking, renewing and giving back leases on escalations (review/leases.py says what a lease is).

"Next case" serves the cases a review lead assigned to the reviewer first, then the unassigned ones in
queue order; never a case assigned to someone else (it waits for its assignee), never a case the
reviewer has already reviewed (the second review of a double-reviewed case is another person's), and
not, for a while, one the reviewer skipped (services/skips.py).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from reviewconsole.review import audit_events
from reviewconsole.review.leases import lease_free, lease_held_by, lease_until, reviewed_by
from reviewconsole.review.models import Escalation, EscalationSkip, EscalationStatus

# Candidates one conditional UPDATE round tries before giving up (SQLite only; see _claim_by_update).
_UPDATE_ATTEMPTS = 20


def _skipped_by(reviewer: User, now: datetime) -> Exists:
    """Escalations the reviewer skipped lately: not served to them again until the skip runs out."""
    return Exists(EscalationSkip.objects.filter(escalation=OuterRef("pk"), reviewer_id=reviewer.pk, until__gt=now))


def _claimable(now: datetime, reviewer: User, *, assigned: bool) -> QuerySet[Escalation]:
    """Free open cases for `reviewer`: those assigned to them, or (not `assigned`) those assigned to nobody.

    Each is one range of an index ("escalation_assigned", or the queue's, filtered on assigned_to),
    walked in queue order until a row qualifies: no sort over the whole queue.
    """
    owner = Q(assigned_to=reviewer) if assigned else Q(assigned_to__isnull=True)
    return (
        Escalation.objects.filter(lease_free(now), owner, status=EscalationStatus.OPEN)
        .exclude(reviewed_by(reviewer))
        .exclude(_skipped_by(reviewer, now))
        .order_by("-priority", "created_at", "id")
    )


def escalation_claim_next(*, reviewer: User, now: datetime) -> Escalation | None:
    """The case this reviewer should work on: the one they already hold, else the top free one.

    Holding at most one case keeps a reviewer who presses `n` twice from hoarding the queue.
    """
    with transaction.atomic():
        # Two requests of one reviewer (a double press, two tabs) take turns here, so the second finds the
        # case the first claimed: the one-case rule holds in the database, not only in a check before it.
        _lock_reviewer(reviewer)
        held = Escalation.objects.filter(lease_held_by(reviewer, now), status=EscalationStatus.OPEN).first()
        if held is not None:
            escalation_lease_renew(escalation=held, reviewer=reviewer, now=now)
            return held
        claim = _claim_skip_locked if connection.features.has_select_for_update_skip_locked else _claim_by_update
        return claim(reviewer, now, assigned=True) or claim(reviewer, now, assigned=False)


# The high half of every per-reviewer lock key ("revi"), so that it cannot meet another lock's key.
_REVIEWER_LOCK_SPACE = 0x72657669 << 32


def _lock_reviewer(reviewer: User) -> None:
    """Hold the reviewer's claim lock until the transaction ends (PostgreSQL; SQLite serialises writers)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_REVIEWER_LOCK_SPACE | (reviewer.pk & 0xFFFFFFFF)])


def _claim_skip_locked(reviewer: User, now: datetime, *, assigned: bool) -> Escalation | None:
    # Rows another reviewer is claiming right now are skipped, not waited for: no queueing behind locks.
    with transaction.atomic():
        escalation = _claimable(now, reviewer, assigned=assigned).select_for_update(
            skip_locked=True, of=("self",)
        ).first()
        if escalation is None:
            return None
        escalation.holder = reviewer
        escalation.lease_expires_at = lease_until(now)
        escalation.lease_claimed_at = now
        escalation.save(update_fields=["holder", "lease_expires_at", "lease_claimed_at"])
        audit_events.lease(escalation=escalation, reviewer=reviewer, claimed=True)
        return escalation


def _claim_by_update(reviewer: User, now: datetime, *, assigned: bool) -> Escalation | None:
    # SQLite has no SKIP LOCKED; a conditional UPDATE that changed one row is the claim instead.
    for _ in range(_UPDATE_ATTEMPTS):
        top = _claimable(now, reviewer, assigned=assigned).values_list("pk", flat=True).first()
        if top is None:
            return None
        with transaction.atomic():
            taken = Escalation.objects.filter(lease_free(now), pk=top, status=EscalationStatus.OPEN).update(
                holder=reviewer, lease_expires_at=lease_until(now), lease_claimed_at=now
            )
            if taken:
                escalation = Escalation.objects.get(pk=top)
                audit_events.lease(escalation=escalation, reviewer=reviewer, claimed=True)
                return escalation
    return None


def escalation_lease_renew(*, escalation: Escalation, reviewer: User, now: datetime) -> bool:
    """Extend the reviewer's live lease; False when they no longer hold it (it expired and was taken)."""
    until = lease_until(now)
    renewed = Escalation.objects.filter(
        lease_held_by(reviewer, now), pk=escalation.pk, status=EscalationStatus.OPEN
    ).update(lease_expires_at=until)
    if renewed:
        escalation.holder, escalation.lease_expires_at = reviewer, until
    return bool(renewed)


def escalation_lease_take(*, escalation: Escalation, reviewer: User, now: datetime) -> bool:
    """Claim this particular case (opened from the queue) if nobody else holds it.

    A case assigned to someone else may be taken (the assignee may be away); one the reviewer has
    already reviewed may not: holding it would only keep the second reviewer from it.
    """
    with transaction.atomic():
        _lock_reviewer(reviewer)
        # Taking a case one already holds only renews it: the audit trail records the first claim.
        if escalation_lease_renew(escalation=escalation, reviewer=reviewer, now=now):
            return True
        taken = Escalation.objects.filter(
            lease_free(now), pk=escalation.pk, status=EscalationStatus.OPEN
        ).exclude(reviewed_by(reviewer)).update(
            holder=reviewer, lease_expires_at=lease_until(now), lease_claimed_at=now
        )
        if taken:
            # One case per reviewer: the case they held before goes back to the queue.
            for other in Escalation.objects.filter(lease_held_by(reviewer, now)).exclude(pk=escalation.pk):
                escalation_lease_release(escalation=other, reviewer=reviewer)
            escalation.holder, escalation.lease_expires_at = reviewer, lease_until(now)
            escalation.lease_claimed_at = now
            audit_events.lease(escalation=escalation, reviewer=reviewer, claimed=True)
        return bool(taken)


def escalation_lease_release(*, escalation: Escalation, reviewer: User) -> bool:
    """Give the case back to the queue (a reviewer skips it)."""
    with transaction.atomic():
        released = Escalation.objects.filter(pk=escalation.pk, holder=reviewer).update(
            holder=None, lease_expires_at=None
        )
        if released:
            audit_events.lease(escalation=escalation, reviewer=reviewer, claimed=False)
        return bool(released)
