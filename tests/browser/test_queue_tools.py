"""The queue's tools in a real headless Chromium, by keyboard: search, sort and saved filters; skipping a held
case; a review lead's actions on several cases at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Escalation
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import EARNINGS_CASE, escalate_case, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]


@pytest.fixture
def two_cases(api_client):
    """The refund case (ticket-1001) on top of the queue; the earnings case below it, waiting longer."""
    refund, earnings = escalate_case(api_client, refund_case()), escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=refund).update(priority=999)
    Escalation.objects.filter(case=earnings).update(created_at=timezone.now() - timedelta(hours=3))
    return refund, earnings


def _rows(page) -> list[str]:
    return page.locator("[data-queue-row] a.open-case").all_inner_texts()


def test_a_reviewer_searches_sorts_and_saves_filters_by_keyboard(page, reviewer, two_cases):
    refund, earnings = two_cases
    sign_in(page, "rita")
    page.evaluate("window.__same_page = true")
    assert _rows(page) == [f"#{refund.pk}", f"#{earnings.pk}"]

    # `/` goes to the search box; Enter searches in place; Esc leaves the box so j/k work again.
    page.keyboard.press("/")
    search = page.get_by_label("Search")
    assert search.evaluate("e => e === document.activeElement")
    page.keyboard.type("ticket-1001")
    page.keyboard.press("Enter")
    page.wait_for_url("**/review/?*q=ticket-1001*")
    page.locator("#queue-results").get_by_text("1 of 1 open case").wait_for()
    assert _rows(page) == [f"#{refund.pk}"]
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    assert page.locator("tr.is-selected a.open-case").inner_text() == f"#{refund.pk}"

    # Words of the question find the other case; then clear the search.
    search.fill("Norrland quarter")
    search.press("Enter")
    page.wait_for_url("**/review/?*q=Norrland*")
    page.locator("[data-queue-row]").filter(has_text="Norrland").wait_for()
    assert _rows(page) == [f"#{earnings.pk}"]
    search.fill("")
    search.press("Enter")
    page.locator("#queue-results").get_by_text("2 of 2 open cases").wait_for()

    # The Waiting column sorts: longest waiting first, then (clicked again) most recent first.
    page.get_by_role("link", name="Waiting").click()
    page.wait_for_url("**/review/?*sort=waiting*")
    page.locator("th[aria-sort=descending]").get_by_text("Waiting").wait_for()
    assert _rows(page) == [f"#{earnings.pk}", f"#{refund.pk}"]
    # A filter changed after sorting keeps the order.
    page.get_by_label("Severity").select_option("CRITICAL")
    page.wait_for_url("**/review/?*severity=CRITICAL*")
    assert "sort=waiting" in page.url
    assert page.evaluate("window.__same_page") is True  # all swapped by htmx, not reloaded

    # Saved under a name, the search, filters and order come back in one keystroke and Enter.
    page.get_by_label("Name for these filters").fill("Critical, oldest first")
    page.get_by_role("button", name="Save filters").click()
    page.get_by_text("Saved these filters as “Critical, oldest first”.").wait_for()
    page.goto("/review/")
    assert _rows(page) == [f"#{refund.pk}", f"#{earnings.pk}"]
    page.keyboard.press("f")
    saved = page.get_by_role("navigation", name="Saved filters").get_by_role("link", name="Critical, oldest first")
    assert saved.evaluate("e => e === document.activeElement")
    page.keyboard.press("Enter")
    page.wait_for_url("**/review/?*sort=waiting*")
    assert _rows(page) == [f"#{earnings.pk}", f"#{refund.pk}"]
    assert page.get_by_label("Severity").input_value() == "CRITICAL"

    # The keys dialog documents the new keys.
    page.keyboard.press("?")
    keys = page.get_by_role("dialog").inner_text()
    assert "search the queue by ticket id" in keys and "go to your saved filters" in keys
    assert "skip the case you hold" in keys
    assert "select or clear the selected case" not in keys  # a lead's key: rita is not one


def test_a_reviewer_skips_the_held_case_with_s_and_is_not_served_it_straight_back(page, reviewer, two_cases):
    refund, earnings = two_cases
    sign_in(page, "rita")

    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{refund.pk}/")
    page.get_by_role("button", name="Skip to the next case").wait_for()
    page.keyboard.press("s")

    page.wait_for_url(f"**/review/cases/{earnings.pk}/")
    assert f"Skipped case {refund.pk}: it is back in the queue" in page.locator(".messages").inner_text()
    assert "You hold this case" in page.locator("#lease").inner_text()
    assert Escalation.objects.get(case=refund).holder is None

    # Skipping this one too: the refund case is not served back, so nothing is left for rita.
    page.keyboard.press("s")
    page.wait_for_url("**/review/")
    assert "No other case is waiting for you" in page.locator(".messages").inner_text()
    held = page.locator("[data-queue-row]").filter(has=page.locator(f'a[href="/review/cases/{refund.pk}/"]'))
    assert held.locator("td").last.inner_text() == "nobody"
    assert AuditEvent.objects.filter(action="escalation.skipped").count() == 2


def test_a_lead_selects_cases_by_keyboard_and_acts_on_them_together(page, two_cases):
    refund, earnings = two_cases
    _user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD)
    _user_with("ravi", Role.REVIEWER)
    sign_in(page, "lena")

    # j moves, x ticks the selected row, b goes to the actions on the ticked cases.
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("x")
    assert page.locator("input[data-bulk-select]:checked").count() == 2
    page.keyboard.press("b")
    reviewer_for = page.get_by_label("Reviewer for the selected cases")
    assert reviewer_for.evaluate("e => e === document.activeElement")
    reviewer_for.select_option(label="ravi")
    page.get_by_role("button", name="Assign selected", exact=True).click()

    page.get_by_text(f"Assigned cases #{refund.pk}, #{earnings.pk} to ravi.").wait_for()
    assigned = [row.locator("td").nth(-2).inner_text() for row in page.locator("[data-queue-row]").all()]
    assert assigned == ["ravi", "ravi"]

    # "Select every case on this page", then return them: assigned to nobody again.
    page.get_by_label("Select every case on this page").check()
    assert page.locator("input[data-bulk-select]:checked").count() == 2
    page.get_by_role("button", name="Return selected to the queue").click()
    page.get_by_text("to the queue: nobody holds them and they are assigned to nobody.").wait_for()
    assert not Escalation.objects.filter(assigned_to__isnull=False).exists()
    assert AuditEvent.objects.filter(action="escalation.returned").count() == 2

    # Nothing ticked: the refusal names the field.
    page.get_by_role("button", name="Unassign selected").click()
    page.get_by_text("cases: select at least one case").wait_for()


def test_a_reviewer_who_is_not_a_lead_has_no_bulk_actions(page, reviewer, two_cases):
    sign_in(page, "rita")
    page.keyboard.press("j")
    page.keyboard.press("x")
    assert page.locator("input[data-bulk-select]").count() == 0
    assert page.locator("#bulk-form").count() == 0
