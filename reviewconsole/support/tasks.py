"""Tasks over export ids: write a large export to a file; remove the files past their retention."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.support import services

logger = logging.getLogger(__name__)


@app.task(
    name="audit.export",
    time_limit=settings.AUDIT_EXPORT_TIME_LIMIT,
    soft_time_limit=settings.AUDIT_EXPORT_TIME_LIMIT - 60,
)
def run_export(export_id: int) -> None:
    """Write the export's file; a no-op when the export is not ours to run."""
    if services.export_run(export_id=export_id) is None:
        logger.info("export %s is running elsewhere, done or failed; nothing written", export_id)


@app.task(name="audit.expire_exports")
def expire_exports() -> int:
    """Periodic: export files older than AUDIT_EXPORT_RETENTION_HOURS are removed; returns how many."""
    expired = services.exports_expire(now=timezone.now())
    if expired:
        logger.info("removed the files of %d expired export(s): %s", len(expired), expired)
    return len(expired)


@app.task(name="audit.breaker_check")
def breaker_check(constitution: str) -> bool:
    """Recount the constitution's spot checks and open its release breaker if they say so; whether it opened."""
    from reviewconsole.support.breaker_watch import breaker_check as check

    return bool(check(constitution=constitution, now=timezone.now()))
