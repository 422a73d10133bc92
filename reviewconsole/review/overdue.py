"""Cases past their time to decision: people are told once per case, and so is the client.

A periodic task finds the open escalations that became overdue since it last looked (`deadlines.py` says what
overdue is: the pinned constitution's time to decision for the escalation's severity). Each gets a
`case.overdue` webhook and is marked, in one transaction. A case assigned to a reviewer goes into that
reviewer's daily digest, or nowhere if they chose none; an unassigned one is emailed to the review leads at once,
all of a round in one email. Sending is the mail worker's: no request and no round waits for the mail server.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse

from reviewconsole.accounts.models import Digest, NotificationSetting
from reviewconsole.accounts.roles import Role, role_emails
from reviewconsole.mail.services import email_queue
from reviewconsole.review.deadlines import deadlines_by_hours, overdue_condition
from reviewconsole.review.models import Escalation, EscalationStatus
from reviewconsole.webhooks import services as webhooks
from reviewconsole.webhooks.payloads import case_outcome_payload

OPEN = (EscalationStatus.OPEN, EscalationStatus.ADJUDICATION)
BATCH = 500
"""At most this many cases a round; a larger backlog is told over the next rounds."""


def _link(case_id: int) -> str:
    return f"{settings.CONSOLE_BASE_URL.rstrip('/')}{reverse('review:case', args=[case_id])}"


def overdue_notify(*, now: datetime) -> list[int]:
    """Tell the client (`case.overdue`) and the people of each case newly past its time to decision; the cases' ids."""
    condition = overdue_condition(now, deadlines_by_hours())
    if condition is None:
        return []
    with transaction.atomic():
        escalations = list(
            Escalation.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(condition, status__in=OPEN, overdue_notified_at__isnull=True)
            .select_related("case__client").order_by("created_at", "pk")[:BATCH]
        )
        unassigned = []
        for escalation in escalations:
            webhooks.webhook_event_record(case=escalation.case, event_type=webhooks.CASE_OVERDUE, payload={
                **case_outcome_payload(escalation.case), "severity": escalation.severity,
                "waiting_since": escalation.created_at.isoformat(),
            })
            if escalation.assigned_to_id is None:
                unassigned.append(escalation)
        Escalation.objects.filter(pk__in=[e.pk for e in escalations]).update(overdue_notified_at=now)
        if unassigned:
            lines = "\n".join(f"  #{e.case_id} ({e.severity.lower()}, waiting since {e.created_at:%Y-%m-%d %H:%M} "
                              f"UTC): {_link(e.case_id)}" for e in unassigned)
            email_queue(kind=str(webhooks.CASE_OVERDUE), to=role_emails(Role.REVIEW_LEAD),
                        subject=f"{len(unassigned)} case{'s' if len(unassigned) != 1 else ''} past the time to "
                                "decision, assigned to nobody",
                        body=f"These cases waited longer than their constitution's time to decision and nobody is "
                             f"assigned to them:\n{lines}\n\nAssign them, or take them, from the queue.\n")
    return [escalation.case_id for escalation in escalations]


def digests_send(*, now: datetime) -> int:
    """Each reviewer who wants a daily digest (the default) and has open cases assigned: one email listing them,
    the overdue ones first. The number of digests queued."""
    User = get_user_model()
    condition = overdue_condition(now, deadlines_by_hours())
    overdue = set(Escalation.objects.filter(condition).values_list("pk", flat=True)) if condition is not None else set()
    assigned: dict[int, list[Escalation]] = defaultdict(list)
    for escalation in Escalation.objects.filter(status__in=OPEN, assigned_to__isnull=False).order_by("created_at"):
        assert escalation.assigned_to_id is not None
        assigned[escalation.assigned_to_id].append(escalation)
    opted_out = set(NotificationSetting.objects.filter(digest=Digest.NONE).values_list("user_id", flat=True))
    sent = 0
    for person in User.objects.filter(pk__in=assigned.keys(), is_active=True).exclude(email=""):
        if person.pk in opted_out:
            continue
        cases = sorted(assigned[person.pk], key=lambda e: (e.pk not in overdue, e.created_at))
        late = sum(e.pk in overdue for e in cases)
        lines = "\n".join(f"  #{e.case_id}{' OVERDUE' if e.pk in overdue else ''} ({e.severity.lower()}, waiting "
                          f"{_waited(now - e.created_at)}): {_link(e.case_id)}" for e in cases)
        email_queue(kind="review.digest", to=[person.email],
                    subject=f"Your cases today: {len(cases)} assigned, {late} overdue",
                    body=f"Assigned to you and waiting for a decision:\n{lines}\n\n"
                         "You get this digest once a day; choose none on your own page (My day).\n")
        sent += 1
    return sent


def _waited(span: timedelta) -> str:
    hours = int(span.total_seconds() // 3600)
    return f"{hours // 24} d {hours % 24} h" if hours >= 24 else f"{hours} h"
