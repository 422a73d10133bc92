"""Tasks over email ids: send one, and send again what is due (retries, lost messages)."""

from __future__ import annotations

import logging

from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.mail import services

logger = logging.getLogger(__name__)

# A beat every minute sends at most this many; a larger backlog drains over the next beats.
DISPATCH_BATCH = 200


@app.task(name="mail.send_email")
def send_email(email_id: int) -> None:
    """Make the email's due attempt; a failed one is retried by `dispatch_due_emails` after its backoff."""
    if services.email_send(email_id=email_id) is None:
        logger.info("email %s not sent now: not due, not waiting, or being sent", email_id)


@app.task(name="mail.dispatch_due_emails")
def dispatch_due_emails() -> int:
    """Periodic: send every waiting email whose attempt is due."""
    due = services.emails_due(now=timezone.now(), limit=DISPATCH_BATCH)
    for email_id in due:
        send_email.apply_async(args=(email_id,))
    return len(due)
