"""Exports of the audit trail: pin a range, stream it or write its file, and bring back lost ones.

The rows (what an export covers, how far it got) are the audit app's, written through its services;
this module reads whatever the formats need (events, and for fixtures, decisions and cases).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit import services as audit
from reviewconsole.audit.models import AuditExport, ExportFormat
from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.audit.selectors import latest_tree_head
from reviewconsole.queues import enqueue_on_commit
from reviewconsole.support.exports import export_chunks, export_file_name, write_export
from reviewconsole.support.selectors import AuditFilter, decisions_for_fixtures, events_matching

# Progress is written at most this often (rows): each write is an UPDATE, and a poll reads it.
PROGRESS_EVERY_ROWS = 10_000


def export_start(*, requested_by: User, export_format: str, audit_filter: AuditFilter) -> AuditExport:
    """Record an export of the filtered range, pinned to a signed tree head, as an audit event.

    Small exports are streamed by the caller at once; larger ones are queued for a worker (the
    returned export is QUEUED) so no web request runs for minutes.
    """
    if export_format not in ExportFormat.values:
        raise ValueError(f"unknown export format {export_format!r}")
    # Seal first, so the export covers everything committed before it was asked, not only what the
    # periodic sealer reached. This waits for a sealer at work, never for a writer, and no writer waits
    # for it: appends take no lock. Nothing is locked while counting either: the events up to a signed
    # head are fixed (positions are given once, in the sealer's transaction with the head).
    log_seal_pending(wait=True, budget_seconds=5)
    head = latest_tree_head()
    tree_size, root_hash = (head.tree_size, head.root_hash) if head else (0, "")
    if export_format == ExportFormat.FIXTURES:
        total = decisions_for_fixtures(audit_filter).count()
    else:
        total = events_matching(audit_filter).filter(seq__lte=tree_size).count()
    streamed = total <= settings.AUDIT_EXPORT_STREAM_MAX_ROWS
    export = audit.export_record(
        requested_by=requested_by, export_format=export_format, filters=audit_filter.as_json(),
        tree_size=tree_size, root_hash=root_hash, total=total, streamed=streamed,
    )
    if not streamed:
        from reviewconsole.support.tasks import run_export

        enqueue_on_commit(run_export, export.pk)
    return export


def export_run(*, export_id: int) -> AuditExport | None:
    """Claim a queued export, write its file under AUDIT_EXPORT_DIR reporting progress, and mark it done.

    None when the export is not ours to run. The file is written under a temporary name and renamed
    once complete, so a download link never points at a half-written file; a failure removes it and
    fails the export with its reason.
    """
    claim = audit.export_claim(export_id=export_id, now=timezone.now())
    if claim is None:
        return None
    with work_claims.settling(claim):
        export = AuditExport.objects.get(pk=export_id)
        directory = settings.AUDIT_EXPORT_DIR
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        file_name = export_file_name(export)
        partial = directory / f"{file_name}.part"
        reported = 0

        def progress(rows: int) -> None:
            nonlocal reported
            if rows - reported >= PROGRESS_EVERY_ROWS:
                audit.export_progress(claim=claim, rows_done=rows)
                reported = rows

        try:
            chunks = export_chunks(export.format, AuditFilter.from_json(export.filters), export.tree_size)
            rows = write_export(chunks, partial, progress=progress)
            partial.rename(directory / file_name)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        if not audit.export_finish(claim=claim, file_name=file_name, rows_done=rows):
            return None
        export.refresh_from_db()
        return export
    return None


def exports_sweep(*, now: datetime) -> list[int]:
    """File exports a worker lost: sent to a worker again (those out of attempts are failed)."""
    from reviewconsole.support.tasks import run_export

    lost = audit.exports_lost(now=now)
    for export_id in lost:
        enqueue_on_commit(run_export, export_id)
    return lost


def exports_expire(*, now: datetime) -> list[int]:
    """Remove the files of exports older than AUDIT_EXPORT_RETENTION_HOURS, and mark each export expired.

    The file goes first: an export whose row could not be marked is marked on the next run, never left
    marked with its file still on disk.
    """
    expired = []
    for export in audit.exports_past_retention(now=now):
        if export.file_name:
            (settings.AUDIT_EXPORT_DIR / export.file_name).unlink(missing_ok=True)
        if audit.export_expire(export=export):
            expired.append(export.pk)
    return expired
