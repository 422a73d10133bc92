"""Reads for the webhook outbox."""

from __future__ import annotations

from datetime import datetime

from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery


def deliveries_due(*, now: datetime, limit: int) -> list[int]:
    """Ids of pending deliveries whose next attempt is due, the longest overdue first."""
    due = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
