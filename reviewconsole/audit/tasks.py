"""Tasks over export ids: write a large export to a file, reporting progress as it goes."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone

from reviewconsole.audit import services
from reviewconsole.audit.exports import export_chunks, write_export
from reviewconsole.audit.models import AuditExport, ExportFormat
from reviewconsole.audit.selectors import AuditFilter
from reviewconsole.celery import app

logger = logging.getLogger(__name__)

# Progress is written at most this often (rows): each write is an UPDATE, and a poll reads it.
PROGRESS_EVERY_ROWS = 10_000
_SUFFIX = {ExportFormat.CSV: "csv", ExportFormat.JSONL: "jsonl", ExportFormat.FIXTURES: "fixtures.jsonl"}


def export_file_name(export: AuditExport) -> str:
    return f"audit-export-{export.pk}.{_SUFFIX[export.format]}"


@app.task(
    name="audit.export",
    time_limit=settings.AUDIT_EXPORT_TIME_LIMIT,
    soft_time_limit=settings.AUDIT_EXPORT_TIME_LIMIT - 60,
)
def run_export(export_id: int) -> None:
    """Claim the export, write its file under AUDIT_EXPORT_DIR, mark it done. A no-op if it is not queued."""
    if not services.export_claim(export_id=export_id, now=timezone.now()):
        logger.info("export %s is not queued (done, failed or running elsewhere); nothing to do", export_id)
        return
    export = AuditExport.objects.get(pk=export_id)
    file_name = export_file_name(export)
    directory = settings.AUDIT_EXPORT_DIR
    directory.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name, so a download link never points at a half-written file.
    partial = directory / f"{file_name}.part"
    reported = 0

    def progress(rows: int) -> None:
        nonlocal reported
        if rows - reported >= PROGRESS_EVERY_ROWS:
            services.export_progress(export_id=export_id, rows_done=rows)
            reported = rows

    try:
        chunks = export_chunks(export.format, AuditFilter.from_json(export.filters), export.head_seq)
        rows = write_export(chunks, partial, progress=progress)
        partial.rename(directory / file_name)
    except Exception as error:
        logger.exception("export %s failed", export_id)
        partial.unlink(missing_ok=True)
        services.export_fail(export_id=export_id, error=f"{type(error).__name__}: {error}", now=timezone.now())
        return
    services.export_finish(export_id=export_id, file_name=file_name, rows_done=rows, now=timezone.now())
