"""Tasks over ids for the workbench: a retraining run of the learned scorer, on the `train` queue."""

from __future__ import annotations

import logging

from django.conf import settings

from reviewconsole.celery import app
from reviewconsole.workbench.retraining import retraining_execute

logger = logging.getLogger(__name__)


# The soft limit a minute before the hard one (half of it for the short limits the tests and drills set).
@app.task(name="workbench.retrain", time_limit=settings.RETRAINING_TIME_LIMIT,
          soft_time_limit=max(settings.RETRAINING_TIME_LIMIT - 60, settings.RETRAINING_TIME_LIMIT // 2))
def retrain(run_id: int) -> None:
    """Retrain the scorer for one run; a no-op when the run is not ours to run."""
    if retraining_execute(run_id=run_id) is None:
        logger.info("retraining run %s is running elsewhere or finished; nothing to do", run_id)


@app.task(name="workbench.auto_publish_calibrations")
def auto_publish_calibrations() -> int:
    """Periodic: publish the calibration of each constitution in shadow mode that opted in, once labels allow one."""
    from django.utils import timezone

    from reviewconsole.workbench.services import calibrations_auto_publish

    published = calibrations_auto_publish(now=timezone.now())
    for version in published:
        logger.info("published %s by itself: %s", version.label, version.note)
    return len(published)
