"""The periodic sealer, as a task: every AUDIT_SEAL_SECONDS on the maintenance queue (celery beat)."""

from __future__ import annotations

import logging

from django.conf import settings

from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.celery import app

logger = logging.getLogger(__name__)


@app.task(name="audit.seal")
def seal() -> int:
    """Seal every committed event not sealed yet; returns how many were. A no-op while another sealer runs."""
    batches = log_seal_pending(wait=False, budget_seconds=max(10 * settings.AUDIT_SEAL_SECONDS, 10.0))
    sealed = sum(batch.events for batch in batches)
    if batches:
        logger.debug("sealed %d audit events; tree head %d", sealed, batches[-1].head.tree_size)
    return sealed
