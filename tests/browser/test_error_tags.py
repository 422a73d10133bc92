"""Error tags in a real headless Chromium: a reviewer tags kinds of error on a claim and on the answer by
keyboard, and the page logs no error on the way."""

from __future__ import annotations

import pytest

from reviewconsole.intake.services import client_create
from reviewconsole.review.models import ErrorTag
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import escalate_case, latest, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _wait_for_focus_in_menu(page) -> None:
    """The swapped tags settle with the focus back in their open menu (console.js)."""
    page.wait_for_function("() => document.activeElement?.closest('[data-tag-menu][open]') !== null")


def test_a_reviewer_tags_errors_by_keyboard(page, reviewer):
    case = escalate_case(client_create(name="support-bot")[0], refund_case())
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")

    page.keyboard.press("j")
    page.keyboard.press("t")  # the focused claim's menu opens; its digits now tag, not label
    page.keyboard.press("4")  # wrong-number, the default taxonomy's fourth kind
    page.locator('#tags-claim-0 [data-error-tag="wrong-number"]').wait_for()
    _wait_for_focus_in_menu(page)
    page.keyboard.press("1")  # the menu stayed open with the focus in it
    page.locator('#tags-claim-0 [data-error-tag="contradicts-source"]').wait_for()
    _wait_for_focus_in_menu(page)
    page.keyboard.press("4")  # again: taken away
    page.locator('#tags-claim-0 [data-error-tag="wrong-number"]').wait_for(state="detached")
    _wait_for_focus_in_menu(page)  # the swap has settled: no later focus lands back in the claim's menu
    page.keyboard.press("Escape")
    page.locator("#tags-claim-0 [data-tag-menu]:not([open])").wait_for(state="attached")

    page.keyboard.press("Escape")
    page.evaluate("() => document.activeElement?.blur()")
    page.keyboard.press("t")  # no claim focused: the answer's menu
    page.keyboard.press("5")
    page.locator('#tags-answer [data-error-tag="off-question"]').wait_for()

    claim = latest(case).claims.get(position=0)
    assert set(ErrorTag.objects.values_list("claim_id", "kind")) == {(claim.pk, "contradicts-source"),
                                                                      (None, "off-question")}
    assert not ErrorTag.objects.filter(kind="wrong-number").exists()
    assert not page.locator("#label-claim-0 .label").count()  # no digit was taken as a label
    assert errors == []
