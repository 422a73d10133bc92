"""The case page at a laptop's width: the claims are what a reviewer reads, so their column gets the room."""

from __future__ import annotations

import pytest

from reviewconsole.intake.services import client_create
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import escalate_case, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_at_1400_pixels_the_claim_column_is_wide_enough_to_read(page, reviewer):
    case = escalate_case(client_create(name="support-bot")[0], refund_case())
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")  # held: the label buttons and the comment link are in the row too
    page.wait_for_url(f"**/review/cases/{case.pk}/")

    widths = page.evaluate("""() => Array.from(document.querySelectorAll("#claims thead th"),
        (th) => [th.textContent.trim(), Math.round(th.getBoundingClientRect().width)])""")
    claim = page.locator("#claim-0 td").first
    lines = claim.locator("a").first.evaluate("a => a.getClientRects().length")
    text = claim.locator("a").first.inner_text()
    assert dict(widths)["Claim"] >= 380, widths
    # The label buttons sit in a column of their own width, not most of the row.
    assert dict(widths)["Your label"] <= dict(widths)["Claim"], widths
    assert page.locator("#claim-0 [data-label-form]").is_visible()
    assert lines <= 2, (lines, text)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400  # no sideways scrolling
