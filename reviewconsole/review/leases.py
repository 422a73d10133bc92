"""Leases on escalations: "Next case" gives each reviewer a case no other reviewer holds.

A lease is live while `lease_expires_at` is in the future. An expired lease needs no sweeper: every
query treats it as free, so the case is back in the queue the moment its lease runs out.

This module says who holds a case; taking, renewing and giving back a lease ("Next case" among them) is
services/leases.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q

from reviewconsole.review.models import Escalation, Review


def lease_free(now: datetime) -> Q:
    """Escalations nobody holds: never assigned, or the holder's lease ran out."""
    return Q(holder__isnull=True) | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lte=now)


def lease_held_by(reviewer: User, now: datetime) -> Q:
    return Q(holder=reviewer, lease_expires_at__gt=now)


def lease_until(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.REVIEW_LEASE_SECONDS)


def reviewed_by(reviewer: User) -> Exists:
    """Escalations the reviewer has reviewed (double review): not theirs to review again."""
    return Exists(Review.objects.filter(escalation=OuterRef("pk"), reviewer_id=reviewer.pk))


def _lease_live(escalation: Escalation, now: datetime) -> bool:
    return bool(escalation.holder_id and escalation.lease_expires_at and escalation.lease_expires_at > now)


def lease_holder(escalation: Escalation, now: datetime) -> User | None:
    """Who holds the case now, if anyone."""
    return escalation.holder if _lease_live(escalation, now) else None


def lease_held_by_other(escalation: Escalation, reviewer: User, now: datetime) -> bool:
    return _lease_live(escalation, now) and escalation.holder_id != reviewer.pk


def lease_held(escalation: Escalation, reviewer: User, now: datetime) -> bool:
    """Whether `reviewer` holds the case's live lease."""
    return _lease_live(escalation, now) and escalation.holder_id == reviewer.pk
