"""Writes for the webhook outbox: record an event, claim an attempt, record its outcome, retry."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import EmptyWebhookSecretError

from reviewconsole import work_claims
from reviewconsole.audit.actions import WORKER, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.intake.models import Case, Client
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.webhooks.models import DeliveryStatus, EventType, WebhookDelivery
from reviewconsole.webhooks.signing import signed_headers
from reviewconsole.webhooks.transport import AttemptOutcome, post_webhook

CASE_RELEASED = EventType.CASE_RELEASED
CASE_ESCALATED = EventType.CASE_ESCALATED
CASE_REJECTED = EventType.CASE_REJECTED
CASE_DECIDED = EventType.CASE_DECIDED
CASE_FAILED = EventType.CASE_FAILED
GATE_PAUSED = EventType.GATE_PAUSED
CASE_OVERDUE = EventType.CASE_OVERDUE

_REASON_CHARS = 500


def webhook_event_record(
    *, case: Case, event_type: str, payload: dict[str, Any], due_at: datetime | None = None
) -> WebhookDelivery | None:
    """Put an event for the case's client in the outbox and send it once the caller's transaction commits
    (or at `due_at`, by the periodic dispatch: a decision waits out its undo window).

    Call it inside the transaction that makes the change the event reports, so the event exists exactly
    when the change does. Returns None when the client has no webhook URL (it polls instead).
    """
    return client_event_record(client=case.client, case=case, event_type=event_type, payload=payload, due_at=due_at)


def client_event_record(
    *, client: Client, event_type: str, payload: dict[str, Any], case: Case | None = None,
    due_at: datetime | None = None,
) -> WebhookDelivery | None:
    """`webhook_event_record` for any event of a client, about a case or (`case` None) about something else,
    such as a constitution whose releases stopped."""
    if event_type not in EventType.values:
        raise ValueError(f"unknown webhook event type {event_type!r}; expected one of {EventType.values}")
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
        next_attempt_at=max(now, due_at) if due_at is not None else now,
    )
    if due_at is None or due_at <= now:
        _enqueue_delivery(delivery.pk)
    return delivery


def delivery_withdraw(*, case: Case, event_type: str) -> bool | None:
    """Take the newest `event_type` delivery of the case out of the outbox before any attempt at it: the
    change it reports was undone. False when an attempt was made already (the client may have it);
    None when there is none (the client has no webhook URL)."""
    newest = WebhookDelivery.objects.filter(case=case, event_type=event_type).order_by("-created_at", "-pk").first()
    if newest is None:
        return None
    # Conditional, so an attempt claimed at this moment wins and the withdrawal is refused.
    withdrawn, _ = WebhookDelivery.objects.filter(pk=newest.pk, status=DeliveryStatus.PENDING, attempts=0).delete()
    return bool(withdrawn)


def delivery_failed(*, delivery_id: int, reason: str) -> None:
    """A delivery out of attempts (`WebhookDelivery.on_work_failed`): audited with its last reason."""
    _audit_failed(delivery=WebhookDelivery.objects.select_related("client").get(pk=delivery_id), reason=reason)


def delivery_send(*, delivery_id: int) -> WebhookDelivery | None:
    """Claim the delivery's due attempt, POST it signed, record the outcome; None if it is not due or taken."""
    claim = delivery_claim(delivery_id=delivery_id, now=timezone.now())
    if claim is None:
        return None
    with work_claims.settling(claim):
        delivery = WebhookDelivery.objects.select_related("client").get(pk=delivery_id)
        client = delivery.client
        if not client.webhook_url:
            return delivery_fail(claim=claim, error=f"client {client.name!r} has no webhook URL", now=timezone.now())
        try:
            # Signed at send time: clients reject signatures more than a few minutes old.
            headers = signed_headers(
                secret=client.webhook_secret, message_id=delivery.message_id, timestamp=timezone.now(),
                body=delivery.body,
            )
        except (ValueError, EmptyWebhookSecretError) as error:  # binascii.Error (not base64) is a ValueError
            error_text = f"client {client.name!r} has no usable signing secret: {error}"
            return delivery_fail(claim=claim, error=error_text, now=timezone.now())
        outcome = post_webhook(
            url=client.webhook_url, headers=headers, body=delivery.body, timeout=settings.WEBHOOK_TIMEOUT_SECONDS
        )
        if outcome.refused:
            # Permanent: every attempt would be refused the same way until the URL changes.
            return delivery_fail(claim=claim, error=outcome.reason, now=timezone.now())
        return delivery_attempt_record(claim=claim, outcome=outcome, now=timezone.now())
    return None


