"""Double review, adjudication and assignment in a real headless Chromium: two reviewers disagree and a
review lead decides; a case a lead assigned is served first to its assignee."""

from __future__ import annotations

import pytest

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import CaseStatus
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import Decision, DecisionKind, Escalation, EscalationStatus, Review
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import (
    EARNINGS_CASE,
    PLANS_CASE,
    default_policy_publish,
    escalate_case,
    refund_case,
)
from tests.reviewconsole.review.test_approval_rule import _failing_record
from verification import Case as Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]


@pytest.fixture
def second_reviewer(db):
    return _user_with("ravi", Role.REVIEWER)


@pytest.fixture
def lead(db):
    return _user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD)


def test_two_reviewers_disagree_and_a_lead_adjudicates(as_person, reviewer, second_reviewer, lead, api_client):
    default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])
    case = escalate_case(api_client, refund_case())

    # Rita approves: her approve is a review, and the case goes back to the queue.
    rita = as_person("rita")
    rita.keyboard.press("n")
    rita.wait_for_url(f"**/review/cases/{case.pk}/")
    rita.get_by_text("This case needs two independent reviews.").wait_for()
    assert rita.locator("#decide-edit").count() == 0
    assert "an edit would show the other reviewer your judgement" in rita.locator("#no-edit-note").inner_text()
    rita.keyboard.press("a")
    rita.get_by_label("Note (optional)").fill("Thirty days, as the policy says.")
    rita.keyboard.press("Control+Enter")
    rita.get_by_text(f"Your review of case {case.pk} is recorded.").wait_for()
    assert Review.objects.get().kind == DecisionKind.APPROVE and not Decision.objects.exists()

    # Ravi gets the same case from "Next case", sees nothing of Rita's review, and rejects.
    ravi = as_person("ravi")
    ravi.keyboard.press("n")
    ravi.wait_for_url(f"**/review/cases/{case.pk}/")
    assert "Thirty days" not in ravi.content() and "rita" not in ravi.content()
    ravi.keyboard.press("r")
    ravi.locator("#reject_reason_code").select_option("OFF_QUESTION")
    ravi.locator("#reject_note").fill("The customer bought it 40 days ago: this answer does not help.")
    ravi.keyboard.press("Control+Enter")
    ravi.get_by_text("The two reviews differ: a review lead decides the case.").wait_for()
    assert Escalation.objects.get(case=case).status == EscalationStatus.ADJUDICATION
    ravi.goto("/review/")
    assert ravi.locator(f'a.open-case[href="/review/cases/{case.pk}/"]').count() == 0

    # Lena, a review lead, finds it in the adjudication queue and sees both reviews side by side.
    lena = as_person("lena")
    lena.goto("/review/")
    lena.get_by_role("navigation", name="Main").get_by_role("link", name="Adjudication").click()
    lena.get_by_text("rita: approve · ravi: reject").wait_for()
    lena.locator(f'a.open-case[href="/review/cases/{case.pk}/"]').click()
    first, second = lena.locator(".review-compared").all()
    assert first.locator("h3").inner_text() == "rita: Approve" and second.locator("h3").inner_text() == "ravi: Reject"
    assert "Does not answer the question" in second.inner_text()
    first_box, second_box = first.bounding_box(), second.bounding_box()
    assert abs(first_box["y"] - second_box["y"]) < 2 and second_box["x"] > first_box["x"] + first_box["width"] - 1

    lena.keyboard.press("a")
    lena.get_by_label("Note (optional)").fill("The answer states the policy; the 40 days are for support.")
    lena.keyboard.press("Control+Enter")
    lena.get_by_text(f"Approved case {case.pk}.").wait_for()
    lena.get_by_text("No case waits for adjudication").wait_for()
    decision = Decision.objects.get()
    assert (decision.kind, decision.reviewer.username) == (DecisionKind.APPROVE, "lena")
    case.refresh_from_db()
    assert case.status == CaseStatus.RELEASED


def test_an_assigned_case_is_served_first_to_its_assignee(as_person, reviewer, second_reviewer, lead, api_client):
    refund = escalate_case(api_client, refund_case())
    earnings = escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=refund).update(priority=999)

    lena = as_person("lena")
    lena.goto(f"/review/cases/{earnings.pk}/")
    lena.get_by_label("Assign to").select_option(label="ravi")
    lena.get_by_role("button", name="Save assignment").click()
    lena.get_by_text(f"Case {earnings.pk} is assigned to ravi.").wait_for()
    assert Escalation.objects.get(case=earnings).assigned_to == second_reviewer

    # Ravi's "Next case" is his assigned case, though the refund case is higher in the queue.
    ravi = as_person("ravi")
    ravi.keyboard.press("n")
    ravi.wait_for_url(f"**/review/cases/{earnings.pk}/")
    assert "Assigned to ravi" in ravi.locator("#assignment").inner_text()
    # Rita's is the refund case; the queue shows who each case is assigned to and who holds it.
    rita = as_person("rita")
    rita.keyboard.press("n")
    rita.wait_for_url(f"**/review/cases/{refund.pk}/")
    rita.goto("/review/")
    row = rita.locator("[data-queue-row]").filter(has=rita.locator(f'a[href="/review/cases/{earnings.pk}/"]'))
    cells = row.locator("td").all_inner_texts()
    assert cells[-2:] == ["ravi", "ravi"]  # assigned to, held by
    rita.get_by_label("Assigned to").select_option(label="Me")
    rita.get_by_text("No open case matches these filters.").wait_for()


