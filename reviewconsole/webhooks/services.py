"""Writes for the webhook outbox: record an event, claim an attempt, record its outcome, retry."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.webhooks.models import DeliveryStatus, EventType, WebhookDelivery
from reviewconsole.webhooks.transport import AttemptOutcome

CASE_RELEASED = EventType.CASE_RELEASED
CASE_ESCALATED = EventType.CASE_ESCALATED
CASE_REJECTED = EventType.CASE_REJECTED
CASE_DECIDED = EventType.CASE_DECIDED

_LAST_ERROR_CHARS = 2000


def webhook_event_record(*, case: Case, event_type: str, payload: dict[str, Any]) -> WebhookDelivery | None:
    """Put an event for the case's client in the outbox and send it once the caller's transaction commits.

    Call it inside the transaction that makes the change the event reports, so the event exists exactly
    when the change does. Returns None when the client has no webhook URL (it polls instead).
    """
    if event_type not in EventType.values:
        raise ValueError(f"unknown webhook event type {event_type!r}; expected one of {EventType.values}")
    client = case.client
    if not client.webhook_url:
        return None
    now = timezone.now()
    envelope = {"type": str(event_type), "timestamp": now.isoformat(), "data": payload}
    delivery = WebhookDelivery.objects.create(
        client=client,
        case=case,
        event_type=event_type,
        message_id=f"msg_{uuid.uuid4().hex}",
        payload=payload,
        body=json.dumps(envelope, cls=DjangoJSONEncoder),
        next_attempt_at=now,
    )
    _enqueue_delivery(delivery)
    return delivery


@dataclass(frozen=True)
class DeliveryClaim:
    """The right to make one attempt at a delivery, held until `until`."""

    delivery_id: int
    token: uuid.UUID
    until: datetime


def delivery_claim(*, delivery_id: int, now: datetime) -> DeliveryClaim | None:
    """Take a pending delivery whose attempt is due; None if it is not due, not pending, or taken.

    One conditional UPDATE decides, so of two workers holding the same message only one sends. Moving
    next_attempt_at past the claim is the lock: the sweeper does not see the delivery as due meanwhile.
    """
    token = uuid.uuid4()
    until = now + task_hold()
    taken = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=until, claim_token=token)
    return DeliveryClaim(delivery_id, token, until) if taken else None


def delivery_attempt_record(*, claim: DeliveryClaim, outcome: AttemptOutcome, now: datetime) -> WebhookDelivery | None:
    """Record how an attempt went: delivered, due again after a backoff, or failed for good.

    Returns None when the result no longer applies: the delivery was delivered or failed meanwhile, or
    (for a failure) the claim ran out and a newer attempt holds the delivery.
    """
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().get(pk=claim.delivery_id)
        # A success counts even from an attempt that outran its claim: the client has the event.
        if delivery.status != DeliveryStatus.PENDING or (not outcome.delivered and delivery.claim_token != claim.token):
            return None
        delivery.attempts += 1
        delivery.last_attempt_at = now
        delivery.last_status_code = outcome.status_code
        delivery.last_error = outcome.error[:_LAST_ERROR_CHARS]
        delivery.claim_token = None
        if outcome.delivered:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = now
            delivery.next_attempt_at = None
        elif delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
        else:
            delivery.next_attempt_at = now + delivery_backoff(attempts=delivery.attempts)
        delivery.save()
        return delivery


def delivery_backoff(*, attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: doubling from the base, capped."""
    seconds = settings.WEBHOOK_BACKOFF_SECONDS * 2 ** (attempts - 1)
    return timedelta(seconds=min(seconds, settings.WEBHOOK_BACKOFF_MAX_SECONDS))


def delivery_fail(*, claim: DeliveryClaim, error: str, now: datetime) -> WebhookDelivery | None:
    """Fail a delivery that no attempt can succeed for (the client's URL or secret was removed)."""
    taken = WebhookDelivery.objects.filter(
        pk=claim.delivery_id, status=DeliveryStatus.PENDING, claim_token=claim.token
    ).update(
        status=DeliveryStatus.FAILED,
        last_attempt_at=now,
        last_status_code=None,
        last_error=error[:_LAST_ERROR_CHARS],
        next_attempt_at=None,
        claim_token=None,
    )
    return WebhookDelivery.objects.get(pk=claim.delivery_id) if taken else None


def delivery_retry(*, delivery: WebhookDelivery, now: datetime | None = None) -> bool:
    """Put a FAILED delivery back to PENDING with a fresh schedule of attempts, and send it now.

    For an operator once the client's endpoint is fixed. The last error stays visible until the next
    attempt replaces it. Returns False, changing nothing, if the delivery is not FAILED.
    """
    now = now or timezone.now()
    with transaction.atomic():
        reopened = WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.FAILED).update(
            status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=now
        )
        if reopened:
            _enqueue_delivery(delivery)
    delivery.refresh_from_db()
    return bool(reopened)


def _enqueue_delivery(delivery: WebhookDelivery) -> None:
    from reviewconsole.webhooks.tasks import deliver_webhook

    enqueue_on_commit(deliver_webhook, delivery.pk)
