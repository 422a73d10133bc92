"""Writes for the audit trail: append one event to the chain, in the caller's transaction; and the rows
that record exports (what an export covers and how far its file got). Imports no other app: every app
appends here (docs/architecture.md)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.chain import GENESIS_HASH, event_hash, normalise_payload
from reviewconsole.audit.models import AuditEvent, AuditExport, ExportFormat, ExportStatus
from reviewconsole.queues import task_hold

# Any constant shared by every writer; pg_advisory_xact_lock takes a bigint key ("audit" in ASCII).
CHAIN_LOCK_KEY = 0x6175646974
_ACTION = re.compile(r"^[a-z][a-z_]*\.[a-z][a-z_]*$")


def actor_label(actor: AbstractBaseUser | str) -> str:
    """How an actor is recorded: a person as "user:<username>", anything else by its own name."""
    if isinstance(actor, str):
        if not actor:
            raise ValueError("an audit actor needs a name")
        return actor
    return f"user:{actor.get_username()}"


def _lock_chain() -> None:
    # Held until the surrounding transaction ends, so the next writer reads the head this one wrote:
    # two writers can never both append to the same head (no fork). SQLite serialises writers already.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHAIN_LOCK_KEY])


def audit_record(
    *,
    actor: AbstractBaseUser | str,
    action: str,
    object_type: str,
    object_id: str | int,
    payload: dict[str, Any],
    case: Model | int | None = None,
) -> AuditEvent:
    """Append one event to the chain.

    Call it inside the transaction that makes the change it records: the event then exists exactly
    when the change does. Outside a transaction it opens its own, since the chain lock needs one.
    """
    if not _ACTION.match(action):
        raise ValueError(f"audit action {action!r} must read like 'object.verb'")
    label = actor_label(actor)
    body = normalise_payload(payload)
    case_id = case.pk if isinstance(case, Model) else case
    # No savepoint: a failed append must fail the caller's whole transaction anyway, and a run stores
    # dozens of events in one.
    with transaction.atomic(savepoint=False):
        _lock_chain()
        head_seq, head_hash = chain_head_values()
        seq, prev_hash = head_seq + 1, head_hash or GENESIS_HASH
        created_at = timezone.now()
        digest = event_hash(
            seq=seq, created_at=created_at, actor=label, action=str(action), object_type=object_type,
            object_id=str(object_id), case_id=case_id, payload=body, prev_hash=prev_hash,
        )
        return AuditEvent.objects.create(
            seq=seq, created_at=created_at, actor=label, action=str(action), object_type=object_type,
            object_id=str(object_id), case_id=case_id, payload=body, prev_hash=prev_hash, hash=digest,
        )


# --- Reads the writers need -----------------------------------------------------------------------


def chain_head_values() -> tuple[int, str]:
    """(seq, hash) of the newest event; (0, "") when the chain is empty."""
    head = AuditEvent.objects.order_by("-seq").values_list("seq", "hash").first()
    return head if head else (0, "")


# --- Export rows ---------------------------------------------------------------------------------


def export_record(
    *, requested_by: User, export_format: str, filters: dict[str, Any], head_seq: int, head_hash: str,
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
            head_seq=head_seq,
            head_hash=head_hash,
            rows_total=total,
            status=ExportStatus.STREAMED if streamed else ExportStatus.QUEUED,
        )
        # The export's own event may land after events appended since the head it covers: it records that head.
        audit_record(
            actor=requested_by, action=AuditAction.EXPORT_CREATED, object_type="export", object_id=export.pk,
            payload={"format": export_format, "filters": filters, "head_seq": head_seq,
                     "head_hash": head_hash, "rows": total, "delivery": "stream" if streamed else "file"},
        )
        return export


EXPORTS = work_claims.WorkKind(
    doing="writing the export",
    model=AuditExport,
    waiting=ExportStatus.QUEUED,
    running=ExportStatus.RUNNING,
    failed=ExportStatus.FAILED,
)


def export_claim(*, export_id: int, now: datetime) -> work_claims.Claim | None:
    """Take a queued export, or one whose run outlived the export's hard time limit (its worker died)."""
    deadline = now + task_hold(settings.AUDIT_EXPORT_TIME_LIMIT)
    return work_claims.claim(EXPORTS, work_id=export_id, now=now, deadline=deadline, rows_done=0)


def export_progress(*, claim: work_claims.Claim, rows_done: int) -> None:
    AuditExport.objects.filter(pk=claim.work_id, claim_token=claim.token).update(rows_done=rows_done)


def export_finish(*, claim: work_claims.Claim, file_name: str, rows_done: int) -> bool:
    """Mark the claimed export DONE with its file; False when the claim no longer holds."""
    return work_claims.finish(
        claim, status=ExportStatus.DONE, now=timezone.now(), file_name=file_name, rows_done=rows_done
    )


def exports_lost(*, now: datetime) -> list[int]:
    """File exports a worker lost (it died, or the message was lost), given back; those out of attempts fail."""
    return work_claims.sweep(EXPORTS, now=now, lost_after=timedelta(seconds=settings.STUCK_CASE_SECONDS))
