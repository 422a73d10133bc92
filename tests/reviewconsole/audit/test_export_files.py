"""An export's file holds the audit trail: readable by its owner alone, and removed after
AUDIT_EXPORT_RETENTION_HOURS, the export then showing that its file is gone."""

from __future__ import annotations

import os
import stat
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent, AuditExport, ExportStatus
from reviewconsole.audit.services import audit_record
from reviewconsole.embedded_beat import ENTRIES
from reviewconsole.support.selectors import AuditFilter
from reviewconsole.support.services import export_start
from reviewconsole.support.tasks import expire_exports
from tests.reviewconsole.audit.test_pages import signed_in

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def export_dir(settings, tmp_path):
    settings.AUDIT_EXPORT_DIR = tmp_path / "exports"
    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 0  # every export is written to a file
    return settings.AUDIT_EXPORT_DIR


@pytest.fixture
def permissive_umask():
    # A host whose umask lets every file be read by all: the export's own mode must not depend on it.
    before = os.umask(0)
    yield
    os.umask(before)


def _file_export(support_lead, django_capture_on_commit_callbacks, *, finished_ago: timedelta) -> AuditExport:
    """A file export written by its task, as if it finished `finished_ago`."""
    audit_record(actor="engine", action="case.received", object_type="case", object_id=1, payload={"n": 1})
    with django_capture_on_commit_callbacks(execute=True):
        export = export_start(requested_by=support_lead, export_format="jsonl", audit_filter=AuditFilter())
    export.refresh_from_db()
    assert export.status == ExportStatus.DONE
    AuditExport.objects.filter(pk=export.pk).update(finished_at=timezone.now() - finished_ago)
    return export


def test_an_export_file_is_readable_by_its_owner_alone(
    support_lead, export_dir, permissive_umask, django_capture_on_commit_callbacks
):
    export = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=timedelta(0))

    path = export_dir / export.file_name
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(export_dir.stat().st_mode) == 0o700
    assert path.read_text().count("\n") == export.rows_done


def test_a_file_past_the_retention_is_removed_and_the_export_says_so(
    client, support_lead, export_dir, django_capture_on_commit_callbacks
):
    old = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=169 * HOUR)
    recent = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=167 * HOUR)
    signed_in(client, support_lead)
    recent.refresh_from_db()
    kept_until = timezone.localtime(recent.finished_at + 168 * HOUR).strftime("%Y-%m-%d %H:%M")
    page = client.get(reverse("audit:export", args=[recent.pk])).content.decode()
    assert f"kept until {kept_until}, then removed" in page

    assert expire_exports.apply().get() == 1  # as celery beat (or the embedded one) runs it

    assert not (export_dir / old.file_name).exists() and (export_dir / recent.file_name).exists()
    old.refresh_from_db()
    recent.refresh_from_db()
    assert (old.status, recent.status) == (ExportStatus.EXPIRED, ExportStatus.DONE)
    page = client.get(reverse("audit:export", args=[old.pk])).content.decode()
    assert "Its file was removed once it was older than the retention period" in page and "Download" not in page
    download = client.get(reverse("audit:export_download", args=[old.pk]))
    assert download.status_code == 404
    assert "removed 168 hours after it was written: export the range again." in download.content.decode()
    assert "Expired: its file was removed" in client.get(reverse("audit:exports")).content.decode()
    event = AuditEvent.objects.get(action="export.expired")
    assert (event.actor, event.object_id) == ("system", str(old.pk))
    assert event.payload == {"file": old.file_name, "retention_hours": 168}
    # Nothing left to do on the next run.
    assert expire_exports.apply().get() == 0


def test_the_retention_setting_is_honoured(support_lead, export_dir, settings, django_capture_on_commit_callbacks):
    settings.AUDIT_EXPORT_RETENTION_HOURS = 1
    old = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=2 * HOUR)
    recent = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=HOUR / 2)

    expire_exports.apply()

    assert not (export_dir / old.file_name).exists() and (export_dir / recent.file_name).exists()


def test_a_file_already_gone_still_marks_its_export_expired(
    support_lead, export_dir, django_capture_on_commit_callbacks
):
    export = _file_export(support_lead, django_capture_on_commit_callbacks, finished_ago=200 * HOUR)
    (export_dir / export.file_name).unlink()

    assert expire_exports.apply().get() == 1
    export.refresh_from_db()
    assert export.status == ExportStatus.EXPIRED


def test_the_removal_runs_on_the_schedule_with_or_without_a_broker(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["audit-exports-expire"]
    assert entry["task"] == "audit.expire_exports" and entry["options"]["queue"] == "maintenance"
    assert entry["schedule"] <= 3600
    assert "audit-exports-expire" in ENTRIES  # the web process runs it where no celery beat does
