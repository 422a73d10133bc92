"""Tasks over ids for review: verify a reviewer's edit again with the engine."""

from __future__ import annotations

import logging

from reviewconsole.celery import app
from reviewconsole.review import services

logger = logging.getLogger(__name__)


@app.task(name="review.verify_edit")
def verify_edit(candidate_pk: int) -> None:
    """Check the edited text against the case's own sources; a no-op when the edit is not ours to verify."""
    if services.edit_verification_run(candidate_pk=candidate_pk) is None:
        logger.info("edit %s is being verified elsewhere, verified or failed; nothing stored", candidate_pk)


@app.task(name="review.notify_overdue")
def notify_overdue() -> int:
    """Periodic: tell the clients and people of the cases newly past their time to decision."""
    from django.utils import timezone

    from reviewconsole.review.overdue import overdue_notify

    return len(overdue_notify(now=timezone.now()))


@app.task(name="review.send_digests")
def send_digests() -> int:
    """Daily: each reviewer's digest of the cases assigned to them."""
    from django.utils import timezone

    from reviewconsole.review.overdue import digests_send

    return digests_send(now=timezone.now())
