"""A reviewer's day on the main pages leaves the browser console clean: no error, no refused request, no
Content-Security-Policy violation, whatever the page swaps in."""

from __future__ import annotations

import pytest

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.services import client_create
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import EARNINGS_CASE, escalate_case, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _console_errors(page) -> list[str]:
    """Everything the browser reports as an error on `page` from now on: console errors (CSP refusals
    included), uncaught exceptions, and htmx's own error events (an aborted request among them)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(f"{message.type}: {message.text}")
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(f"exception: {error}"))
    # htmx reports an aborted request or a failed swap as events, and logs them only with its logger on.
    page.add_init_script("""
        for (const name of ["htmx:sendAbort", "htmx:sendError", "htmx:swapError", "htmx:responseError",
                            "htmx:targetError", "htmx:onLoadError", "htmx:historyCacheError"]) {
          document.addEventListener(name, (event) => console.error(name, event.detail?.elt?.id ?? ""));
        }
    """)
    return errors


def test_the_main_reviewer_pages_log_no_error(as_person, reviewer):
    api_client = client_create(name="support-bot")[0]
    refund = escalate_case(api_client, refund_case())
    escalate_case(api_client, EARNINGS_CASE)
    _user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD)
    rita = as_person("rita")
    errors = _console_errors(rita)

    # The queue: a search typed and sent with Enter (one request, not two), then a filter changed.
    rita.goto("/review/")
    rita.keyboard.press("/")
    rita.keyboard.type("refund")
    with rita.expect_response(lambda response: "q=refund" in response.url):
        rita.keyboard.press("Enter")
    rita.locator("#queue-results").get_by_text(f"#{refund.pk}").wait_for()
    with rita.expect_response(lambda response: "severity=CRITICAL" in response.url):
        rita.get_by_label("Severity").select_option("CRITICAL")
    rita.wait_for_load_state("networkidle")

    # The case: claim it, label a claim, comment on it, undo the label, and the keys help.
    rita.goto(f"/review/cases/{refund.pk}/")
    rita.get_by_role("button", name="Claim it").click()
    rita.wait_for_load_state("networkidle")
    rita.keyboard.press("j")
    rita.keyboard.press("1")
    rita.locator("#label-claim-0 [data-label]").wait_for()
    rita.keyboard.press("c")
    box = rita.locator("#comment-claim-0")
    box.fill("Checked the 30-day window against the plan's terms.")
    # Dragging the box's corner to make it taller gives it a style attribute (as this does): the swap must
    # not copy that attribute onto the new block, which the policy would refuse as an inline style.
    box.evaluate("box => { box.style.height = '6em' }")
    rita.keyboard.press("Control+Enter")
    rita.locator("#comments-claim-0 .comments li").wait_for()
    rita.locator("#label-claim-0 [data-label-undo] button").click()
    rita.locator("#label-claim-0 .label-none").wait_for()
    rita.keyboard.press("g")
    rita.keyboard.press("?")
    rita.keyboard.press("Escape")
    rita.wait_for_load_state("networkidle")

    # Decided, the next page carries the undo bar; then the reviewer's own decisions.
    rita.keyboard.press("r")
    rita.locator("#decide-reject textarea").fill("Wrong window.")
    rita.locator("#decide-reject").get_by_role("button", name="Reject").click()
    rita.wait_for_load_state("networkidle")
    rita.goto("/review/decisions/")
    rita.wait_for_load_state("networkidle")

    lena = as_person("lena")
    errors += _console_errors(lena)
    for address in ("/review/", "/review/adjudication/", "/review/team/", f"/review/cases/{refund.pk}/"):
        lena.goto(address)
        lena.wait_for_load_state("networkidle")

    assert errors == [], "\n".join(errors)
