"""The reviewer's console in a real headless Chromium: keyboard, evidence, edit, approve, leases, escaping."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import Decision, Escalation
from reviewconsole.review.services import decisions as review_decisions
from reviewconsole.review.services.queue_counts import queue_counts_rebuild
from reviewconsole.review.tasks import verify_edit
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import EARNINGS_CASE, PLANS_CASE, escalate_case, gate_record, refund_case
from verification import Case as Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "console.png"
FIXED_ANSWER = (
    "Annual plans can be refunded in full within 30 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days."
)


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]



def test_reviewer_takes_a_case_edits_it_approves_and_lands_on_the_next(
    page, reviewer, api_client, monkeypatch, tmp_path
):
    # Hold the re-verification back, as a busy worker would, to see the page pick up its result.
    held_back: list[int] = []
    monkeypatch.setattr(review_decisions, "enqueue_on_commit", lambda task, pk: held_back.append(pk))
    refund = escalate_case(api_client, refund_case())
    earnings = escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=refund).update(priority=999)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")

    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{refund.pk}/")
    page.get_by_role("heading", name="Can I get a refund on my annual plan?").wait_for()
    assert "You hold this case" in page.locator("#lease").inner_text()

    # The client's version: the refuted claim, in colour and in words, linked to its evidence span.
    page.get_by_role("link", name="c0", exact=True).click()
    refuted_row = page.locator("tr.state-refuted")
    assert "Refuted" in refuted_row.locator(".state").inner_text()
    refuted_row.locator("a.evidence-link").first.click()
    evidence = page.locator("mark:target")
    assert evidence.inner_text() == "Annual plans can be refunded in full within 30 days of purchase."
    assert "state-refuted" in evidence.get_attribute("class")
    assert evidence.evaluate("e => getComputedStyle(e).backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")

    # Edit: `e` opens the form with the answer in a labelled field; the worker verifies the edit again.
    page.keyboard.press("e")
    answer = page.get_by_label("Edited answer")
    assert answer.evaluate("e => e === document.activeElement")
    answer.fill(FIXED_ANSWER)
    page.get_by_role("button", name="Save and verify again").click()
    page.get_by_text("Waiting for a worker").wait_for()
    assert page.locator("#decide-approve button[type=submit]").is_disabled()
    verify_edit.apply(args=(held_back.pop(),))
    page.get_by_text("Re-verification done").wait_for()  # the htmx poll saw it and reloaded the page
    assert re.search(r"Re-verification done: Cleared for release", page.locator("#edit-status").inner_text())
    assert page.locator("tr.state-refuted").count() == 0
    assert page.locator("#diff tr.change-changed").filter(has_text="Refuted").count() == 1
    # The README's screenshot is this very screen; refresh it with UPDATE_SCREENSHOTS=1.
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOT if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path / "case.png"))

    # Approve with `a`: the next case opens.
    page.keyboard.press("a")
    page.get_by_role("button", name="Approve c2").click()
    page.wait_for_url(f"**/review/cases/{earnings.pk}/")
    page.get_by_role("heading", name="How did Norrland Freight do in the third quarter?").wait_for()
    assert f"Approved case {refund.pk}." in page.locator(".messages").inner_text()
    refund.refresh_from_db()
    assert refund.final_answer == FIXED_ANSWER


def test_a_second_session_cannot_claim_or_decide_the_held_case(browser, live_server, page, reviewer, api_client):
    case = escalate_case(api_client, refund_case())
    other = User.objects.create_user(username="ravi", password="ravi-password")
    other.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")
    assert page.locator("#decide-approve").count() == 1  # the holder's controls

    second = browser.new_context(base_url=live_server.url).new_page()
    try:
        sign_in(second, "ravi")
        second.keyboard.press("n")
        second.get_by_text("No case is waiting").wait_for()
        second.goto(f"/review/cases/{case.pk}/")
        assert "Held by rita" in second.locator("#lease").inner_text()
        assert "rita is deciding this case" in second.locator(".decide").inner_text()
        # No decision to start: no buttons, and the keys open nothing.
        for name in ("Approve c1", "Save and verify again", "Reject"):
            assert second.get_by_role("button", name=name).count() == 0
        for key in ("a", "e", "r"):
            second.keyboard.press(key)
        assert second.locator("details[id^=decide-]").count() == 0
        assert second.locator("textarea:visible").count() == 1  # the note's
        assert second.get_by_label("Add a note").is_visible()
    finally:
        second.context.close()
    assert Escalation.objects.get(case=case).holder.username == "rita"
    assert not Decision.objects.exists()


def test_queue_keys_move_open_and_explain_themselves(page, reviewer, api_client):
    first = escalate_case(api_client, refund_case())
    second = escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=first).update(priority=999)
    sign_in(page, "rita")

    page.keyboard.press("?")
    assert page.get_by_role("dialog").is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    page.keyboard.press("j")
    selected = page.locator("tr.is-selected a.open-case")
    assert selected.inner_text() == f"#{second.pk}"
    # The focus ring is visible on the selected row's link.
    assert selected.evaluate("e => getComputedStyle(e).outlineStyle") != "none"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/review/cases/{second.pk}/")


def test_filters_update_counts_without_a_reload(page, reviewer, api_client):
    escalate_case(api_client, refund_case())
    earnings = escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=earnings).update(severity="MODERATE")
    queue_counts_rebuild()  # the row was written around the review services, which keep the counts
    sign_in(page, "rita")
    page.evaluate("window.__same_page = true")

    page.get_by_label("Severity").select_option("MODERATE")
    page.wait_for_url("**/review/?*severity=MODERATE*")
    page.locator("#queue-results").get_by_text("1 open case").wait_for()

    assert page.evaluate("window.__same_page") is True  # swapped by htmx, not reloaded
    assert page.locator("[data-queue-row]").count() == 1


def test_script_in_a_claim_renders_as_text(page, reviewer, api_client):
    body = refund_case(
        answer="You can request a full refund within 60 days <script>window.__xss = 1</script> of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days."
    )
    case = escalate_case(api_client, body)
    sign_in(page, "rita")

    page.goto(f"/review/cases/{case.pk}/?version=c0")

    assert page.evaluate("window.__xss") is None
    assert "<script>window.__xss = 1</script>" in page.locator("tr.state-refuted td").first.inner_text()


def test_a_held_back_claim_says_so_and_its_evidence_link_reaches_the_one_sentence_it_cites(
    page, reviewer, api_client, monkeypatch
):
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: gate_record())
    case, _ = case_submit(client=api_client, submission=Submission.model_validate(PLANS_CASE))
    verify_case.apply(args=(case.pk,))
    sign_in(page, "rita")

    page.goto(f"/review/cases/{case.pk}/")

    assert page.locator("#release-gate").inner_text().startswith("1 supported claim scored below the release bar")
    held = page.locator("tr.held-back")
    assert held.count() == 1 and held.locator(".tag.held-back").is_visible()
    assert "0.42" in held.inner_text() and "held back" in held.inner_text()
    assert "covers phone support" in held.inner_text()
    held.locator("a.evidence-link").click()
    assert page.locator("mark:target").inner_text() == "Phone support is included with the Team plan."
    # Only what the claims cite is marked: the sentence about tax stays plain.
    assert page.locator(".source-text mark").all_inner_texts() == [
        "The Team plan costs $20 per user per month.", "Phone support is included with the Team plan."
    ]
