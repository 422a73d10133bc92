"""Reads for the webhook outbox."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, QuerySet

from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery


def deliveries_due(*, now: datetime, limit: int) -> list[int]:
    """Ids of pending deliveries whose next attempt is due, the longest overdue first."""
    due = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])


def deliveries(*, client_id: int | None = None, status: str | None = None) -> QuerySet[WebhookDelivery]:
    """Deliveries newest first, optionally of one client and in one status, with their client and case."""
    found = WebhookDelivery.objects.select_related("client", "case").defer("body", "payload")
    if client_id is not None:
        found = found.filter(client_id=client_id)
    if status:
        found = found.filter(status=status)
    return found.order_by("-created_at", "-pk")


def delivery_counts() -> dict[str, int]:
    """How many deliveries are in each status."""
    counts = dict.fromkeys(DeliveryStatus.values, 0)
    for row in WebhookDelivery.objects.values("status").annotate(n=Count("pk")):
        counts[row["status"]] = row["n"]
    return counts
