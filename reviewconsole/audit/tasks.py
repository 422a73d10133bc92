"""The periodic sealer, as a task: every AUDIT_SEAL_SECONDS on its own queue (celery beat); and a check of the
whole chain a support lead asked for, on the maintenance queue."""

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


@app.task(
    name="audit.check_chain",
    time_limit=settings.AUDIT_EXPORT_TIME_LIMIT,
    soft_time_limit=settings.AUDIT_EXPORT_TIME_LIMIT - 60,
)
def check_chain(check_id: int) -> None:
    """Run a chain check a support lead asked for; a no-op when it is not ours to run."""
    from reviewconsole.audit.chain_checks import chain_check_run

    if chain_check_run(check_id=check_id) is None:
        logger.info("chain check %s is running elsewhere, done or failed; nothing checked", check_id)
