"""Email through Django's email framework: queued in the caller's transaction, sent after the commit, a failed
send tried again after its backoff, and never a wait in the request that queued it."""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.utils import timezone

from reviewconsole.mail.models import EmailStatus, OutgoingEmail
from reviewconsole.mail.services import email_backoff, email_queue, email_send
from reviewconsole.mail.tasks import dispatch_due_emails

pytestmark = pytest.mark.django_db(transaction=True)


class RefusingBackend(BaseEmailBackend):
    """An SMTP server that is down."""

    def send_messages(self, email_messages):
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


def test_an_email_is_sent_after_the_commit_from_the_configured_sender(settings):
    settings.DEFAULT_FROM_EMAIL = "console@example.com"
    with transaction.atomic():
        queued = email_queue(kind="gate.paused", to=["b@example.com", "a@example.com", "a@example.com", ""],
                             subject="Releases stopped", body="Why, and what to do.")
        assert queued is not None and mail.outbox == []  # nothing leaves before the commit
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert (sent.subject, sent.to, sent.from_email) == ("Releases stopped", ["a@example.com", "b@example.com"],
                                                        "console@example.com")
    stored = OutgoingEmail.objects.get()
    assert stored.status == EmailStatus.SENT and stored.attempts == 1 and stored.sent_at is not None


def test_nobody_to_tell_writes_nothing():
    assert email_queue(kind="gate.paused", to=["", "  "], subject="s", body="b") is None
    assert not OutgoingEmail.objects.exists()


def test_a_failed_send_waits_out_its_backoff_and_is_sent_by_the_dispatch(settings):
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    settings.EMAIL_RETRY_SECONDS = 60
    email_queue(kind="gate.paused", to=["admin@example.com"], subject="Releases stopped", body="b")
    stored = OutgoingEmail.objects.get()
    assert stored.status == EmailStatus.PENDING and stored.attempts == 1
    assert "SMTPServerDisconnected" in stored.last_error
    assert stored.next_attempt_at >= timezone.now() + timedelta(seconds=55)
    assert dispatch_due_emails() == 0  # not due yet

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    OutgoingEmail.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert dispatch_due_emails() == 1
    stored.refresh_from_db()
    assert stored.status == EmailStatus.SENT and stored.attempts == 2 and stored.last_error == ""
    assert [sent.subject for sent in mail.outbox] == ["Releases stopped"]


def test_out_of_attempts_it_fails_for_good(settings):
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    settings.EMAIL_MAX_ATTEMPTS = 2
    email_queue(kind="gate.paused", to=["admin@example.com"], subject="s", body="b")
    email = OutgoingEmail.objects.get()
    assert email_send(email_id=email.pk, now=timezone.now() + timedelta(hours=2)) is not None
    email.refresh_from_db()
    assert email.status == EmailStatus.FAILED and email.attempts == 2
    assert email_send(email_id=email.pk, now=timezone.now() + timedelta(days=1)) is None


def test_the_backoff_doubles_up_to_an_hour(settings):
    settings.EMAIL_RETRY_SECONDS = 60
    assert [email_backoff(attempts=n).total_seconds() for n in (1, 2, 3, 7, 8)] == [60, 120, 240, 3600, 3600]
