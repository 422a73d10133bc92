"""Skipping a case: the reviewer puts the case they hold back in the queue and is served the next one.

The skipped case is free for every other reviewer at once, but "Next case" keeps it from the one who
skipped it for REVIEW_SKIP_SECONDS (services/leases.py reads the skips): otherwise, being the top of the queue, it
would be served straight back to them. They can still open it from the queue and claim it by hand.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.review import audit_events
from reviewconsole.review.models import Escalation, EscalationSkip, EscalationStatus
from reviewconsole.review.services.leases import escalation_claim_next, escalation_lease_release


def skip_minutes() -> int:
    """How long a skipped case stays out of the skipper's "Next case", in whole minutes, as pages say it."""
    return settings.REVIEW_SKIP_SECONDS // 60


def escalation_skip(*, escalation: Escalation, reviewer: User, now: datetime) -> Escalation | None:
    """Give the case back to the queue, keep it from this reviewer for a while, and claim their next case.

    Audited as the skip itself (`escalation.skipped`) and, when they held it, the lease's release. A case
    no longer open (decided meanwhile) is not recorded as skipped: there is nothing to keep it from.
    """
    with transaction.atomic():
        if Escalation.objects.filter(pk=escalation.pk, status=EscalationStatus.OPEN).exists():
            released = escalation_lease_release(escalation=escalation, reviewer=reviewer)
            until = now + timedelta(seconds=settings.REVIEW_SKIP_SECONDS)
            EscalationSkip.objects.update_or_create(escalation=escalation, reviewer=reviewer, defaults={"until": until})
            audit_events.skipped(escalation=escalation, reviewer=reviewer, released=released, until=until)
        return escalation_claim_next(reviewer=reviewer, now=now)
