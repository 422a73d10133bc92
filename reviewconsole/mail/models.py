"""Email waiting to be sent, or sent: written in the transaction of the change it tells people about."""

from __future__ import annotations

from django.db import models


class EmailStatus(models.TextChoices):
    PENDING = "PENDING", "Waiting to be sent"
    SENT = "SENT", "Sent"
    FAILED = "FAILED", "Failed: out of attempts"


class OutgoingEmail(models.Model):
    """One email to send through Django's email framework (the SMTP server the environment names). A worker
    sends it; a send that fails is tried again after a backoff, until EMAIL_MAX_ATTEMPTS."""

    kind = models.CharField(max_length=40, help_text="What it is about, such as gate.paused")
    to = models.JSONField(help_text="The recipients' addresses")
    subject = models.CharField(max_length=200)
    body = models.TextField()
    status = models.CharField(max_length=10, choices=EmailStatus.choices, default=EmailStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(help_text="When PENDING: when the next attempt is due")
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="email_due")]

    def __str__(self) -> str:
        return f"{self.kind} to {', '.join(self.to)}"
