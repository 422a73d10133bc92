"""Writes for outgoing email: queue one in the caller's transaction, make an attempt, back off and retry.

A request never waits for the mail server: it writes the row, and a worker sends it once the transaction
commits. An attempt holds the row's lock while it talks to the server, so two workers never send one email
twice; a worker that dies mid-send leaves the row waiting, and the periodic dispatch sends it again.
"""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone

from reviewconsole.mail.models import EmailStatus, OutgoingEmail
from reviewconsole.queues import enqueue_on_commit

logger = logging.getLogger(__name__)


def email_queue(*, kind: str, to: list[str], subject: str, body: str) -> OutgoingEmail | None:
    """Put an email in the outbox, to be sent once the caller's transaction commits; None when nobody
    has an address to send it to."""
    from reviewconsole.mail.tasks import send_email

    recipients = sorted({address.strip() for address in to if address and address.strip()})
    if not recipients:
        return None
    email = OutgoingEmail.objects.create(kind=kind, to=recipients, subject=subject[:200], body=body,
                                         next_attempt_at=timezone.now())
    enqueue_on_commit(send_email, email.pk)
    return email


def email_backoff(*, attempts: int) -> timedelta:
    """The wait after `attempts` failed sends: doubling from EMAIL_RETRY_SECONDS, at most an hour."""
    return timedelta(seconds=min(3600, settings.EMAIL_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def email_send(*, email_id: int, now: datetime | None = None) -> OutgoingEmail | None:
    """Make the email's due attempt; None when it is not due, not pending, or another worker is sending it."""
    with transaction.atomic():
        email = (OutgoingEmail.objects.select_for_update(skip_locked=True)
                 .filter(pk=email_id, status=EmailStatus.PENDING, next_attempt_at__lte=now or timezone.now())
                 .first())
        if email is None:
            return None
        email.attempts += 1
        try:
            EmailMessage(subject=email.subject, body=email.body, from_email=settings.DEFAULT_FROM_EMAIL,
                         to=email.to).send()
        except (smtplib.SMTPException, OSError) as error:
            email.last_error = f"{type(error).__name__}: {error}"[:1000]
            if email.attempts >= settings.EMAIL_MAX_ATTEMPTS:
                email.status = EmailStatus.FAILED
                logger.error("email %s (%s) failed for good after %d attempts: %s", email.pk, email.kind,
                             email.attempts, email.last_error)
            else:
                email.next_attempt_at = timezone.now() + email_backoff(attempts=email.attempts)
                logger.warning("email %s (%s) not sent, attempt %d: %s", email.pk, email.kind, email.attempts,
                               email.last_error)
        else:
            email.status, email.sent_at, email.last_error = EmailStatus.SENT, timezone.now(), ""
        email.save(update_fields=["attempts", "status", "sent_at", "last_error", "next_attempt_at"])
        return email


def emails_due(*, now: datetime, limit: int) -> list[int]:
    """Waiting emails whose attempt is due: retries, and first sends whose message was lost."""
    due = OutgoingEmail.objects.filter(status=EmailStatus.PENDING, next_attempt_at__lte=now)
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
