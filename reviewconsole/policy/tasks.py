"""Tasks over ids for policy: a calibration run, and the nightly canary of every published rubric."""

from __future__ import annotations

import logging

from reviewconsole.celery import app
from reviewconsole.policy.calibration import calibration_execute, calibration_request
from reviewconsole.policy.models import CalibrationTrigger, RubricVersion, VersionStatus

logger = logging.getLogger(__name__)


@app.task(name="policy.calibrate")
def calibrate(run_id: int) -> None:
    """Score the critic on one rubric version's fixtures; a no-op when the run is not ours to run."""
    if calibration_execute(run_id=run_id) is None:
        logger.info("calibration run %s is running elsewhere or finished; nothing to do", run_id)


@app.task(name="policy.canary")
def canary() -> int:
    """Nightly: calibrate every published rubric, so a critic that drifted shows up as a banner."""
    published = RubricVersion.objects.filter(status=VersionStatus.PUBLISHED)
    runs = [calibration_request(rubric_version=version, trigger=CalibrationTrigger.CANARY) for version in published]
    return len(runs)
