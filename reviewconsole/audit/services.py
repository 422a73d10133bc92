"""Writes for the audit trail: append one event to the chain, in the caller's transaction."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.chain import GENESIS_HASH, event_hash, normalise_payload
from reviewconsole.audit.models import AuditEvent, AuditExport, ExportFormat, ExportStatus
from reviewconsole.audit.selectors import AuditFilter, chain_head_values, decisions_for_fixtures, events_matching
from reviewconsole.queues import enqueue_on_commit, task_hold

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
        fields = {
            "seq": seq,
            "created_at": created_at,
            "actor": label,
            "action": str(action),
            "object_type": object_type,
            "object_id": str(object_id),
            "case_id": case_id,
            "payload": body,
        }
        return AuditEvent.objects.create(**fields, prev_hash=prev_hash, hash=event_hash(**fields, prev_hash=prev_hash))


# --- Exports -------------------------------------------------------------------------------------


def export_start(*, requested_by: AbstractBaseUser, export_format: str, audit_filter: AuditFilter) -> AuditExport:
    """Record an export of the filtered range, pinned to the current chain head, as an audit event.

    Small exports are streamed by the caller at once; larger ones are queued for a worker (the
    returned export is QUEUED) so no web request runs for minutes.
    """
    if export_format not in ExportFormat.values:
        raise ValueError(f"unknown export format {export_format!r}")
    # Counting a large range takes a while, so it runs without the chain lock: every case finish and every
    # decision appends to the chain, and none of them may wait for an export. No lock is needed to pin the
    # range either: appends commit in seq order (each one under the lock, after the one before it
    # committed), so once a head is visible every event up to it is, and the count up to it cannot change.
    head_seq, head_hash = chain_head_values()
    if export_format == ExportFormat.FIXTURES:
        total = decisions_for_fixtures(audit_filter).count()
    else:
        total = events_matching(audit_filter).filter(seq__lte=head_seq).count()
    streamed = total <= settings.AUDIT_EXPORT_STREAM_MAX_ROWS
    with transaction.atomic():
        # The export's own event takes the lock only for its append; events may land between the head the
        # export covers and this one, which is why the event records that head.
        export = AuditExport.objects.create(
            requested_by=requested_by,
            format=export_format,
            filters=audit_filter.as_json(),
            head_seq=head_seq,
            head_hash=head_hash,
            rows_total=total,
            status=ExportStatus.STREAMED if streamed else ExportStatus.QUEUED,
        )
        audit_record(
            actor=requested_by, action=AuditAction.EXPORT_CREATED, object_type="export", object_id=export.pk,
            payload={"format": export_format, "filters": export.filters, "head_seq": head_seq,
                     "head_hash": head_hash, "rows": total, "delivery": "stream" if streamed else "file"},
        )
        if not streamed:
            from reviewconsole.audit.tasks import run_export

            enqueue_on_commit(run_export, export.pk)
        return export


EXPORTS = work_claims.WorkKind(
    doing="writing the export",
    model=AuditExport,
    waiting=ExportStatus.QUEUED,
    running=ExportStatus.RUNNING,
    failed=ExportStatus.FAILED,
)
# Progress is written at most this often (rows): each write is an UPDATE, and a poll reads it.
PROGRESS_EVERY_ROWS = 10_000


def export_run(*, export_id: int) -> AuditExport | None:
    """Claim a queued export, write its file under AUDIT_EXPORT_DIR reporting progress, and mark it done.

    None when the export is not ours to run. The file is written under a temporary name and renamed
    once complete, so a download link never points at a half-written file; a failure removes it and
    fails the export with its reason.
    """
    # Imported here: the export formats read intake's rows, and intake writes to this audit trail.
    from reviewconsole.audit.exports import export_chunks, export_file_name, write_export

    claim = export_claim(export_id=export_id, now=timezone.now())
    if claim is None:
        return None
    with work_claims.settling(claim):
        export = AuditExport.objects.get(pk=export_id)
        directory = settings.AUDIT_EXPORT_DIR
        directory.mkdir(parents=True, exist_ok=True)
        file_name = export_file_name(export)
        partial = directory / f"{file_name}.part"
        reported = 0

        def progress(rows: int) -> None:
            nonlocal reported
            if rows - reported >= PROGRESS_EVERY_ROWS:
                export_progress(claim=claim, rows_done=rows)
                reported = rows

        try:
            chunks = export_chunks(export.format, AuditFilter.from_json(export.filters), export.head_seq)
            rows = write_export(chunks, partial, progress=progress)
            partial.rename(directory / file_name)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        if not work_claims.finish(
            claim, status=ExportStatus.DONE, now=timezone.now(), file_name=file_name, rows_done=rows
        ):
            return None
        export.refresh_from_db()
        return export
    return None


def export_claim(*, export_id: int, now: datetime) -> work_claims.Claim | None:
    """Take a queued export, or one whose run outlived the export's hard time limit (its worker died)."""
    deadline = now + task_hold(settings.AUDIT_EXPORT_TIME_LIMIT)
    return work_claims.claim(EXPORTS, work_id=export_id, now=now, deadline=deadline, rows_done=0)


def export_progress(*, claim: work_claims.Claim, rows_done: int) -> None:
    AuditExport.objects.filter(pk=claim.work_id, claim_token=claim.token).update(rows_done=rows_done)


def exports_sweep(*, now: datetime) -> list[int]:
    """File exports a worker lost (it died, or the message was lost): run again, or failed out of attempts."""
    from reviewconsole.audit.tasks import run_export

    lost = work_claims.sweep(EXPORTS, now=now, lost_after=timedelta(seconds=settings.STUCK_CASE_SECONDS))
    for export_id in lost:
        enqueue_on_commit(run_export, export_id)
    return lost
