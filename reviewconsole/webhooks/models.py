"""The outbox of webhook deliveries to client applications."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from reviewconsole.intake.models import Case, Client
from reviewconsole.work_claims import ClaimedWork, WorkKind


class EventType(models.TextChoices):
    CASE_RELEASED = "case.released", "Case released"
    CASE_ESCALATED = "case.escalated", "Case escalated"
    CASE_REJECTED = "case.rejected", "Case rejected"
    CASE_DECIDED = "case.decided", "Case decided"
    CASE_FAILED = "case.failed", "Case failed"
    CASE_OVERDUE = "case.overdue", "Case overdue"
    GATE_PAUSED = "gate.paused", "Releases paused"
    """A constitution's breaker opened: its releases stopped (not about one case)."""


class DeliveryStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    SENDING = "SENDING", "Sending"
    DELIVERED = "DELIVERED", "Delivered"
    FAILED = "FAILED", "Failed"


class WebhookDelivery(ClaimedWork):
    """One event for one client, written in the same transaction as the change it reports."""

    client = models.ForeignKey(Client, on_delete=models.PROTECT, related_name="deliveries")
    case = models.ForeignKey(Case, null=True, blank=True, on_delete=models.CASCADE, related_name="deliveries",
                             help_text="Empty for an event about a constitution, not a case (gate.paused)")
    event_type = models.CharField(max_length=40, choices=EventType.choices)
    # The Standard Webhooks message id: stable across retries so the client can de-duplicate.
    message_id = models.CharField(max_length=40, unique=True)
    payload = models.JSONField(encoder=DjangoJSONEncoder, help_text="The event's data, as the caller gave it")
    # jsonb keeps neither key order nor spacing, so the exact text is kept: every attempt sends the same bytes.
    body = models.TextField(help_text="The JSON sent on every attempt: the envelope around the payload")
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    # When PENDING: when the next attempt is due.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    # How the last attempt went, in a few words of ours ("HTTP 500 Internal Server Error", "refused: ...");
    # never what the receiver answered, which could be an internal service's page.
    last_reason = models.TextField(blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Each attempt claims the delivery (reviewconsole/work_claims.py), and `attempts` counts them: the claim
    # of the attempt in flight (SENDING) alone may record its outcome. Past its run_deadline its worker is
    # known dead and the sweeper makes the delivery due again.
    work_kind = WorkKind(
        doing="sending the delivery", waiting=DeliveryStatus.PENDING, running=DeliveryStatus.SENDING,
        failed=DeliveryStatus.FAILED, max_attempts=lambda: settings.WEBHOOK_MAX_ATTEMPTS,
        error_field="last_reason", started_field=None, finished_field=None, due_field="next_attempt_at",
        # Waiting deliveries are sent by the periodic dispatch of what is due, lost messages included.
        waiting_since=None,
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due")]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        about = f"case {self.case_id}" if self.case_id else f"client {self.client_id}"
        return f"{self.event_type} for {about} ({self.message_id})"

    @classmethod
    def on_work_failed(cls, work_id: Any, reason: str) -> None:
        # Imported here: the services import this module.
        from reviewconsole.webhooks.services import delivery_failed

        delivery_failed(delivery_id=work_id, reason=reason)
