"""Writes for the audit trail: append one event, in the caller's transaction and without any lock; and the
rows that record exports (what an export covers and how far its file got). Imports no other app: every
app appends here (docs/architecture.md). The sealer (`sealer.py`) is the one other writer of events.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.leaves import leaf_hash, normalise_payload
from reviewconsole.audit.models import AuditEvent, AuditExport, ExportFormat, ExportStatus
from reviewconsole.audit.sealer import seal_after_commit
from reviewconsole.inserts import insert
from reviewconsole.queues import task_hold

_ACTION = re.compile(r"^[a-z][a-z_]*\.[a-z][a-z_]*$")


def actor_label(actor: AbstractBaseUser | str) -> str:
    """How an actor is recorded: a person as "user:<username>", anything else by its own name."""
    if isinstance(actor, str):
        if not actor:
            raise ValueError("an audit actor needs a name")
        return actor
    return f"user:{actor.get_username()}"


def audit_record(
    *,
    actor: AbstractBaseUser | str,
    action: str,
    object_type: str,
    object_id: str | int,
    payload: dict[str, Any],
    case: Model | int | None = None,
) -> AuditEvent:
    """Append one event to the log.

    Call it inside the transaction that makes the change it records: the event then exists exactly when
    the change does. It is one INSERT of the event's content and leaf hash, with no position and no lock,
    so appends from any number of transactions run side by side; the sealer gives the event its `seq`
    within seconds of the commit (until then `seq` is None).
    """
    if not _ACTION.match(action):
        raise ValueError(f"audit action {action!r} must read like 'object.verb'")
    content = {
        "created_at": timezone.now(),
        "actor": actor_label(actor),
        "action": str(action),
        "object_type": object_type,
        "object_id": str(object_id),
        "case_id": case.pk if isinstance(case, Model) else case,
        "payload": normalise_payload(payload),
    }
    event = AuditEvent(**content, leaf_hash=leaf_hash(**content))
    insert([event])
    if settings.AUDIT_SEAL_ON_COMMIT:
        seal_after_commit()
    return event


# --- Export rows ---------------------------------------------------------------------------------


def export_record(
    *, requested_by: User, export_format: str, filters: dict[str, Any], tree_size: int, root_hash: str,
    total: int, streamed: bool,
) -> AuditExport:
    """The row of one export and its own `export.created` event, in one transaction."""
    if export_format not in ExportFormat.values:
        raise ValueError(f"unknown export format {export_format!r}")
    with transaction.atomic():
        export = AuditExport.objects.create(
            requested_by=requested_by,
            format=export_format,
            filters=filters,
            tree_size=tree_size,
            root_hash=root_hash,
            rows_total=total,
            status=ExportStatus.STREAMED if streamed else ExportStatus.QUEUED,
        )
        # The export's own event is sealed after the head it covers: it records that head.
        audit_record(
            actor=requested_by, action=AuditAction.EXPORT_CREATED, object_type="export", object_id=export.pk,
            payload={"format": export_format, "filters": filters, "tree_size": tree_size,
                     "root_hash": root_hash, "rows": total, "delivery": "stream" if streamed else "file"},
        )
        return export


def export_claim(*, export_id: int, now: datetime) -> work_claims.Claim | None:
    """Take a queued export, or one whose run outlived the export's hard time limit (its worker died)."""
    deadline = now + task_hold(settings.AUDIT_EXPORT_TIME_LIMIT)
    return work_claims.claim(AuditExport.work_kind, work_id=export_id, now=now, deadline=deadline, rows_done=0)


def export_progress(*, claim: work_claims.Claim, rows_done: int) -> None:
    AuditExport.objects.filter(pk=claim.work_id, claim_token=claim.token).update(rows_done=rows_done)


def export_finish(*, claim: work_claims.Claim, file_name: str, rows_done: int) -> bool:
    """Mark the claimed export DONE with its file; False when the claim no longer holds."""
    return work_claims.finish(
        claim, status=ExportStatus.DONE, now=timezone.now(), file_name=file_name, rows_done=rows_done
    )


def exports_lost(*, now: datetime) -> list[int]:
    """File exports a worker lost (it died, or the message was lost), given back; those out of attempts fail."""
    return work_claims.sweep(AuditExport.work_kind, now=now)


def exports_past_retention(*, now: datetime) -> list[AuditExport]:
    """Exports whose file was written longer ago than AUDIT_EXPORT_RETENTION_HOURS, oldest first."""
    cutoff = now - timedelta(hours=settings.AUDIT_EXPORT_RETENTION_HOURS)
    done = AuditExport.objects.filter(status=ExportStatus.DONE, finished_at__lt=cutoff)
    return list(done.order_by("finished_at", "pk"))


def export_expire(*, export: AuditExport) -> bool:
    """Mark a done export EXPIRED, its file removed, with its `export.expired` event; False if it was not done."""
    with transaction.atomic():
        if not AuditExport.objects.filter(pk=export.pk, status=ExportStatus.DONE).update(status=ExportStatus.EXPIRED):
            return False
        audit_record(actor=SYSTEM, action=AuditAction.EXPORT_EXPIRED, object_type="export", object_id=export.pk,
                     payload={"file": export.file_name, "retention_hours": settings.AUDIT_EXPORT_RETENTION_HOURS})
    return True
