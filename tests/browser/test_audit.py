"""A support lead in a real browser: filter the trail live, export a large range, read the metrics."""

from __future__ import annotations

import pytest

from reviewconsole.audit.models import AuditExport, ExportStatus
from reviewconsole.intake.services import client_create
from tests.browser.session import sign_in
from tests.reviewconsole.api.conftest import SUPPORTED_CASE
from tests.reviewconsole.audit.conftest import export_dir, history, run_case  # noqa: F401 (fixtures)

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
    # The payload opens in full, laid out, in place.
    payload = page.locator("#audit-results td.payload details")
    assert not payload.locator("pre").is_visible()
    payload.locator("summary").click()
    assert '"reason_code": "WRONG_FACTS"' in payload.locator("pre").inner_text()

    # A range that ends before it starts is refused in place, naming the field, instead of finding nothing.
    page.get_by_label("From").fill("2026-03-05T00:00")
    page.get_by_label("Until").fill("2026-03-01T00:00")
    page.get_by_role("alert").get_by_text("Until: must be later than From").wait_for()
    assert page.locator("#audit-results tbody tr").count() == 0 and page.evaluate("window.notReloaded") is True
    page.get_by_label("From").fill("")
    page.get_by_label("Until").fill("")
    page.get_by_text("Page 1 of 1 · 1 event").wait_for()

    page.get_by_role("button", name="JSON lines", exact=True).click()
    page.get_by_role("heading", name=f"Export {AuditExport.objects.get().pk}").wait_for()
    page.get_by_role("link", name="Download audit-export-").wait_for()
    export = AuditExport.objects.get()
    assert export.status == ExportStatus.DONE and export.filters == {"action": "decision.rejected"}

    page.get_by_role("link", name="Metrics").click()
    # The period's three charts, and the weekly series with something to draw (the decided cases').
    assert page.locator("figure.chart > svg").count() - page.locator("#trends figure.chart > svg").count() == 3
    assert page.locator("#trend-automation figure.chart > svg").count() == 1
    assert page.locator("#agreement-by-reason tbody tr").count() >= 1


def test_a_support_lead_opens_a_released_case_from_the_audit_search(page, support_lead):
    case = run_case(client_create(name="support-bot")[0], SUPPORTED_CASE)
    assert case.status == "RELEASED"
    sign_in(page, "sam")
    page.goto("/audit/cases/")
    page.get_by_role("link", name=f"#{case.pk}", exact=True).click()
    page.wait_for_url(f"**/audit/cases/{case.pk}/")
    assert case.final_answer[:60] in page.locator("#released-answer").inner_text()
    assert "Released" in page.locator("#case-status").inner_text()
    assert page.get_by_role("button", name="Approve").count() == 0
    assert page.get_by_role("button", name="Reject").count() == 0
    page.locator("#timeline details").first.click()
    assert "client" in page.locator("#timeline pre").first.inner_text()


def test_a_support_lead_finds_cases_by_ticket_and_by_words_of_the_question(page, support_lead, history):  # noqa: F811
    sign_in(page, "sam")
    page.goto("/audit/cases/?q=TICKET-2002")
    rows = page.locator("#audit-results tbody tr")
    assert rows.count() == 1 and f"#{history.released.pk}" in rows.first.inner_text()
    assert page.get_by_label("Search").input_value() == "TICKET-2002"

    # Typed into the box, the search runs in place and lands in the address, so it can be shared.
    page.get_by_label("Search").fill("")
    page.get_by_label("Search").press_sequentially("annual plan")
    page.wait_for_url("**/audit/cases/?*q=annual*plan*")
    page.get_by_text("Page 1 of 1 · 2 cases").wait_for()
    shown = page.locator("#audit-results tbody").inner_text()
    assert f"#{history.approved.pk}" in shown and f"#{history.rejected.pk}" in shown
    assert f"#{history.released.pk}" not in shown

    page.get_by_label("Search").fill("")
    page.get_by_label("Search").press_sequentially("no such words")
    page.get_by_text("No case matches these filters.").wait_for()
