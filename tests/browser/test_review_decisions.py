"""Deciding a case in a real headless Chromium: the approve override, and room to edit the answer."""

from __future__ import annotations

import pytest

from reviewconsole.intake.models import Candidate, Case
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision, DecisionKind
from reviewconsole.review.services import decisions as review_decisions
from reviewconsole.review.tasks import verify_edit
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import PLANS_CASE, escalate_case, gate_record, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]


@pytest.fixture
def held_refund(page, reviewer, api_client) -> Case:
    """Rita holds the refund case, its page open."""
    case = escalate_case(api_client, refund_case())
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")
    return case


def test_approving_failing_claims_is_blocked_in_the_browser_until_a_reason_is_written(
    page, held_refund, monkeypatch
):
    held_back: list[int] = []
    monkeypatch.setattr(review_decisions, "enqueue_on_commit", lambda task, pk: held_back.append(pk))
    # The client's own answer, refuted claim and all, as the reviewer's edit.
    page.keyboard.press("e")
    page.get_by_label("Edited answer").fill(Candidate.objects.get(case=held_refund, candidate_id="c0").text)
    page.get_by_role("button", name="Save and verify again").click()
    page.get_by_text("Waiting for a worker").wait_for()
    verify_edit.apply(args=(held_back.pop(),))
    page.get_by_text("Re-verification done").wait_for()

    # Ctrl+Enter from the note, with no override reason: the browser keeps the form and says why.
    page.keyboard.press("a")
    page.get_by_label("Note (optional)").fill("Checked with the customer.")
    page.keyboard.press("Control+Enter")
    reason = page.get_by_label("Override reason (required while claims fail)")
    assert reason.evaluate("e => e.matches(':invalid') && e.validationMessage !== ''")
    page.wait_for_timeout(300)  # a post, had one gone out, would have been answered by now
    assert page.url.endswith(f"/review/cases/{held_refund.pk}/#current")
    assert not Decision.objects.filter(kind=DecisionKind.APPROVE).exists()

    reason.fill("The customer was promised 60 days by phone.")
    page.keyboard.press("Control+Enter")
    page.get_by_text(f"Approved case {held_refund.pk}.").wait_for()
    decision = Decision.objects.get(kind=DecisionKind.APPROVE)
    assert (decision.candidate.candidate_id, decision.override_reason, decision.note) == (
        "c2", "The customer was promised 60 days by phone.", "Checked with the customer."
    )


def test_the_editor_is_as_wide_as_the_answer_and_the_notes_scroll_with_the_page(page, held_refund):
    page.keyboard.press("e")
    editor = page.get_by_label("Edited answer")
    answer = page.locator("#current .answer")

    assert editor.evaluate("e => e === document.activeElement")
    editor_box, answer_box = editor.bounding_box(), answer.bounding_box()
    assert editor_box["width"] >= answer_box["width"] - 2 and editor_box["width"] > 600
    assert editor_box["y"] > answer_box["y"]  # under the answer
    assert editor_box["height"] >= 200

    # The notes form is reached by scrolling the page: no box of its own hides it below a fold.
    note = page.get_by_label("Add a note")
    hidden_by = note.evaluate("""e => {
        for (let box = e.parentElement; box; box = box.parentElement) {
            const overflow = getComputedStyle(box).overflowY;
            const scrolls = overflow === "auto" || overflow === "scroll";
            if (scrolls && box.scrollHeight > box.clientHeight) return box.className;
        }
        return null;
    }""")
    assert hidden_by is None
    page.evaluate("window.scrollTo(0, 0)")
    note.click()  # Playwright scrolls the page to it and clicks where a person would
    page.keyboard.type("Customer called twice.")
    page.get_by_role("button", name="Add note").click()
    page.locator("#notes").get_by_text("Customer called twice.").wait_for()


def test_approving_a_claim_labelled_refuted_shows_the_conflict_and_needs_a_reason(page, reviewer, api_client,
                                                                                  monkeypatch):
    # Both claims supported by the engine, held back only by the release gate.
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: gate_record())
    case = escalate_case(api_client, PLANS_CASE)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")
    page.keyboard.press("a")
    assert page.locator("#approval-warning").count() == 0

    page.locator("#label-claim-0").get_by_role("button", name="Refuted").click()
    warning = page.locator("#approval-warning")
    warning.wait_for()
    assert warning.inner_text() == ("You labelled “The Team plan costs $20 per user per month.” refuted: approving "
                                    "needs a written reason.")

    # Without a reason the browser keeps the form; with one, the approval goes through and says it overrode.
    page.get_by_role("button", name="Approve c0").click()
    reason = page.get_by_label("Override reason (required while claims fail)")
    assert reason.evaluate("e => e.matches(':invalid')")
    page.wait_for_timeout(300)
    assert not Decision.objects.exists()
    reason.fill("The customer holds a written quote at this price.")
    page.get_by_role("button", name="Approve c0").click()
    page.get_by_text(f"Approved case {case.pk}.").wait_for()
    assert Decision.objects.get().override_reason == "The customer holds a written quote at this price."