def delivery_claim(*, delivery_id: int, now: datetime) -> work_claims.Claim | None:
    """Take a pending delivery whose attempt is due, or one whose attempt outlived its deadline (its worker
    died); None if it is not due, not pending, or taken. It is SENDING while the claim holds."""
    return work_claims.claim(WebhookDelivery.work_kind, work_id=delivery_id, now=now, deadline=now + task_hold())


def delivery_attempt_record(
    *, claim: work_claims.Claim, outcome: AttemptOutcome, now: datetime
) -> WebhookDelivery | None:
    """Record how an attempt went: delivered, due again after a backoff, or failed for good.

    Returns None when the result no longer applies: the delivery was delivered or failed meanwhile, or
    (for a failure) the claim ran out and a newer attempt holds the delivery.
    """
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().get(pk=claim.work_id)
        # A success counts even from an attempt that outran its claim: the client has the event.
        settled = delivery.status in (DeliveryStatus.DELIVERED, DeliveryStatus.FAILED)
        if settled or (not outcome.delivered and delivery.claim_token != claim.token):
            return None
        delivery.last_attempt_at = now
        delivery.last_status_code = outcome.status_code
        delivery.last_reason = outcome.reason[:_REASON_CHARS]
        delivery.claim_token = None
        delivery.run_deadline = None
        if outcome.delivered:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = now
            delivery.next_attempt_at = None
        elif delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
            gave_up = f"gave up after {delivery.attempts} attempt(s): {delivery.last_reason}"
            _audit_failed(delivery=delivery, reason=gave_up)
        else:
            delivery.status = DeliveryStatus.PENDING
            delivery.next_attempt_at = now + delivery_backoff(attempts=delivery.attempts)
        delivery.save()
        return delivery


def delivery_backoff(*, attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: doubling from the base, capped."""
    seconds = settings.WEBHOOK_BACKOFF_SECONDS * 2 ** (attempts - 1)
    return timedelta(seconds=min(seconds, settings.WEBHOOK_BACKOFF_MAX_SECONDS))


def delivery_fail(*, claim: work_claims.Claim, error: str, now: datetime) -> WebhookDelivery | None:
    """Fail a delivery that no attempt can succeed for (the client's URL was refused or removed, its secret
    is unusable)."""
    failed = work_claims.fail(
        claim, error=error[:_REASON_CHARS], now=now, last_attempt_at=now, last_status_code=None,
        next_attempt_at=None,
    )
    return WebhookDelivery.objects.get(pk=claim.work_id) if failed else None


def _audit_failed(*, delivery: WebhookDelivery, reason: str) -> None:
    """The audit event of a delivery failed for good, in the transaction that failed it."""
    audit_record(
        actor=WORKER, action=AuditAction.WEBHOOK_FAILED, object_type="webhook_delivery", object_id=delivery.pk,
        case=delivery.case_id,
        payload={"client": delivery.client.name, "message_id": delivery.message_id, "event": delivery.event_type,
                 "attempts": delivery.attempts, "reason": reason[:_REASON_CHARS]},
    )


def deliveries_sweep(*, now: datetime) -> list[int]:
    """Attempts a worker lost (it died mid-send): due again at once, or failed out of attempts."""
    lost = work_claims.sweep(WebhookDelivery.work_kind, now=now)
    for delivery_id in lost:
        _enqueue_delivery(delivery_id)
    return lost


def delivery_retry(*, delivery: WebhookDelivery, now: datetime | None = None) -> bool:
    """Send a FAILED or PENDING delivery now: a failed one back to PENDING with a fresh schedule of attempts,
    a pending one without waiting out its backoff (its attempts so far still count).

    For an operator once the client's endpoint is fixed. The last reason stays visible until the next
    attempt replaces it. Returns False, changing nothing, for a delivery that is sending or delivered.
    """
    now = now or timezone.now()
    with transaction.atomic():
        this = WebhookDelivery.objects.filter(pk=delivery.pk)
        reopened = this.filter(status=DeliveryStatus.FAILED).update(
            status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=now
        ) or this.filter(status=DeliveryStatus.PENDING).update(next_attempt_at=now)
        if reopened:
            _enqueue_delivery(delivery.pk)
    delivery.refresh_from_db()
    return bool(reopened)


def _enqueue_delivery(delivery_id: int) -> None:
    from reviewconsole.webhooks.tasks import deliver_webhook

    enqueue_on_commit(deliver_webhook, delivery_id)
