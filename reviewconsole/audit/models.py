"""The audit trail: append-only events, the signed tree heads that seal them, and the exports made of them."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models

from reviewconsole.audit.heads import SignedTreeHead
from reviewconsole.audit.leaves import canonical_time
from reviewconsole.work_claims import ClaimedRun, WorkKind


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("audit events are append-only (only the sealer gives them a position)")

    def delete(self):
        raise TypeError("audit events are append-only")


class AuditEvent(models.Model):
    """One machine step or human action: a leaf of the log's Merkle tree.

    A writer inserts the event with its content and `leaf_hash` and no position; the sealer
    (`sealer.log_seal`) later gives it `seq` and covers it with a signed tree head. On PostgreSQL a
    trigger (migrations 0002, 0004) refuses DELETE and every UPDATE except that one: `seq` set once, from
    empty, with nothing else changed; another (0005) refuses TRUNCATE. The console's own database role
    cannot disable them (`roles.py`). The checks here only catch mistakes in Python early.
    """

    seq = models.BigIntegerField(
        null=True, blank=True, unique=True, editable=False,
        help_text="Position in the log, from 1, without gaps; empty until the sealer gives it one",
    )
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
    leaf_hash = models.CharField(max_length=64, help_text="RFC 6962 leaf hash of the content (leaves.py), hex")

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        # Append order: sealed or not, every event has an id, and the sealer gives positions in id order.
        ordering = ["id"]
        indexes = [
            models.Index(fields=["case", "id"], name="audit_event_case"),
            models.Index(fields=["action", "created_at"], name="audit_event_action_time"),
            # What the sealer reads: the few events not sealed yet, in id order, without scanning the log.
            models.Index(fields=["id"], condition=models.Q(seq__isnull=True), name="audit_event_unsealed"),
        ]
        constraints = [
            # The sealer decodes every leaf hash: a malformed one, even a forged one, must not get in.
            models.CheckConstraint(condition=models.Q(leaf_hash__regex=r"^[0-9a-f]{64}$"), name="audit_leaf_hash_hex"),
        ]

    def __str__(self) -> str:
        return f"audit event {self.seq or 'unsealed'} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("audit events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("audit events are append-only")


class AuditTreeHead(models.Model):
    """The log as one sealing batch left it: its first `tree_size` events hash to `root_hash`, signed.

    Append-only like the events (the same trigger refuses UPDATE and DELETE). `frontier` is the tree's
    right edge (`merkle.CompactRange`), so the next batch extends the tree without reading old leaves; it is
    not signed, and the sealer checks it against `root_hash` before it trusts it.
    """

    tree_size = models.PositiveBigIntegerField(unique=True)
    root_hash = models.CharField(max_length=64)
    sealed_at = models.DateTimeField()
    frontier = models.JSONField(default=list, help_text="Hex roots of the perfect subtrees on the right edge")
    key_id = models.CharField(max_length=16)
    signature = models.CharField(max_length=100, help_text="Ed25519 over heads.head_statement, base64")

    class Meta:
        ordering = ["tree_size"]

    def __str__(self) -> str:
        return f"tree head {self.tree_size} {self.root_hash[:12]}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("tree heads are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("tree heads are append-only")

    def signed(self) -> SignedTreeHead:
        return SignedTreeHead(tree_size=self.tree_size, root_hash=self.root_hash,
                              sealed_at=canonical_time(self.sealed_at), key_id=self.key_id, signature=self.signature)


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
    EXPIRED = "EXPIRED", "Expired: its file was removed"


class AuditExport(ClaimedRun):
    """One export of a filtered range: what was asked, which signed tree head it covers, and its file."""

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    format = models.CharField(max_length=10, choices=ExportFormat.choices)
    filters = models.JSONField(default=dict)
    tree_size = models.BigIntegerField(
        default=0, help_text="The export covers the events of this tree head: seq 1 to this"
    )
    root_hash = models.CharField(max_length=64, blank=True, help_text="That tree head's root; empty for the empty log")
    status = models.CharField(max_length=10, choices=ExportStatus.choices, default=ExportStatus.QUEUED)
    rows_total = models.PositiveBigIntegerField(default=0)
    rows_done = models.PositiveBigIntegerField(default=0)
    file_name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # A worker claims a file export to write it (reviewconsole/work_claims.py); a streamed one is never queued.
    work_kind = WorkKind(
        doing="writing the export", waiting=ExportStatus.QUEUED, running=ExportStatus.RUNNING,
        failed=ExportStatus.FAILED,
    )

    class Meta:
        ordering = ["-created_at"]

    @property
    def is_finished(self) -> bool:
        return self.status in (ExportStatus.DONE, ExportStatus.FAILED, ExportStatus.STREAMED, ExportStatus.EXPIRED)

    @property
    def file_kept_until(self) -> datetime | None:
        """When the file of a done export is removed: AUDIT_EXPORT_RETENTION_HOURS after it was written."""
        if self.status != ExportStatus.DONE or self.finished_at is None:
            return None
        return self.finished_at + timedelta(hours=settings.AUDIT_EXPORT_RETENTION_HOURS)

    @property
    def percent(self) -> int:
        if self.status in (ExportStatus.DONE, ExportStatus.STREAMED, ExportStatus.EXPIRED):
            return 100
        return int(100 * self.rows_done / self.rows_total) if self.rows_total else 0


class ChainCheckStatus(models.TextChoices):
    QUEUED = "QUEUED", "Queued"
    RUNNING = "RUNNING", "Running"
    DONE = "DONE", "Done"
    FAILED = "FAILED", "Failed: the check could not run"


class ChainCheck(ClaimedRun):
    """One check of the whole audit chain, asked for from the console and run by a worker: every event
    against its leaf hash, every signed tree head against the events, and the heads saved outside the
    database (AUDIT_HEADS_FILE); what it found, the first break named."""

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=ChainCheckStatus.choices, default=ChainCheckStatus.QUEUED)
    created_at = models.DateTimeField(auto_now_add=True)
    intact = models.BooleanField(null=True, help_text="None until the check is done")
    events = models.BigIntegerField(default=0, help_text="Sealed events whose leaves were checked")
    heads = models.PositiveIntegerField(default=0, help_text="Signed tree heads checked")
    saved_heads = models.PositiveIntegerField(default=0, help_text="Heads saved outside the database checked")
    tree_size = models.BigIntegerField(default=0, help_text="The newest signed tree head the check vouches for")
    root_hash = models.CharField(max_length=64, blank=True)
    unsealed = models.PositiveIntegerField(default=0, help_text="Events waiting to be sealed")
    problems = models.JSONField(default=list, help_text="What does not hold, first break first: kind, message, "
                                                         "event id and position")

    # A worker claims the check to run it (reviewconsole/work_claims.py): as long as an export, at most.
    work_kind = WorkKind(
        doing="checking the audit chain", waiting=ChainCheckStatus.QUEUED, running=ChainCheckStatus.RUNNING,
        failed=ChainCheckStatus.FAILED,
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def is_finished(self) -> bool:
        return self.status in (ChainCheckStatus.DONE, ChainCheckStatus.FAILED)

    @property
    def first_break(self) -> dict | None:
        return self.problems[0] if self.problems else None
