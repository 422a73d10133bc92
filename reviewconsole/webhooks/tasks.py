"""Tasks over delivery ids: make one attempt at a delivery, and send the deliveries that are due.

Backoff between attempts is not a Celery countdown: a message held back for an hour outlives the Redis
visibility timeout and is delivered twice. The delay lives in the row (next_attempt_at) and a periodic
sweep enqueues what is due.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone
from standardwebhooks.webhooks import EmptyWebhookSecretError

from reviewconsole.celery import app
from reviewconsole.webhooks import selectors, services
from reviewconsole.webhooks.models import WebhookDelivery
from reviewconsole.webhooks.signing import signed_headers
from reviewconsole.webhooks.transport import post_webhook

logger = logging.getLogger(__name__)

# A beat every 30 s sends at most this many; a larger backlog drains over the next beats.
DISPATCH_BATCH = 500


@app.task(name="webhooks.deliver_webhook")
def deliver_webhook(delivery_id: int) -> None:
    """Claim the delivery's due attempt, POST it signed, record the outcome. A no-op if it is not due."""
    claim = services.delivery_claim(delivery_id=delivery_id, now=timezone.now())
    if claim is None:
        logger.info("webhook delivery %s is not due, not pending or taken; nothing to do", delivery_id)
        return
    delivery = WebhookDelivery.objects.select_related("client").get(pk=delivery_id)
    client = delivery.client
    if not client.webhook_url:
        services.delivery_fail(claim=claim, error=f"client {client.name!r} has no webhook URL", now=timezone.now())
        return
    try:
        # Signed at send time: clients reject signatures more than a few minutes old.
        headers = signed_headers(
            secret=client.webhook_secret, message_id=delivery.message_id, timestamp=timezone.now(), body=delivery.body
        )
    except (ValueError, EmptyWebhookSecretError) as error:  # binascii.Error (not base64) is a ValueError
        error_text = f"client {client.name!r} has no usable signing secret: {error}"
        services.delivery_fail(claim=claim, error=error_text, now=timezone.now())
        return
    outcome = post_webhook(
        url=client.webhook_url, headers=headers, body=delivery.body, timeout=settings.WEBHOOK_TIMEOUT_SECONDS
    )
    services.delivery_attempt_record(claim=claim, outcome=outcome, now=timezone.now())


@app.task(name="webhooks.dispatch_due_webhooks")
def dispatch_due_webhooks() -> int:
    """Periodic: enqueue every pending delivery whose attempt is due (retries, and lost first sends)."""
    due = selectors.deliveries_due(now=timezone.now(), limit=DISPATCH_BATCH)
    for delivery_id in due:
        deliver_webhook.apply_async(args=(delivery_id,))
    if due:
        logger.info("enqueued %d due webhook deliveries", len(due))
    return len(due)
