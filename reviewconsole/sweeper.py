"""The periodic sweeper: every kind of claimed work a worker lost goes back to its queue, or is failed.

Each app sweeps its own table (`reviewconsole.work_claims.sweep` over its kind) and enqueues its own
task; this module only names each kind's sweep, so no app reaches into another's rows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.chain_checks import chain_checks_sweep
from reviewconsole.audit.models import AuditExport, ChainCheck
from reviewconsole.celery import app
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import case_runs_sweep
from reviewconsole.policy.calibration import calibrations_sweep
from reviewconsole.policy.models import CalibrationRun
from reviewconsole.review.models import EditVerification
from reviewconsole.review.services import edit_verifications_sweep
from reviewconsole.support.services import exports_sweep
from reviewconsole.webhooks.models import WebhookDelivery
from reviewconsole.webhooks.services import deliveries_sweep
from reviewconsole.work_claims import ClaimedWork
from reviewconsole.workbench.models import RetrainingRun
from reviewconsole.workbench.retraining import retrainings_sweep

logger = logging.getLogger(__name__)

SWEEPS: dict[type[ClaimedWork], Callable[..., list[int]]] = {
    Case: case_runs_sweep,
    EditVerification: edit_verifications_sweep,
    WebhookDelivery: deliveries_sweep,
    # Audit owns the table; the task that writes an export, and so sends it again, is support's.
    AuditExport: exports_sweep,
    ChainCheck: chain_checks_sweep,
    CalibrationRun: calibrations_sweep,
    RetrainingRun: retrainings_sweep,
}
"""The sweep of each kind of claimed work (`work_claims.kinds()`): its app's, which sends its own task."""


def sweep_all(*, now: datetime) -> dict[str, list[int]]:
    """Run the sweep of every kind of claimed work; per kind (its table's plural name), the ids sent again.

    A kind without a sweep fails here, loudly, rather than never being swept.
    """
    again = {str(kind.model._meta.verbose_name_plural): SWEEPS[kind.model](now=now) for kind in work_claims.kinds()}
    for kind, ids in again.items():
        if ids:
            logger.warning("re-enqueued %d lost %s: %s", len(ids), kind, ids)
    return again


@app.task(name="maintenance.sweep_claims")
def sweep_claims() -> int:
    """Periodic: a lost message or a killed worker must not strand any work; returns how many went back."""
    return sum(len(ids) for ids in sweep_all(now=timezone.now()).values())
