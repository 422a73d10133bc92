"""The audit trail: append-only events in one hash chain, and the exports made of it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("audit events are append-only")

    def delete(self):
        raise TypeError("audit events are append-only")


class AuditEvent(models.Model):
    """One machine step or human action. `hash` covers every field and the previous event's hash.

    On PostgreSQL a trigger (migration 0002) refuses UPDATE and DELETE; the checks here only catch
    mistakes in Python early.
    """

    seq = models.BigIntegerField(unique=True, help_text="Position in the chain, from 1, without gaps")
    created_at = models.DateTimeField(db_index=True)
    actor = models.CharField(max_length=150, db_index=True, help_text='"user:<name>", "engine", "client:<name>" ...')
    action = models.CharField(max_length=50, db_index=True)
    object_type = models.CharField(max_length=40)
    object_id = models.CharField(max_length=64)
    # Not a constraint: an event outlives what it describes, and a cascade would need a DELETE here. Named,
    # not imported: the log sits below the apps that write to it (docs/architecture.md).
    case = models.ForeignKey(
        "intake.Case", null=True, blank=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    payload = models.JSONField(default=dict)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["seq"]
        indexes = [
            models.Index(fields=["case", "seq"], name="audit_event_case"),
            models.Index(fields=["action", "created_at"], name="audit_event_action_time"),
        ]

    def __str__(self) -> str:
        return f"audit event {self.seq} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("audit events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("audit events are append-only")


class ExportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    JSONL = "jsonl", "JSON lines"
    FIXTURES = "fixtures", "Regression fixtures (JSON lines)"


class ExportStatus(models.TextChoices):
    STREAMED = "STREAMED", "Streamed to the browser"
    QUEUED = "QUEUED", "Queued"
    RUNNING = "RUNNING", "Running"
    DONE = "DONE", "Done"
    FAILED = "FAILED", "Failed"


class AuditExport(models.Model):
    """One export of a filtered range: what was asked, which chain head it covered, and its file."""

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    format = models.CharField(max_length=10, choices=ExportFormat.choices)
    filters = models.JSONField(default=dict)
    head_seq = models.BigIntegerField(default=0, help_text="The export covers events up to this one")
    head_hash = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=10, choices=ExportStatus.choices, default=ExportStatus.QUEUED)
    rows_total = models.PositiveBigIntegerField(default=0)
    rows_done = models.PositiveBigIntegerField(default=0)
    file_name = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A worker holds a file export until run_deadline; past it, the worker is known dead and the sweeper
    # queues the export again, until `attempts` (claims so far) reaches the cap and it is failed instead.
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    run_deadline = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]

    @property
    def is_finished(self) -> bool:
        return self.status in (ExportStatus.DONE, ExportStatus.FAILED, ExportStatus.STREAMED)

    @property
    def percent(self) -> int:
        if self.status in (ExportStatus.DONE, ExportStatus.STREAMED):
            return 100
        return int(100 * self.rows_done / self.rows_total) if self.rows_total else 0
