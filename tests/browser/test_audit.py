"""A support lead in a real browser: filter the trail live, export a large range, read the metrics."""

from __future__ import annotations

import pytest

from reviewconsole.audit.models import AuditExport, ExportStatus
from tests.browser.session import sign_in
from tests.reviewconsole.audit.conftest import export_dir, history  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



def test_a_support_lead_filters_exports_and_reads_metrics(page, support_lead, export_dir, history, settings):  # noqa: F811
    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 0  # every export goes through the task and its progress page
    sign_in(page, "sam")
    page.get_by_role("link", name="Audit", exact=True).click()
    page.evaluate("window.notReloaded = true")

    page.get_by_label("Action").select_option("decision.rejected")
    page.wait_for_url("**/audit/?*action=decision.rejected*")
    page.get_by_text("Page 1 of 1 · 1 event").wait_for()
    assert page.evaluate("window.notReloaded") is True  # htmx swapped the results in place
    assert page.locator("#audit-results tbody tr").count() == 1

    page.get_by_role("button", name="JSON lines", exact=True).click()
    page.get_by_role("heading", name=f"Export {AuditExport.objects.get().pk}").wait_for()
    page.get_by_role("link", name="Download audit-export-").wait_for()
    export = AuditExport.objects.get()
    assert export.status == ExportStatus.DONE and export.filters == {"action": "decision.rejected"}

    page.get_by_role("link", name="Metrics").click()
    assert page.locator("figure.chart svg").count() == 3
    assert page.locator("#agreement-by-reason tbody tr").count() >= 1
