"""The periodic sweeper: every kind of claimed work a worker lost goes back to its queue, or is failed.

Each app sweeps its own table (`reviewconsole.work_claims.sweep` over its kind) and enqueues its own
task; this module only names them, so no app reaches into another's rows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.intake.services import case_runs_sweep
from reviewconsole.policy.calibration import calibrations_sweep
from reviewconsole.review.services import edit_verifications_sweep
from reviewconsole.support.services import exports_sweep
from reviewconsole.webhooks.services import deliveries_sweep
from reviewconsole.workbench.retraining import retrainings_sweep

logger = logging.getLogger(__name__)

SWEEPS: dict[str, Callable[..., list[int]]] = {
    "case runs": case_runs_sweep,
    "edit verifications": edit_verifications_sweep,
    "webhook deliveries": deliveries_sweep,
    "audit exports": exports_sweep,
    "calibration runs": calibrations_sweep,
    "retraining runs": retrainings_sweep,
}


def sweep_all(*, now: datetime) -> dict[str, list[int]]:
    """Run every app's sweep; per kind, the ids sent to a worker again."""
    again = {kind: sweep(now=now) for kind, sweep in SWEEPS.items()}
    for kind, ids in again.items():
        if ids:
            logger.warning("re-enqueued %d lost %s: %s", len(ids), kind, ids)
    return again


@app.task(name="maintenance.sweep_claims")
def sweep_claims() -> int:
    """Periodic: a lost message or a killed worker must not strand any work; returns how many went back."""
    return sum(len(ids) for ids in sweep_all(now=timezone.now()).values())
