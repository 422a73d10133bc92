"""Tasks over delivery ids: make one attempt at a delivery, and send the deliveries that are due.

Backoff between attempts is not a Celery countdown: a message held back for an hour outlives the Redis
visibility timeout and is delivered twice. The delay lives in the row (next_attempt_at) and a periodic
dispatch enqueues what is due.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.webhooks import selectors, services

logger = logging.getLogger(__name__)

# A beat every 30 s sends at most this many; a larger backlog drains over the next beats.
DISPATCH_BATCH = 500


@app.task(name="webhooks.deliver_webhook")
def deliver_webhook(delivery_id: int) -> None:
    """Make the delivery's due attempt; a no-op when it is not due, not pending or taken."""
    if services.delivery_send(delivery_id=delivery_id) is None:
        logger.info("no attempt recorded for webhook delivery %s: not due, not pending or taken", delivery_id)


@app.task(name="webhooks.dispatch_due_webhooks")
def dispatch_due_webhooks() -> int:
    """Periodic: enqueue every pending delivery whose attempt is due (retries, and lost first sends)."""
    due = selectors.deliveries_due(now=timezone.now(), limit=DISPATCH_BATCH)
    for delivery_id in due:
        deliver_webhook.apply_async(args=(delivery_id,))
    if due:
        logger.info("enqueued %d due webhook deliveries", len(due))
    return len(due)
