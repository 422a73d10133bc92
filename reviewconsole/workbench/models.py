"""Retraining runs: a policy admin's (or an operator's) request to retrain the learned scorer on one
constitution's reviewer labels, held by a worker on the `train` queue until it ends in a model version."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from reviewconsole.policy.models import CalibrationStatus, NamedConstitution, ScorerModel
from reviewconsole.work_claims import ClaimedRun, WorkKind

# A run moves through the same four states as a critic's calibration run.
RetrainingStatus = CalibrationStatus


class RetrainingRun(ClaimedRun):
    """One retraining of the scorer: the labels it read, its progress, and the model version it made."""

    constitution = models.ForeignKey(NamedConstitution, on_delete=models.PROTECT, related_name="retraining_runs")
    status = models.CharField(max_length=10, choices=RetrainingStatus.choices, default=RetrainingStatus.QUEUED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="Empty for a run an operator started from the command line",
    )
    epochs = models.FloatField(default=2.0, help_text="Passes over the organisation's training pairs")
    stage = models.CharField(max_length=40, blank=True, help_text="What the worker is doing now")
    steps_done = models.PositiveIntegerField(default=0)
    steps_total = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, help_text="The labels it read: trained on, held out, left out and why")
    model = models.ForeignKey(ScorerModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                              help_text="The model version the run made")
    created_at = models.DateTimeField(auto_now_add=True)

    # A worker of the `train` pool claims the run (reviewconsole/work_claims.py).
    work_kind = WorkKind(
        doing="retraining the scorer", waiting=RetrainingStatus.QUEUED, running=RetrainingStatus.RUNNING,
        failed=RetrainingStatus.FAILED,
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    @classmethod
    def on_work_failed(cls, work_id: Any, reason: str) -> None:
        # Imported here: the retraining service imports this module.
        from reviewconsole.workbench.retraining import retraining_failed

        retraining_failed(run_id=work_id, error=reason)

    @property
    def is_finished(self) -> bool:
        return self.status in (RetrainingStatus.DONE, RetrainingStatus.FAILED)

    @property
    def progress_percent(self) -> int:
        return int(100 * self.steps_done / self.steps_total) if self.steps_total else 0