def test_labelling_failing_claims_supported_lifts_the_override_in_place(page, reviewer, api_client, monkeypatch):
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: _failing_record())
    case, _ = case_submit(client=api_client, submission=Submission.model_validate(PLANS_CASE))
    verify_case.apply(args=(case.pk,))
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")
    page.keyboard.press("a")
    warning = page.locator("#approval-warning")
    assert warning.inner_text().startswith("2 claims still fail and are not labelled supported")
    page.get_by_label("Override reason (required while claims fail)").fill("Checked by phone")

    page.locator("#label-claim-0").get_by_role("button", name="Supported").click()
    page.get_by_text("1 claim still fails and is not labelled supported").wait_for()
    # The reason typed so far survives the update.
    assert page.get_by_label("Override reason (required while claims fail)").input_value() == "Checked by phone"
    page.locator("#label-claim-1").get_by_role("button", name="Supported").click()
    warning.wait_for(state="detached")

    page.get_by_role("button", name="Approve c0").click()
    page.get_by_text(f"Approved case {case.pk}.").wait_for()
    # Every failing claim is labelled supported: approved without an override.
    assert Decision.objects.get().override_reason == ""


def test_a_lead_cannot_adjudicate_a_disagreement_they_took_part_in_and_my_decisions_lists_reviews(
    as_person, reviewer, lead, api_client
):
    default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])
    case = escalate_case(api_client, refund_case())

    rita = as_person("rita")
    rita.keyboard.press("n")
    rita.wait_for_url(f"**/review/cases/{case.pk}/")
    rita.keyboard.press("r")
    rita.locator("#reject_reason_code").select_option("WRONG_FACTS")
    rita.locator("#reject_note").fill("Sixty days contradicts the policy.")
    rita.keyboard.press("Control+Enter")
    rita.get_by_text(f"Your review of case {case.pk} is recorded.").wait_for()

    # Rita's review is in "My decisions", with where the case is now.
    rita.get_by_role("navigation", name="Main").get_by_role("link", name="My decisions").click()
    assert rita.locator("#my-decisions tbody tr").count() == 1
    row = _my_decisions_row(rita)
    assert row["Case"].startswith(f"#{case.pk}") and row["Decision"] == "Reject independent review"
    assert (row["Reason"], row["Note"], row["Case now"]) == (
        "Facts contradict the sources", "Sixty days contradicts the policy.", "Open"
    )

    # Lena, a lead who reviews too, approves: the reviews disagree, and she is one side of it.
    lena = as_person("lena")
    lena.keyboard.press("n")
    lena.wait_for_url(f"**/review/cases/{case.pk}/")
    lena.keyboard.press("a")
    lena.get_by_label("Note (optional)").fill("Thirty days, as the policy says.")
    lena.keyboard.press("Control+Enter")
    lena.get_by_text("The two reviews differ: a review lead decides the case.").wait_for()
    lena.goto("/review/adjudication/")
    lena.get_by_text("yours: another lead decides").wait_for()
    lena.locator(f'a.open-case[href="/review/cases/{case.pk}/"]').click()
    lena.locator("#reviews-compared").wait_for()
    assert "another review lead adjudicates this case" in lena.locator("#adjudication-note").inner_text()
    assert "one of the reviews is yours" in lena.locator("#own-disagreement").inner_text()
    assert lena.locator("#decide-approve, #decide-reject, #decide-edit, [data-label-form]").count() == 0
    lena.keyboard.press("a")  # the approve key finds nothing to open
    assert lena.locator("#decide-approve").count() == 0
    assert Escalation.objects.get(case=case).status == EscalationStatus.ADJUDICATION
    assert not Decision.objects.exists()

    rita.reload()
    assert _my_decisions_row(rita)["Case now"] == "Reviewers disagree"


def _my_decisions_row(page) -> dict[str, str]:
    """The first row of "My decisions", by column heading."""
    headings = page.locator("#my-decisions thead th").all_inner_texts()
    cells = page.locator("#my-decisions tbody tr").first.locator("td").all_inner_texts()
    return dict(zip(headings, cells, strict=True))
