"""A large export on the real stack: Redis, a real Celery worker on the maintenance queue, PostgreSQL."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from reviewconsole.audit.models import AuditEvent, AuditExport, ExportStatus
from reviewconsole.audit.services import audit_record
from tests.reviewconsole.audit.test_pages import signed_in

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


def test_a_worker_writes_a_large_export_and_the_page_offers_the_download(
    client, support_lead, settings, live_broker, start_worker, tmp_path
):
    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 100
    settings.AUDIT_EXPORT_DIR = tmp_path / "exports"
    worker = start_worker(AUDIT_EXPORT_DIR=str(settings.AUDIT_EXPORT_DIR))
    for n in range(250):
        audit_record(actor="engine", action="case.received", object_type="case", object_id=n, payload={"n": n})

    response = signed_in(client, support_lead).post(reverse("audit:export_create"), {"format": "jsonl"})
    export = AuditExport.objects.get()
    assert response.status_code == 302 and export.rows_total == 250

    deadline = time.monotonic() + 60
    while AuditExport.objects.get().status in (ExportStatus.QUEUED, ExportStatus.RUNNING):
        assert time.monotonic() < deadline, worker.log()[-3000:]
        time.sleep(0.2)
    export.refresh_from_db()
    assert export.status == ExportStatus.DONE, (export.error, worker.log()[-3000:])
    assert export.rows_done == 250
    page = client.get(reverse("audit:export", args=[export.pk]))
    assert b"Download audit-export-" in page.content
    body = b"".join(client.get(reverse("audit:export_download", args=[export.pk])).streaming_content)
    assert len(body.splitlines()) == 250
    assert AuditEvent.objects.filter(action="export.created").count() == 1
