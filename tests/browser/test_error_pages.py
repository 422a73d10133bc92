"""Error pages in a real browser: a refused page keeps the console's layout, navigation and the reason,
and the console's icon is where browsers look for it."""

from __future__ import annotations

import pytest

from tests.browser.session import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_opening_a_policy_page_sees_the_styled_refusal_with_navigation_and_reason(page, reviewer):
    sign_in(page, "rita")
    response = page.goto("/policy/rule-health/")

    assert response.status == 403
    assert page.get_by_role("heading", level=1).inner_text() == "You cannot open this page"
    assert page.get_by_text("Why: policy pages are for policy admins.").is_visible()
    navigation = page.get_by_role("navigation", name="Main")
    assert navigation.get_by_role("link", name="Queue").is_visible()
    assert navigation.get_by_role("link", name="Policy").count() == 0
    # Styled by the console's stylesheet, not Django's bare page: the top bar is the console's ink.
    assert page.locator("header.topbar").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(29, 35, 48)"

    # Headless Chromium fetches no icon by itself: ask for the one the page links and the one browsers guess.
    linked = page.locator("link[rel=icon]").get_attribute("href")
    for address in (linked, "/favicon.ico"):
        icon = page.request.get(address)
        assert icon.status == 200 and icon.body()[:4] == b"\x00\x00\x01\x00", address

    navigation.get_by_role("link", name="Queue").click()
    page.wait_for_url("**/review/")


def test_a_reviewer_opening_a_case_that_is_not_there_reads_why_in_the_consoles_words(page, reviewer):
    sign_in(page, "rita")
    response = page.goto("/review/cases/999999/")

    assert response.status == 404
    assert page.get_by_role("heading", level=1).inner_text() == "There is nothing here"
    reason = page.locator(".error-reason").inner_text()
    assert reason == "Why: there is no case at this address."  # any case opens, in review or not
    assert "Escalation" not in page.locator("main").inner_text()
